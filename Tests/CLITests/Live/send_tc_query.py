#!/usr/bin/python3
"""Sends one mDNS query with the TC bit (more Known-Answers to follow) and no continuation,
from inside a test namespace: live capture's timer must report MDNS-511 about half a second
later, while the capture still runs. Usage: send_tc_query.py SOURCE_IPV4"""
import socket
import struct
import sys

src = sys.argv[1]
question = b"\x04_ipp\x04_tcp\x05local\x00" + struct.pack("!HH", 12, 1)
payload = struct.pack("!HHHHHH", 0, 0x0200, 1, 0, 0, 0) + question
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
s.bind((src, 5353))
s.sendto(payload, ("224.0.0.251", 5353))
s.close()
