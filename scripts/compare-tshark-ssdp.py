#!/usr/bin/env python3
"""Differential check of SSDP decoding against tshark.

For every SSDP message tshark decodes in each capture (`-Y ssdp`, dissected by Wireshark's
HTTP dissector), discoscope must report a message on the same frame with the same start line
and the same header names and values, in order. Differences are printed; the exit status is
1 when any message differs.

    scripts/compare-tshark-ssdp.py [--bin PATH] CAPTURE...

Known, deliberate differences are listed in KNOWN below (none at the time of writing).
"""
import argparse
import json
import subprocess
import sys

TSHARK_FIELDS = ["frame.number", "http.request.line", "http.response.line", "http.request.method",
                 "http.request.uri", "http.request.version", "http.response.version", "http.response.code",
                 "http.response.phrase"]


def tshark_messages(path):
    cmd = ["tshark", "-r", path, "-Y", "ssdp", "-T", "json"]
    for f in TSHARK_FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, check=True).stdout
    msgs = {}
    for pkt in json.loads(out or b"[]"):
        layers = pkt["_source"]["layers"]
        frame = int(layers["frame.number"][0])

        def one(name):
            v = layers.get(name)
            return v[0] if v else None

        if one("http.request.method") is not None:
            start = "%s %s %s" % (one("http.request.method"), one("http.request.uri"), one("http.request.version"))
            lines = layers.get("http.request.line", [])
        elif one("http.response.code") is not None:
            phrase = one("http.response.phrase") or ""
            start = "%s %s %s" % (one("http.response.version"), one("http.response.code"), phrase)
            start = start.rstrip()
            lines = layers.get("http.response.line", [])
        else:
            continue
        headers = []
        for line in lines:
            line = line.rstrip("\r\n")
            name, _, value = line.partition(":")
            headers.append([name, value.strip()])
        msgs[frame] = (start, headers)
    return msgs


def our_messages(binary, path):
    out = subprocess.run([binary, "analyze", path, "--format", "jsonl", "--fail-on", "never"],
                         capture_output=True).stdout
    msgs = {}
    for line in out.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") == "message" and r.get("protocol") == "ssdp":
            msgs[r["frame"]] = (r.get("start_line"), [[h[0], h[1].strip()] for h in r.get("headers", [])])
    return msgs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/debug/discoscope")
    ap.add_argument("captures", nargs="+")
    a = ap.parse_args()
    total = 0
    bad = 0
    for path in a.captures:
        theirs = tshark_messages(path)
        ours = our_messages(a.bin, path)
        for frame, (start, headers) in sorted(theirs.items()):
            total += 1
            mine = ours.get(frame)
            if mine is None:
                bad += 1
                print("%s frame %d: tshark decodes SSDP '%s', discoscope reports no SSDP message" % (path, frame, start))
                continue
            if mine[0] != start:
                bad += 1
                print("%s frame %d: start line tshark=%r discoscope=%r" % (path, frame, start, mine[0]))
                continue
            if mine[1] != headers:
                bad += 1
                print("%s frame %d: headers differ\n  tshark:     %s\n  discoscope: %s" % (path, frame, headers, mine[1]))
    print("SSDP tshark comparison: %d passed, %d failed" % (total - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
