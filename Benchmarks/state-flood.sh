#!/usr/bin/env bash
# State-flood benchmark: `discoscope analyze` on a capture that offers every session table a
# new key per packet (Benchmarks/make_flood.py: 1,000,000 M-SEARCHes from distinct endpoints,
# 500,000 distinct mDNS host names, 200,000 distinct USNs) against an ordinary capture of the
# same size (Benchmarks/make_capture.py), interleaved, medians of R rounds.
#
#   Benchmarks/state-flood.sh [--rounds R] [--scale S]
#
# --scale divides the flood's three counts (and the ordinary capture's size) for a quick look.
# Prints 'capture pkts_per_s peak_rss_mib' for each, then the two bounds the session state is
# held to: peak RSS within 64 MiB of the ordinary capture's, packets/s within 2x of it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=3
SCALE=1
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift 2 ;;
        --scale) SCALE=$2; shift 2 ;;
        *) echo "usage: $0 [--rounds R] [--scale S]" >&2; exit 2 ;;
    esac
done
WORK=${BENCH_WORK:-/tmp/discoscope-bench}
mkdir -p "$WORK"
swift build -c release --product discoscope >&2
BIN=$(swift build -c release --show-bin-path)/discoscope
S=$((1000000 / SCALE)) M=$((500000 / SCALE)) U=$((200000 / SCALE))
N=$((S + M + U))
FLOOD="$WORK/flood_$N.pcap"
ORDINARY="$WORK/bench_$N.pcap"
[ -f "$FLOOD" ] || python3 Benchmarks/make_flood.py -o "$FLOOD" --searches "$S" --names "$M" --usns "$U"
[ -f "$ORDINARY" ] || python3 Benchmarks/make_capture.py -n "$N" -o "$ORDINARY"
echo "# $N packets each; median of $ROUNDS interleaved rounds" >&2

run() {  # file → "seconds peak_kib"
    /usr/bin/time -f "%e %M" "$BIN" analyze "$1" --fail-on never -q 2>&1 >/dev/null | tail -1
}
flood=() ordinary=()
for _ in $(seq "$ROUNDS"); do
    ordinary+=("$(run "$ORDINARY")")
    flood+=("$(run "$FLOOD")")
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( (ROUNDS + 1) / 2 ))p"; }
read -r os ok <<<"$(median "${ordinary[@]}")"
read -r fs fk <<<"$(median "${flood[@]}")"
awk -v n="$N" -v os="$os" -v ok="$ok" -v fs="$fs" -v fk="$fk" 'BEGIN {
    op = n / (os > 0 ? os : 0.01); fp = n / (fs > 0 ? fs : 0.01)
    printf "ordinary %10d pkts/s %8.1f MiB peak\n", op, ok / 1024
    printf "flood    %10d pkts/s %8.1f MiB peak\n", fp, fk / 1024
    printf "peak RSS: flood - ordinary = %.1f MiB (bound 64): %s\n", (fk - ok) / 1024, ((fk - ok) / 1024 <= 64 ? "within" : "OVER")
    printf "packets/s: ordinary / flood = %.2f (bound 2): %s\n", op / fp, (op / fp <= 2 ? "within" : "OVER")
}'
"$BIN" analyze "$FLOOD" --fail-on never -q | grep -E '^  state|limits' >&2 || true
