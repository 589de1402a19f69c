#!/usr/bin/env bash
# The HTML report at scale: a generated capture of about 100,000 SSDP and mDNS messages
# (make_capture.py), the report's size, the writer's peak RSS (against JSON lines of the same
# capture), and how long headless Chromium takes from opening the file to the page being
# interactive (data inflated, parsed and indexed, tables filled, timeline drawn: the page sets
# body[data-ready]), in real time through the DevTools protocol (html-load.py), three times.
# usage: Benchmarks/html-report.sh [packets]   (default 112000: ~100,700 messages)
set -euo pipefail
cd "$(dirname "$0")/.."
packets="${1:-112000}"
work="${TMPDIR:-/tmp}/discoscope-html-bench"
mkdir -p "$work"
capture="$work/bench-$packets.pcap"
[ -f "$capture" ] || python3 Benchmarks/make_capture.py -n "$packets" -o "$capture"
swift build -c release --product discoscope >/dev/null
bin=.build/release/discoscope
for format in jsonl html; do
    /usr/bin/time -f "$format: %e s, peak RSS %M KiB" "$bin" analyze "$capture" --format "$format" \
        -o "$work/report.$format" --fail-on never
done
messages=$(grep -c '^{"type":"message"' "$work/report.jsonl")
findings=$(grep -c '^{"type":"finding"' "$work/report.jsonl")
echo "messages $messages, findings $findings, report.html $(stat -c %s "$work/report.html") bytes"
python3 Benchmarks/html-load.py "$work/report.html" 3
