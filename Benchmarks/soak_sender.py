#!/usr/bin/env python3
"""Churning discovery traffic for the sensor soak (Benchmarks/soak.sh).

Sends RATE packets/s for SECONDS from the namespace it runs in: SSDP NOTIFYs to
239.255.255.250:1900 and mDNS announcements to 224.0.0.251:5353 from a rack of POP devices,
as a soak rack sees them: each device is up for LIFETIME seconds, announcing, then down for
LIFETIME/2 — half of them leave with an ssdp:byebye and mDNS goodbyes (TTL 0), half just go
silent — and comes back with the same UUID and host name and its BOOTID one higher (a
reboot). NEW_PER_MINUTE devices a minute are replaced by new ones (a new UUID and host name),
so the sensor also meets identities it has never seen. The rest of the rate is M-SEARCHes and
mDNS queries from a searcher. Prints one line at the end: 'sent N identities D'.

usage: soak_sender.py SRC_IPV4 RATE SECONDS [POP] [LIFETIME] [NEW_PER_MINUTE]
"""
import socket
import struct
import sys
import time
import uuid


def name(labels):
    out = b""
    for label in labels.split("."):
        if label:
            raw = label.encode()
            out += bytes([len(raw)]) + raw
    return out + b"\x00"


def rr(owner, rtype, ttl, rdata, flush=False):
    rclass = 0x8001 if flush else 0x0001
    return name(owner) + struct.pack("!HHIH", rtype, rclass, ttl, len(rdata)) + rdata


def announcement(host, instance, address, ttl_scale=1):
    service = "_http._tcp.local"
    full = f"{instance}.{service}"
    records = [
        rr(service, 12, 4500 * ttl_scale, name(full)),
        rr(full, 33, 120 * ttl_scale, struct.pack("!HHH", 0, 0, 8080) + name(f"{host}.local"), True),
        rr(full, 16, 4500 * ttl_scale, b"\x09path=/soak", True),
        rr(f"{host}.local", 1, 120 * ttl_scale, socket.inet_aton(address), True),
    ]
    return struct.pack("!HHHHHH", 0, 0x8400, 0, len(records), 0, 0) + b"".join(records)


def notify(device, nts, address, boot):
    lines = [
        "NOTIFY * HTTP/1.1",
        "HOST: 239.255.255.250:1900",
        "CACHE-CONTROL: max-age=30",
        f"LOCATION: http://{address}:49152/{device}/desc.xml",
        "NT: upnp:rootdevice",
        f"NTS: {nts}",
        "SERVER: Linux/6.1 UPnP/1.1 soak/1.0",
        f"USN: uuid:{device}::upnp:rootdevice",
        f"BOOTID.UPNP.ORG: {boot}",
        "CONFIGID.UPNP.ORG: 1",
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


SEARCH = (
    "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 2\r\n"
    "ST: upnp:rootdevice\r\nUSER-AGENT: Linux/6.1 UPnP/1.1 soak-searcher/1.0\r\n\r\n"
).encode()
QUERY = struct.pack("!HHHHHH", 0, 0, 1, 0, 0, 0) + name("_http._tcp.local") + struct.pack("!HH", 12, 1)


def main():
    src = sys.argv[1]
    rate = float(sys.argv[2])
    seconds = float(sys.argv[3])
    pop = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    lifetime = float(sys.argv[5]) if len(sys.argv) > 5 else 60.0
    new_per_minute = float(sys.argv[6]) if len(sys.argv) > 6 else 10.0
    ssdp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ssdp.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
    ssdp.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
    mdns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    mdns.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    mdns.bind((src, 5353))
    mdns.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
    mdns.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    start = time.monotonic()
    made = 0

    def identity():
        nonlocal made
        made += 1
        return {"uuid": str(uuid.uuid4()), "host": f"soak-{made}", "boot": 1, "polite": made % 2 == 0}

    # Each device's cycle is up for `lifetime`, down for half of it, started at a spread phase.
    period = lifetime * 1.5
    devices = [dict(identity(), phase=period * k / pop, up=True) for k in range(pop)]
    replaced = 0
    sent = 0
    turn = 0
    while True:
        now = time.monotonic()
        elapsed = now - start
        if elapsed >= seconds:
            break
        while replaced < int(elapsed / 60.0 * new_per_minute):
            k = (replaced * 7919) % pop
            devices[k] = dict(identity(), phase=devices[k]["phase"], up=devices[k]["up"])
            replaced += 1
        due = int(elapsed * rate)
        while sent < due:
            k = turn % (pop + pop // 8 + 1)
            turn += 1
            if k >= pop:
                if k % 2:
                    ssdp.sendto(SEARCH, ("239.255.255.250", 1900))
                else:
                    mdns.sendto(QUERY, ("224.0.0.251", 5353))
                sent += 1
                continue
            d = devices[k]
            up = (elapsed + d["phase"]) % period < lifetime
            if d["up"] and not up and d["polite"]:
                ssdp.sendto(notify(d["uuid"], "ssdp:byebye", src, d["boot"]), ("239.255.255.250", 1900))
                mdns.sendto(announcement(d["host"], d["host"], src, 0), ("224.0.0.251", 5353))
                sent += 2
            if up and not d["up"]:
                d["boot"] += 1
            d["up"] = up
            if not up:
                continue
            if turn % 2:
                ssdp.sendto(notify(d["uuid"], "ssdp:alive", src, d["boot"]), ("239.255.255.250", 1900))
            else:
                mdns.sendto(announcement(d["host"], d["host"], src), ("224.0.0.251", 5353))
            sent += 1
        time.sleep(0.002)
    print(f"sent {sent} identities {made}")


if __name__ == "__main__":
    main()
