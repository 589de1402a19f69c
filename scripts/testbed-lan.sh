# The namespace LAN of the testbed recording scripts (scripts/testbed-newstacks.sh,
# scripts/testbed-profiles.sh), sourced by them: a bridge in namespace $LAN (IPv6 off) and
# hosts $(hn 1) … $(hn $NHOSTS), each with eth0 on it as 10.$SUBNET.0.N/24 and MAC
# 02:$SUBNET:00:00:00:0N, a route for multicast and no other; and the processes the scripts
# start in it, each stopped by the PID it was started with (SIGTERM, then SIGKILL after
# STOP_GRACE seconds). The caller defines RUN, LAN, NHOSTS, SUBNET, STOP_GRACE and the
# functions log, die and hn. Only namespaces this file created (recorded in
# $RUN/net.created) are ever deleted.

ns_exists() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$1"; }
ts() { date -u +%H:%M:%S.%N | cut -c1-12; }
mark() { echo "$(ts) $*" >>"$RUN/log/timeline.log"; log "$*"; }

# ---------------------------------------------------------------- processes
pidfile() { echo "$RUN/pids/$1.pid"; }
pid_alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1; [ -n "$st" ] && [ "${st:0:1}" != Z ]; }
alive() { local f; f=$(pidfile "$1"); [ -s "$f" ] && pid_alive "$(cat "$f")"; }
stop_pid() { # PID [GRACE]
  local pid=$1 grace=${2:-$STOP_GRACE} i
  pid_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 10; i++)); do pid_alive "$pid" || return 0; sleep 0.1; done
  log "pid $pid ignored SIGTERM, sending SIGKILL"; kill -KILL "$pid" 2>/dev/null || true
}
stop_svc() { local f; f=$(pidfile "$1"); [ -s "$f" ] || return 0; mark "stop $1 (SIGTERM pid $(cat "$f"))"; stop_pid "$(cat "$f")"; rm -f "$f"; }
stop_all() { local f; for f in "$RUN"/pids/*.pid; do [ -e "$f" ] || continue; stop_svc "$(basename "$f" .pid)"; done; }

# ---------------------------------------------------------------- network

net_up() {
  mkdir -p "$RUN/pids" "$RUN/log"
  if ns_exists "$LAN"; then
    [ -e "$RUN/net.created" ] || die "$LAN exists but was not created by this script"
    return 0
  fi
  for i in $(seq 1 $NHOSTS); do ns_exists "$(hn "$i")" && die "$(hn "$i") exists (not ours?)"; done
  ip netns add "$LAN"; touch "$RUN/net.created"
  ip -n "$LAN" link set lo up
  ip netns exec "$LAN" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$LAN" link add br0 type bridge stp_state 0 forward_delay 0 mcast_snooping 0
  for i in $(seq 1 $NHOSTS); do
    h=$(hn "$i")
    ip netns add "$h"
    ip -n "$h" link set lo up
    ip -n "$LAN" link add "p$i" type veth peer name eth0 netns "$h"
    ip -n "$LAN" link set "p$i" master br0
    ip -n "$LAN" link set "p$i" up
    ip -n "$h" link set eth0 address "02:$SUBNET:00:00:00:0$i" multicast on
    ip -n "$h" addr add "10.$SUBNET.0.$i/24" dev eth0
  done
  ip -n "$LAN" link set br0 up
  for i in $(seq 1 $NHOSTS); do
    h=$(hn "$i"); ip -n "$h" link set eth0 up; ip -n "$h" route add 224.0.0.0/4 dev eth0
  done
  for i in $(seq 1 $NHOSTS); do   # IPv6 DAD on the link-local addresses
    h=$(hn "$i"); n=0
    until [ -n "$(ip -n "$h" -6 addr show dev eth0 scope link)" ] && [ -z "$(ip -n "$h" -6 addr show dev eth0 tentative)" ]; do
      n=$((n + 1)); [ $n -gt 100 ] && die "DAD did not finish on $h"; sleep 0.1
    done
  done
  log "network up: $LAN/br0 + $(for i in $(seq 1 $NHOSTS); do hn "$i"; done | paste -sd ' ')"
}
net_down() {
  [ -e "$RUN/net.created" ] || { log "no network of ours recorded in $RUN"; return 0; }
  local ns pid
  for ns in $(for i in $(seq 1 $NHOSTS); do hn "$i"; done) "$LAN"; do
    ns_exists "$ns" || continue
    for pid in $(ip netns pids "$ns" 2>/dev/null); do   # only our processes can be there
      log "killing leftover pid $pid ($(cat /proc/"$pid"/comm 2>/dev/null)) in $ns"; stop_pid "$pid" 3
    done
    ip netns del "$ns"
  done
  rm -f "$RUN/net.created"
}
