#!/usr/bin/env python3
"""A deliberately broken UPnP device for the `probe` test (runs inside a test namespace).

usage: broken_upnp.py ADDRESS SECONDS

It announces a root device (uuid BROKEN) of type BinaryLight:1 with a SwitchPower:1 service,
and serves its description on ADDRESS:8080/desc.xml, but:
  * the description's UDN is another UUID (SSDP-603) and its service has no controlURL
    (SSDP-605);
  * an ssdp:all search is answered with the root and UUID responses only: the device type
    and the service type it announces are missing (SSDP-505);
  * upnp:rootdevice searches and unicast searches are never answered.
It announces its set at start again on the first multicast search (and on one after 5 s without
announcing), and once more 7 s after that: it is still there when its unicast searches went
unanswered (SSDP-519).
A second root device (uuid REDIRECT) announces a LOCATION that answers 302 to an address off
the link (SSDP-601: probe reports the redirect and never follows it).
It only answers on the interface of ADDRESS and exits after SECONDS.
"""
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

ADDR = sys.argv[1]
SECONDS = float(sys.argv[2])
UUID = "b0b0b0b0-0000-4000-8000-00000000b0b0"
WRONG = "deadbeef-0000-4000-8000-00000000dead"
REDIRECT = "c0c0c0c0-0000-4000-8000-00000000c0c0"
DEVICE = "urn:schemas-upnp-org:device:BinaryLight:1"
SERVICE = "urn:schemas-upnp-org:service:SwitchPower:1"
LOCATION = "http://%s:8080/desc.xml" % ADDR
SERVER = "Linux/6.1 UPnP/1.1 broken-light/1.0"

DESCRIPTION = """<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0">
  <specVersion><major>1</major><minor>1</minor></specVersion>
  <device>
    <deviceType>%s</deviceType>
    <friendlyName>Broken Light</friendlyName>
    <UDN>uuid:%s</UDN>
    <serviceList>
      <service>
        <serviceType>%s</serviceType>
        <serviceId>urn:upnp-org:serviceId:SwitchPower</serviceId>
        <SCPDURL>/scpd.xml</SCPDURL>
        <eventSubURL>/evt</eventSubURL>
      </service>
    </serviceList>
  </device>
</root>
""" % (DEVICE, WRONG, SERVICE)


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/moved.xml":
            self.send_response(302)
            self.send_header("Location", "http://198.51.100.7/desc.xml")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = DESCRIPTION.encode()
        self.send_response(200)
        self.send_header("Content-Type", 'text/xml; charset="utf-8"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def usn(nt):
    return "uuid:%s" % UUID if nt.startswith("uuid:") else "uuid:%s::%s" % (UUID, nt)


NTS = ["upnp:rootdevice", "uuid:" + UUID, DEVICE, SERVICE]


def notify(sock):
    for nt in NTS:
        msg = (
            "NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nCACHE-CONTROL: max-age=1800\r\n"
            "LOCATION: %s\r\nNT: %s\r\nNTS: ssdp:alive\r\nSERVER: %s\r\nUSN: %s\r\n"
            "BOOTID.UPNP.ORG: 1\r\nCONFIGID.UPNP.ORG: 1\r\n\r\n" % (LOCATION, nt, SERVER, usn(nt))
        )
        sock.sendto(msg.encode(), ("239.255.255.250", 1900))
    msg = (
        "NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nCACHE-CONTROL: max-age=1800\r\n"
        "LOCATION: http://%s:8080/moved.xml\r\nNT: upnp:rootdevice\r\nNTS: ssdp:alive\r\nSERVER: %s\r\n"
        "USN: uuid:%s::upnp:rootdevice\r\nBOOTID.UPNP.ORG: 1\r\nCONFIGID.UPNP.ORG: 1\r\n\r\n" % (ADDR, SERVER, REDIRECT)
    )
    sock.sendto(msg.encode(), ("239.255.255.250", 1900))


def response(st):
    return (
        "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nEXT:\r\nLOCATION: %s\r\nSERVER: %s\r\n"
        "ST: %s\r\nUSN: %s\r\nBOOTID.UPNP.ORG: 1\r\nCONFIGID.UPNP.ORG: 1\r\n\r\n" % (LOCATION, SERVER, st, usn(st))
    ).encode()


def main():
    http = HTTPServer((ADDR, 8080), Handler)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("0.0.0.0", 1900))
    mreq = struct.pack("4s4s", socket.inet_aton("239.255.255.250"), socket.inet_aton(ADDR))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(ADDR))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
    notify(sock)
    sock.settimeout(0.2)
    end = time.time() + SECONDS
    last_announce = 0.0  # the first search always brings the set again
    reannounce_at = None  # and the set is announced again 7 s after that (still alive)
    while time.time() < end:
        if reannounce_at is not None and time.time() >= reannounce_at:
            reannounce_at = None
            notify(sock)
        try:
            data, peer = sock.recvfrom(2048)
        except socket.timeout:
            continue
        text = data.decode("latin-1")
        if not text.startswith("M-SEARCH"):
            continue
        st = ""
        host = ""
        for line in text.split("\r\n"):
            name, _, value = line.partition(":")
            if name.strip().upper() == "ST":
                st = value.strip()
            if name.strip().upper() == "HOST":
                host = value.strip()
        if not host.startswith("239.255.255.250"):
            continue  # unicast searches: never answered
        if st == "ssdp:all":
            time.sleep(0.1)
            for s in ["upnp:rootdevice", "uuid:" + UUID]:
                sock.sendto(response(s), peer)
        if time.time() - last_announce > 5:
            # A searcher is here after a quiet while: announce the whole set again.
            last_announce = time.time()
            reannounce_at = last_announce + 7
            notify(sock)
    http.shutdown()


if __name__ == "__main__":
    main()
