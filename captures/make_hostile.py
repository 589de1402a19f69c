#!/usr/bin/env python3
"""Writes the hostile-input captures in captures/hostile/, byte for byte deterministic.

Each file is about one way a packet or a capture file attacks the reader (see README.md in
this folder). Run `python3 captures/make_hostile.py` from the repository root; it reuses the
packet builders of make_fixtures.py and, like it, needs only the standard library.
"""
import gzip
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures as fx  # noqa: E402

HERE = fx.HERE

ESC = b"\x1b"
# Retitles the terminal (OSC 0 … BEL) and clears it (CSI 2 J): the example.
RETITLE_AND_CLEAR = ESC + b"]0;pwned\x07" + ESC + b"[2J"
C1_CSI = "\u009b".encode()          # U+009B, the one-character CSI, as UTF-8
BIDI_OVERRIDE = "\u202e".encode()   # RIGHT-TO-LEFT OVERRIDE


def ssdp_injection():
    notify = (b"NOTIFY * HTTP/1.1\r\n"
              b"HOST: 239.255.255.250:1900\r\n"
              b"CACHE-CONTROL: max-age=1800\r\n"
              b"LOCATION: http://192.168.1.20:8200/" + ESC + b"[31mroot.xml\r\n"
              b"NT: upnp:rootdevice\r\n"
              b"NTS: ssdp:alive\r\n"
              b"SERVER: " + RETITLE_AND_CLEAR + b"\r\n"
              b"X-" + ESC + b"[1mBOLD: value with NUL \x00 DEL \x7f BEL \x07 CR \r in it\r\n"
              b"X-C1: " + C1_CSI + b"2J and a raw 0x9b byte \x9b[2J\r\n"
              b"X-LETTERS: K\xc3\xbcche \xe2\x80\x94 caf\xc3\xa9 \xe2\x9c\x93\r\n"
              b"USN: uuid:4d696e69-444c-164e-9d41-b827eb0000aa::upnp:rootdevice\r\n\r\n")
    msearch = (b"M-SEARCH * HTTP/1.1\r\n"
               b"HOST: 239.255.255.250:1900\r\n"
               b"MAN: \"ssdp:discover\"\r\n"
               b"MX: 2\r\n"
               b"ST: urn:" + ESC + b"]2;title\x07:device:x:1\r\n\r\n")
    other = b"\x1b[2J\x1b[H" + BIDI_OVERRIDE + b"GET / HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\n\r\n"
    return [
        fx.v4("192.168.1.20", 1900, "239.255.255.250", 1900, notify, ttl=2),
        fx.v4("192.168.1.10", 50000, "239.255.255.250", 1900, msearch, ttl=2),
        fx.v4("192.168.1.30", 1900, "239.255.255.250", 1900, other, ttl=2),
    ]


def mdns_injection():
    """A DNS-SD announcement whose TXT, HINFO, service and host names carry control bytes."""
    hdr = struct.pack("!HHHHHH", 0, 0x8400, 0, 5, 0, 0)
    msg = bytearray(hdr)
    service = bytes([len(b"_ip\x1bp")]) + b"_ip\x1bp" + b"\x04_tcp\x05local\x00"
    msg += service
    inst = b"\x0bBad Printer" + struct.pack("!H", 0xC000 | 12)
    msg += struct.pack("!HHIH", 12, 1, 4500, len(inst))
    inst_off = len(msg)
    msg += inst
    inst_ptr = struct.pack("!H", 0xC000 | inst_off)
    host_label = b"host\x1b[2J"
    host = bytes([len(host_label)]) + host_label + b"\x05local\x00"
    srv = struct.pack("!HHH", 0, 0, 631) + host
    msg += inst_ptr + struct.pack("!HHIH", 33, 0x8001, 120, len(srv))
    host_off = len(msg) + 6
    msg += srv
    strings = [b"txtvers=1", b"k\x1b]0;pwned\x07=v", b"path=/" + RETITLE_AND_CLEAR,
               b"PATH=/b" + ESC + b"[2J", b"note=K\xc3\xbcche " + BIDI_OVERRIDE + b"txt.exe",
               b"c1=" + C1_CSI + b"2J"]
    txt = b"".join(bytes([len(s)]) + s for s in strings)
    msg += inst_ptr + struct.pack("!HHIH", 16, 0x8001, 4500, len(txt)) + txt
    hinfo = b"".join(bytes([len(s)]) + s for s in [b"CPU\x1b]0;x\x07", b"OS\x1b[2J\r\n"])
    msg += struct.pack("!H", 0xC000 | host_off) + struct.pack("!HHIH", 13, 0x8001, 120, len(hinfo)) + hinfo
    msg += struct.pack("!H", 0xC000 | host_off) + struct.pack("!HHIH", 1, 0x8001, 120, 4) + bytes([192, 168, 1, 20])
    return fx.v4("192.168.1.20", 5353, "224.0.0.251", 5353, bytes(msg))


def html_injection():
    """Markup and script in every wire string the HTML report shows: SSDP headers (SERVER,
    LOCATION, USN, so the lane's name too), an M-SEARCH ST that opens an HTML comment, and a
    DNS-SD answer whose instance, host name and TXT carry tags, `</script>`, U+2028 and U+2029.
    Each would set `window.pwned` if it ever ran; the browser test checks it never does."""
    pwn = b"window.pwned=1"
    ls_ps = "\u2028\u2029".encode()
    notify = (b"NOTIFY * HTTP/1.1\r\n"
              b"HOST: 239.255.255.250:1900\r\n"
              b"CACHE-CONTROL: max-age=1800\r\n"
              b"LOCATION: http://192.168.1.20:8200/\"><img src=x onerror=" + pwn + b">\r\n"
              b"NT: upnp:rootdevice\r\n"
              b"NTS: ssdp:alive\r\n"
              b"SERVER: <script>" + pwn + b"</script> UPnP/1.0 " + ls_ps + b"');" + pwn + b";//\r\n"
              b"X-<b>BOLD</b>: </script><script>" + pwn + b"</script>\r\n"
              b"USN: uuid:</script><svg onload=" + pwn + b">::upnp:rootdevice\r\n\r\n")
    msearch = (b"M-SEARCH * HTTP/1.1\r\n"
               b"HOST: 239.255.255.250:1900\r\n"
               b"MAN: \"ssdp:discover\"\r\n"
               b"MX: 2\r\n"
               b"ST: <!--<script>" + pwn + b"</script>\r\n\r\n")
    hdr = struct.pack("!HHHHHH", 0, 0x8400, 0, 4, 0, 0)
    msg = bytearray(hdr)
    service = fx.dns_name("_http._tcp.local")
    instance = bytes([len(b"</script><script>window.pwned=1</script>")]) + b"</script><script>window.pwned=1</script>"
    msg += service + struct.pack("!HHIH", 12, 1, 4500, len(instance) + len(service))
    inst_off = len(msg)
    msg += instance + service
    inst_ptr = struct.pack("!H", 0xC000 | inst_off)
    host = fx.dns_name("<img src=x onerror=window.pwned=1>" + "\u2028" + ".local")
    srv = struct.pack("!HHH", 0, 0, 80) + host
    msg += inst_ptr + struct.pack("!HHIH", 33, 0x8001, 120, len(srv))
    host_off = len(msg) + 6
    msg += srv
    strings = [b"txtvers=1", b"x=\"><img src=x onerror=" + pwn + b">", b"y=</script><script>" + pwn + b"</script>",
               b"z=" + ls_ps + b"alert(1)//", b"w=</ScRiPt ><!--"]
    txt = b"".join(bytes([len(t)]) + t for t in strings)
    msg += inst_ptr + struct.pack("!HHIH", 16, 0x8001, 4500, len(txt)) + txt
    msg += struct.pack("!H", 0xC000 | host_off) + struct.pack("!HHIH", 1, 0x8001, 120, 4) + bytes([192, 168, 1, 21])
    return [
        fx.v4("192.168.1.20", 1900, "239.255.255.250", 1900, notify, ttl=2),
        fx.v4("192.168.1.10", 50000, "239.255.255.250", 1900, msearch, ttl=2),
        fx.v4("192.168.1.21", 5353, "224.0.0.251", 5353, bytes(msg)),
    ]


def fragment_flood():
    """300 first fragments of different IPv4 datagrams (never completed), then one more
    40 s later: the reassembly limit of 256 in progress is reached, then the timeout."""
    frames = []
    for k in range(300):
        udp = fx.udp4("192.168.1.20", "224.0.0.251", 5353, 5353, b"\0" * 64)
        frames.append((k * 0.001, fx.eth(fx.ipv4_packet("192.168.1.20", "224.0.0.251", udp[:48], ident=1000 + k, flags_frag=0x2000))))
    udp = fx.udp4("192.168.1.20", "224.0.0.251", 5353, 5353, b"\0" * 64)
    frames.append((40.0, fx.eth(fx.ipv4_packet("192.168.1.20", "224.0.0.251", udp[:48], ident=5000, flags_frag=0x2000))))
    return frames


def device_flood(path, count):
    """`count` mDNS announcements, each of a different host name (written on demand by the
    tests: too large to keep)."""
    frames = []
    for k in range(count):
        name = fx.dns_name("host-%d.local" % k)
        msg = struct.pack("!HHHHHH", 0, 0x8400, 0, 1, 0, 0) + name + struct.pack("!HHIH", 1, 0x8001, 120, 4) + bytes([10, k >> 16 & 255, k >> 8 & 255, k & 255])
        frames.append((k * 0.0001, fx.eth(fx.v4("192.168.1.20", 5353, "224.0.0.251", 5353, msg))))
    e = "<"
    out = [struct.pack(e + "IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    for t, data in frames:
        out.append(struct.pack(e + "IIII", fx.T0 + int(t), round((t - int(t)) * 1e6), len(data), len(data)) + data)
    with open(path, "wb") as f:
        f.write(b"".join(out))


def write(path, data):
    full = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(data)


def main():
    frames = ssdp_injection() + [mdns_injection()]
    fx.write_pcap("hostile/terminal-injection.pcap", 1, [(i * 0.1, fx.eth(p)) for i, p in enumerate(frames)])
    fx.write_pcap("hostile/html-injection.pcap", 1, [(i * 0.1, fx.eth(p)) for i, p in enumerate(html_injection())])
    # Compressed input whose data is damaged: a wrong CRC-32 in the gzip trailer (every byte
    # of the capture is intact), and a gzip stream cut in the middle. mtime 0: deterministic.
    plain = open(os.path.join(HERE, "link/ethernet.pcap"), "rb").read()
    gz = bytearray(gzip.compress(plain, mtime=0))
    gz[-8] ^= 0xFF
    write("hostile/bad-crc.pcap.gz", bytes(gz))
    cut = gzip.compress(plain, mtime=0)
    write("hostile/cut.pcap.gz", cut[:len(cut) * 2 // 3])
    # Decompression amplification: 5 KB of gzip that expands to 200,000 records without a
    # byte of packet data (3.2 MB), a small model of the 2 MB file of 134 million.
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    empty = struct.pack("<IIII", fx.T0, 0, 0, 0)
    fx.write_pcap("hostile/fragment-flood.pcap", 1, fragment_flood())
    # Found by the pipeline fuzz target: a tab in a TXT string reached the terminal through
    # -A (tcpdump keeps tabs there; DiscoScope's text output carries no control byte but LF).
    txt = b"".join(bytes([len(t)]) + t for t in [b"model=iMac\t17,1", b"osxvers=17"])
    msg = struct.pack("!HHHHHH", 0, 0x8400, 0, 1, 0, 0) + fx.dns_name("Tab._device-info._tcp.local") \
        + struct.pack("!HHIH", 16, 1, 4500, len(txt)) + txt
    fx.write_pcap("hostile/tab-in-txt.pcap", 1, [(0.0, fx.eth(fx.v4("192.168.1.20", 5353, "224.0.0.251", 5353, msg)))])
    write("hostile/empty-records.pcap.gz", gzip.compress(header + empty * 200_000, compresslevel=9, mtime=0))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--device-flood":
        device_flood(sys.argv[2], int(sys.argv[3]))
    else:
        main()
