#!/usr/bin/env python3
"""A minimal mDNS querier for the reflector testbed: asks for service types from port 5353
(QM questions, multicast to 224.0.0.251), with the intervals of RFC 6762 §5.2 (1 s, then
doubling, at most 20 s), lists the instances it hears, and sends no Known-Answers. It is a test
fixture, not an implementation under test: the reflector and the responders are avahi."""
import argparse
import socket
import struct
import time


def name(n: str) -> bytes:
    out = b""
    for label in n.rstrip(".").split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def read_name(p: bytes, o: int, depth: int = 0) -> tuple[str, int]:
    labels = []
    end = None
    while o < len(p) and depth < 16:
        n = p[o]
        if n == 0:
            o += 1
            break
        if n & 0xC0 == 0xC0 and o + 1 < len(p):
            if end is None:
                end = o + 2
            o = (n & 0x3F) << 8 | p[o + 1]
            depth += 1
            continue
        labels.append(p[o + 1 : o + 1 + n].decode("utf-8", "replace"))
        o += 1 + n
    return ".".join(labels), end if end is not None else o


def ptr_answers(p: bytes) -> list[tuple[str, str]]:
    if len(p) < 12:
        return []
    qd, an, ns, ar = struct.unpack("!HHHH", p[4:12])
    o = 12
    for _ in range(qd):
        _, o = read_name(p, o)
        o += 4
    out = []
    for _ in range(an + ns + ar):
        owner, o = read_name(p, o)
        if o + 10 > len(p):
            break
        rtype, _, _, rdlen = struct.unpack("!HHIH", p[o : o + 10])
        o += 10
        if rtype == 12:
            target, _ = read_name(p, o)
            out.append((owner, target))
        o += rdlen
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("types", nargs="+")
    a = ap.parse_args()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", 5353))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton("224.0.0.251") + socket.inet_aton("0.0.0.0"))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    s.settimeout(0.2)
    query = struct.pack("!HHHHHH", 0, 0, len(a.types), 0, 0, 0)
    for t in a.types:
        query += name(t) + struct.pack("!HH", 12, 1)
    seen: set[tuple[str, str]] = set()
    start = time.monotonic()
    next_query, interval = start, 1.0
    while time.monotonic() - start < a.seconds:
        now = time.monotonic()
        if now >= next_query:
            s.sendto(query, ("224.0.0.251", 5353))
            next_query, interval = now + interval, min(interval * 2, 20.0)
        try:
            p, src = s.recvfrom(9000)
        except socket.timeout:
            continue
        for owner, target in ptr_answers(p):
            if owner.rstrip(".") in [t.rstrip(".") for t in a.types] and (owner, target) not in seen:
                seen.add((owner, target))
                print(f"{time.monotonic() - start:6.2f}s {src[0]}: {owner} -> {target}", flush=True)
    print(f"heard {len(seen)} instances: {sorted(t for _, t in seen)}")


if __name__ == "__main__":
    main()
