#!/usr/bin/env python3
"""A minimal SSDP control point for the reflector testbed: multicasts M-SEARCH (UPnP 1.1 form,
MX 2) to 239.255.255.250:1900 with IP TTL 2, so a multicast router may forward it to another
segment, alternating ssdp:all and upnp:rootdevice every 8 s, and prints who answered. It is a
test fixture, not an implementation under test: the router is smcroute, the device minidlna."""
import argparse
import socket
import time


def search(st: str) -> bytes:
    return (
        "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\n"
        f"MX: 2\r\nST: {st}\r\nUSER-AGENT: Linux/6 UPnP/1.1 rf-searcher/1.0\r\n\r\n"
    ).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
    s.bind(("0.0.0.0", 0))
    s.settimeout(0.2)
    end = time.monotonic() + args.seconds
    next_search, round_ = time.monotonic() + 1, 0
    answers: set[tuple[str, str]] = set()
    while time.monotonic() < end:
        if time.monotonic() >= next_search:
            st = "ssdp:all" if round_ % 2 == 0 else "upnp:rootdevice"
            s.sendto(search(st), ("239.255.255.250", 1900))
            round_, next_search = round_ + 1, time.monotonic() + 8
        try:
            data, peer = s.recvfrom(4096)
        except socket.timeout:
            continue
        for line in data.decode("latin-1").split("\r\n"):
            if line.lower().startswith("usn:"):
                answers.add((peer[0], line[4:].strip()))
    for peer, usn in sorted(answers):
        print(f"answered by {peer}: {usn}")


if __name__ == "__main__":
    main()
