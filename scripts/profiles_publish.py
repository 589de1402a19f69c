#!/usr/bin/env python3
"""Publish the service profiles of /work/shared/rules/profiles.md with python-zeroconf.

Used by scripts/testbed-profiles.sh (stack `zcprofiles`, host nsp-h1) to record how
python-zeroconf (Debian python3-zeroconf 0.47.3) puts these profiles on the wire:

  * a Matter commissionable node   _matterc._udp  (+ _L, _S, _V, _T, _CM subtypes)
  * a Matter operational node      _matter._tcp   (+ _I<compressed fabric id> subtype)
  * a HomeKit accessory            _hap._tcp      (TXT as HAP-NodeJS writes it)
  * a Google Cast receiver         _googlecast._tcp (TXT as Cast receivers send it)
  * a Spotify Connect device       _spotify-connect._tcp (TXT as Rust librespot writes it)

None of these is the real device software (no Matter SDK, Cast receiver or Rust
librespot is packaged by Debian 12); the record contents are taken from the reference
code named in each block below and from the near-miss (conforming) columns of the
catalog.  The real HAP-python and librespot-python implementations are recorded
separately (stack `realpy`).

Runs until SIGTERM/SIGINT, then unregisters everything (goodbyes, TTL 0) and exits.

usage: profiles_publish.py [--iface eth0]
"""
import argparse
import asyncio
import base64
import hashlib
import signal
import socket
import subprocess
import sys
import threading
import time

import zeroconf
from zeroconf import DNSPointer, IPVersion, ServiceInfo, Zeroconf
from zeroconf.const import _CLASS_IN, _TYPE_PTR


def iface_addrs(iface):
    """(ipv4 list, ipv6 link-local list) of an interface, via iproute2."""
    out = subprocess.run(["ip", "-o", "addr", "show", "dev", iface],
                         check=True, capture_output=True, text=True).stdout
    v4, v6 = [], []
    for line in out.splitlines():
        f = line.split()
        fam, addr = f[2], f[3].split("/")[0]
        (v4 if fam == "inet" else v6).append(addr)
    return v4, v6


def iface_mac(iface):
    with open(f"/sys/class/net/{iface}/address") as f:
        return f.read().strip()


class SubtypeZeroconf(Zeroconf):
    """Zeroconf with several subtypes per service instance.

    python-zeroconf 0.47.3 gives a ServiceInfo exactly one PTR owner name (its type; a
    subtype can only be registered *instead of* the main type).  Matter needs up to five
    subtypes beside the main type.  This adds them the way a responder with subtype
    support does (RFC 6763 section 7.1): every announcement and goodbye of the main
    instance also carries `<subtype>._sub.<type> PTR <instance>` (same TTL), and queries
    for a subtype are answered from a registry entry that shares the instance's SRV,
    TXT and addresses.  The subtype entries are kept out of the
    `_services._dns-sd._udp` enumeration (which lists service types, not subtypes).
    Probing, announcing, answering and goodbyes are otherwise python-zeroconf's own.
    """

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.subtypes = {}          # info.key -> [subtype PTR owner names]
        self.aliases = []           # registry entries answering subtype PTR queries
        orig = self.registry.async_get_types
        self.registry.async_get_types = lambda: [t for t in orig() if "._sub." not in t]

    def _add_broadcast_answer(self, out, info, override_ttl, broadcast_addresses=True):
        super()._add_broadcast_answer(out, info, override_ttl, broadcast_addresses)
        ttl = info.other_ttl if override_ttl is None else override_ttl
        now = zeroconf.current_time_millis()
        for sub in self.subtypes.get(info.key, ()):
            out.add_answer_at_time(DNSPointer(sub, _TYPE_PTR, _CLASS_IN, ttl, info.name, now), 0)

    def register_with_subtypes(self, info, subtypes):
        """Register INFO; SUBTYPES are labels such as "_L3840" (without ._sub.<type>)."""
        names = [f"{s}._sub.{info.type}" for s in subtypes]
        self.subtypes[info.key] = names
        self.register_service(info)

        async def add_aliases():
            for sub in names:
                alias = ServiceInfo(sub, info.name, port=info.port, server=info.server,
                                    properties=info.properties, addresses=info.addresses_by_version(IPVersion.All),
                                    host_ttl=info.host_ttl, other_ttl=info.other_ttl)
                alias.key = sub.lower() + "|" + info.key   # a registry key of its own
                self.registry.async_add(alias)
                self.aliases.append(alias)
        asyncio.run_coroutine_threadsafe(add_aliases(), self.loop).result(5)

    def close(self):
        async def drop_aliases():
            self.registry.async_remove(self.aliases)
        if self.aliases:
            asyncio.run_coroutine_threadsafe(drop_aliases(), self.loop).result(5)
        super().close()


def hap_setup_hash(setup_id, device_id):
    # HAP-NodeJS src/lib/Advertiser.ts computeSetupHash: base64 of the first 4 bytes of
    # SHA-512(setupID + username.toUpperCase()) (HomeKitADK HAPAccessorySetupSetupHash).
    return base64.b64encode(hashlib.sha512((setup_id + device_id.upper()).encode()).digest()[:4]).decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iface", default="eth0")
    a = ap.parse_args()

    v4, v6 = iface_addrs(a.iface)
    mac = iface_mac(a.iface)                       # 02:53:00:00:00:01 on nsp-h1
    ifindex = socket.if_nametoindex(a.iface)
    zc = SubtypeZeroconf(interfaces=list(v4) + [ifindex], ip_version=IPVersion.All)

    # ------------------------------------------------------------------ Matter
    # connectedhomeip src/lib/dnssd/ServiceNaming.cpp MakeHostName: the host name is the
    # MAC as 12 upper-case hex digits ("%02X" per byte); Matter Core 4.3.1.1 (catalog
    # PROF-003, PROF-004).  Matter nodes publish AAAA (PROF-005), here no A at all, as
    # the SDK's IPv6-only builds do.
    matter_host = mac.replace(":", "").upper() + ".local."
    # Commissionable node.  Instance: 64-bit random id as 16 upper-case hex digits
    # (ServiceNaming.cpp MakeInstanceName for commissionable nodes; PROF-001 near-miss
    # 4BA9831AE57CE2F9).  Port 5540 (CHIP_PORT).  TXT keys and values from the PROF-006 ...
    # PROF-015 near-miss columns; key names and lengths as in src/lib/dnssd/TxtFields.h
    # (kCommission keys D VP CM DT DN PH, kCommon keys SII SAI T).  D=3840 is the SDK's
    # default test discriminator (CHIP_DEVICE_CONFIG_USE_TEST_SETUP_DISCRIMINATOR 0xF00),
    # VP=65521+32768 the test vendor 0xFFF1 and product 0x8000.
    matterc = ServiceInfo(
        "_matterc._udp.local.", "4BA9831AE57CE2F9._matterc._udp.local.",
        port=5540, server=matter_host, parsed_addresses=v6,
        properties={"D": "3840", "VP": "65521+32768", "CM": "1", "DT": "256",
                    "DN": "NSP Light", "SII": "5000", "SAI": "300", "T": "0", "PH": "33"})
    # Subtypes: ServiceNaming.cpp MakeServiceSubtype: _L<long discriminator>,
    # _S<short discriminator = D >> 8>, _V<vendor id>, _T<device type>, _CM while in
    # commissioning mode (PROF-007, PROF-009, PROF-011).
    zc.register_with_subtypes(matterc, ["_L3840", "_S15", "_V65521", "_T256", "_CM"])
    # Operational node.  Instance <compressed fabric id>-<node id>, each 16 upper-case hex
    # digits (MakeInstanceName "%08X%08X-%08X%08X"; PROF-002 near-miss), subtype
    # _I<compressed fabric id> (MakeServiceSubtype kCompressedFabricId; PROF-018), TXT
    # only the common keys (PROF-019 near-miss "SII=5000 SAI=300 T=0").
    matter_op = ServiceInfo(
        "_matter._tcp.local.", "2906C908D115D362-000000000001B669._matter._tcp.local.",
        port=5540, server=matter_host, parsed_addresses=v6,
        properties={"SII": "5000", "SAI": "300", "T": "0"})
    zc.register_with_subtypes(matter_op, ["_I2906C908D115D362"])

    # ------------------------------------------------------------------ HomeKit
    # HAP-NodeJS src/lib/Advertiser.ts CiaoAdvertiser.createTxt: c# (config version),
    # ff (pairing feature flags, 0), id (username = device id XX:XX:XX:XX:XX:XX), md
    # (display name), pv "1.1", s# 1, sf 1 (not paired), ci (category, 2 = bridge), sh
    # (setup hash).  Values: PROF-101 near-miss (c#=3 ff=0 id=1E:34:5A:7B:9C:0D md=Bridge
    # pv=1.1 s#=1 sf=1 ci=2).  Port 51826 is HAP-NodeJS's default bridge port.
    hap_id = "1E:34:5A:7B:9C:0D"
    zc.register_service(ServiceInfo(
        "_hap._tcp.local.", "NSP Bridge 9C0D._hap._tcp.local.",
        port=51826, server="nsp-zc.local.", parsed_addresses=v4 + v6,
        properties={"c#": "3", "ff": "0", "id": hap_id, "md": "Bridge", "pv": "1.1",
                    "s#": "1", "sf": "1", "ci": "2", "sh": hap_setup_hash("NSPB", hap_id)}))

    # ------------------------------------------------------------------ Google Cast
    # Keys and order as real receivers send them and pychromecast reads them
    # (pychromecast/discovery.py _add_update_service: id -> UUID, md, fn; port 8009 =
    # a device, another port = a group; openscreen cast/common/public/receiver_info.cc
    # DnsSdInstanceEndpointToReceiverInfo: id, ve, md, fn, ca, st).  id: 128-bit UUID as
    # 32 hex digits (PROF-301 near-miss), ve=05 (PROF-302), ca=4101 (PROF-303: bits 0 and 2
    # = video and audio out, plus 0x1000, seen on real receivers), st=0 (PROF-304), fn/md
    # (PROF-305).  cd, rm, bs, nf, rs, ic carry no public definition (catalog: "left out");
    # they are filled the way receivers do: cd a 32-hex id, rm empty, bs 12 hex, nf 1, rs
    # empty, ic the icon path.  Instance name <md with spaces as hyphens>-<id>
    # (openscreen CalculateInstanceId, PROF-307); host name the UUID with hyphens, as
    # Chromecasts name themselves.
    cast_id = "c57f10c75ee90c302bc91438ca69ff3a"
    cast_host = "c57f10c7-5ee9-0c30-2bc9-1438ca69ff3a.local."
    zc.register_service(ServiceInfo(
        "_googlecast._tcp.local.", f"Chromecast-{cast_id}._googlecast._tcp.local.",
        port=8009, server=cast_host, parsed_addresses=v4 + v6,
        properties={"id": cast_id, "cd": "0F1E2D3C4B5A69788796A5B4C3D2E1F0", "rm": "",
                    "ve": "05", "md": "Chromecast", "ic": "/setup/icon.png",
                    "fn": "Living Room TV", "ca": "4101", "st": "0", "bs": "FA8FCA3C5D1E",
                    "nf": "1", "rs": ""}))

    # ------------------------------------------------------------------ Spotify Connect
    # librespot (Rust) discovery/src/lib.rs: TXT_RECORD ["VERSION=1.0", "CPath=/"], the
    # instance named after the device name, an ephemeral HTTP port (PROF-407 near-miss).
    zc.register_service(ServiceInfo(
        "_spotify-connect._tcp.local.", "NSP Speaker._spotify-connect._tcp.local.",
        port=41207, server="nsp-zc.local.", parsed_addresses=v4 + v6,
        properties={"VERSION": "1.0", "CPath": "/"}))

    print(f"registered (zeroconf {zeroconf.__version__}); Matter host {matter_host}", flush=True)

    stop = threading.Event()
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
    print("unregistering (goodbyes)", flush=True)
    zc.close()
    print("closed", flush=True)


if __name__ == "__main__":
    sys.exit(main())
