#!/usr/bin/env python3
"""Differential check of mDNS decoding against tshark.

For every mDNS message tshark decodes without error (`-Y mdns`, no malformed-packet
expert info), discoscope must report a message on the same frame with the same questions
(name, type, class, QU bit) and the same records in every section (name, type, class,
cache-flush bit, TTL, and RDATA for A, AAAA, PTR, CNAME, NS, SRV, TXT and HINFO).

    scripts/compare-tshark-mdns.py [--bin PATH] CAPTURE...

Names are compared in tshark's form: no trailing dot, and our presentation escapes
(`\\.` inside a label, `\\\\`, `\\DDD`) undone. Wireshark's JSON repeats keys (one `dns.txt`
per string, identical record titles), so it is parsed keeping every key.
"""
import argparse
import json
import re
import subprocess
import sys

SECTIONS = [("Queries", "questions"), ("Answers", "answers"), ("Authoritative nameservers", "authorities"),
            ("Additional records", "additionals")]


def pairs(obj):
    return obj  # list of (key, value) from object_pairs_hook


def get(pairlist, key):
    for k, v in pairlist:
        if k == key:
            return v
    return None


def get_all(pairlist, key):
    return [v for k, v in pairlist if k == key]


def unescape(name):
    if name is None:
        return None
    name = name[:-1] if name.endswith(".") and not name.endswith("\\.") else name
    out = []
    i = 0
    while i < len(name):
        c = name[i]
        if c == "\\" and i + 1 < len(name):
            if name[i + 1:i + 4].isdigit() and len(name[i + 1:i + 4]) == 3:
                out.append(chr(int(name[i + 1:i + 4])))
                i += 4
                continue
            out.append(name[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def tshark_record(rec, question):
    if question:
        name = get(rec, "dns.qry.name")
        return {"name": name, "type": int(get(rec, "dns.qry.type")),
                "class": int(get(rec, "dns.qry.class"), 16) & 0x7FFF,
                "qu": get(rec, "dns.qry.qu") == "1"}
    rtype = int(get(rec, "dns.resp.type"))
    name = get(rec, "dns.resp.name")
    if name is None and get(rec, "dns.srv.service") is not None:
        name = "%s.%s.%s" % (get(rec, "dns.srv.service"), get(rec, "dns.srv.proto"), get(rec, "dns.srv.name"))
    r = {"name": name, "type": rtype}
    if rtype != 41:
        r["class"] = int(get(rec, "dns.resp.class"), 16) & 0x7FFF
        r["flush"] = get(rec, "dns.resp.cache_flush") == "1"
        r["ttl"] = int(get(rec, "dns.resp.ttl"))
    rd = None
    if rtype == 1:
        rd = get(rec, "dns.a")
    elif rtype == 28:
        rd = get(rec, "dns.aaaa")
    elif rtype == 12:
        rd = get(rec, "dns.ptr.domain_name")
    elif rtype == 5:
        rd = get(rec, "dns.cname")
    elif rtype == 2:
        rd = get(rec, "dns.ns")
    elif rtype == 33:
        rd = (int(get(rec, "dns.srv.priority")), int(get(rec, "dns.srv.weight")), int(get(rec, "dns.srv.port")),
              get(rec, "dns.srv.target"))
    elif rtype == 16:
        rd = tuple(get_all(rec, "dns.txt"))
    elif rtype == 13:
        rd = (get(rec, "dns.hinfo.cpu"), get(rec, "dns.hinfo.os"))
    r["rdata"] = rd
    return r


def tshark_messages(path):
    out = subprocess.run(["tshark", "-r", path, "-Y", "mdns", "-T", "json"], capture_output=True, check=True).stdout
    packets = json.loads(out or b"[]", object_pairs_hook=lambda p: p)
    msgs = {}
    for pkt in packets:
        layers = get(get(pkt, "_source"), "layers")
        if get(layers, "_ws.malformed") is not None or get(layers, "_ws.expert") is not None:
            continue
        frame = int(get(get(layers, "frame"), "frame.number"))
        # mDNS quoted inside an ICMP error is not a datagram on the wire (dig's replies).
        if get(layers, "icmp") is not None or get(layers, "icmpv6") is not None:
            continue
        mdns = get(layers, "mdns")
        if mdns is None:
            continue
        if any(k == "_ws.expert" for k, _ in mdns):
            continue
        msg = {}
        for title, ours in SECTIONS:
            section = get(mdns, title) or []
            msg[ours] = [tshark_record(rec, title == "Queries") for _, rec in section]
        msgs[frame] = msg
    return msgs


MNEMONICS = {"A": 1, "NS": 2, "CNAME": 5, "SOA": 6, "PTR": 12, "HINFO": 13, "MX": 15, "TXT": 16, "AAAA": 28, "SRV": 33,
             "NAPTR": 35, "OPT": 41, "NSEC": 47, "NSEC3": 50, "SVCB": 64, "HTTPS": 65, "IXFR": 251, "AXFR": 252,
             "MAILB": 253, "MAILA": 254, "ANY": 255}


def type_number(t):
    if isinstance(t, int):
        return t
    return MNEMONICS.get(t, int(t[4:]) if t.startswith("TYPE") else -1)


def our_record(r, question):
    if question:
        return {"name": unescape(r["name"]), "type": type_number(r["type"]), "class": r["class"],
                "qu": r["unicast_response"]}
    rtype = type_number(r["type"])
    out = {"name": unescape(r["name"]), "type": rtype}
    if rtype != 41:
        out["class"] = r["class"]
        out["flush"] = r["cache_flush"]
        out["ttl"] = r["ttl"]
    rd = r.get("rdata") or {}
    v = None
    if rtype in (1, 28):
        v = rd.get("address")
    elif rtype in (12, 5, 2):
        v = unescape(rd.get("target"))
    elif rtype == 33:
        v = (rd.get("priority"), rd.get("weight"), rd.get("port"), unescape(rd.get("target")))
    elif rtype == 16:
        v = tuple(rd.get("strings", []))
    elif rtype == 13:
        v = (rd.get("cpu"), rd.get("os"))
    out["rdata"] = v
    return out


def our_messages(binary, path):
    out = subprocess.run([binary, "analyze", path, "--format", "jsonl", "--fail-on", "never"],
                         capture_output=True).stdout
    msgs = {}
    for line in out.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") != "message" or r.get("protocol") != "mdns":
            continue
        m = {}
        for _, key in SECTIONS:
            m[key] = [our_record(x, key == "questions") for x in r.get(key, [])]
        msgs[r["frame"]] = m
    return msgs


def normalise(rec):
    # tshark shows the TXT of a single empty string as no dns.txt at all, and an IPv6
    # address in its own compressed form; compare on equal footing.
    r = dict(rec)
    if "qu" in r:
        return r
    if r.get("type") == 16 and r.get("rdata") in ((), ("",)):
        r["rdata"] = ()
    if r.get("type") == 41:
        r["rdata"] = None
        r["name"] = r["name"] or ""
    if r.get("type") not in (1, 28, 12, 5, 2, 33, 16, 13):
        r["rdata"] = None
    if r.get("name") in ("<Root>", ""):
        r["name"] = ""
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/debug/discoscope")
    ap.add_argument("captures", nargs="+")
    a = ap.parse_args()
    total = bad = 0
    for path in a.captures:
        theirs = tshark_messages(path)
        ours = our_messages(a.bin, path)
        for frame, msg in sorted(theirs.items()):
            total += 1
            mine = ours.get(frame)
            if mine is None:
                bad += 1
                print("%s frame %d: tshark decodes mDNS, discoscope reports no mDNS message" % (path, frame))
                continue
            for _, key in SECTIONS:
                t = [normalise(x) for x in msg[key]]
                o = [normalise(x) for x in mine[key]]
                if t != o:
                    bad += 1
                    print("%s frame %d: %s differ\n  tshark:     %s\n  discoscope: %s" % (path, frame, key, t, o))
                    break
    print("mDNS tshark comparison: %d passed, %d failed" % (total - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
