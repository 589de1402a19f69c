#!/usr/bin/env python3
"""Deterministic generator of a realistic discovery-traffic capture for DiscoScope's
benchmark (no dependencies beyond Python 3). Writes classic pcap, Ethernet, microsecond.

Mix (by packet): ~48 % mDNS — browse queries (some QU, some with known answers), probes,
announcements/responses with PTR+SRV+TXT+A+AAAA+NSEC using name compression, goodbyes;
~42 % SSDP — M-SEARCH, unicast 200 OK responses (some from ephemeral ports), NOTIFY
alive/byebye bursts; ~10 % unrelated (TCP, DNS on 53, NTP, LLMNR). IPv4 and IPv6. A few
percent of devices carry a conformance flaw (bare LF, MX 10, query ID != 0, TTL 64).
Same arguments, same bytes.

usage: make_capture.py -n 300000 -o /tmp/bench.pcap [--seed 7] [--devices 2000]
"""
import argparse
import os
import random
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in captures/
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "captures"))
from make_fixtures import csum  # noqa: E402  (the one Internet checksum of the repo's generators)


def eth(src_mac, dst_mac, ethertype, payload):
    return dst_mac + src_mac + struct.pack("!H", ethertype) + payload


def ipv4_udp(src, dst, sport, dport, payload, ttl=255):
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, ttl, 17, 0, src, dst)
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + udp


def ipv6_udp(src, dst, sport, dport, payload, hop=255):
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    pseudo = src + dst + struct.pack("!IxxxB", len(udp), 17)
    c = csum(pseudo + udp) or 0xFFFF
    udp = udp[:6] + struct.pack("!H", c) + udp[8:]
    return struct.pack("!IHBB", 0x60000000, len(udp), 17, hop) + src + dst + udp


def name(text, table=None, offset=0):
    """Encodes a name, compressing against `table` (suffix -> offset) when given."""
    labels = text.strip(".").split(".")
    out = b""
    for i in range(len(labels)):
        suffix = ".".join(labels[i:]).lower()
        if table is not None and suffix in table:
            return out + struct.pack("!H", 0xC000 | table[suffix])
        if table is not None and offset + len(out) < 0x3FFF:
            table[suffix] = offset + len(out)
        lab = labels[i].encode()
        out += bytes([len(lab)]) + lab
    return out + b"\0"


class DNS:
    def __init__(self, ident=0, flags=0x8400):
        self.ident, self.flags = ident, flags
        self.body = b""
        self.table = {}
        self.counts = [0, 0, 0, 0]

    def q(self, n, t, qu=False):
        self.body += name(n, self.table, 12 + len(self.body)) + struct.pack("!HH", t, 1 | (0x8000 if qu else 0))
        self.counts[0] += 1

    def rr(self, sec, n, t, rdata_fn, ttl=120, flush=True):
        self.body += name(n, self.table, 12 + len(self.body))
        start = 12 + len(self.body) + 10
        rdata = rdata_fn(start)
        self.body += struct.pack("!HHIH", t, 1 | (0x8000 if flush else 0), ttl, len(rdata)) + rdata
        self.counts[sec] += 1

    def bytes(self):
        return struct.pack("!HHHHHH", self.ident, self.flags, *self.counts) + self.body


SERVICES = ["_http._tcp", "_ipp._tcp", "_airplay._tcp", "_raop._tcp", "_googlecast._tcp", "_spotify-connect._tcp",
            "_hap._tcp", "_smb._tcp", "_companion-link._tcp", "_printer._tcp"]
DEVICE_TYPES = ["urn:schemas-upnp-org:device:MediaServer:1", "urn:schemas-upnp-org:device:MediaRenderer:1",
                "urn:schemas-upnp-org:device:InternetGatewayDevice:2", "urn:dial-multiscreen-org:device:dial:1"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=300000)
    ap.add_argument("-o", required=True)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--devices", type=int, default=2000)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    devices = []
    for i in range(a.devices):
        v4 = bytes([192, 168, (i >> 8) & 0xFF, (i & 0xFF) or 1])
        v6 = bytes.fromhex("fe80000000000000") + struct.pack("!Q", 0x0200_5eff_fe00_0000 + i)
        mac = struct.pack("!HI", 0x0200, i)
        host = "dev-%04d.local" % i
        svc = SERVICES[i % len(SERVICES)]
        inst = "Device %d.%s.local" % (i, svc)
        uuid = "4d696e69-444c-164e-9d41-%012x" % i
        flaw = rnd.random() < 0.06
        devices.append(dict(v4=v4, v6=v6, mac=mac, host=host, svc=svc + ".local", inst=inst, uuid=uuid, flaw=flaw,
                            dtype=DEVICE_TYPES[i % len(DEVICE_TYPES)]))
    mdns4, mdns6 = bytes([224, 0, 0, 251]), bytes.fromhex("ff0200000000000000000000000000fb")
    ssdp4, ssdp6 = bytes([239, 255, 255, 250]), bytes.fromhex("ff02000000000000000000000000000c")
    mmac4, mmac6, smac4 = bytes.fromhex("01005e0000fb"), bytes.fromhex("3333000000fb"), bytes.fromhex("01005e7ffffa")
    cache = {}

    def announce(d):
        k = ("ann", d["uuid"])
        if k not in cache:
            m = DNS()
            m.rr(1, d["svc"], 12, lambda o: name(d["inst"], m.table, o), ttl=4500, flush=False)
            m.rr(1, d["inst"], 33, lambda o: struct.pack("!HHH", 0, 0, 8080) + name(d["host"], m.table, o + 6))
            m.rr(1, d["inst"], 16, lambda o: b"\x09txtvers=1\x0bmodel=Bench\x06path=/", ttl=4500)
            m.rr(3, d["host"], 1, lambda o: d["v4"])
            m.rr(3, d["host"], 28, lambda o: d["v6"])
            m.rr(3, d["host"], 47, lambda o: name(d["host"], m.table, o) + b"\x00\x04\x40\x00\x00\x08")
            cache[k] = m.bytes()
        return cache[k]

    def query(d):
        k = ("q", d["svc"], d["flaw"])
        if k not in cache:
            m = DNS(ident=0x1234 if d["flaw"] else 0, flags=0)
            m.q(d["svc"], 12, qu=rnd.random() < 0.3)
            m.rr(1, d["svc"], 12, lambda o: name(d["inst"], m.table, o), ttl=3000, flush=False)
            cache[k] = m.bytes()
        return cache[k]

    def msearch(d):
        mx = b"10" if d["flaw"] else b"3"
        return (b"M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: " + mx
                + b"\r\nST: " + d["dtype"].encode() + b"\r\nUSER-AGENT: Linux/6.1 UPnP/1.1 bench/1.0\r\n\r\n")

    def notify(d, nts=b"ssdp:alive"):
        eol = b"\n" if d["flaw"] else b"\r\n"
        ip = ".".join(map(str, d["v4"])).encode()
        alive = nts == b"ssdp:alive"
        lines = [b"NOTIFY * HTTP/1.1", b"HOST: 239.255.255.250:1900"]
        if alive:
            lines += [b"CACHE-CONTROL: max-age=1800", b"LOCATION: http://" + ip + b":49152/desc.xml"]
        lines += [b"NT: " + d["dtype"].encode(), b"NTS: " + nts]
        if alive:
            lines += [b"SERVER: Linux/6.1 UPnP/1.1 bench/1.0"]
        lines += [b"USN: uuid:" + d["uuid"].encode() + b"::" + d["dtype"].encode(),
                 b"BOOTID.UPNP.ORG: 1", b"CONFIGID.UPNP.ORG: 1"]
        return eol.join(lines) + eol + eol

    def response(d, st):
        ip = ".".join(map(str, d["v4"])).encode()
        return (b"HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nDATE: Sun, 06 Nov 1994 08:49:37 GMT\r\nEXT:\r\n"
                b"LOCATION: http://" + ip + b":49152/desc.xml\r\nSERVER: Linux/6.1 UPnP/1.1 bench/1.0\r\nST: "
                + st.encode() + b"\r\nUSN: uuid:" + d["uuid"].encode() + b"::" + st.encode()
                + b"\r\nBOOTID.UPNP.ORG: 1\r\nCONFIGID.UPNP.ORG: 1\r\n\r\n")

    t = 1_700_000_000.0
    with open(a.o, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        for _ in range(a.n):
            t += rnd.expovariate(2000.0)
            d = rnd.choice(devices)
            r = rnd.random()
            v6 = rnd.random() < 0.3
            ttl = 64 if d["flaw"] and rnd.random() < 0.5 else 255
            if r < 0.20:
                p = query(d)
                frame = eth(d["mac"], mmac6 if v6 else mmac4, 0x86DD if v6 else 0x0800,
                            ipv6_udp(d["v6"], mdns6, 5353, 5353, p) if v6 else ipv4_udp(d["v4"], mdns4, 5353, 5353, p))
            elif r < 0.48:
                p = announce(d)
                frame = eth(d["mac"], mmac6 if v6 else mmac4, 0x86DD if v6 else 0x0800,
                            ipv6_udp(d["v6"], mdns6, 5353, 5353, p, ttl) if v6 else ipv4_udp(d["v4"], mdns4, 5353, 5353, p, ttl))
            elif r < 0.58:
                p = msearch(d)
                frame = eth(d["mac"], smac4, 0x0800, ipv4_udp(d["v4"], ssdp4, 50000 + (d["v4"][3] % 100), 1900, p, 2))
            elif r < 0.74:
                other = rnd.choice(devices)
                p = response(d, other["dtype"])
                sport = 1900 if rnd.random() < 0.8 else 40000 + d["v4"][3]
                frame = eth(d["mac"], other["mac"], 0x0800, ipv4_udp(d["v4"], other["v4"], sport, 50000 + (other["v4"][3] % 100), p, 64))
            elif r < 0.90:
                p = notify(d, b"ssdp:byebye" if rnd.random() < 0.1 else b"ssdp:alive")
                frame = eth(d["mac"], smac4, 0x0800, ipv4_udp(d["v4"], ssdp4, 1900, 1900, p, 2))
            else:
                other = rnd.choice(devices)
                kind = rnd.random()
                if kind < 0.4:  # TCP segment (HTTP fetch of a description)
                    tcp = struct.pack("!HHIIBBHHH", 40000, 49152, 1, 1, 0x50, 0x18, 65535, 0, 0) + b"GET /desc.xml HTTP/1.1\r\n\r\n"
                    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64, 6, 0, d["v4"], other["v4"]) + tcp
                    frame = eth(d["mac"], other["mac"], 0x0800, ip)
                elif kind < 0.7:
                    frame = eth(d["mac"], other["mac"], 0x0800, ipv4_udp(d["v4"], other["v4"], 40000, 53, b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01", 64))
                elif kind < 0.85:
                    frame = eth(d["mac"], other["mac"], 0x0800, ipv4_udp(d["v4"], other["v4"], 123, 123, b"\x23" + b"\0" * 47, 64))
                else:
                    frame = eth(d["mac"], bytes.fromhex("01005e0000fc"), 0x0800, ipv4_udp(d["v4"], bytes([224, 0, 0, 252]), 40000, 5355, b"\x00\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x04host\x00\x00\x01\x00\x01", 1))
            sec = int(t)
            usec = int((t - sec) * 1e6)
            f.write(struct.pack("<IIII", sec, usec, len(frame), len(frame)) + frame)


if __name__ == "__main__":
    main()
