#!/usr/bin/env bash
# scripts/testbed-newstacks.sh -- issue #52 "Blind spots on stacks we had never met":
# record four SSDP / mDNS implementations the analyzer had never seen, on an
# isolated LAN of our own built from network namespaces (same conventions as
# /work/shared/testbed/testbed.sh, but a separate prefix so both can coexist).
#
#   ns52-lan : bridge br0 (STP off, forward_delay 0, multicast snooping OFF so it
#              floods every multicast frame like a dumb switch; tcpdump puts br0
#              in promiscuous mode, so it also sees unicast between ports), no IP, IPv6 off
#   ns52-h1..h3: eth0 = veth peer of ns52-lan/pN, MAC 02:52:00:00:00:0N,
#              IPv4 10.52.0.N/24, IPv6 link-local (EUI-64), route 224.0.0.0/4 on
#              eth0, NO default route: nothing can leave the namespaces.
#
#   h1: the stack under test (systemd-resolved | gerbera | mdnsd | ssdpy)
#   h2: clients (M-SEARCH / mquery / raw mDNS queries incl. QU)
#   h3: mdnsd only: a second responder (python-zeroconf, Debian python3-zeroconf
#       0.47.3) claiming mdnsd's service instance name, then a raw claim of its
#       host name's A record with a different address (name conflict, RFC 6762 §9)
#
# Subcommands
#   setup              install what is needed (no service is started in the default
#                      namespace: needs /usr/sbin/policy-rc.d exiting 101; systemd-
#                      resolved is NOT installed, only downloaded and unpacked into
#                      $ROOT, so /etc/resolv.conf of this machine is never touched)
#   up                 create the namespaces (idempotent)
#   record STACK OUT   one life cycle of STACK (resolved|gerbera|mdnsd|ssdpy) while
#                      tcpdump on ns52-lan/br0 writes OUT (pcap): network up, capture,
#                      start, client round 1 (+8 s), client round 2 (+15 s), shutdown
#                      (+10 s: resolved `resolvectl mdns eth0 no` then SIGTERM, the
#                      others SIGTERM), capture stops 8 s later, network down; 70-130 s.
#                      Logs and a timeline: $RUN/log-STACK/
#   down               stop every process we started (by PID), delete namespaces
#   start|clients|stop STACK [ROUND]
#                      single steps, for debugging a stack on a network that is `up`
#
# Environment: NS52_RUN (/tmp/ns52-run), NS52_ROOT (/tmp/ns52-root: unpacked
#   systemd-resolved), NS52_VENV (/tmp/ns52-venv: ssdpy 0.4.1),
#   NS52_FILTER (capture filter, default below).
#
# Safety: the only network commands run in the default namespace are `ip netns
# add/del/list/pids`; everything else is `ip -n NS` or `ip netns exec NS`, and no
# namespace has a route out.  Every long-running process is started with
# `setsid ip netns exec NS ...` (all exec, so $! is the final program's PID), its PID
# is stored in $RUN/pids, and it is stopped by that PID; short clients run in the
# foreground the same way (resolvectl with `ip netns exec` and `timeout`).  No
# pkill/killall.  Namespaces not created by this script are never touched.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN=${NS52_RUN:-/tmp/ns52-run}
ROOT=${NS52_ROOT:-/tmp/ns52-root}
VENV=${NS52_VENV:-/tmp/ns52-venv}
P=ns52-
LAN=${P}lan
NHOSTS=3
SYSPY=/usr/bin/python3     # Debian python 3.11 with python3-zeroconf 0.47.3
# All UDP (search responses go between ephemeral ports, not 1900), IGMP, ICMP/ICMPv6, and
# ip6[6]=0: MLD reports (behind a hop-by-hop header, which plain "icmp6" does not match).
# Only our own programs run in these namespaces, so "udp" is only SSDP/mDNS traffic.
FILTER=${NS52_FILTER:-udp or igmp or icmp or icmp6 or (ip6 and ip6[6]=0)}
RESOLVED_VER=252.39-1~deb12u2

log() { printf '[ns52 %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
hn() { echo "${P}h$1"; }
# The LAN (10.52.0.0/24) and the processes' PID files, shared with the other recording script.
SUBNET=52
STOP_GRACE=8
# shellcheck source=scripts/testbed-lan.sh
. "$HERE/testbed-lan.sh"

# ---------------------------------------------------------------- processes
start_bg() { # NAME NS CMD... : detached inside NS, PID remembered
  local name=$1 ns=$2; shift 2
  mkdir -p "$RUN/pids" "$RUN/log"
  setsid ip netns exec "$ns" "$@" >>"$RUN/log/$name.log" 2>&1 </dev/null &
  echo $! >"$(pidfile "$name")"
  log "started $name in $ns (pid $!)"
}
# run a short client in NS in the foreground (own session, output to a log)
client() { local name=$1 ns=$2; shift 2; mark "client $name: $*"; setsid ip netns exec "$ns" "$@" >>"$RUN/log/$name.log" 2>&1 </dev/null || log "$name exited $?"; }

# ---------------------------------------------------------------- helpers (python)
write_helpers() {
  mkdir -p "$RUN/bin"
  # Raw mDNS querier: one question per argument NAME/TYPE[/qu]; prints answers.
  cat >"$RUN/bin/mdnsq.py" <<'EOF'
import socket, struct, sys, time
TYPES = {'A': 1, 'PTR': 12, 'TXT': 16, 'AAAA': 28, 'SRV': 33, 'ANY': 255, 'HINFO': 13, 'MX': 15, 'CNAME': 5}
def qname(n):
    return b''.join(bytes([len(l)]) + l.encode() for l in n.rstrip('.').split('.')) + b'\0'
wait = float(sys.argv[1]); qs = sys.argv[2:]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
s.bind(('', 5353))   # from port 5353: a fully compliant querier (not legacy unicast)
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton('224.0.0.251') + socket.inet_aton('0.0.0.0'))
body = b''
for q in qs:
    name, t, *flag = q.split('/')
    cls = 0x8001 if flag and flag[0] == 'qu' else 1   # top bit of qclass = QU
    body += qname(name) + struct.pack('!HH', TYPES[t], cls)
msg = struct.pack('!HHHHHH', 0, 0, len(qs), 0, 0, 0) + body
s.sendto(msg, ('224.0.0.251', 5353)); t0 = time.time()
print('sent', qs, flush=True)
s.settimeout(0.2)
while time.time() - t0 < wait:
    try:
        d, a = s.recvfrom(9000)
    except socket.timeout:
        continue
    fl = struct.unpack('!H', d[2:4])[0]
    if fl & 0x8000:
        print('%.3f response from %s:%d  %d bytes an=%d ns=%d ar=%d' % ((time.time() - t0), a[0], a[1], len(d), *struct.unpack('!HHH', d[6:12])), flush=True)
EOF
  # Raw SSDP M-SEARCH: ST/MX pairs, prints who answered and when.
  cat >"$RUN/bin/msearch.py" <<'EOF'
import socket, sys, time
wait = float(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
s.bind(('', 0))
for arg in sys.argv[2:]:
    st, mx = arg.rsplit('/', 1)
    m = ('M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: "ssdp:discover"\r\n'
         'MX: %s\r\nST: %s\r\nUSER-AGENT: Linux/6 UPnP/1.1 ns52-msearch/1.0\r\n\r\n' % (mx, st))
    s.sendto(m.encode(), ('239.255.255.250', 1900)); t0 = time.time()
    print('sent ST=%s MX=%s' % (st, mx), flush=True)
    s.settimeout(0.2)
    while time.time() - t0 < wait:
        try:
            d, a = s.recvfrom(9000)
        except socket.timeout:
            continue
        print('%.3f %s:%d %s' % (time.time() - t0, a[0], a[1], d.split(b'\r\n')[0].decode(errors='replace')), flush=True)
EOF
  # Conflicting responder 1: python-zeroconf registers mdnsd's instance name
  # ("Mdnsd Web._http._tcp.local.") with another target/port, no renaming allowed.
  cat >"$RUN/bin/zc_conflict.py" <<'EOF'
import socket, sys, time
from zeroconf import Zeroconf, ServiceInfo, IPVersion, NonUniqueNameException
zc = Zeroconf(interfaces=['10.52.0.3'], ip_version=IPVersion.V4Only)
info = ServiceInfo('_http._tcp.local.', 'Mdnsd Web._http._tcp.local.', port=8080,
                   addresses=[socket.inet_aton('10.52.0.3')], server='ns52-h3-zc.local.',
                   properties={'path': '/intruder'})
try:
    zc.register_service(info, allow_name_change=False)
    print('registered (no conflict seen)', flush=True)
except NonUniqueNameException as e:
    print('conflict detected by zeroconf:', repr(e), flush=True)
time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 10)
zc.close()
EOF
  # Conflicting responder 2: a raw unsolicited response claiming mdnsd's host
  # name A record (cache-flush) with another address, three times 1 s apart.
  cat >"$RUN/bin/a_conflict.py" <<'EOF'
import socket, struct, sys, time
name, addr = sys.argv[1], sys.argv[2]
def qname(n):
    return b''.join(bytes([len(l)]) + l.encode() for l in n.rstrip('.').split('.')) + b'\0'
rr = qname(name) + struct.pack('!HHIH', 1, 0x8001, 120, 4) + socket.inet_aton(addr)
msg = struct.pack('!HHHHHH', 0, 0x8400, 0, 1, 0, 0) + rr
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
s.bind(('', 5353))
for i in range(3):
    s.sendto(msg, ('224.0.0.251', 5353)); print('claimed', name, addr, flush=True); time.sleep(1)
EOF
}

# ---------------------------------------------------------------- setup
do_setup() {
  [ -x /usr/sbin/policy-rc.d ] && [ "$(/usr/sbin/policy-rc.d >/dev/null 2>&1; echo $?)" = 101 ] ||
    die "/usr/sbin/policy-rc.d missing or not exiting 101: apt-get install would start gerbera/mdnsd here"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q gerbera mdnsd tcpdump dbus python3-zeroconf
  # systemd-resolved: download + unpack only (installing it would take over
  # /etc/resolv.conf of this machine).  libsystemd-shared of the same version
  # gives the private libsystemd-shared-252.so.
  mkdir -p "$ROOT" /tmp/ns52-debs
  (cd /tmp/ns52-debs && apt-get download "systemd-resolved=$RESOLVED_VER" "systemd=$RESOLVED_VER" "libsystemd-shared=$RESOLVED_VER")
  for d in /tmp/ns52-debs/*.deb; do dpkg -x "$d" "$ROOT"; done
  [ -x "$VENV/bin/ssdpy-server" ] || { python3 -m venv "$VENV"; "$VENV/bin/pip" install -q ssdpy==0.4.1; }
}

# ---------------------------------------------------------------- stacks
# Each stack: start_STACK, clients_STACK ROUND, stop_STACK.

# systemd-resolved 252 on h1: private mount namespace (tmpfs on /run/systemd and
# /etc/systemd carrying our resolved.conf + .dnssd files, a passwd with the
# systemd-resolve user it drops privileges to), private UTS namespace (host name
# ns52-resolved), private system bus (dbus-daemon, socket in $RUN/resolved).
write_resolved() {
  local d=$RUN/resolved
  mkdir -p "$d/etc-systemd/dnssd"
  cat >"$d/dbus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$d/dbus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
  cat >"$d/etc-systemd/resolved.conf" <<'EOF'
[Resolve]
MulticastDNS=yes
LLMNR=no
DNSSEC=no
DNSStubListener=no
DNS=
FallbackDNS=
EOF
  cat >"$d/etc-systemd/dnssd/web.dnssd" <<'EOF'
[Service]
Name=Resolved Web
Type=_http._tcp
Port=80
TxtText=path=/ server=resolved
EOF
  cat >"$d/etc-systemd/dnssd/ipp.dnssd" <<'EOF'
[Service]
Name=Resolved Printer
Type=_ipp._tcp
Port=631
TxtText=rp=ipp/print ty=Resolved_Test_Printer txtvers=1
EOF
  : >"$d/resolv.conf"   # empty: no foreign DNS servers picked up from this machine
  { cat /etc/passwd; echo 'systemd-resolve:x:991:991:systemd Resolver:/:/usr/sbin/nologin'; } >"$d/passwd"
  { cat /etc/group; echo 'systemd-resolve:x:991:'; } >"$d/group"
  # started by `unshare -m -u` inside the namespace; ends with exec (PID kept)
  cat >"$d/start.sh" <<EOF
#!/bin/sh
set -e
mount --make-rprivate /
mount -t tmpfs tmpfs /run/systemd 2>/dev/null || { mkdir -p /run/systemd; mount -t tmpfs tmpfs /run/systemd; }
mkdir -p /etc/systemd
mount --bind $d/etc-systemd /etc/systemd
mount --bind $d/passwd /etc/passwd
mount --bind $d/group /etc/group
mount --bind $d/resolv.conf /etc/resolv.conf
hostname ns52-resolved
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$d/dbus.sock
export LD_LIBRARY_PATH=$ROOT/usr/lib/x86_64-linux-gnu/systemd
export SYSTEMD_LOG_LEVEL=debug
exec $ROOT/lib/systemd/systemd-resolved
EOF
  # the bus daemon must know the systemd-resolve uid too (same passwd, own mount ns)
  cat >"$d/dbus.sh" <<EOF
#!/bin/sh
set -e
mount --make-rprivate /
mount --bind $d/passwd /etc/passwd
mount --bind $d/group /etc/group
exec dbus-daemon --nofork --nopidfile --config-file=$d/dbus.conf
EOF
  chmod +x "$d/start.sh" "$d/dbus.sh"
}
rctl() { # resolvectl over the private bus, inside h1
  ip netns exec "$(hn 1)" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$RUN/resolved/dbus.sock" \
    LD_LIBRARY_PATH="$ROOT/usr/lib/x86_64-linux-gnu/systemd" timeout 15 "$ROOT/usr/bin/resolvectl" "$@"
}
start_resolved() {
  write_resolved
  start_bg dbus-h1 "$(hn 1)" unshare -m "$RUN/resolved/dbus.sh"
  sleep 0.5
  start_bg resolved-h1 "$(hn 1)" unshare -m -u "$RUN/resolved/start.sh"
  sleep 2
  mark "resolvectl mdns eth0 yes"
  rctl mdns eth0 yes >>"$RUN/log/resolvectl.log" 2>&1 || log "resolvectl mdns failed (see log)"
  rctl status >>"$RUN/log/resolvectl.log" 2>&1 || true
}
clients_resolved() {
  local r=$1
  # browse/resolve from the same host (resolved's own querier)
  mark "resolvectl round $r"
  { rctl query -t PTR _http._tcp.local; rctl query -t PTR _ipp._tcp.local
    rctl service "Resolved Web" _http._tcp local; rctl query ns52-resolved.local
    rctl query -t PTR _services._dns-sd._udp.local
    # not in its own zone -> real mDNS queries on the wire (nobody has these)
    rctl query -t PTR _ssh._tcp.local; rctl query ns52-nobody.local; } >>"$RUN/log/resolvectl.log" 2>&1 || true
  # from h2: PTR browse, SRV/TXT, and types resolved does not have
  # (TXT/HINFO of the host name, AAAA/A of a service instance name -> NSEC expected, §6.1)
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 _http._tcp.local/PTR _ipp._tcp.local/PTR
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 "Resolved Web._http._tcp.local/SRV" "Resolved Web._http._tcp.local/TXT"
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 ns52-resolved.local/HINFO
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 ns52-resolved.local/MX
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 "Resolved Web._http._tcp.local/A"
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 ns52-resolved.local/A/qu
}
stop_resolved() {
  mark "resolvectl mdns eth0 no"
  rctl mdns eth0 no >>"$RUN/log/resolvectl.log" 2>&1 || log "resolvectl mdns no failed"
  sleep 3
  stop_svc resolved-h1; stop_svc dbus-h1
}

# gerbera 1.1.0 (libupnp 1.8.4) on h1: own config, home and sqlite db in $RUN.
start_gerbera() {
  local d=$RUN/gerbera
  mkdir -p "$d/home" "$d/media"
  sed -e "s#<home>.*</home>#<home>$d/home</home>#" -e 's#<name>gerbera</name>#<name>ns52 Gerbera</name>#' \
      -e 's#<udn/>#<udn>uuid:52525252-0000-4000-8000-025200000001</udn>#' \
      /etc/gerbera/config.xml >"$d/config.xml"
  start_bg gerbera-h1 "$(hn 1)" gerbera -c "$d/config.xml" -m "$d/home" -e eth0 -p 49152 -l "$RUN/log/gerbera-own.log"
  sleep 3
}
clients_gerbera() {
  client msearch-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/msearch.py" 4 ssdp:all/2 urn:schemas-upnp-org:device:MediaServer:1/3 upnp:rootdevice/2 \
    urn:schemas-upnp-org:service:ContentDirectory:1/2
}
stop_gerbera() { stop_svc gerbera-h1; }

# troglobit mdnsd 0.12 on h1 (own UTS namespace; mdnsd names each service host "<name>.local"),
# services: "Mdnsd Web" _http._tcp with a cname, "Mdnsd Printer" _ipp._tcp.
start_mdnsd() {
  local d=$RUN/mdnsd
  mkdir -p "$d/mdns.d"
  cat >"$d/mdns.d/http.service" <<'EOF'
# mDNS-SD advertisement of an HTTP service with a CNAME alias
name Mdnsd Web
type _http._tcp
port 80
txt path=/
txt server=ns52
cname www-ns52.local
EOF
  cat >"$d/mdns.d/ipp.service" <<'EOF'
name Mdnsd Printer
type _ipp._tcp
port 631
txt rp=ipp/print
txt ty=Mdnsd Test Printer
EOF
  start_bg mdnsd-h1 "$(hn 1)" unshare -u sh -c "hostname ns52-mdnsd; exec mdnsd -n -i eth0 -l debug $d/mdns.d"
  sleep 3
}
clients_mdnsd() {
  local r=$1
  client mquery-h2 "$(hn 2)" timeout 12 mquery -i eth0 -w 8
  client mquery-h2 "$(hn 2)" timeout 8 mquery -i eth0 -w 4 _http._tcp.local
  # QU questions (unicast-response bit): PTR, SRV, A -> §5.4 asks for unicast replies
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 _http._tcp.local/PTR/qu
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 "Mdnsd Web._http._tcp.local/SRV/qu" "Mdnsd Web.local/A/qu"
  # the same as QM questions (multicast answers; SRV: is the target's address in Additional?)
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 "Mdnsd Web._http._tcp.local/SRV"
  # the CNAME alias: does it answer?
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 www-ns52.local/A www-ns52.local/CNAME
  client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 _ipp._tcp.local/PTR "Mdnsd Web.local/TXT"
  if [ "$r" = 2 ]; then
    # name conflict from h3
    client zc-conflict-h3 "$(hn 3)" "$SYSPY" "$RUN/bin/zc_conflict.py" 8
    client a-conflict-h3 "$(hn 3)" "$SYSPY" "$RUN/bin/a_conflict.py" "Mdnsd Web.local" 10.52.0.33
    sleep 6
    # after the conflicts: does mdnsd still assert its SRV and A (no rename, no re-probe)?
    client mdnsq-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/mdnsq.py" 3 _http._tcp.local/PTR "Mdnsd Web.local/A" "Mdnsd Web._http._tcp.local/SRV"
  fi
}
stop_mdnsd() { stop_svc mdnsd-h1; }

# ssdpy 0.4.1 on h1: ssdpy-server as the UPnP root device (its default NT, "ssdp:rootdevice",
# is not a UPnP type); it answers only searches for its one type, or ssdp:all.  max-age 30
# (its default sends no CACHE-CONTROL at all) so that the ~70 s of the recording span more
# than one max-age: whether it ever re-announces, and its advertisement set, can be judged.
start_ssdpy() {
  start_bg ssdpy-h1 "$(hn 1)" "$VENV/bin/ssdpy-server" -v -i eth0 -a 10.52.0.1 -t upnp:rootdevice \
    --max-age 30 -l http://10.52.0.1:8000/description.xml uuid:52525252-0000-4000-8000-025200000011
  sleep 3
}
clients_ssdpy() {
  client msearch-h2 "$(hn 2)" "$SYSPY" "$RUN/bin/msearch.py" 4 ssdp:all/2 upnp:rootdevice/3 urn:schemas-upnp-org:device:Basic:1/2
  client ssdpy-discover-h2 "$(hn 2)" "$VENV/bin/ssdpy-discover" -i eth0 -m 2 -o 4 ssdp:all
}
stop_ssdpy() { stop_svc ssdpy-h1; }

# ---------------------------------------------------------------- record
do_record() {
  local stack=$1 out=$2
  case $stack in resolved|gerbera|mdnsd|ssdpy) ;; *) die "unknown stack $stack";; esac
  do_down; rm -rf "$RUN/log"; net_up; write_helpers
  : >"$RUN/log/timeline.log"
  mkdir -p "$(dirname "$out")"; out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
  start_bg tcpdump-lan "$LAN" tcpdump -i br0 -U -Z root -w "$out" $FILTER
  sleep 2
  mark "=== $stack: start"
  "start_$stack"
  sleep 8;  mark "=== $stack: client round 1"; "clients_$stack" 1
  sleep 15; mark "=== $stack: client round 2"; "clients_$stack" 2
  sleep 10; mark "=== $stack: shutdown"; "stop_$stack"
  sleep 8
  stop_svc tcpdump-lan
  do_down
  rm -rf "$RUN/log-$stack"; cp -r "$RUN/log" "$RUN/log-$stack"
  log "wrote $out ($(stat -c %s "$out") bytes); timeline in $RUN/log/timeline.log"
}

do_down() {
  stop_all
  net_down
}

case ${1:-} in
  setup) do_setup ;;
  up) net_up ;;
  record) [ $# -eq 3 ] || die "usage: $0 record STACK OUT"; do_record "$2" "$3" ;;
  down) do_down ;;
  start|clients|stop) # single steps for debugging a stack on a network that is `up`
    [ $# -ge 2 ] || die "usage: $0 start|clients|stop STACK"; write_helpers; "${1}_$2" "${3:-1}" ;;
  *) echo "usage: $0 setup | up | record resolved|gerbera|mdnsd|ssdpy OUT | down" >&2; exit 2 ;;
esac
