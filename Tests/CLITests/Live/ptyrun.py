#!/usr/bin/python3
"""Runs a command with standard error on a pseudo-terminal (stdout to /dev/null) and prints
repr() of what the terminal received, then the exit status. Used to test the progress line."""
import os, pty, sys, subprocess

master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=slave, env=dict(os.environ))
os.close(slave)
out = b""
while True:
    try:
        d = os.read(master, 4096)
    except OSError:
        break
    if not d: break
    out += d
p.wait()
print(repr(out[:300]), p.returncode)
