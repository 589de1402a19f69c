#ifndef DISCOSCOPE_CPCAP_SHIM_H
#define DISCOSCOPE_CPCAP_SHIM_H
/* The only C in DiscoScope: libpcap, plus zlib to read gzip-compressed captures the way
 * Wireshark does (tcpdump cannot). Everything here is a thin wrapper for what Swift cannot
 * call directly (macros, function-pointer structs). */
#include <pcap/pcap.h>
#include <stdio.h>
#include <sys/types.h>
#include <zlib.h>

static inline int discoscope_pcap_errbuf_size(void) { return PCAP_ERRBUF_SIZE; }

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

/* A FILE* that reads gzip-decompressed bytes (glibc fopencookie), so libpcap's
 * pcap_fopen_offline can read .pcap.gz / .pcapng.gz without a temporary file. */
static ssize_t discoscope_gz_read(void *cookie, char *buf, size_t size) {
    unsigned int n = size > 0x40000000u ? 0x40000000u : (unsigned int)size;
    int r = gzread((gzFile)cookie, buf, n);
    return r < 0 ? -1 : (ssize_t)r;
}
static int discoscope_gz_close(void *cookie) { return gzclose((gzFile)cookie) == Z_OK ? 0 : -1; }

/* Opens `path` (or standard input when fd >= 0) as a decompressing stream; NULL on failure. */
static inline FILE *discoscope_gz_fopen(const char *path, int fd) {
    gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : gzopen(path, "rb");
    if (gz == NULL) return NULL;
    gzbuffer(gz, 1 << 17);
    discoscope_cookie_io_functions io = { discoscope_gz_read, NULL, NULL, discoscope_gz_close };
    FILE *f = fopencookie(gz, "rb", io);
    if (f == NULL) gzclose(gz);
    return f;
}

/* The last zlib error on a stream opened above is not reachable from a FILE*; libpcap
 * reports short reads itself ("truncated dump file"), which is what users need. */
#endif
