#!/usr/bin/env python3
"""Checks of an axbench HTML report, for tests/cli/report_systems.bats.

  report_check.py geometry FILE.html
      Every <text> of every inline SVG, its width estimated the way a
      conservative layout check does (characters x font size x 0.6; the
      report's CSS sets 11 px, 13 px for titles), must lie inside its
      SVG's viewBox.  Needs no browser.  Prints one JSON object.

  report_check.py browser FILE.html [--shots PREFIX]
      Loads the page in headless Chromium through the DevTools protocol
      (a WebSocket client written here with the standard library) and
      prints one JSON object: every request the page made, every console
      or log message (CSP violations included), each SVG text whose
      rendered box (getBoundingClientRect) passes its SVG's box, the fill
      colours of the bars of each series, and the SVG and page text.
      --shots writes the whole page as PNG slices PREFIX-N.png.

  report_check.py shot FILE.html WHAT OUT.png [WHAT OUT.png ...]
      Writes a PNG of one part of the page per pair, for the before/after
      pictures of a change: WHAT is an h2 id (the section, to the next h2)
      or svg:PREFIX (the first chart whose aria-label starts with PREFIX).

Exit status 0 when the checks ran (the caller judges the JSON), 2 on a
usage error, 3 when the browser could not be driven.
"""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

EM = 0.6  # the estimate the geometry check allows, per character
FONTS = {"tt": 13}  # class -> px; every other text is 11 px


# ---- geometry ------------------------------------------------------------

def svg_blocks(html):
    # SVGs are written well-formed (escaped text, quoted attributes).
    return re.findall(r"<svg\b.*?</svg>", html, re.S)


def text_of(el):
    # A <title> inside a <text> is its tooltip, not drawn.
    parts = [el.text or ""]
    for child in el:
        if not child.tag.endswith("title"):
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return "".join(parts)


def geometry(html):
    bad, n = [], 0
    for block in svg_blocks(html):
        root = ET.fromstring(block)
        _, _, w, h = (float(v) for v in root.get("viewBox").split())
        for t in root.iter("{http://www.w3.org/2000/svg}text"):
            s = text_of(t)
            if not s:
                continue
            n += 1
            px = FONTS.get((t.get("class") or "").split(" ")[0], 11)
            tw = len(s) * px * EM
            anchor = t.get("text-anchor", "start")
            tr = t.get("transform")
            if tr:  # translate(X Y) rotate(-90): runs along y
                x, y = (float(v) for v in re.findall(
                    r"translate\(([-\d.]+)[ ,]([-\d.]+)\)", tr)[0])
                lo, hi = y - tw / 2, y + tw / 2
                ok = lo >= 0 and hi <= h and x - px >= 0 and x <= w
            else:
                x, y = float(t.get("x")), float(t.get("y"))
                left = {"start": x, "middle": x - tw / 2,
                        "end": x - tw}[anchor]
                ok = (left >= -0.5 and left + tw <= w + 0.5 and
                      y - px >= -0.5 and y + 0.3 * px <= h + 0.5)
            if not ok:
                bad.append({"text": s[:80], "svg": root.get("aria-label",
                                                             "")[:80]})
    return {"svgs": len(svg_blocks(html)), "texts": n, "overflow": bad}


# ---- a WebSocket client, enough for the DevTools protocol -----------------

class WebSocket:
    def __init__(self, url):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), 60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((
            f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise OSError("websocket handshake: connection closed")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise OSError("websocket handshake refused: %r" % head[:80])

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise OSError("websocket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _frame(self, opcode, data):
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            head = struct.pack(">BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            head = struct.pack(">BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack(">BBQ", 0x80 | opcode, 0x80 | 127, n)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + body)

    def send(self, text):
        self._frame(0x1, text.encode())

    def recv(self):
        data = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in
                                enumerate(payload))
            op = b0 & 0x0F
            if op == 0x8:
                raise OSError("websocket closed by the browser")
            if op == 0x9:
                self._frame(0xA, payload)
                continue
            data += payload
            if b0 & 0x80:
                return data.decode()


class DevTools:
    def __init__(self, ws):
        self.ws, self.next_id, self.events = ws, 0, []

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method,
                                 "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise OSError(f"{method}: {msg['error']}")
                return msg["result"]
            self.events.append(msg)

    def wait(self, method, timeout):
        end = time.time() + timeout
        while not any(e.get("method") == method for e in self.events):
            if time.time() > end:
                raise OSError(f"no {method} within {timeout} s")
            self.events.append(json.loads(self.ws.recv()))


CHECK_JS = r"""
(() => {
  const out = {overflow: [], svgs: 0, texts: 0, fills: {}, svg_text: [],
               body_text: document.body.innerText};
  for (const svg of document.querySelectorAll('svg')) {
    out.svgs++;
    const s = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (!r.width) continue;
      out.texts++;
      let own = '';
      for (const n of t.childNodes) if (n.nodeType === 3) own += n.data;
      out.svg_text.push(own);
      const over = [s.left - r.left, r.right - s.right,
                    s.top - r.top, r.bottom - s.bottom];
      if (Math.max(...over) > 0.5)
        out.overflow.push({text: own.slice(0, 80),
                           svg: (svg.getAttribute('aria-label') || '')
                                .slice(0, 80),
                           by: over.map(v => Math.round(v))});
    }
  }
  for (const r of document.querySelectorAll('rect[data-series]')) {
    const k = r.getAttribute('data-series');
    const f = getComputedStyle(r).fill;
    out.fills[k] = out.fills[k] || [];
    if (!out.fills[k].includes(f)) out.fills[k].push(f);
  }
  // A scrolling table (class wide) that needs its scroll bar: a column
  // cut at the page edge.
  out.wide_cut = [...document.querySelectorAll('.wide')]
      .filter(w => w.scrollWidth > w.clientWidth + 1)
      .map(w => w.innerText.slice(0, 80));
  out.page_height = document.documentElement.scrollHeight;
  return out;
})()
"""


CLIP_JS = r"""
((what) => {
  let top, bottom, left = 0, right = document.documentElement.scrollWidth;
  if (what.startsWith('svg:')) {
    const svg = [...document.querySelectorAll('svg')].find(
        s => (s.getAttribute('aria-label') || '').startsWith(what.slice(4)));
    if (!svg) return null;
    const r = svg.getBoundingClientRect();
    [top, bottom, left, right] = [r.top, r.bottom, r.left, r.right];
  } else {
    const h = document.getElementById(what);
    if (!h) return null;
    top = h.getBoundingClientRect().top;
    let n = h.nextElementSibling;
    bottom = document.documentElement.scrollHeight - window.scrollY;
    while (n && n.tagName !== 'H2') n = n.nextElementSibling;
    if (n) bottom = n.getBoundingClientRect().top;
  }
  return {x: left + window.scrollX, y: top + window.scrollY,
          width: right - left, height: bottom - top};
})
"""


def browser(path, shots, parts=()):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        raise OSError("chromium is not installed")
    profile = tempfile.mkdtemp(prefix="axbench-cdp-")
    proc = subprocess.Popen(
        [exe, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--hide-scrollbars",
         f"--user-data-dir={profile}", "--remote-debugging-port=0",
         "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        end = time.time() + 120
        while not os.path.exists(port_file) or \
                not open(port_file).read().strip():
            if time.time() > end or proc.poll() is not None:
                raise OSError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = int(open(port_file).read().split()[0])
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        targets = json.load(opener.open(
            f"http://127.0.0.1:{port}/json/list", timeout=60))
        page = next(t for t in targets if t.get("type") == "page")
        cdp = DevTools(WebSocket(page["webSocketDebuggerUrl"]))
        for domain in ("Network", "Log", "Runtime", "Page"):
            cdp.call(domain + ".enable")
        cdp.call("Emulation.setDeviceMetricsOverride", width=1400,
                 height=2000, deviceScaleFactor=1, mobile=False)
        url = "file://" + os.path.abspath(path)
        cdp.events.clear()
        cdp.call("Page.navigate", url=url)
        cdp.wait("Page.loadEventFired", 120)
        res = cdp.call("Runtime.evaluate", expression=CHECK_JS,
                       returnByValue=True)["result"]["value"]
        res["requests"] = [
            e["params"]["request"]["url"] for e in cdp.events
            if e.get("method") == "Network.requestWillBeSent" and
            e["params"]["request"]["url"] != url]
        res["console"] = [
            e["params"].get("entry", e["params"]) for e in cdp.events
            if e.get("method") in ("Log.entryAdded",
                                   "Runtime.consoleAPICalled",
                                   "Runtime.exceptionThrown")]
        for what, out in parts:
            clip = cdp.call("Runtime.evaluate",
                            expression=f"{CLIP_JS}({json.dumps(what)})",
                            returnByValue=True)["result"].get("value")
            if not clip:
                raise OSError(f"no part {what!r} in {path}")
            clip["scale"] = 1
            shot = cdp.call("Page.captureScreenshot", format="png",
                            captureBeyondViewport=True, clip=clip)
            with open(out, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        if shots:
            h = res["page_height"]
            for i, y in enumerate(range(0, h, 2000)):
                shot = cdp.call(
                    "Page.captureScreenshot", format="png",
                    captureBeyondViewport=True,
                    clip={"x": 0, "y": y, "width": 1400,
                          "height": min(2000, h - y), "scale": 1})
                with open(f"{shots}-{i}.png", "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
        return res
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("geometry", "browser", "shot"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] == "geometry":
        with open(argv[2], encoding="utf-8") as f:
            print(json.dumps(geometry(f.read())))
        return 0
    shots = argv[4] if len(argv) > 4 and argv[3] == "--shots" else None
    parts = ()
    if argv[1] == "shot":
        rest = argv[3:]
        if not rest or len(rest) % 2:
            print(__doc__, file=sys.stderr)
            return 2
        parts, shots = list(zip(rest[0::2], rest[1::2])), None
    try:
        res = browser(argv[2], shots, parts)
        if not parts:
            print(json.dumps(res))
    except (OSError, StopIteration, ValueError) as e:
        print(f"report_check: {e}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
