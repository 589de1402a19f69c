#!/usr/bin/python3
import socket, sys, time, subprocess
from zeroconf import ServiceInfo, Zeroconf, IPVersion
addr, seconds = sys.argv[1], float(sys.argv[2])
ifindex = socket.if_nametoindex("eth0")
out = subprocess.run(["ip","-o","-6","addr","show","dev","eth0","scope","link"],capture_output=True,text=True).stdout
v6 = [l.split()[3].split("/")[0] for l in out.splitlines()]
zc = Zeroconf(interfaces=[addr] + ([ifindex] if v6 else []), ip_version=IPVersion.All)
info = ServiceInfo("_http._tcp.local.", "Probe Test Web._http._tcp.local.", port=8080, server="probe-zc.local.",
                   parsed_addresses=[addr] + v6, properties={"path": "/", "flag": None})
zc.register_service(info)
time.sleep(seconds)
zc.unregister_service(info)
zc.close()
