/* Bounded UDP sender for the live-capture throughput benchmark: sends COUNT copies of a
 * realistic mDNS announcement (PTR+SRV+TXT+A, compressed) from SRC to 224.0.0.251:5353 at
 * RATE packets/s (0: as fast as possible), and stops after COUNT packets or SECONDS,
 * whichever comes first. Prints "sent N in S s".
 * usage: udp_sender SRC_IPV4 COUNT RATE SECONDS */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s SRC COUNT RATE SECONDS\n", argv[0]); return 2; }
    long count = atol(argv[2]);
    double rate = atof(argv[3]), limit = atof(argv[4]);
    static const unsigned char msg[] = {
        0, 0, 0x84, 0, 0, 0, 0, 4, 0, 0, 0, 0,
        /* 12: _http._tcp.local PTR Bench._http._tcp.local */
        5, '_', 'h', 't', 't', 'p', 4, '_', 't', 'c', 'p', 5, 'l', 'o', 'c', 'a', 'l', 0,
        0, 12, 0, 1, 0, 0, 0x11, 0x94, 0, 8, 5, 'B', 'e', 'n', 'c', 'h', 0xC0, 12,
        /* 46: Bench._http._tcp.local SRV 0 0 8080 bench.local */
        0xC0, 40, 0, 33, 0x80, 1, 0, 0, 0, 120, 0, 14, 0, 0, 0, 0, 0x1F, 0x90,
        5, 'b', 'e', 'n', 'c', 'h', 0xC0, 23,
        /* TXT path=/ */
        0xC0, 40, 0, 16, 0x80, 1, 0, 0, 0x11, 0x94, 0, 7, 6, 'p', 'a', 't', 'h', '=', '/',
        /* bench.local A 10.211.0.2 */
        0xC0, 66, 0, 1, 0x80, 1, 0, 0, 0, 120, 0, 4, 10, 211, 0, 2,
    };
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct in_addr src;
    inet_pton(AF_INET, argv[1], &src);
    unsigned char ttl = 255;
    setsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, 1);
    setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &src, sizeof src);
    int yes = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons(5353), .sin_addr = src};
    bind(s, (struct sockaddr *)&me, sizeof me);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(5353)};
    inet_pton(AF_INET, "224.0.0.251", &to.sin_addr);
    double start = now();
    long sent = 0;
    while (sent < count && now() - start < limit) {
        if (rate > 0) {
            double due = start + sent / rate;
            while (now() < due) { }
        }
        if (sendto(s, msg, sizeof msg, 0, (struct sockaddr *)&to, sizeof to) == (ssize_t)sizeof msg) sent++;
    }
    printf("sent %ld in %.3f s\n", sent, now() - start);
    return 0;
}
