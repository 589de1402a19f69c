#!/usr/bin/python3
"""Sends COUNT SSDP M-SEARCH datagrams numbered FIRST, FIRST+1, ... (ST: urn:seq:N) to
239.255.255.250:1900 from ADDRESS, GAP seconds apart: each packet can be found again in the
files a rotating capture wrote. Run inside a test namespace; standard library only."""
import socket
import sys
import time

address, first, count, gap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(address))
for n in range(first, first + count):
    message = (b"M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\n"
               b"MX: 2\r\nST: urn:seq:%d\r\nUSER-AGENT: Linux/6.1 UPnP/1.1 test/1.0\r\n\r\n" % n)
    s.sendto(message, ("239.255.255.250", 1900))
    if gap > 0:
        time.sleep(gap)
