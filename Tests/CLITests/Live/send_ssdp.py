#!/usr/bin/python3
"""Sends COUNT SSDP M-SEARCH datagrams to 239.255.255.250:1900 from ADDRESS (run inside a test
namespace; the multicast stays on its veth link). Standard library only."""
import socket
import sys

address, count = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(address))
message = (b"M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\n"
           b"MX: 2\r\nST: ssdp:all\r\nUSER-AGENT: Linux/6.1 UPnP/1.1 test/1.0\r\n\r\n")
for _ in range(count):
    s.sendto(message, ("239.255.255.250", 1900))
