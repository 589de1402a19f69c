#!/usr/bin/env python3
"""How long headless Chromium takes from opening an HTML report to the page being interactive,
in real time: Chromium driven through the DevTools protocol (--remote-debugging-pipe, no
virtual time, whose clock stands still while the page inflates its data), the page polled
every 20 ms for body[data-ready]. A second load with #selftest gives the page's own
performance.now() marks (parsed, indexed, tables, drawn) and its counts.
usage: Benchmarks/html-load.py REPORT.html [runs]"""
import json, os, subprocess, sys, tempfile, time


def load(page, fragment):
    commands_r, commands_w = os.pipe()  # Chromium reads commands on fd 3 ...
    replies_r, replies_w = os.pipe()  # ... and writes replies on fd 4.

    def pipes():
        a, b = os.dup(commands_r), os.dup(replies_w)
        os.dup2(a, 3)
        os.dup2(b, 4)

    browser = next(b for b in ("chromium", "chromium-browser", "google-chrome")
                   if any(os.access(os.path.join(d, b), os.X_OK) for d in os.environ["PATH"].split(":")))
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        p = subprocess.Popen([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                              "--no-first-run", "--user-data-dir=" + profile, "--remote-debugging-pipe",
                              "--window-size=1400,1000", "about:blank"],
                             preexec_fn=pipes, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_r)
        os.close(replies_w)
        pending, last = b"", [0]

        def call(method, params=None, session=None):
            nonlocal pending
            last[0] += 1
            message = {"id": last[0], "method": method, "params": params or {}}
            if session:
                message["sessionId"] = session
            os.write(commands_w, json.dumps(message).encode() + b"\0")
            while True:
                while b"\0" in pending:
                    text, pending = pending.split(b"\0", 1)
                    reply = json.loads(text)
                    if reply.get("id") == last[0]:
                        if "error" in reply:
                            raise RuntimeError(reply["error"])
                        return reply["result"]
                chunk = os.read(replies_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed its end")
                pending += chunk

        try:
            target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            ready = ("document.body && document.body.getAttribute('data-ready') === '1' ? "
                     "(document.getElementById('ds-selftest') || {}).textContent || '{}' : ''")
            start = time.monotonic()
            call("Page.navigate", {"url": "file://" + os.path.abspath(page) + fragment}, session)
            while time.monotonic() - start < 300:
                value = call("Runtime.evaluate", {"expression": ready, "returnByValue": True}, session)["result"]
                if value.get("value"):
                    return time.monotonic() - start, json.loads(value["value"])
                time.sleep(0.02)
            raise RuntimeError("the page did not become interactive in 300 s")
        finally:
            p.kill()
            p.wait()


page, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
for run in range(1, runs + 1):
    seconds, _ = load(page, "")
    _, check = load(page, "#selftest")
    print("run %d: interactive after %d ms (page's own mark %d ms; messages %d, findings %d; stages %s)" % (
        run, seconds * 1000, check["interactiveMs"], check["messages"], check["findings"], check["stages"]))
