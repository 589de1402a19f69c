#!/usr/bin/env bash
# Differential check of the capture layer: for every public capture, the number of UDP
# datagrams to or from port 1900 / 5353 that discoscope decodes must equal tshark's count for
# `udp.port==1900 || udp.port==5353` (reassembled datagrams counted once), and the table in
# Tests/AnalyzerTests/PublicCaptureCountTests.swift must agree with the installed tshark.
#
#   scripts/compare-tshark-counts.sh [DIR]      (default ../shared/captures/public)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-../shared/captures/public}
BIN=${DISCOSCOPE:-.build/debug/discoscope}
command -v tshark >/dev/null || { echo "tshark not installed" >&2; exit 1; }
[ -x "$BIN" ] || swift build --product discoscope >/dev/null
fail=0
n=0
for f in "$DIR"/*; do
    case "$f" in *.md) continue ;; esac
    name=$(basename "$f")
    t=$(tshark -r "$f" -Y '(udp.port==1900||udp.port==5353) && !icmp && !icmpv6' 2>/dev/null | wc -l)
    ours=$("$BIN" analyze "$f" --format jsonl --fail-on never 2>/dev/null | python3 -c '
import json, sys
n = None
for line in sys.stdin:
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("type") == "summary":
        n = r.get("port_datagrams")
print(n)')
    table=$(grep -F "(\"$name\"," Tests/AnalyzerTests/PublicCaptureCountTests.swift | sed -E 's/.*, ([0-9]+)\),/\1/')
    n=$((n + 1))
    if [ "$t" != "$ours" ] || [ "$t" != "$table" ]; then
        echo "MISMATCH $name tshark=$t discoscope=$ours table=$table"
        fail=$((fail + 1))
    fi
done
echo "tshark count comparison: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
