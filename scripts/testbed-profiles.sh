#!/usr/bin/env bash
# scripts/testbed-profiles.sh -- real captures of the service profiles of
# /work/shared/rules/profiles.md (IPP Everywhere / Bonjour printing, AirPlay/RAOP,
# Matter, HomeKit, Google Cast, Spotify Connect), each recorded through one life cycle
# on an isolated LAN of network namespaces (conventions of scripts/testbed-newstacks.sh
# and /work/shared/testbed/testbed.sh, own prefix nsp- so all can coexist).
#
#   nsp-lan  : bridge br0 (STP off, forward_delay 0, multicast snooping OFF: floods every
#              multicast frame like a dumb switch; tcpdump makes br0 promiscuous, so it
#              also sees unicast between ports), no IP, IPv6 off in the namespace
#   nsp-h1..h3: eth0 = veth peer of nsp-lan/pN, MAC 02:53:00:00:00:0N, IPv4 10.53.0.N/24,
#              IPv6 link-local (EUI-64: fe80::53:ff:fe00:N), route 224.0.0.0/4 on eth0,
#              NO default route: nothing can leave the namespaces.
#
#   h1: the implementation under test (with its own avahi-daemon + private D-Bus bus
#       where it publishes through Avahi)
#   h2: clients: avahi-daemon + private bus for avahi-browse / ippfind, ipptool,
#       python-zeroconf browser, pychromecast discovery
#   h3: cups: the IPP Everywhere printer (ippeveprinter + its avahi) behind the CUPS
#       queue; realpy: librespot-python
#
# Stacks (`record STACK OUT`):
#   ippeve      ippeveprinter (cups-ipp-utils) via avahi-daemon on h1; ippfind, avahi-browse
#               and the IPP Everywhere self-certification DNS-SD checks B-1 ... B-5.5 from h2
#   cups        cupsd (own ServerRoot) on h1 sharing queue "Office" (lpadmin -m everywhere,
#               ipp://10.53.0.3:8631/ipp/print = ippeveprinter on h3), cupsctl --share-printers
#   shairport   shairport-sync (RAOP) via avahi-daemon on h1, dummy audio output
#   zcprofiles  scripts/profiles_publish.py (python-zeroconf, Debian): Matter commissionable
#               + operational, HAP, Google Cast, Spotify Connect on h1
#   realpy      HAP-python (PyPI) accessory on h1, librespot-python ZeroconfServer (PyPI) on h3
#
# Subcommands
#   setup              install what is needed (apt; needs /usr/sbin/policy-rc.d exiting 101
#                      so nothing starts in the default namespace) and the PyPI venv
#   up                 create the namespaces (idempotent)
#   record STACK OUT   one life cycle while tcpdump on nsp-lan/br0 writes OUT (pcap): network
#                      up, capture, client daemons, stack start, client round 1 (+10 s),
#                      round 2 (+20 s), shutdown (+10 s, SIGTERM by PID, Avahi goodbyes),
#                      client daemons stopped, capture stops 6 s later, network down.
#                      Logs and timeline: $RUN/log-STACK/
#   down               stop every process we started (by PID), delete the namespaces
#   start|clients|stop STACK [ROUND]   single steps on a network that is `up`
#
# Environment: NSP_RUN (/tmp/nsp-run), NSP_VENV (/tmp/nsp-venv: HAP-python 5.0.0,
#   librespot 0.0.10), NSP_FILTER (capture filter, default below).
#
# Safety: the only network commands run in the default namespace are `ip netns
# add/del/list/pids`; everything else is `ip -n NS` or `ip netns exec NS`, and no namespace
# has a route out.  Every long-running process is started with `setsid ip netns exec NS ...`
# (all exec, so $! is the final program's PID), its PID stored in $RUN/pids and stopped by
# it.  Daemons that need /run (avahi-daemon) or a host name of their own run in a private
# mount/UTS namespace (unshare) with a tmpfs on /run.  No pkill/killall.  Namespaces not
# created by this script are never touched.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN=${NSP_RUN:-/tmp/nsp-run}
VENV=${NSP_VENV:-/tmp/nsp-venv}
P=nsp-
LAN=${P}lan
NHOSTS=3
SYSPY=/usr/bin/python3     # Debian python 3.11.2 with python3-zeroconf 0.47.3, python3-pychromecast 9.4.0
FILTER=${NSP_FILTER:-udp or igmp or icmp or icmp6 or (ip6 and ip6[6]=0)}
STACKS="ippeve cups shairport zcprofiles realpy"

log() { printf '[nsp %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
hn() { echo "${P}h$1"; }
# The LAN (10.53.0.0/24) and the processes' PID files, shared with the other recording script.
SUBNET=53
STOP_GRACE=10
# shellcheck source=scripts/testbed-lan.sh
. "$HERE/testbed-lan.sh"

# ---------------------------------------------------------------- processes
start_bg() { # NAME NS CMD... : detached inside NS, PID remembered
  local name=$1 ns=$2; shift 2
  mkdir -p "$RUN/pids" "$RUN/log"
  setsid ip netns exec "$ns" "$@" >>"$RUN/log/$name.log" 2>&1 </dev/null &
  echo $! >"$(pidfile "$name")"
  mark "start $name in $ns (pid $!)"
}
# a short client in NS, in the foreground (own session, output to a log)
client() { local name=$1 ns=$2; shift 2; mark "client $name: $*"; echo "### $(ts) $*" >>"$RUN/log/$name.log"
  setsid ip netns exec "$ns" "$@" >>"$RUN/log/$name.log" 2>&1 </dev/null || log "$name exited $?"; }
wait_log() { # LOGNAME PATTERN [TENTHS]
  local i; for ((i = 0; i < ${3:-100}; i++)); do grep -q "$2" "$RUN/log/$1.log" 2>/dev/null && return 0; sleep 0.1; done
  log "WARNING: '$2' not seen in $1.log"; }

# ---------------------------------------------------------------- avahi + D-Bus per host
dbus_env() { echo "DBUS_SYSTEM_BUS_ADDRESS=unix:path=$RUN/h$1/dbus.sock"; }
write_avahi() { # N HOSTNAME [minimal]: config for the avahi-daemon of host N
  local n=$1 name=$2 extra=yes; [ "${3:-}" = minimal ] && extra=no
  mkdir -p "$RUN/h$n/services"
  cat >"$RUN/h$n/dbus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$RUN/h$n/dbus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
  # Debian's defaults except: our host name, eth0 only, no wide-area, no rate limit
  # surprises; the client host (minimal) publishes its addresses only.
  cat >"$RUN/h$n/avahi-daemon.conf" <<EOF
[server]
host-name=$name
domain-name=local
use-ipv4=yes
use-ipv6=yes
allow-interfaces=eth0
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000

[wide-area]
enable-wide-area=no

[publish]
publish-addresses=yes
publish-hinfo=$extra
publish-workstation=$extra
publish-domain=yes
publish-aaaa-on-ipv4=yes
publish-a-on-ipv6=no

[reflector]
enable-reflector=no

[rlimits]
EOF
}
start_avahi() { # N : private bus + avahi-daemon in nsp-hN
  local n=$1
  rm -f "$RUN/h$n/dbus.sock"
  start_bg "dbus-h$n" "$(hn "$n")" dbus-daemon --config-file="$RUN/h$n/dbus.conf" --nofork --nopidfile
  for i in $(seq 50); do [ -S "$RUN/h$n/dbus.sock" ] && break; sleep 0.1; done
  # private mount namespace: a fresh /run (avahi's pid file and socket), our services dir
  start_bg "avahi-h$n" "$(hn "$n")" env "$(dbus_env "$n")" unshare -m --propagation private sh -c \
    "mount -t tmpfs nsp-run /run && mkdir -p /run/avahi-daemon &&
     mount --bind '$RUN/h$n/services' /etc/avahi/services &&
     exec avahi-daemon -f '$RUN/h$n/avahi-daemon.conf' --no-drop-root --no-chroot --no-rlimits"
  wait_log "avahi-h$n" 'Server startup complete'
}
stop_avahi() { stop_svc "avahi-h$1"; stop_svc "dbus-h$1"; }
# run a client on h2 with h2's bus, a HOME of its own (CUPS' TLS trust store) and a timeout
# and our hosts file (no nss-mdns here: ippfind --ls and ipptool resolve the SRV target
# through getaddrinfo, so it gets the testbed's names from a private /etc/hosts)
c2() { local name=$1 t=$2; shift 2; client "$name" "$(hn 2)" "$RUN/bin/inh2" timeout "$t" "$@"; }

# ---------------------------------------------------------------- helpers
write_helpers() {
  mkdir -p "$RUN/bin" "$RUN/h2/home"
  printf '127.0.0.1 localhost\n10.53.0.1 nsp-ippeve.local nsp-cups.local\n10.53.0.3 nsp-printer.local\n' >"$RUN/h2/hosts"
  { echo '#!/bin/sh'
    echo '# client wrapper on nsp-h2: private mount namespace with our hosts file, h2 bus, own HOME'
    echo "export $(dbus_env 2) HOME=$RUN/h2/home"
    echo "exec unshare -m --propagation private sh -c 'mount --bind $RUN/h2/hosts /etc/hosts && exec \"\$@\"' inh2 \"\$@\""
  } >"$RUN/bin/inh2"
  chmod +x "$RUN/bin/inh2"
  # python-zeroconf browser (Debian 0.47.3): browse the given types for SECONDS, print
  # every instance resolved with its SRV target, port, addresses and TXT.
  cat >"$RUN/bin/zcbrowse.py" <<'EOF'
import sys, time, socket, subprocess, threading
from zeroconf import Zeroconf, ServiceBrowser, IPVersion
lk = threading.Lock()
secs = float(sys.argv[1]); types = [t if t.endswith('.') else t + '.local.' for t in sys.argv[2:]]
v4 = [l.split()[3].split('/')[0] for l in subprocess.run(['ip', '-o', '-4', 'addr', 'show', 'dev', 'eth0'], capture_output=True, text=True).stdout.splitlines()]
zc = Zeroconf(interfaces=v4 + [socket.if_nametoindex('eth0')], ip_version=IPVersion.All)
seen = set()
class L:
    def add_service(self, z, t, n):
        if (t, n) in seen: return
        seen.add((t, n)); info = z.get_service_info(t, n, 3000)
        with lk:
            if not info: print(f'{t} {n!r}: not resolved', flush=True); return
            txt = ' '.join(f"{k.decode()}={'' if v is None else v.decode(errors='replace')}" for k, v in info.properties.items())
            print(f'{t} {n!r} -> {info.server}:{info.port} {info.parsed_addresses()} TXT: {txt}', flush=True)
    def remove_service(self, z, t, n): print(f'removed {t} {n!r}', flush=True)
    def update_service(self, z, t, n): pass
bs = [ServiceBrowser(zc, t, L()) for t in types]
time.sleep(secs); zc.close()
EOF
  # pychromecast (Debian 9.4.0) discovery: what a Cast sender makes of the _googlecast records
  cat >"$RUN/bin/castdiscover.py" <<'EOF'
import sys, socket, subprocess, zeroconf, pychromecast
v4 = [l.split()[3].split('/')[0] for l in subprocess.run(['ip', '-o', '-4', 'addr', 'show', 'dev', 'eth0'], capture_output=True, text=True).stdout.splitlines()]
zc = zeroconf.Zeroconf(interfaces=v4)
casts, browser = pychromecast.discovery.discover_chromecasts(timeout=float(sys.argv[1]), zeroconf_instance=zc)
print(f'pychromecast discover_chromecasts: {len(casts)} device(s)')
for c in casts: print(c)
pychromecast.discovery.stop_discovery(browser); zc.close()
EOF
  # ipptool test: the self-certification's TXT-against-IPP comparison (B-4, B-5.5):
  # printer-more-info must equal the adminurl key, printer-uuid the UUID key.
  cat >"$RUN/bin/dnssd-values.test" <<'EOF'
{
  NAME "TXT adminurl and UUID against Get-Printer-Attributes"
  OPERATION Get-Printer-Attributes
  GROUP operation-attributes-tag
  ATTR charset attributes-charset utf-8
  ATTR language attributes-natural-language en
  ATTR uri printer-uri $uri
  STATUS successful-ok
  EXPECT printer-more-info OF-TYPE uri IN-GROUP printer-attributes-tag COUNT 1 WITH-VALUE "$ENV[IPPFIND_TXT_ADMINURL]"
  EXPECT printer-uuid OF-TYPE uri IN-GROUP printer-attributes-tag COUNT 1 WITH-VALUE "urn:uuid:$ENV[IPPFIND_TXT_UUID]"
}
EOF
  cat >"$RUN/bin/gpa.test" <<'EOF'
{
  NAME "Get-Printer-Attributes (after an HTTP Upgrade to TLS with ipptool -E)"
  OPERATION Get-Printer-Attributes
  GROUP operation-attributes-tag
  ATTR charset attributes-charset utf-8
  ATTR language attributes-natural-language en
  ATTR uri printer-uri $uri
  STATUS successful-ok
}
EOF
  # HAP-python accessory (PyPI HAP-python 5.0.0): a bridge-less lightbulb "NSP Lamp"
  cat >"$RUN/bin/hap_lamp.py" <<'EOF'
import signal, sys, logging
logging.basicConfig(level=logging.INFO)
from pyhap.accessory import Accessory
from pyhap.accessory_driver import AccessoryDriver
from pyhap.const import CATEGORY_LIGHTBULB
class Lamp(Accessory):
    category = CATEGORY_LIGHTBULB
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.add_preload_service('Lightbulb').configure_char('On', setter_callback=lambda v: None)
drv = AccessoryDriver(address='10.53.0.1', port=51826, persist_file=sys.argv[1], pincode=b'031-45-154', mac='1E:34:5A:7B:9C:0E')
drv.add_accessory(Lamp(drv, 'NSP Lamp'))
signal.signal(signal.SIGTERM, drv.signal_handler)
drv.start()
EOF
  # librespot-python (PyPI librespot 0.0.10) ZeroconfServer: Spotify Connect discovery endpoint
  cat >"$RUN/bin/librespot_zc.py" <<'EOF'
import os, signal, sys, threading, logging
logging.basicConfig(level=logging.INFO)
from librespot.zeroconf import ZeroconfServer
zs = ZeroconfServer.Builder().set_device_name('NSP librespot').set_listen_port(41208).create()
print('ZeroconfServer up', flush=True)
ev = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: ev.set())
ev.wait()
print('closing', flush=True); zs.close(); print('closed', flush=True)
os._exit(0)
EOF
}

# IPP Everywhere Printer Self-Certification 1.1, section 5 "DNS-SD Tests", reproduced from
# istopwg/ippeveselfcert tests/dnssd-tests.sh (same ippfind/ipptool criteria, our own code).
selfcert() { # INSTANCE-NAME  (runs on h2, output in log/selfcert.log)
  local t=$1 f=$RUN/log/selfcert.log uuidre='^[0-9a-fA-F]{8,8}-[0-9a-fA-F]{4,4}-[0-9a-fA-F]{4,4}-[0-9a-fA-F]{4,4}-[0-9a-fA-F]{12,12}$'
  local IF=(ip netns exec "$(hn 2)" "$RUN/bin/inh2" timeout 40 ippfind)
  mark "client selfcert: B-1 ... B-5.5 for '$t'"
  r() { local name=$1; shift; if "$@" >>"$f" 2>&1; then echo "$name: PASS" >>"$f"; return 0; else echo "$name: FAIL" >>"$f"; return 1; fi; }
  {
    echo "### $(ts) self-certification DNS-SD checks for '$t'"
    echo "--- TXT of _ipp._tcp as ippfind passes it to programs (IPPFIND_*):"
  } >>"$f"
  "${IF[@]}" --literal-name "$t" _ipp._tcp -x /usr/bin/env \; 2>&1 | grep '^IPPFIND_' | sort >>"$f" || true
  echo "--- TXT of _ipps._tcp:" >>"$f"
  "${IF[@]}" --literal-name "$t" _ipps._tcp -x /usr/bin/env \; 2>&1 | grep '^IPPFIND_' | sort >>"$f" || true
  r "B-1. IPP Browse test (_ipp._tcp,_print)" "${IF[@]}" --literal-name "$t" "_ipp._tcp,_print.local." --quiet -T 5 || true
  r "B-2. IPP TXT keys test (adminurl pdl rp UUID)" "${IF[@]}" --literal-name "$t" --txt adminurl --txt pdl --txt rp --txt UUID --quiet || true
  r "B-3. IPP Resolve test (--ls: Get-Printer-Attributes)" "${IF[@]}" --literal-name "$t" --ls || true
  local color=0 tls=0
  "${IF[@]}" --literal-name "$t" --txt-Color T >/dev/null 2>&1 && color=1
  echo "Color=T: $color" >>"$f"
  local pdl=(--txt-pdl image/pwg-raster); [ $color = 1 ] && pdl+=(--txt-pdl image/jpeg)
  r "B-4. IPP TXT values test (adminurl, pdl, UUID; printer-more-info/printer-uuid)" "${IF[@]}" --literal-name "$t" \
    --txt-adminurl '^(http:|https:)//' "${pdl[@]}" --txt-UUID "$uuidre" -x ipptool -t '{}' "$RUN/bin/dnssd-values.test" \; || true
  if r "B-5. TLS tests (TLS key ^[1-9]\.[0-9])" "${IF[@]}" --literal-name "$t" --txt-TLS '^[1-9]\.[0-9]' --quiet; then tls=1; fi
  if [ $tls = 1 ]; then
    r "B-5.1 HTTP Upgrade test (ipptool -E)" "${IF[@]}" --literal-name "$t" -x ipptool -E -t '{}' "$RUN/bin/gpa.test" \; || true
    r "B-5.2 IPPS Browse test (_ipps._tcp,_print)" "${IF[@]}" --literal-name "$t" "_ipps._tcp,_print.local." --quiet -T 5 || true
    r "B-5.3 IPPS TXT keys test (adminurl pdl rp TLS UUID)" "${IF[@]}" --literal-name "$t" "_ipps._tcp.local." --txt adminurl --txt pdl --txt rp --txt TLS --txt UUID --quiet || true
    r "B-5.4 IPPS Resolve test (--ls)" "${IF[@]}" --literal-name "$t" "_ipps._tcp.local." --ls || true
    r "B-5.5 IPPS TXT values test" "${IF[@]}" --literal-name "$t" "_ipps._tcp.local." \
      --txt-adminurl '^(http:|https:)//' "${pdl[@]}" --txt-UUID "$uuidre" -x ipptool -t '{}' "$RUN/bin/dnssd-values.test" \; || true
  else
    echo "B-5.1 ... B-5.5: SKIP (no TLS key)" >>"$f"
  fi
}

# ---------------------------------------------------------------- setup
do_setup() {
  [ -x /usr/sbin/policy-rc.d ] || die "create /usr/sbin/policy-rc.d (exit 101) first"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    avahi-daemon avahi-utils dbus cups cups-client cups-ipp-utils shairport-sync \
    python3-zeroconf python3-pychromecast tcpdump tshark iproute2 util-linux python3-venv
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install HAP-python==5.0.0 librespot==0.0.10
}

# ---------------------------------------------------------------- stacks
start_clienthost() { write_avahi 2 nsp-client minimal; start_avahi 2; }

# 1. ippeveprinter -------------------------------------------------
ippeve_cmd() { # NS-INDEX NAME HOSTNAME
  mkdir -p "$RUN/h$1/spool" "$RUN/h$1/keys"
  # ippeveprinter resolves its own host name (-n) to create its listeners: no mDNS in
  # nsswitch here, so a private mount + UTS namespace with a hosts file that has it
  # (IPv4: the eth0 address; IPv6: fd53::N on the namespace's lo, a bindable address that
  # avahi does not announce, since it needs one for its IPv6 listener and a link-local one
  # cannot be bound by name)
  ip -n "$(hn "$1")" addr replace "fd53::$1/128" dev lo
  printf '127.0.0.1 localhost\n10.53.0.%s %s.local\nfd53::%s %s.local\n' "$1" "$3" "$1" "$3" >"$RUN/h$1/hosts"
  start_bg "ippeveprinter-h$1" "$(hn "$1")" env "$(dbus_env "$1")" HOME="$RUN/h$1" \
    unshare -m -u --propagation private sh -c "hostname 'nsp-h$1' && mount --bind '$RUN/h$1/hosts' /etc/hosts &&
    exec ippeveprinter -v -p 8631 -n '$3.local' -d '$RUN/h$1/spool' -K '$RUN/h$1/keys' \
      -M Example -m 'IPP Everywhere Test Printer' -l 'Testbed rack' -2 -s 10,5 \
      -f application/pdf,image/jpeg,image/pwg-raster '$2'"
}
start_ippeve() {
  write_avahi 1 nsp-ippeve; start_avahi 1
  ippeve_cmd 1 "NSP IPP Everywhere" nsp-ippeve
}
clients_ippeve() {
  c2 avahi-browse-h2 12 avahi-browse -rt _ipp._tcp
  c2 avahi-browse-h2 12 avahi-browse -rt _ipps._tcp
  c2 avahi-browse-h2 12 avahi-browse -rt _print._sub._ipp._tcp
  c2 ippfind-h2 10 ippfind -T 3 _ipp._tcp -l
  c2 ippfind-h2 10 ippfind -T 3 "_ipp._tcp,_print" -p
  [ "$1" = 2 ] && selfcert "NSP IPP Everywhere"
  return 0
}
stop_ippeve() { stop_svc ippeveprinter-h1; sleep 3; stop_avahi 1; }

# 2. cupsd sharing a queue -----------------------------------------
write_cups() {
  local d=$RUN/h1/cups
  mkdir -p "$d/ppd" "$d/ssl" "$d/spool/tmp" "$d/cache" "$d/state" "$d/log"
  chmod 755 "$RUN/h1" "$d"; chown root:lp "$d/spool" "$d/spool/tmp" "$d/cache" "$d/state"; chmod 0770 "$d/spool/tmp"; chmod 0775 "$d/cache"
  cat >"$d/cups-files.conf" <<EOF
ServerRoot $d
RequestRoot $d/spool
TempDir $d/spool/tmp
CacheDir $d/cache
StateDir $d/state
ServerBin /usr/lib/cups
DataDir /usr/share/cups
DocumentRoot /usr/share/cups/doc-root
ErrorLog $RUN/log/cupsd-error_log
AccessLog $RUN/log/cupsd-access_log
PageLog $RUN/log/cupsd-page_log
SystemGroup root
FileDevice No
Sandboxing Relaxed
EOF
  # A LAN print server as Debian ships it, with our names and no authentication (the
  # namespaces are closed).  Sharing is switched on by cupsctl --share-printers below.
  cat >"$d/cupsd.conf" <<EOF
LogLevel debug
MaxLogSize 0
Listen 10.53.0.1:631
Listen 127.0.0.1:631
Listen $d/cups.sock
ServerName nsp-cups.local
ServerAlias *
Browsing Off
BrowseLocalProtocols dnssd
DefaultAuthType None
WebInterface Yes
<Location />
  Order allow,deny
  Allow all
</Location>
<Location /admin>
  Order allow,deny
  Allow all
</Location>
<Policy default>
  <Limit All>
    Order deny,allow
  </Limit>
</Policy>
EOF
}
cups_env() { echo "CUPS_SERVER=$RUN/h1/cups/cups.sock"; }
start_cups() {
  # the printer behind the queue: ippeveprinter on h3 (with its own avahi: it will not
  # start without DNS-SD)
  write_avahi 3 nsp-printer; start_avahi 3
  ippeve_cmd 3 "NSP Backend Printer" nsp-printer
  write_avahi 1 nsp-cups; start_avahi 1
  write_cups
  start_bg cupsd-h1 "$(hn 1)" env "$(dbus_env 1)" cupsd -f -c "$RUN/h1/cups/cupsd.conf" -s "$RUN/h1/cups/cups-files.conf"
  for i in $(seq 100); do [ -S "$RUN/h1/cups/cups.sock" ] && break; sleep 0.1; done
  sleep 1
  client lpadmin-h1 "$(hn 1)" env "$(cups_env)" timeout 60 lpadmin -p Office -E -v ipp://10.53.0.3:8631/ipp/print -m everywhere \
    -D "Office printer" -L "Testbed rack" -o printer-is-shared=true
  client cupsctl-h1 "$(hn 1)" env "$(cups_env)" timeout 20 cupsctl --share-printers
  sleep 2; client lpstat-h1 "$(hn 1)" env "$(cups_env)" timeout 10 lpstat -l -p -v
}
clients_cups() {
  c2 avahi-browse-h2 12 avahi-browse -rt _ipp._tcp
  c2 avahi-browse-h2 12 avahi-browse -rt _ipps._tcp
  c2 avahi-browse-h2 12 avahi-browse -rt _printer._tcp
  c2 avahi-browse-h2 12 avahi-browse -rt _cups._sub._ipp._tcp
  c2 ippfind-h2 10 ippfind -T 3 _ipp._tcp -l
  c2 ippfind-h2 10 ippfind -T 3 _ipps._tcp -p
  [ "$1" = 2 ] && selfcert "Office printer @ nsp-cups"
  return 0
}
stop_cups() { stop_svc cupsd-h1; sleep 3; stop_avahi 1; stop_svc ippeveprinter-h3; sleep 3; stop_avahi 3; }

# 3. shairport-sync --------------------------------------------------
start_shairport() {
  write_avahi 1 nsp-shairport; start_avahi 1
  cat >"$RUN/h1/shairport-sync.conf" <<'EOF'
general = {
  name = "NSP Shairport";
  output_backend = "dummy";
  mdns_backend = "avahi";
  port = 5000;
  interface = "eth0";
};
metadata = { enabled = "no"; };
EOF
  start_bg shairport-sync-h1 "$(hn 1)" env "$(dbus_env 1)" HOME="$RUN/h1" shairport-sync -c "$RUN/h1/shairport-sync.conf" -v
}
clients_shairport() {
  c2 avahi-browse-h2 12 avahi-browse -rt _raop._tcp
  c2 avahi-browse-h2 12 avahi-browse -rt _airplay._tcp
  c2 zcbrowse-h2 40 "$SYSPY" "$RUN/bin/zcbrowse.py" 6 _raop._tcp _airplay._tcp
}
stop_shairport() { stop_svc shairport-sync-h1; sleep 3; stop_avahi 1; }

# 4. python-zeroconf profiles -----------------------------------------
ZC_TYPES="_matterc._udp _L3840._sub._matterc._udp _S15._sub._matterc._udp _V65521._sub._matterc._udp _CM._sub._matterc._udp _matter._tcp _I2906C908D115D362._sub._matter._tcp _hap._tcp _googlecast._tcp _spotify-connect._tcp"
start_zcprofiles() {
  start_bg profiles-publish-h1 "$(hn 1)" "$SYSPY" -u "$HERE/profiles_publish.py" --iface eth0
  wait_log profiles-publish-h1 registered 150
}
clients_zcprofiles() {
  local t
  for t in _matterc._udp _CM._sub._matterc._udp _matter._tcp _hap._tcp _googlecast._tcp _spotify-connect._tcp; do
    c2 avahi-browse-h2 12 avahi-browse -rt "$t"
  done
  # shellcheck disable=SC2086
  c2 zcbrowse-h2 40 "$SYSPY" "$RUN/bin/zcbrowse.py" 6 $ZC_TYPES
  c2 castdiscover-h2 30 "$SYSPY" "$RUN/bin/castdiscover.py" 5
}
stop_zcprofiles() { stop_svc profiles-publish-h1; }

# 5. real PyPI implementations: HAP-python, librespot-python -----------
start_realpy() {
  [ -x "$VENV/bin/python" ] || die "no venv $VENV (run setup)"
  rm -f "$RUN/h1/hap.state"; mkdir -p "$RUN/h1" "$RUN/h3"
  start_bg hap-python-h1 "$(hn 1)" unshare -u sh -c "hostname nsp-hap && exec '$VENV/bin/python' -u '$RUN/bin/hap_lamp.py' '$RUN/h1/hap.state'"
  # librespot-python names its SRV target after gethostname() and resolves it with
  # gethostbyname(): a UTS namespace with host name nsp-librespot and a hosts file for it
  printf '127.0.0.1 localhost\n10.53.0.3 nsp-librespot\n' >"$RUN/h3/hosts"
  start_bg librespot-h3 "$(hn 3)" unshare -m -u --propagation private sh -c \
    "hostname nsp-librespot && mount --bind '$RUN/h3/hosts' /etc/hosts && exec '$VENV/bin/python' -u '$RUN/bin/librespot_zc.py'"
  wait_log librespot-h3 'ZeroconfServer up' 150
}
clients_realpy() {
  c2 avahi-browse-h2 12 avahi-browse -rt _hap._tcp
  c2 avahi-browse-h2 12 avahi-browse -rt _spotify-connect._tcp
  c2 zcbrowse-h2 40 "$SYSPY" "$RUN/bin/zcbrowse.py" 6 _hap._tcp _spotify-connect._tcp
}
stop_realpy() { stop_svc hap-python-h1; stop_svc librespot-h3; }

# ---------------------------------------------------------------- record
do_record() {
  local stack=$1 out=$2
  case " $STACKS " in *" $stack "*) ;; *) die "unknown stack $stack";; esac
  do_down; rm -rf "$RUN/log"; net_up; write_helpers
  : >"$RUN/log/timeline.log"
  mkdir -p "$(dirname "$out")"; out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
  start_bg tcpdump-lan "$LAN" tcpdump -i br0 -U -Z root -w "$out" $FILTER
  sleep 2
  mark "=== $stack: client host (avahi on h2)"; start_clienthost
  sleep 2
  mark "=== $stack: start"; "start_$stack"
  sleep 10; mark "=== $stack: client round 1"; "clients_$stack" 1
  sleep 20; mark "=== $stack: client round 2"; "clients_$stack" 2
  sleep 10; mark "=== $stack: shutdown"; "stop_$stack"
  sleep 3; stop_avahi 2
  sleep 6
  stop_svc tcpdump-lan
  do_down
  rm -rf "$RUN/log-$stack"; cp -r "$RUN/log" "$RUN/log-$stack"
  log "wrote $out ($(stat -c %s "$out") bytes); timeline in $RUN/log-$stack/timeline.log"
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
  *) echo "usage: $0 setup | up | record ippeve|cups|shairport|zcprofiles|realpy OUT | down" >&2; exit 2 ;;
esac
