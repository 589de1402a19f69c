#!/usr/bin/python3
"""Runs a command with standard output and standard error on one pseudo-terminal and writes
the bytes the terminal received to the file named first (line feeds as sent, before the
terminal's CR LF translation). Used to test what a reader's terminal would see."""
import os, pty, sys, subprocess, termios, tty

master, slave = pty.openpty()
attrs = termios.tcgetattr(slave)
attrs[1] &= ~termios.OPOST  # no output processing: bytes arrive as the program wrote them
termios.tcsetattr(slave, termios.TCSANOW, attrs)
p = subprocess.Popen(sys.argv[2:], stdout=slave, stderr=slave, env=dict(os.environ))
os.close(slave)
out = b""
while True:
    try:
        d = os.read(master, 65536)
    except OSError:
        break
    if not d:
        break
    out += d
p.wait()
with open(sys.argv[1], "wb") as f:
    f.write(out)
sys.exit(p.returncode)
