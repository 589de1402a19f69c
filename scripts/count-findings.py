#!/usr/bin/env python3
"""Counts findings per rule and severity for two builds over a set of captures, and prints
where they differ: the table a rule change's note needs ("error findings per rule, before and
after, on every bundled and public capture").

    scripts/count-findings.py OLD_BINARY NEW_BINARY [--severity error] CAPTURE...

Each capture is analyzed on its own (`analyze --format jsonl`); a capture neither build can
read is listed as such. Output: one row per (capture, rule, severity) whose count differs,
then totals per rule.
"""
import argparse
import collections
import json
import subprocess
import sys


def counts(binary, capture):
    run = subprocess.run([binary, "analyze", "--format", "jsonl", capture],
                         capture_output=True, text=True)
    found = collections.Counter()
    read = False
    for line in run.stdout.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        read = True
        if record.get("type") == "finding":
            found[(record["rule"], record["severity"])] += 1
    return found if read else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("captures", nargs="+")
    parser.add_argument("--severity", help="only this severity (error, warning, info)")
    args = parser.parse_args()
    totals = collections.defaultdict(lambda: [0, 0])
    print("| capture | rule | severity | before | after |")
    print("|---|---|---|---:|---:|")
    for capture in args.captures:
        old, new = counts(args.old, capture), counts(args.new, capture)
        if old is None or new is None:
            print(f"| {capture} | (unreadable: before {old is not None}, after {new is not None}) | | | |")
            continue
        for key in sorted(set(old) | set(new)):
            if args.severity and key[1] != args.severity:
                continue
            totals[key][0] += old[key]
            totals[key][1] += new[key]
            if old[key] != new[key]:
                print(f"| {capture} | {key[0]} | {key[1]} | {old[key]} | {new[key]} |")
    print()
    print("| rule | severity | before | after |")
    print("|---|---|---:|---:|")
    for key in sorted(totals):
        before, after = totals[key]
        mark = "" if before == after else " ←"
        print(f"| {key[0]} | {key[1]} | {before} | {after}{mark} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
