#!/usr/bin/env bash
# DiscoScope benchmark: packets/s and peak memory of `discoscope analyze` on a generated,
# realistic discovery capture (Benchmarks/make_capture.py, deterministic).
#
#   Benchmarks/run.sh [--packets N] [--rounds R] [--allocs] [--anchors] [--floor]
#
# Prints one line per output mode: 'mode pkts_per_s peak_rss_mib' (median of R rounds,
# whole process). --allocs adds heap allocations per packet (valgrind, on a 20k-packet
# capture; counts, not time, so repeatable). --anchors also runs ../shared/perf/anchors.sh
# with our analyzer (tshark, tcpdump and a C baseline on the same workload, same run).
# --floor runs the anchors three times, the analyzer with every rule, without the session
# rules (no mDNS session stage; the SSDP one still settles each message's UPnP version), and
# without any rule: how fast the analysis could be if the session rules, or all rule work,
# cost nothing (each ratio within its own run).
set -euo pipefail
cd "$(dirname "$0")/.."
N=300000
ROUNDS=3
ALLOCS=0
ANCHORS=0
FLOOR=0
while [ $# -gt 0 ]; do
    case "$1" in
        --packets) N=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --allocs) ALLOCS=1; shift ;;
        --anchors) ANCHORS=1; shift ;;
        --floor) FLOOR=1; shift ;;
        *) echo "usage: $0 [--packets N] [--rounds R] [--allocs] [--anchors] [--floor]" >&2; exit 2 ;;
    esac
done
WORK=${BENCH_WORK:-/tmp/discoscope-bench}
mkdir -p "$WORK"
swift build -c release --product discoscope >&2
BIN=$(swift build -c release --show-bin-path)/discoscope
F="$WORK/bench_$N.pcap"
[ -f "$F" ] || python3 Benchmarks/make_capture.py -n "$N" -o "$F"
echo "# $F: $N packets, $(stat -c %s "$F") bytes; median of $ROUNDS rounds" >&2

measure() {  # mode args…
    local mode=$1; shift
    local results=()
    for _ in $(seq "$ROUNDS"); do
        results+=("$(/usr/bin/time -f "%e %M" "$BIN" analyze "$F" --fail-on never "$@" 2>&1 >/dev/null | tail -1)")
    done
    printf '%s\n' "${results[@]}" | sort -n | sed -n "$(( (ROUNDS + 1) / 2 ))p" |
        awk -v n="$N" -v m="$mode" '{ s = ($1 > 0 ? $1 : 0.01); printf "%-14s %10d pkts/s %8.1f MiB peak\n", m, n / s, $2 / 1024 }'
}
measure text
measure text-1-thread -j1
measure text-quiet -q
measure jsonl --format jsonl
measure sarif --format sarif
measure junit --format junit

if [ "$ALLOCS" = 1 ]; then
    # Valgrind 3.19 cannot read Swift's DWARF 5 debug info: measure a stripped copy.
    strip --strip-debug -o "$WORK/discoscope-stripped" "$BIN"
    S="$WORK/bench_20000.pcap"
    [ -f "$S" ] || python3 Benchmarks/make_capture.py -n 20000 -o "$S"
    for mode in "sarif --format sarif" "text"; do
        set -- $mode
        name=$1; shift
        allocs=$(valgrind --tool=memcheck "$WORK/discoscope-stripped" analyze "$S" --fail-on never "$@" 2>&1 >/dev/null |
            sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,)
        [ -n "$allocs" ] || { echo "valgrind gave no heap summary" >&2; exit 1; }
        awk -v a="$allocs" -v m="$name" 'BEGIN { printf "%-14s %10.1f heap allocations per packet (20000 packets)\n", m, a / 20000 }'
    done
fi

if [ "$ANCHORS" = 1 ] && [ -x ../shared/perf/anchors.sh ]; then
    ANALYZER_CMD="$BIN analyze {file} --fail-on never" ../shared/perf/anchors.sh
fi

if [ "$FLOOR" = 1 ]; then
    [ -x ../shared/perf/anchors.sh ] || { echo "--floor needs ../shared/perf/anchors.sh" >&2; exit 1; }
    # Rule IDs by scope, from the catalog the binary carries. MDNS-308 is stateless in the
    # catalog but judged in capture order, by the mDNS session stage: without it, the stage
    # would still run.
    session=$("$BIN" rules | awk 'NR > 1 && $5 == "stateful" { print $1 }' | paste -sd, -),MDNS-308
    stateless=$("$BIN" rules | awk 'NR > 1 && $5 == "stateless" && $1 != "MDNS-308" { print $1 }' | paste -sd, -)
    [ -n "$session" ] && [ -n "$stateless" ] || { echo "no rules listed by scope" >&2; exit 1; }
    for variant in "every-rule|" "no-session-rules|--disable $session" "no-rules|--disable $session,$stateless"; do
        echo "# analyzer: ${variant%%|*}"
        ANALYZER_CMD="$BIN analyze {file} --fail-on never ${variant#*|}" ../shared/perf/anchors.sh
    done
fi
