#ifndef DISCOSCOPE_CPCAP_SHIM_H
#define DISCOSCOPE_CPCAP_SHIM_H
/* The only C in DiscoScope: libpcap, plus zlib to read gzip-compressed captures the way
 * Wireshark does (tcpdump cannot). Everything here is a thin wrapper for what Swift cannot
 * call directly (macros, function-pointer structs). */
#include <pcap/pcap.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/ioctl.h>
#include <net/if.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

static inline int discoscope_pcap_errbuf_size(void) { return PCAP_ERRBUF_SIZE; }

/* Whether interface `name` is up, asked through socket `fd` (any socket of its network
 * namespace): 1 up, 0 down, -1 when it cannot be asked (gone, or a pseudo-interface such as
 * "any"). libpcap in non-blocking mode does not report an interface that went down. */
static inline int discoscope_interface_is_up(int fd, const char *name) {
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) return -1;
    return (ifr.ifr_flags & IFF_UP) != 0;
}

/* Clears every capability of the calling thread: ambient, then effective, permitted and
 * inheritable (capset(2), version 3: two 32-bit words per set). A live capture that is not
 * root but holds CAP_NET_RAW/CAP_NET_ADMIN (systemd's AmbientCapabilities=, setcap) calls it
 * once its handles are open, before it starts any other thread: threads inherit the
 * capabilities of the thread that makes them. 0 on success. The structures are spelt out
 * here rather than taken from <linux/capability.h>, which would clash with the C library's
 * headers in Swift's module. */
struct discoscope_cap_header { unsigned int version; int pid; };
struct discoscope_cap_data { unsigned int effective, permitted, inheritable; };
static inline int discoscope_drop_capabilities(void) {
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return -1;
    struct discoscope_cap_header header = { 0x20080522, 0 };
    struct discoscope_cap_data data[2];
    memset(data, 0, sizeof data);
    return (int)syscall(SYS_capset, &header, data);
}

/* Drops what a FILE* still buffers (after a failed write, so closing it does not write a
 * partial record after the file was cut back to its last whole one). */
extern void __fpurge(FILE *stream);
static inline void discoscope_discard_buffer(FILE *f) { __fpurge(f); }

/* glibc's fopencookie, declared here because defining _GNU_SOURCE in this header would
 * change libc's struct layouts against Swift's Glibc module. Same ABI as
 * cookie_io_functions_t (four function pointers). */
typedef struct {
    ssize_t (*read)(void *cookie, char *buf, size_t size);
    ssize_t (*write)(void *cookie, const char *buf, size_t size);
    int (*seek)(void *cookie, long long *offset, int whence);
    int (*close)(void *cookie);
} discoscope_cookie_io_functions;
extern FILE *fopencookie(void *cookie, const char *mode, discoscope_cookie_io_functions io);

/* A gzip stream read through a FILE* (glibc fopencookie), so libpcap's pcap_fopen_offline can
 * read .pcap.gz / .pcapng.gz and compressed standard input without a temporary file. zlib
 * passes data that is not gzip through unchanged, so any stream (a pipe, a FIFO, a device)
 * can be read this way without peeking at it first.
 *
 * libpcap reports a failed read with strerror(errno), which says nothing about zlib's reason
 * (a bad CRC showed as a stale "Inappropriate ioctl for device"): the stream keeps zlib's own
 * message for the caller, and how far it got in the compressed and decompressed data (for
 * progress). It is freed when libpcap closes the FILE*. */
typedef struct {
    gzFile gz;
    int failed;              /* zlib reported an error (message holds it) */
    char message[160];
    long long expanded;      /* decompressed bytes delivered */
} discoscope_gz_stream;

static ssize_t discoscope_gz_read(void *cookie, char *buf, size_t size) {
    discoscope_gz_stream *s = (discoscope_gz_stream *)cookie;
    unsigned int n = size > 0x40000000u ? 0x40000000u : (unsigned int)size;
    int r = gzread(s->gz, buf, n);
    int code = Z_OK;
    const char *why = gzerror(s->gz, &code);
    /* Z_BUF_ERROR at the end: the compressed stream stops early (a cut file). */
    if (r < 0 || (code != Z_OK && code != Z_STREAM_END)) {
        if (!s->failed) {
            s->failed = 1;
            snprintf(s->message, sizeof s->message, "%s", why != NULL && why[0] != 0 ? why : "gzip stream error");
        }
        if (r <= 0) {
            errno = EIO;
            return -1;
        }
    }
    if (r > 0) s->expanded += r;
    return r;
}
static int discoscope_gz_close(void *cookie) {
    discoscope_gz_stream *s = (discoscope_gz_stream *)cookie;
    int rc = gzclose(s->gz) == Z_OK ? 0 : -1;
    free(s);
    return rc;
}

/* Opens `path` (or descriptor `fd` when fd >= 0, which the stream then owns) as a
 * decompressing stream; NULL on failure. `*stream` is set to its state, valid until the FILE*
 * is closed. */
static inline FILE *discoscope_gz_fopen(const char *path, int fd, discoscope_gz_stream **stream) {
    gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : gzopen(path, "rb");
    if (gz == NULL) return NULL;
    gzbuffer(gz, 1 << 17);
    discoscope_gz_stream *s = (discoscope_gz_stream *)calloc(1, sizeof *s);
    if (s == NULL) {
        gzclose(gz);
        return NULL;
    }
    s->gz = gz;
    discoscope_cookie_io_functions io = { discoscope_gz_read, NULL, NULL, discoscope_gz_close };
    FILE *f = fopencookie(s, "rb", io);
    if (f == NULL) {
        gzclose(gz);
        free(s);
        return NULL;
    }
    if (stream != NULL) *stream = s;
    return f;
}

/* Compressed bytes read so far (for progress). */
static inline long long discoscope_gz_offset(discoscope_gz_stream *s) { return (long long)gzoffset(s->gz); }

/* A zlib stream (RFC 1950) for the HTML report's data block, which the page inflates with the
 * browser's DecompressionStream("deflate"). deflateInit is a macro. */
static inline int discoscope_deflate_init(z_stream *z, int level) {
    memset(z, 0, sizeof *z);
    return deflateInit(z, level);
}

#endif
