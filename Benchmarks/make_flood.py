#!/usr/bin/env python3
"""Deterministic state-flood capture for DiscoScope's bounded session state (standard library
only). Writes classic pcap, Ethernet, microsecond, three floods interleaved packet by packet:

  * M-SEARCHes from distinct endpoints (each a new source address and port),
  * mDNS responses each announcing a distinct host name (`fNNNNNNN.local. A`, cache-flush),
  * SSDP alive NOTIFYs each with a distinct USN (a new device UUID each).

Every table the session model and the stateful rules keep is offered a new key per packet, so
each must hit its cap, evict and count. Benchmarks/state-flood.sh compares the analyzer on it
with an ordinary capture of the same size (Benchmarks/make_capture.py).

usage: make_flood.py -o FILE [--searches 1000000] [--names 500000] [--usns 200000] [--rate 10000]
"""
import argparse
import os
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_capture import eth, ipv4_udp  # noqa: E402  (the benchmark's one frame builder)

SSDP_MAC = bytes.fromhex("01005e7ffffa")
MDNS_MAC = bytes.fromhex("01005e0000fb")
SSDP_GROUP = bytes([239, 255, 255, 250])
MDNS_GROUP = bytes([224, 0, 0, 251])


def source(k):
    """A distinct address in 10.0.0.0/8 and a MAC for the k-th sender."""
    a = bytes([10, (k >> 16) & 0xFF, (k >> 8) & 0xFF, (k & 0xFF) or 1])
    return a, bytes([0x02, 0x46, (k >> 24) & 0xFF, (k >> 16) & 0xFF, (k >> 8) & 0xFF, k & 0xFF])


def msearch(k):
    return (
        "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 2\r\n"
        f"ST: urn:schemas-upnp-org:device:MediaRenderer:1\r\nUSER-AGENT: Flood/1.0 UPnP/1.1 Bench/{k}\r\n\r\n"
    ).encode()


def notify(k, ip):
    u = f"{k:08x}-f100-4d00-8000-{k:012x}"
    host = ".".join(str(b) for b in ip)
    return (
        "NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nCACHE-CONTROL: max-age=1800\r\n"
        f"LOCATION: http://{host}:8080/desc.xml\r\nNT: upnp:rootdevice\r\nNTS: ssdp:alive\r\n"
        "SERVER: Linux/6.1 UPnP/1.1 Flood/1.0\r\n"
        f"USN: uuid:{u}::upnp:rootdevice\r\nBOOTID.UPNP.ORG: 1\r\nCONFIGID.UPNP.ORG: 1\r\n\r\n"
    ).encode()


def mdns_answer(k, ip):
    label = f"f{k:07d}".encode()
    name = bytes([len(label)]) + label + b"\x05local\x00"
    rr = name + struct.pack("!HHIH", 1, 0x8001, 120, 4) + ip
    return struct.pack("!HHHHHH", 0, 0x8400, 0, 1, 0, 0) + rr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", required=True)
    ap.add_argument("--searches", type=int, default=1_000_000)
    ap.add_argument("--names", type=int, default=500_000)
    ap.add_argument("--usns", type=int, default=200_000)
    ap.add_argument("--rate", type=int, default=10_000, help="packets per second of capture time")
    a = ap.parse_args()
    total = a.searches + a.names + a.usns
    # Interleaved in proportion: packet n belongs to the flood that is furthest behind.
    done = [0, 0, 0]
    want = [a.searches, a.names, a.usns]
    t0 = 1_700_000_000
    with open(a.o, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        for n in range(total):
            kind = min(range(3), key=lambda i: (done[i] / want[i]) if want[i] else 2.0)
            k = done[kind]
            done[kind] += 1
            if kind == 0:
                ip, mac = source(k)
                frame = eth(mac, SSDP_MAC, 0x0800, ipv4_udp(ip, SSDP_GROUP, 1024 + k % 60000, 1900, msearch(k), ttl=2))
            elif kind == 1:
                ip, mac = source(k + (1 << 22))
                frame = eth(mac, MDNS_MAC, 0x0800, ipv4_udp(ip, MDNS_GROUP, 5353, 5353, mdns_answer(k, ip)))
            else:
                ip, mac = source(k + (1 << 23))
                frame = eth(mac, SSDP_MAC, 0x0800, ipv4_udp(ip, SSDP_GROUP, 1900, 1900, notify(k, ip), ttl=2))
            us = n * 1_000_000 // a.rate
            f.write(struct.pack("<IIII", t0 + us // 1_000_000, us % 1_000_000, len(frame), len(frame)) + frame)


if __name__ == "__main__":
    main()
