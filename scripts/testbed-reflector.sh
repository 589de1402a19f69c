#!/usr/bin/env bash
# Records mDNS across two segments joined by a real reflector (avahi-daemon with
# enable-reflector=yes), in network namespaces on this machine. Nothing leaves them.
#
#   scripts/testbed-reflector.sh SECONDS OUTDIR [REFLECT_FILTERS]
#   RF_SSDP=1 scripts/testbed-reflector.sh SECONDS OUTDIR   # and SSDP, routed by smcroute
#
# Topology (namespace rf-sw holds both segments' bridges, so one capture sees both):
#
#   rf-sw:  br-lan (segment "lan")                br-iot (segment "iot")
#             |            |                         |             |
#   rf-q: eth0 10.98.1.20  rf-r: eth-lan 10.98.1.1   eth-iot 10.98.2.1   rf-p: eth0 10.98.2.10
#         querier              avahi-daemon, enable-reflector=yes          avahi-daemon responder
#         (scripts/mdns-querier.py)  [reflect-filters=REFLECT_FILTERS]     "IoT Printer" _ipp._tcp,
#                                                                          "IoT Camera" _http._tcp
#   rf-n: eth0 10.98.1.30 on br-lan: avahi-daemon responder, "LAN NAS" _smb._tcp
#
# With RF_SSDP=1, rf-r also routes: IPv4 forwarding on, and smcrouted (Debian smcroute) routes
# the SSDP group 239.255.255.250 from each segment to the other (a multicast router, as people
# join UPnP across VLANs); rf-p runs minidlna (a UPnP MediaServer on iot) and rf-q searches
# for it from lan (scripts/ssdp-searcher.py, multicast TTL 2 so the router may forward it).
#
# With RF_SILENT=1, br-iot is a snooping switch with an IGMPv3 querier (address 10.98.2.254 on
# the bridge, queries from 3 s after the daemons start, every 10 s, 5 s to answer), and the
# IoT printer host (rf-p) sends no IGMP report for link-local groups
# (net.ipv4.igmp_link_local_mcast_reports=0, in its namespace only; this kernel has no tc
# actions or nftables to drop them):
# it never reports membership of 224.0.0.251 while it keeps answering mDNS, and the reflector
# reports for itself (SEG-101's case).
#
# Writes OUTDIR/lan.pcap (br-lan), OUTDIR/iot.pcap (br-iot) and OUTDIR/both.pcapng (dumpcap on
# both bridges: one interface description block each). Needs root, iproute2, avahi-daemon,
# tcpdump, dumpcap, python3. Bridges flood multicast (snooping off), like a dumb switch.
set -euo pipefail
seconds=${1:?seconds}
out=${2:?output directory}
filters=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
run=$(mktemp -d /tmp/rf-run.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
pids=()

cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    sleep 0.5
    for ns in rf-q rf-r rf-p rf-n rf-sw; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
        ip netns del "$ns" 2>/dev/null || true
    done
    rm -rf "$run"
}
trap cleanup EXIT

for ns in rf-sw rf-q rf-r rf-p rf-n; do
    if ip netns list | grep -qw "$ns"; then
        echo "namespace $ns exists already: not touching it" >&2
        exit 1
    fi
    ip netns add "$ns"
    ip -n "$ns" link set lo up
done
for br in br-lan br-iot; do
    ip -n rf-sw link add "$br" type bridge stp_state 0 forward_delay 0 mcast_snooping 0
    ip -n rf-sw link set "$br" up
done
ip netns exec rf-sw sysctl -qw net.ipv6.conf.all.disable_ipv6=1

# plug NS IFNAME BRIDGE MAC ADDRESS/PREFIX
plug() {
    local ns=$1 ifname=$2 br=$3 mac=$4 addr=$5 peer="p-$1-$2"
    peer=${peer:0:15}
    ip link add "$ifname" netns "$ns" address "$mac" type veth peer name "$peer" netns rf-sw
    ip -n rf-sw link set "$peer" master "$br" up
    ip -n "$ns" addr add "$addr" dev "$ifname"
    ip -n "$ns" link set "$ifname" up
    ip -n "$ns" route add 224.0.0.0/4 dev "$ifname" 2>/dev/null || true
}
plug rf-q eth0 br-lan 02:98:01:00:00:20 10.98.1.20/24
plug rf-n eth0 br-lan 02:98:01:00:00:30 10.98.1.30/24
plug rf-r eth-lan br-lan 02:98:01:00:00:01 10.98.1.1/24
plug rf-r eth-iot br-iot 02:98:02:00:00:01 10.98.2.1/24
plug rf-p eth0 br-iot 02:98:02:00:00:10 10.98.2.10/24
ip -n rf-r route del 224.0.0.0/4 2>/dev/null || true
sleep 2 # IPv6 duplicate address detection of the link-local addresses

# avahi NAME NS HOSTNAME INTERFACES REFLECTOR [SERVICE-FILES...]
avahi() {
    local name=$1 ns=$2 host=$3 ifaces=$4 reflect=$5
    shift 5
    mkdir -p "$run/$name/services"
    for s in "$@"; do cp "$s" "$run/$name/services/"; done
    {
        printf '[server]\nhost-name=%s\ndomain-name=local\nuse-ipv4=yes\nuse-ipv6=yes\n' "$host"
        printf 'allow-interfaces=%s\nenable-dbus=no\nratelimit-interval-usec=1000000\nratelimit-burst=1000\n' "$ifaces"
        printf '[wide-area]\nenable-wide-area=no\n[publish]\n'
        if [ "$reflect" = yes ]; then
            printf 'disable-publishing=yes\n'
        else
            printf 'publish-addresses=yes\npublish-workstation=no\npublish-hinfo=no\n'
        fi
        printf '[reflector]\nenable-reflector=%s\n' "$reflect"
        if [ "$reflect" = yes ] && [ -n "$filters" ]; then printf 'reflect-filters=%s\n' "$filters"; fi
    } >"$run/$name/avahi-daemon.conf"
    ip netns exec "$ns" unshare -m --propagation private sh -c \
        "mount -t tmpfs rf-run /run && mkdir -p /run/avahi-daemon &&
         mount --bind '$run/$name/services' /etc/avahi/services &&
         exec avahi-daemon -f '$run/$name/avahi-daemon.conf' --no-drop-root --no-chroot --no-rlimits" \
        >"$run/$name.log" 2>&1 &
    pids+=($!)
}

service() { # FILE NAME TYPE PORT [TXT...]
    local file=$1 name=$2 type=$3 port=$4
    shift 4
    {
        printf '<?xml version="1.0" standalone="no"?>\n<service-group><name>%s</name><service>\n' "$name"
        printf '<type>%s</type><port>%s</port>\n' "$type" "$port"
        for t in "$@"; do printf '<txt-record>%s</txt-record>\n' "$t"; done
        printf '</service></service-group>\n'
    } >"$file"
}
service "$run/ipp.service" "IoT Printer" _ipp._tcp 631 "rp=printers/iot" "ty=Testbed IoT Printer"
service "$run/http.service" "IoT Camera" _http._tcp 80 "path=/"
service "$run/smb.service" "LAN NAS" _smb._tcp 445

ssdp_setup() {
    ip netns exec rf-r sysctl -qw net.ipv4.ip_forward=1
    ip -n rf-q route add 10.98.2.0/24 via 10.98.1.1
    ip -n rf-n route add 10.98.2.0/24 via 10.98.1.1
    ip -n rf-p route add 10.98.1.0/24 via 10.98.2.1
    mkdir -p "$run/dlna/media" "$run/dlna/db" "$run/dlna/log"
    python3 - "$run/dlna/media/silence.wav" <<'EOF2'
import sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
w.writeframes(b"\0\0" * 8000); w.close()
EOF2
    printf 'port=8200\nnetwork_interface=eth0\nmedia_dir=A,%s\nfriendly_name=iot-minidlna\n' "$run/dlna/media" >"$run/dlna/minidlna.conf"
    printf 'db_dir=%s\nlog_dir=%s\ninotify=no\nnotify_interval=30\nserial=98000210\nroot_container=.\n' \
        "$run/dlna/db" "$run/dlna/log" >>"$run/dlna/minidlna.conf"
    {
        for from in eth-lan eth-iot; do printf 'mgroup from %s group 239.255.255.250\n' "$from"; done
        printf 'mroute from eth-lan group 239.255.255.250 to eth-iot\n'
        printf 'mroute from eth-iot group 239.255.255.250 to eth-lan\n'
    } >"$run/smcroute.conf"
}
ssdp_start() {
    ip netns exec rf-r smcrouted -n -f "$run/smcroute.conf" -P "$run/smcroute.pid" -u "$run/smcroute.sock" \
        -l info >"$run/smcroute.log" 2>&1 &
    pids+=($!)
    ip netns exec rf-p minidlnad -f "$run/dlna/minidlna.conf" -P "$run/dlna/minidlna.pid" -S -R \
        >"$run/minidlna.log" 2>&1 &
    pids+=($!)
}
if [ -n "${RF_SSDP:-}" ]; then ssdp_setup; fi
if [ -n "${RF_SILENT:-}" ]; then
    ip -n rf-sw addr add 10.98.2.254/24 dev br-iot
    ip -n rf-sw link set br-iot type bridge mcast_snooping 1 mcast_igmp_version 3 mcast_query_use_ifaddr 1 \
        mcast_query_interval 1000 mcast_startup_query_interval 1000 mcast_query_response_interval 500
    # Linux sends no IGMP report for groups in 224.0.0.0/24 with this off (per namespace).
    ip netns exec rf-p sysctl -qw net.ipv4.igmp_link_local_mcast_reports=0
fi

# Capture first, so the start-up of every daemon is on record.
ip netns exec rf-sw tcpdump -i br-lan -U -w "$out/lan.pcap" -s 0 >/dev/null 2>&1 &
pids+=($!)
ip netns exec rf-sw tcpdump -i br-iot -U -w "$out/iot.pcap" -s 0 >/dev/null 2>&1 &
pids+=($!)
ip netns exec rf-sw dumpcap -q -i br-lan -i br-iot -w "$out/both.pcapng" >/dev/null 2>&1 &
pids+=($!)
sleep 1
avahi reflector rf-r rf-reflector eth-lan,eth-iot yes
avahi iot-responder rf-p iot-printer eth0 no "$run/ipp.service" "$run/http.service"
avahi lan-responder rf-n lan-nas eth0 no "$run/smb.service"
if [ -n "${RF_SSDP:-}" ]; then
    ssdp_start
    ip netns exec rf-q python3 "$here/ssdp-searcher.py" --seconds $((seconds - 6)) \
        >"$run/searcher.log" 2>&1 &
    pids+=($!)
fi
sleep 3
if [ -n "${RF_SILENT:-}" ]; then ip -n rf-sw link set br-iot type bridge mcast_querier 1; fi
ip netns exec rf-q python3 "$here/mdns-querier.py" --seconds $((seconds - 6)) \
    _ipp._tcp.local _http._tcp.local _smb._tcp.local >"$run/querier.log" 2>&1 || true
sleep 2
cat "$run/querier.log"
if [ -n "${RF_SSDP:-}" ]; then cat "$run/searcher.log" "$run/smcroute.log"; fi
echo "captures in $out"
