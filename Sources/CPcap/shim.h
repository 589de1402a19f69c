#ifndef DISCOSCOPE_CPCAP_SHIM_H
#define DISCOSCOPE_CPCAP_SHIM_H
#include <pcap/pcap.h>
#include <stdio.h>

/* PCAP_ERRBUF_SIZE is a macro Swift cannot import as a constant of the right type. */
static inline int discoscope_pcap_errbuf_size(void) { return PCAP_ERRBUF_SIZE; }
#endif
