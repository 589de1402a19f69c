#!/usr/bin/env bash
# Compares the output of two discoscope binaries byte for byte: every bundled capture in
# the four report formats, and the generated workloads (30k: four formats; 300k and 1M when
# present: text and JSON lines), each with -j 1, 2 and 4. A restructuring that must not change
# behaviour shows here first.
#
#   Benchmarks/compare-output.sh OLD_BINARY NEW_BINARY [WORKLOAD_DIR]
#
# WORKLOAD_DIR holds disc_30000.pcap (and optionally disc_300000.pcap, disc_1000000.pcap),
# made by ../shared/perf/make_workload.py; default /tmp/perf. JUnit's time= attribute and
# the summary's elapsed time vary between runs and are masked. Exit status 1 on a difference.
set -euo pipefail
old=$1
new=$2
work=${3:-/tmp/perf}
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
differ=0
checked=0

mask() {
    sed -E -e 's/time="[0-9.]+"/time="_"/g' -e 's/"elapsed_seconds":[0-9.e+-]+/"elapsed_seconds":_/g' \
        -e 's/^(  elapsed +).*/\1_/'
}

compare() { # label, then the arguments to analyze
    local label=$1
    shift
    TZ=UTC "$old" analyze "$@" --fail-on never 2>&1 | mask >"$out/old" || true
    TZ=UTC "$new" analyze "$@" --fail-on never 2>&1 | mask >"$out/new" || true
    checked=$((checked + 1))
    if ! cmp -s "$out/old" "$out/new"; then
        differ=$((differ + 1))
        echo "DIFFERS: $label"
        diff "$out/old" "$out/new" | head -5 | cut -c1-240 || true
    fi
}

for f in captures/*/*.pcap captures/*/*.pcapng captures/*/*.gz; do
    [ -f "$f" ] || continue
    for fmt in text jsonl sarif junit; do
        for j in 1 2 4; do compare "$f $fmt -j$j" "$f" --format "$fmt" -j "$j"; done
    done
done
if [ -f "$work/disc_30000.pcap" ]; then
    for fmt in text jsonl sarif junit; do
        for j in 1 2 4; do compare "30k $fmt -j$j" "$work/disc_30000.pcap" --format "$fmt" -j "$j"; done
    done
fi
for n in 300000 1000000; do
    [ -f "$work/disc_$n.pcap" ] || continue
    for fmt in text jsonl; do
        for j in 1 2 4; do compare "$n $fmt -j$j" "$work/disc_$n.pcap" --format "$fmt" -j "$j"; done
    done
done
echo "$checked outputs compared, $differ differ"
[ "$differ" -eq 0 ]
