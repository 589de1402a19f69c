#!/usr/bin/python3
"""Sends, from inside a test namespace, one SSDP alive with CACHE-CONTROL: max-age=3 and one
mDNS announcement of a DNS-SD instance (PTR, SRV, TXT and A, TTL 2), then nothing: live
capture's timer must report SSDP-521 and MDNS-522 a few seconds later, while the capture
still runs. Prints the time it sent them (seconds since the epoch).
Usage: send_silence.py SOURCE_IPV4"""
import socket
import struct
import sys
import time

src = sys.argv[1]
uuid = "5e1e0ce0-0000-4000-8000-000000000521"
alive = (
    "NOTIFY * HTTP/1.1\r\n"
    "HOST: 239.255.255.250:1900\r\n"
    "CACHE-CONTROL: max-age=3\r\n"
    f"LOCATION: http://{src}:8200/rootDesc.xml\r\n"
    "NT: upnp:rootdevice\r\n"
    "NTS: ssdp:alive\r\n"
    "SERVER: Linux/6.1 UPnP/1.1 silence-test/1.0\r\n"
    f"USN: uuid:{uuid}::upnp:rootdevice\r\n"
    "BOOTID.UPNP.ORG: 1\r\n"
    "CONFIGID.UPNP.ORG: 1\r\n"
    "\r\n"
).encode()


def name(text):
    out = b""
    for label in text.split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\x00"


def record(owner, rtype, rdata, ttl, flush):
    rclass = 1 | (0x8000 if flush else 0)
    return name(owner) + struct.pack("!HHIH", rtype, rclass, ttl, len(rdata)) + rdata


instance = "Silent._http._tcp.local"
records = [
    record("_http._tcp.local", 12, name(instance), 2, False),
    record(instance, 33, struct.pack("!HHH", 0, 0, 80) + name("silent.local"), 2, True),
    record(instance, 16, b"\x06path=/", 2, True),
    record("silent.local", 1, socket.inet_aton(src), 2, True),
]
announcement = struct.pack("!HHHHHH", 0, 0x8400, 0, len(records), 0, 0) + b"".join(records)

ssdp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ssdp.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
ssdp.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
ssdp.bind((src, 1900))
mdns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
mdns.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
mdns.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
mdns.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
mdns.bind((src, 5353))
sent = time.time()
ssdp.sendto(alive, ("239.255.255.250", 1900))
mdns.sendto(announcement, ("224.0.0.251", 5353))
ssdp.close()
mdns.close()
print(f"{sent:.6f}")
