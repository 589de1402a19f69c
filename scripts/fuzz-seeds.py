#!/usr/bin/env python3
"""Writes seed corpora for the fuzz targets in FuzzTesting/ from the captures in captures/.

    scripts/fuzz-seeds.py OUTDIR

OUTDIR/packet: link-layer frames (first byte: link type index, see FuzzPacketDecoder), a few
frames per seed, separated as FuzzInput expects; OUTDIR/ssdp and OUTDIR/dns: single UDP
payloads; OUTDIR/pipeline: sequences of payloads, each behind a byte saying who sent it where
(see FuzzPipeline). Standard library only: a small pcap / pcapng (/ gzip) reader, and UDP
found the way the fuzz targets' decoder finds it (Ethernet, SLL, SLL2, NULL, LOOP, raw IP).
Nothing it writes is committed: the corpora are generated where they are used.
"""
import gzip
import hashlib
import os
import struct
import sys
import zlib

SEP = b"\x00DS\x00"
# Index in FuzzPacketDecoder's list of link types.
LINK_INDEX = {1: 0, 0: 1, 12: 2, 14: 3, 101: 4, 105: 5, 108: 6, 113: 7, 276: 8, 127: 9, 228: 10, 229: 11, 147: 12}


def records(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        # A damaged gzip capture (captures/hostile/) still seeds with what inflates before the damage.
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            inflater = zlib.decompressobj(wbits=31)
            try:
                data = inflater.decompress(data)
            except zlib.error:
                return None, []
    if len(data) < 24:
        return None, []
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = "<" if magic[0] in (0xD4, 0x4D) else ">"
        linktype = struct.unpack(e + "I", data[20:24])[0] & 0xFFFF
        out, o = [], 24
        while o + 16 <= len(data):
            caplen = struct.unpack(e + "I", data[o + 8:o + 12])[0]
            out.append(data[o + 16:o + 16 + caplen])
            o += 16 + caplen
        return linktype, out
    if magic == b"\x0a\x0d\x0d\x0a":
        e = "<" if data[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
        links, out, o, linktype = [], [], 0, None
        while o + 12 <= len(data):
            btype, blen = struct.unpack(e + "II", data[o:o + 8])
            if blen < 12:
                break
            body = data[o + 8:o + blen - 4]
            if btype == 1:
                links.append(struct.unpack(e + "H", body[:2])[0])
            elif btype == 6 and len(body) >= 20:
                iface, _, _, caplen, _ = struct.unpack(e + "IIIII", body[:20])
                if iface < len(links):
                    linktype = linktype if linktype is not None else links[iface]
                    if links[iface] == linktype:
                        out.append(body[20:20 + caplen])
            o += blen
        return linktype, out
    return None, []


def ip_start(linktype, f):
    """(offset, version) of the IP header, or None."""
    if linktype == 1:
        o, et = 14, f[12:14]
        while et in (b"\x81\x00", b"\x88\xa8", b"\x91\x00") and len(f) >= o + 4:
            et, o = f[o + 2:o + 4], o + 4
        return (o, 4) if et == b"\x08\x00" else (o, 6) if et == b"\x86\xdd" else None
    if linktype == 113:
        return (16, 4) if f[14:16] == b"\x08\x00" else (16, 6) if f[14:16] == b"\x86\xdd" else None
    if linktype == 276:
        return (20, 4) if f[0:2] == b"\x08\x00" else (20, 6) if f[0:2] == b"\x86\xdd" else None
    if linktype in (0, 108):
        return (4, f[4] >> 4) if len(f) > 4 else None
    if linktype in (12, 14, 101, 228, 229):
        return (0, f[0] >> 4) if f else None
    return None


def udp(linktype, f):
    """(sport, dport, payload) of an unfragmented UDP datagram, or None."""
    s = ip_start(linktype, f)
    if not s:
        return None
    o, v = s
    if v == 4 and len(f) >= o + 20 and f[o + 9] == 17 and struct.unpack("!H", f[o + 6:o + 8])[0] & 0x3FFF == 0:
        u = o + (f[o] & 0x0F) * 4
    elif v == 6 and len(f) >= o + 40 and f[o + 6] == 17:
        u = o + 40
    else:
        return None
    if len(f) < u + 8:
        return None
    sport, dport, length = struct.unpack("!HHH", f[u:u + 6])
    return sport, dport, f[u + 8:u + max(length, 8)]


def header(sport, dport, v6, k):
    """The FuzzPipeline byte that puts a payload on the same ports."""
    if sport == 1900 and dport == 1900:
        case = 0
    elif dport == 1900:
        case = 1
    elif sport == 1900:
        case = 2
    elif sport == 5353 and dport == 5353:
        case = 3
    elif dport == 5353:
        case = 5
    elif sport == 5353:
        case = 6
    else:
        case = 4
    ssdp = case in (0, 1, 2, 4)  # IP TTL 2 or 64 for SSDP, 255 or 1 for mDNS
    return (case & 3) | ((case & 4) << 4) | (0x04 if v6 else 0) | ((k % 8) << 3) | (0x80 if ssdp else 0)


def write(dirname, blob):
    os.makedirs(dirname, exist_ok=True)
    with open(os.path.join(dirname, hashlib.sha1(blob).hexdigest()), "wb") as f:
        f.write(blob)


def main():
    out = sys.argv[1]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "captures")
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith((".pcap", ".pcapng", ".gz")):
                continue
            linktype, frames = records(os.path.join(dirpath, name))
            if linktype is None:
                continue
            index = LINK_INDEX.get(linktype, 12)
            for k in range(0, len(frames), 6):
                write(os.path.join(out, "packet"), bytes([index]) + SEP.join(frames[k:k + 6]))
            seq = []
            for k, f in enumerate(frames):
                d = udp(linktype, f)
                if not d:
                    continue
                sport, dport, payload = d
                if 1900 in (sport, dport) or payload.startswith(b"HTTP/"):
                    write(os.path.join(out, "ssdp"), payload)
                elif 5353 in (sport, dport):
                    write(os.path.join(out, "dns"), payload)
                else:
                    continue
                v6 = (ip_start(linktype, f) or (0, 4))[1] == 6
                seq.append(bytes([header(sport, dport, v6, k)]) + payload)
            for k in range(0, len(seq), 8):
                write(os.path.join(out, "pipeline"), SEP.join(seq[k:k + 8]))


if __name__ == "__main__":
    main()
