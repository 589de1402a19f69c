#!/usr/bin/python3
"""Sends real and crafted discovery traffic from inside a test namespace (bounded: a few
dozen packets within ~3 s), for discoscope's live-capture end-to-end test.

Real: python3-zeroconf registers and unregisters one service (probes, announcements,
goodbyes). Crafted, each with one known violation:
  - SSDP M-SEARCH with MX: 10 from a UPnP/1.1 control point          -> SSDP-104
  - SSDP NOTIFY ssdp:alive with bare LF line endings                   -> SSDP-005
  - mDNS multicast response with ID 0x1234                            -> MDNS-102
Usage: send_discovery.py SOURCE_IPV4"""
import socket
import struct
import sys
import time

from zeroconf import ServiceInfo, Zeroconf

src = sys.argv[1]


def udp_multicast(payload, group, port, sport=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2 if port == 1900 else 255)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
    s.bind((src, sport))
    s.sendto(payload, (group, port))
    s.close()


msearch = (b"M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\n"
           b"MX: 10\r\nST: ssdp:all\r\nUSER-AGENT: Linux/6.1 UPnP/1.1 discoscope-e2e/1.0\r\n\r\n")
udp_multicast(msearch, "239.255.255.250", 1900)

notify = (b"NOTIFY * HTTP/1.1\nHOST: 239.255.255.250:1900\nCACHE-CONTROL: max-age=1800\n"
          b"LOCATION: http://" + src.encode() + b":8080/desc.xml\nNT: upnp:rootdevice\nNTS: ssdp:alive\n"
          b"SERVER: Linux/6.1 UPnP/1.1 discoscope-e2e/1.0\n"
          b"USN: uuid:4d696e69-444c-164e-9d41-b827eb00e2e0::upnp:rootdevice\n"
          b"BOOTID.UPNP.ORG: 1\nCONFIGID.UPNP.ORG: 1\n\n")
udp_multicast(notify, "239.255.255.250", 1900, 1900)


def name(text):
    out = b""
    for label in text.strip(".").split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\x00"


answer = name("e2e-host.local") + struct.pack("!HHIH", 1, 0x8001, 120, 4) + socket.inet_aton(src)
nsec = name("e2e-host.local") + struct.pack("!HHIH", 47, 0x8001, 120, 0) 
nsec_rdata = name("e2e-host.local") + b"\x00\x01\x40"
nsec = name("e2e-host.local") + struct.pack("!HHIH", 47, 0x8001, 120, len(nsec_rdata)) + nsec_rdata
response = struct.pack("!HHHHHH", 0x1234, 0x8400, 0, 1, 0, 1) + answer + nsec
udp_multicast(response, "224.0.0.251", 5353, 5353)

zc = Zeroconf(interfaces=[src])
info = ServiceInfo("_http._tcp.local.", "DiscoScope E2E._http._tcp.local.", addresses=[socket.inet_aton(src)],
                   port=8080, properties={"path": "/"}, server="dse2e.local.")
zc.register_service(info)
time.sleep(0.5)
zc.unregister_service(info)
zc.close()
print("sent")
