#!/usr/bin/env bash
# The sensor soak: `discoscope capture` as the systemd unit runs it (rotating pcap and JSON
# lines, metrics on loopback) for MINUTES in a network namespace, fed RATE packets/s of
# churning SSDP and mDNS traffic (Benchmarks/soak_sender.py: a rack of devices that go down
# and come back, half with goodbyes, and new ones every minute) from a veth peer in a second namespace; nothing is routed out. Every 10 s it
# samples the capture's RSS and open file descriptors and scrapes /metrics; at the end it
# stops the capture with SIGTERM and checks what a sensor must hold to:
#   - peak RSS grows by less than 5 MiB after the first minute;
#   - no file-descriptor growth (the last sample has no more than the first after a minute);
#   - 0 packets dropped by the kernel, and none the kernel delivered left unread by the
#     analysis (libpcap's received count against the frames the summary says were read);
#   - rotation made the expected files (one pcap and one JSON lines file per -G period).
# Prints the samples and a verdict line per check; exit status 1 when one fails. Needs root.
#
#   Benchmarks/soak.sh [MINUTES] [RATE] [PERIOD_SECONDS]      (defaults 20, 2000, 60)
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-20}
RATE=${2:-2000}
PERIOD=${3:-60}
[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces)" >&2; exit 2; }
swift build -c release --product discoscope >&2
BIN=$(swift build -c release --show-bin-path)/discoscope
WORK=$(mktemp -d /tmp/discoscope-soak.XXXXXX)
A=dssoakA$$ B=dssoakB$$
PORT=19545
cleanup() {
    for ns in $A $B; do
        for p in $(ip netns pids $ns 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
        ip netns del $ns 2>/dev/null || true
    done
}
trap cleanup EXIT
ip netns add $A
ip netns add $B
ip link add vsA$$ type veth peer name vsB$$
ip link set vsA$$ netns $A
ip link set vsB$$ netns $B
ip -n $A addr add 10.213.0.1/24 dev vsA$$
ip -n $B addr add 10.213.0.2/24 dev vsB$$
ip -n $A link set vsA$$ up
ip -n $A link set lo up
ip -n $B link set vsB$$ up
ip -n $B route add 224.0.0.0/4 dev vsB$$
chmod 777 "$WORK"
ip netns exec $A "$BIN" capture -i vsA$$ --fail-on never \
    -w "$WORK/soak-%Y%m%d-%H%M%S.pcap" -G "$PERIOD" \
    -o "$WORK/soak-%Y%m%d-%H%M%S.jsonl" --format jsonl \
    --metrics 127.0.0.1:$PORT >"$WORK/stdout" 2>"$WORK/stderr" &
cap=$!
sleep 2
kill -0 $cap 2>/dev/null || { cat "$WORK/stderr" >&2; exit 2; }
seconds=$((MINUTES * 60))
ip netns exec $B python3 Benchmarks/soak_sender.py 10.213.0.2 "$RATE" "$seconds" >"$WORK/sender" &
sender=$!
scrape() {
    ip netns exec $A python3 -c "
import urllib.request, sys
try:
    body = urllib.request.urlopen('http://127.0.0.1:$PORT/metrics', timeout=5).read().decode()
except Exception as e:
    print('scrape-failed', e); sys.exit(0)
v = {}
for line in body.splitlines():
    if line.startswith('#') or not line.strip(): continue
    k, _, x = line.rpartition(' ')
    v[k] = x
def get(prefix):
    return sum(float(x) for k, x in v.items() if k.split('{')[0] == prefix)
print(int(get('discoscope_packets_read_total')), int(get('discoscope_kernel_packets_dropped_total')),
      int(get('discoscope_kernel_packets_received_total')), int(get('discoscope_devices_present')))
"
}
printf "%-6s %10s %10s %5s %10s %8s %10s %8s\n" "t_s" "rss_kib" "hwm_kib" "fds" "read" "drop_k" "received" "devices"
samples="$WORK/samples"
t=0
while kill -0 $sender 2>/dev/null; do
    sleep 10
    t=$((t + 10))
    rss=$(awk '/^VmRSS/{print $2}' /proc/$cap/status)
    hwm=$(awk '/^VmHWM/{print $2}' /proc/$cap/status)
    fds=$(ls /proc/$cap/fd | wc -l)
    read -r got dk rcv dev <<<"$(scrape)"
    printf "%-6s %10s %10s %5s %10s %8s %10s %8s\n" "$t" "$rss" "$hwm" "$fds" "$got" "$dk" "$rcv" "$dev" | tee -a "$samples"
done
wait $sender || true
sleep 2
kill -TERM $cap
wait $cap || true
echo "# sender: $(cat "$WORK/sender")"
fail=0
verdict() { # ok?, text
    if [ "$1" = 1 ]; then echo "ok    $2"; else echo "FAIL  $2"; fail=1; fi
}
# After the first minute: the first sample at or past 60 s against the last one.
first=$(awk '$1 >= 60 {print; exit}' "$samples")
last=$(tail -1 "$samples")
hwm1=$(echo "$first" | awk '{print $3}')
hwm2=$(echo "$last" | awk '{print $3}')
fd1=$(echo "$first" | awk '{print $4}')
fd2=$(echo "$last" | awk '{print $4}')
growth=$((hwm2 - hwm1))
verdict $([ "$growth" -lt 5120 ] && echo 1 || echo 0) "peak RSS after the first minute: $hwm1 → $hwm2 KiB (+$growth KiB, bound 5120)"
verdict $([ "$fd2" -le "$fd1" ] && echo 1 || echo 0) "open file descriptors: $fd1 after a minute, $fd2 at the end"
# The summary of the last JSON lines file: kernel and analyzer drops.
report=$(ls "$WORK"/soak-*.jsonl | tail -1)
summary=$(grep '"type":"summary"' "$report" | tail -1 || true)
dropped=$(echo "$summary" | python3 -c "
import json, sys
line = sys.stdin.read().strip()
s = json.loads(line) if line else {}
rcv, read = s.get('packets_received'), s.get('frames')
print(s.get('packets_dropped', 'n/a'), s.get('packets_dropped_by_interface', 'n/a'),
      rcv - read if isinstance(rcv, int) and isinstance(read, int) else 'n/a')
")
read -r dk di da <<<"$dropped"
verdict $([ "$dk" = 0 ] && [ "$da" = 0 ] && echo 1 || echo 0) "dropped: kernel $dk, interface $di; delivered but not read by the analysis: $da"
pcaps=$(ls "$WORK"/soak-*.pcap | wc -l)
jsonls=$(ls "$WORK"/soak-*.jsonl | wc -l)
expected=$(((seconds + 4) / PERIOD))
verdict $([ "$pcaps" -ge "$expected" ] && [ "$pcaps" -le $((expected + 2)) ] && echo 1 || echo 0) \
    "rotation: $pcaps pcap and $jsonls JSON lines files for about $expected periods of $PERIOD s"
total=0
for f in "$WORK"/soak-*.pcap; do
    n=$(capinfos -M -c "$f" 2>/dev/null | awk -F: '/Number of packets/{gsub(/ /,"",$2); print $2}')
    total=$((total + ${n:-0}))
done
echo "# packets in the rotated pcap files: $total; files in $WORK"
exit $fail
