#!/usr/bin/env bash
# What the service-profile (PROF) rules cost: instructions per packet in text with every rule
# and with the 69 PROF rules disabled, by ../shared/perf/instr.sh's method (valgrind
# cachegrind, `-j 1`, the first 20,000 packets of the seed-1 anchors workload, the first 10
# packets' count subtracted), and #53's bound, 3 % of the first.
#
#   Benchmarks/profile-rules-cost.sh BINARY [CAPTURE]
#
# Prints 'text N', 'text_prof_off N', 'prof_rules N' and 'bound N'. Swift seeds its hashing per
# process, which moves the figures by tens; DETERMINISTIC=1 sets SWIFT_DETERMINISTIC_HASHING
# to compare two builds closer than that. Needs valgrind and editcap/capinfos (tshark's
# package); about 30 s.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${1:?usage: profile-rules-cost.sh BINARY [CAPTURE]}
WORK=${PERF_WORK:-/tmp/perf}
mkdir -p "$WORK/bin"
F=${2:-$WORK/disc_20k.pcap}
if [ ! -f "$F" ]; then
    [ -f "$WORK/disc_100000.pcap" ] ||
        python3 "$HERE/../../shared/perf/make_workload.py" -n 100000 -o "$WORK/disc_100000.pcap" --seed 1 -q
    editcap -F pcap -r "$WORK/disc_100000.pcap" "$F" 1-20000
fi
T=$WORK/first10_$(basename "$F")
[ -f "$T" ] && [ "$T" -nt "$F" ] || editcap -F pcap -r "$F" "$T" 1-10
N=$(capinfos -M -c "$F" | awk -F: '/Number of packets/{gsub(/ /,"",$2); print $2}')
[ "${DETERMINISTIC:-0}" = 1 ] && export SWIFT_DETERMINISTIC_HASHING=1
# valgrind cannot read a Swift release build's debug info: a stripped copy.
S=$WORK/bin/discoscope-prof-stripped
cp "$BIN" "$S" && strip "$S"
ir() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        awk '/I *refs:/{gsub(",","",$NF); print $NF}'
}
prof=$("$S" rules | awk 'NR > 1 && $1 ~ /^PROF-/ {print $1}' | paste -sd, -)
[ -n "$prof" ] || { echo "no PROF rules listed by '$BIN rules'" >&2; exit 1; }
per_packet() {
    local short long
    short=$(ir "$S" analyze -j 1 --fail-on never "$@" "$T")
    long=$(ir "$S" analyze -j 1 --fail-on never "$@" "$F")
    echo $(((long - short) / (N - 10)))
}
all=$(per_packet)
off=$(per_packet --disable "$prof")
echo "text $all"
echo "text_prof_off $off"
echo "prof_rules $((all - off))"
echo "bound $((all * 3 / 100))"
