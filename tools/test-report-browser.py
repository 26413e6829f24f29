#!/usr/bin/env python3
"""test-report-browser: opens an HTML report in headless Chromium and checks what a reader sees
(issue 36): the page loads with no console error, no uncaught exception and no failed load; every
image decodes (a width and height above zero); a full-page screenshot is written. It drives
Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: file descriptors 3 and 4,
one JSON message per NUL), so it needs no package beyond the standard library.
  test-report-browser.py PAGE.html SCREENSHOT.png [WIDTH]
Prints the page's sections, its images' sizes, the screenshot's size, then
"test-report-browser: PASS" or "test-report-browser: FAIL: ..."."""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

page, shot = os.path.abspath(sys.argv[1]), sys.argv[2]
width = int(sys.argv[3]) if len(sys.argv) > 3 else 1400
exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
if not exe:
    print("test-report-browser: FAIL: no chromium on PATH (Debian: apt-get install chromium)")
    sys.exit(1)
profile = tempfile.mkdtemp(prefix="isochron-chromium-")
to_browser_r, to_browser_w = os.pipe()
from_browser_r, from_browser_w = os.pipe()


def child_fds():                      # the browser reads commands on fd 3 and writes on fd 4
    r, w = os.dup(to_browser_r), os.dup(from_browser_w)   # out of the way of 3 and 4 first
    r, w = os.dup2(r, 100), os.dup2(w, 101)
    os.dup2(r, 3)
    os.dup2(w, 4)


proc = subprocess.Popen([exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--no-first-run",
                         f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
                        preexec_fn=child_fds, close_fds=False,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_browser_r)
os.close(from_browser_w)
out = os.fdopen(to_browser_w, "wb", buffering=0)
inp = os.fdopen(from_browser_r, "rb", buffering=0)
buf, events, next_id = b"", [], [0]
deadline = time.time() + 120


def read_message():
    global buf
    while b"\0" not in buf:
        if time.time() > deadline:
            raise TimeoutError("the browser did not answer within 120 s")
        chunk = inp.read(1 << 16)
        if not chunk:
            raise EOFError("the browser closed its pipe")
        buf += chunk
    msg, buf = buf.split(b"\0", 1)
    return json.loads(msg)


def send(method, params=None, session=None):
    next_id[0] += 1
    m = {"id": next_id[0], "method": method, "params": params or {}}
    if session:
        m["sessionId"] = session
    out.write(json.dumps(m).encode() + b"\0")
    while True:
        r = read_message()
        if r.get("id") == next_id[0]:
            if "error" in r:
                raise RuntimeError(f"{method}: {r['error']}")
            return r.get("result", {})
        events.append(r)


def wait_event(method, seconds=60):
    end = time.time() + seconds
    while True:
        for e in events:
            if e.get("method") == method:
                return e
        if time.time() > end:
            raise TimeoutError(f"no {method} within {seconds} s")
        events.append(read_message())


problems = []
try:
    target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        send(f"{domain}.enable", session=s)
    send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 1000, "deviceScaleFactor": 1,
                                                "mobile": False}, session=s)
    send("Page.navigate", {"url": "file://" + page}, session=s)
    wait_event("Page.loadEventFired")
    check = send("Runtime.evaluate", {"awaitPromise": True, "returnByValue": True, "expression": """
        Promise.all([...document.images].map(i => i.decode().then(() => [i.naturalWidth, i.naturalHeight, i.alt])
                                                  .catch(e => [0, 0, i.alt])))
          .then(imgs => ({imgs, height: document.documentElement.scrollHeight,
                          sections: [...document.querySelectorAll('h2')].map(h => h.textContent),
                          toc: document.querySelectorAll('nav a').length,
                          tables: document.querySelectorAll('table').length,
                          pairs: document.querySelectorAll('.pair').length}))"""}, session=s)["result"]["value"]
    height = min(int(check["height"]), 16000)
    send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                "mobile": False}, session=s)
    png = base64.b64decode(send("Page.captureScreenshot", {"format": "png"}, session=s)["data"])
    with open(shot, "wb") as f:
        f.write(png)
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            problems.append("console error: " + " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
        elif m == "Runtime.exceptionThrown":
            problems.append("uncaught exception: " + p.get("exceptionDetails", {}).get("text", "?"))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            problems.append("console error: " + p["entry"].get("text", "?"))
    print(f"test-report-browser: page {os.path.basename(page)}: {check['height']} px tall at {width} px,"
          f" {check['tables']} tables, {check['pairs']} table+plot pairs, {check['toc']} contents links")
    print("test-report-browser: sections: " + " | ".join(check["sections"]))
    for w, h, alt in check["imgs"]:
        print(f"test-report-browser: image {w}x{h}: {alt[:70]}")
        if not (w > 0 and h > 0):
            problems.append(f"image does not decode: {alt}")
    if not check["imgs"]:
        problems.append("the page has no image")
    print(f"test-report-browser: screenshot {shot}: {width}x{height} px, {len(png)} bytes")
    if png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 10000:
        problems.append("the screenshot is not a PNG of a drawn page")
except (TimeoutError, EOFError, RuntimeError, KeyError) as exc:
    problems.append(f"the browser session failed: {exc}")
finally:
    try:
        send("Browser.close")
    except Exception:
        pass
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    shutil.rmtree(profile, ignore_errors=True)
for p in problems:
    print("test-report-browser: FAIL:", p)
if problems:
    sys.exit(1)
print("test-report-browser: PASS")
