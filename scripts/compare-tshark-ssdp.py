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

def get(pairs, key):
    for k, v in pairs:
        if k == key:
            return v
    return None


def tshark_messages(path):
    """Start line and raw header lines of every SSDP message tshark dissects.

    tshark's JSON with -x carries each header's raw bytes (`http.host_raw`,
    `http.unknown_header_raw`, ...); keys repeat, so the JSON is read as key/value pairs.
    """
    out = subprocess.run(["tshark", "-r", path, "-Y", "ssdp", "-T", "json", "-x"], capture_output=True,
                         check=True).stdout
    msgs = {}
    for pkt in json.loads(out or b"[]", object_pairs_hook=lambda p: p):
        layers = get(get(pkt, "_source"), "layers")
        frame = int(get(get(layers, "frame"), "frame.number"))
        layer = get(layers, "ssdp")
        if not isinstance(layer, list):
            continue
        start = None
        headers = []
        seen = set()  # the same line can appear under two fields (http.host and http.request.line)
        for key, value in layer:
            if start is None and isinstance(value, list) and (
                    get(value, "http.request.method") is not None or get(value, "http.response.code") is not None):
                start = key.replace("\\r\\n", "").replace("\\n", "")
                continue
            if not key.endswith("_raw") or not isinstance(value, list) or not value:
                continue
            if start is not None and key.startswith(start):
                continue
            if len(value) > 1 and value[1] in seen:
                continue
            if len(value) > 1:
                seen.add(value[1])
            try:
                raw = bytes.fromhex(value[0]).decode("utf-8", "replace")
            except (ValueError, TypeError):
                continue
            line = raw.rstrip("\r\n")
            if ":" not in line or line == "":
                continue
            name, _, v = line.partition(":")
            headers.append([name, v.strip()])
        if start is not None:
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
