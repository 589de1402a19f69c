#!/usr/bin/python3
"""Sends a few crafted discovery datagrams from ADDRESS inside a test namespace, for the
live test of a capture on several interfaces (each link gets its own). Standard library only;
every message carries one known violation, and names LABEL so each link's traffic differs:
  - SSDP M-SEARCH with MX: 10 from a UPnP/1.1 control point          -> SSDP-104
  - SSDP NOTIFY ssdp:alive with bare LF line endings                   -> SSDP-005
  - mDNS multicast response with ID 0x1234 (A and NSEC for LABEL.local) -> MDNS-102
Usage: send_segment.py SOURCE_IPV4 LABEL"""
import socket
import struct
import sys
import time

src, label = sys.argv[1], sys.argv[2]


def udp_multicast(payload, group, port, sport):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2 if port == 1900 else 255)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
    s.bind((src, sport))
    s.sendto(payload, (group, port))
    s.close()


def name(text):
    out = b""
    for part in text.strip(".").split("."):
        out += bytes([len(part)]) + part.encode()
    return out + b"\x00"


msearch = (b"M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\n"
           b"MX: 10\r\nST: ssdp:all\r\nUSER-AGENT: Linux/6.1 UPnP/1.1 " + label.encode() + b"/1.0\r\n\r\n")
udp_multicast(msearch, "239.255.255.250", 1900, 0)
time.sleep(0.05)
uuid = {"lan": "4d696e69-444c-164e-9d41-b827eb00e2e1"}.get(label, "4d696e69-444c-164e-9d41-b827eb00e2e2")
notify = (b"NOTIFY * HTTP/1.1\nHOST: 239.255.255.250:1900\nCACHE-CONTROL: max-age=1800\n"
          b"LOCATION: http://" + src.encode() + b":8080/desc.xml\nNT: upnp:rootdevice\nNTS: ssdp:alive\n"
          b"SERVER: Linux/6.1 UPnP/1.1 " + label.encode() + b"/1.0\n"
          b"USN: uuid:" + uuid.encode() + b"::upnp:rootdevice\n"
          b"BOOTID.UPNP.ORG: 1\nCONFIGID.UPNP.ORG: 1\n\n")
udp_multicast(notify, "239.255.255.250", 1900, 1900)
time.sleep(0.05)
host = label + "-host.local"
answer = name(host) + struct.pack("!HHIH", 1, 0x8001, 120, 4) + socket.inet_aton(src)
nsec_rdata = name(host) + b"\x00\x01\x40"
nsec = name(host) + struct.pack("!HHIH", 47, 0x8001, 120, len(nsec_rdata)) + nsec_rdata
response = struct.pack("!HHHHHH", 0x1234, 0x8400, 0, 1, 0, 1) + answer + nsec
udp_multicast(response, "224.0.0.251", 5353, 5353)
print("sent")
