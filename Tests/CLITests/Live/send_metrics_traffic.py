#!/usr/bin/python3
"""Sends SSDP and mDNS announcements from inside a test namespace for discoscope's metrics
test (bounded: two packets a second for SECONDS seconds, a few dozen in all).

  - SSDP root device STEADY_UUID: NOTIFY ssdp:alive, CACHE-CONTROL: max-age=5, every second;
  - SSDP root device QUIT_UUID: the same for the first QUIT_AFTER seconds only, then silent
    (no byebye): its max-age runs out;
  - mDNS host steady-host.local.: an address record with TTL 120, every second;
  - mDNS host quitting-host.local.: one address record with TTL 3, once, in a response whose
    ID is 0x1234 (MDNS-102, an error finding).
Usage: send_metrics_traffic.py SOURCE_IPV4 SECONDS QUIT_AFTER"""
import socket
import struct
import sys
import time

src = sys.argv[1]
seconds = int(sys.argv[2])
quit_after = int(sys.argv[3])
STEADY_UUID = "2fac1234-31f8-11b4-a222-08002b34c003"
QUIT_UUID = "2fac1234-31f8-11b4-a222-08002b34c004"


def udp_multicast(payload, group, port, sport):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2 if port == 1900 else 255)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
    s.bind((src, sport))
    s.sendto(payload, (group, port))
    s.close()


def notify(uuid, port):
    return ("NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nCACHE-CONTROL: max-age=5\r\n"
            "LOCATION: http://%s:%d/desc.xml\r\nNT: upnp:rootdevice\r\nNTS: ssdp:alive\r\n"
            "SERVER: Linux/6.1 UPnP/1.1 discoscope-metrics/1.0\r\n"
            "USN: uuid:%s::upnp:rootdevice\r\nBOOTID.UPNP.ORG: 1\r\nCONFIGID.UPNP.ORG: 1\r\n\r\n"
            % (src, port, uuid)).encode()


def name(text):
    out = b""
    for label in text.rstrip(".").split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\x00"


def address_response(host, ttl, ident):
    header = struct.pack(">HHHHHH", ident, 0x8400, 0, 1, 0, 0)
    answer = name(host) + struct.pack(">HHIH", 1, 0x8001, ttl, 4) + socket.inet_aton(src)
    return header + answer


udp_multicast(address_response("quitting-host.local.", 3, 0x1234), "224.0.0.251", 5353, 5353)
for second in range(seconds):
    udp_multicast(notify(STEADY_UUID, 8080), "239.255.255.250", 1900, 1900)
    if second < quit_after:
        udp_multicast(notify(QUIT_UUID, 8081), "239.255.255.250", 1900, 1900)
    udp_multicast(address_response("steady-host.local.", 120, 0), "224.0.0.251", 5353, 5353)
    time.sleep(1)
