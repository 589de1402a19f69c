#!/usr/bin/env bash
# How many packets/s `discoscope capture` keeps up with on a veth pair without drops.
# Creates two network namespaces joined by a veth pair (10.212.0.1 / .2; nothing routed
# out), runs `discoscope capture` (default text output to /dev/null) in one and a bounded C
# sender (Benchmarks/udp_sender.c: realistic mDNS announcements) in the other, at rising
# rates; prints 'rate sent received dropped analysed' per step. Needs root. Cleans up on exit.
#   Benchmarks/live-throughput.sh [COUNT_PER_STEP] [RATES…]
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${1:-200000}
shift || true
RATES=("$@")
[ ${#RATES[@]} -gt 0 ] || RATES=(25000 50000 100000 150000 200000 0)
[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces)" >&2; exit 2; }
swift build -c release --product discoscope >&2
BIN=$(swift build -c release --show-bin-path)/discoscope
WORK=$(mktemp -d)
gcc -O2 -o "$WORK/udp_sender" Benchmarks/udp_sender.c
A=dsbenchA$$ B=dsbenchB$$
cleanup() {
    for ns in $A $B; do
        for p in $(ip netns pids $ns 2>/dev/null); do kill -9 $p 2>/dev/null || true; done
        ip netns del $ns 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
ip netns add $A; ip netns add $B
ip link add vbA$$ type veth peer name vbB$$
ip link set vbA$$ netns $A; ip link set vbB$$ netns $B
ip -n $A addr add 10.212.0.1/24 dev vbA$$; ip -n $B addr add 10.212.0.2/24 dev vbB$$
ip -n $A link set vbA$$ up; ip -n $B link set vbB$$ up
ip -n $B route add 224.0.0.0/4 dev vbB$$
echo "# $COUNT packets per step, capture output: text to /dev/null" >&2
printf "%-10s %10s %10s %10s %10s\n" rate sent received dropped analysed
for rate in "${RATES[@]}"; do
    ip netns exec $A "$BIN" capture -i vbA$$ -o "$WORK/out.txt" --fail-on never --no-drop ${CAPTURE_ARGS:-} >/dev/null 2>"$WORK/err" &
    cap=$!
    sleep 1
    sent=$(ip netns exec $B "$WORK/udp_sender" 10.212.0.2 "$COUNT" "$rate" 30 | awk '{print $2}')
    sleep 2
    kill -INT $cap
    wait $cap || true
    # The text summary: "frames  N read; …" and "capture  R packet(s) received …, D dropped …".
    frames=$(sed -n 's/^  frames *\([0-9]*\) read.*/\1/p' "$WORK/out.txt")
    rcv=$(sed -n 's/^  capture *\([0-9]*\) packet.*/\1/p' "$WORK/out.txt")
    drop=$(sed -n 's/^  capture.*, \([0-9]*\) dropped by the kernel.*/\1/p' "$WORK/out.txt")
    printf "%-10s %10s %10s %10s %10s\n" "$([ "$rate" = 0 ] && echo max || echo "$rate")" "$sent" "$rcv" "$drop" "$frames"
done
