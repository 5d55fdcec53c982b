"""Helpers for the `fleetsim serve` tests: start the server on a free loopback port and wait for the
URL line it prints (never a sleep); drive Debian's headless Chromium over the DevTools protocol on a
pipe (--remote-debugging-pipe: JSON messages ending in NUL on fds 3 and 4), with no package beyond
the standard library. Every wait has a deadline, and a deadline missed is a failure, not a retry."""
from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
URL_LINE = re.compile(r"fleetsim serve: listening on (http://127\.0\.0\.1:(\d+)/\S*)")


class Server:
    """`fleetsim serve --port 0` on 127.0.0.1, stopped (by its own pid) when the test ends."""

    def __init__(self, binary: str, *args: str, deadline_s: float = 30):
        t0 = time.monotonic()
        self.proc = subprocess.Popen([binary, "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        line = _read_line(self.proc.stdout, deadline_s)
        self.start_s = time.monotonic() - t0
        m = URL_LINE.search(line or "")
        if not m:
            self.stop()
            raise AssertionError(f"fleetsim serve printed no URL line: {line!r}\n{self.proc.stderr.read()[-2000:]}")
        self.url, self.port = m.group(1), int(m.group(2))
        self.base = f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            if f:
                f.close()


def _read_line(stream, deadline_s: float) -> str:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        ready, _, _ = select.select([stream], [], [], max(0.0, end - time.monotonic()))
        if ready:
            return stream.readline()
    return ""


def query(sets=(), scenario: str | None = None) -> str:
    pairs = ([("scenario", scenario)] if scenario else []) + [("set", s) for s in sets]
    return urllib.parse.urlencode(pairs)


def api_run(base: str, sets=(), scenario: str | None = None, timeout: float = 120) -> dict:
    """The last NDJSON line of /api/run (the answer), after any progress lines."""
    with urllib.request.urlopen(f"{base}/api/run?{query(sets, scenario)}", timeout=timeout) as r:
        lines = [json.loads(x) for x in r.read().decode().splitlines() if x.strip()]
    return lines[-1]


def without_host(doc: dict) -> dict:
    """A run's JSON without host.wall_time_s (the one figure that depends on the machine)."""
    d = json.loads(json.dumps(doc))
    d.pop("host", None)
    return d


def get_path(doc, dotted: str):
    for k in dotted.split("."):
        doc = doc[k]
    return doc["mean"] if isinstance(doc, dict) and "mean" in doc else doc


def need_chromium():
    if not CHROMIUM and os.environ.get("FLEETSIM_REQUIRE_BROWSER") == "1":
        pytest.fail("FLEETSIM_REQUIRE_BROWSER=1 but Chromium is not installed: the studio's browser tests must run "
                    "here (FLEETSIM_WITH_CHROMIUM=1 scripts/setup installs it)")
    if not CHROMIUM:
        pytest.skip("Chromium is not installed: the studio's browser tests are skipped (apt-get install chromium)")


def _high_fd(fd: int) -> int:
    """The same pipe end on a descriptor above 10, so that the child's dup2 onto 3 and 4 cannot clobber it."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class Browser:
    """Headless Chromium with one page, driven over the DevTools protocol (CDP) on a pipe."""

    def __init__(self, width: int = 1400, height: int = 1800, deadline_s: float = 60):
        to_chrome_r, to_chrome_w = (_high_fd(x) for x in os.pipe())
        from_chrome_r, from_chrome_w = (_high_fd(x) for x in os.pipe())

        def child():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.deadline_s = deadline_s
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--hide-scrollbars", "--remote-debugging-pipe", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=child, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.w, self.r = to_chrome_w, from_chrome_r
        self.buf = b""
        self.next_id = 0
        self.events: list[dict] = []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def _send(self, msg: dict):
        os.write(self.w, json.dumps(msg).encode() + b"\0")

    def _receive(self, end: float) -> dict:
        while b"\0" not in self.buf:
            left = end - time.monotonic()
            ready, _, _ = select.select([self.r], [], [], max(0.0, left))
            if not ready:
                raise AssertionError("Chromium did not answer within the deadline")
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise AssertionError("Chromium closed its DevTools pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, session: bool = False, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        self._send(msg)
        end = time.monotonic() + self.deadline_s
        while True:
            reply = self._receive(end)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str):
        end = time.monotonic() + self.deadline_s
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            e = self._receive(end)
            if e.get("method") == method:
                return e
            self.events.append(e)

    def open(self, url: str):
        self.events = []  # console errors are counted per page
        self.call("Page.navigate", session=True, url=url)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str):
        """The value of `expression` (a promise is awaited); a JS exception fails the test."""
        r = self.call("Runtime.evaluate", session=True, expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r:
            raise AssertionError(f"page exception: {r['exceptionDetails']}")
        return r["result"].get("value")

    def console_errors(self) -> list[str]:
        out = []
        for e in self.events:
            if e.get("method") == "Runtime.exceptionThrown":
                out.append(json.dumps(e["params"]["exceptionDetails"])[:300])
            elif e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error":
                out.append(e["params"]["entry"]["text"][:300])
            elif e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error":
                out.append(json.dumps(e["params"]["args"])[:300])
        return out

    def screenshot(self, clip: dict | None = None) -> bytes:
        params = {"format": "png"}
        if clip:
            params["clip"] = dict(clip, scale=1)
            params["captureBeyondViewport"] = True
        return base64.b64decode(self.call("Page.captureScreenshot", session=True, **params)["data"])

    def close(self):
        try:
            self._send({"id": 0, "method": "Browser.close"})
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.w)
        os.close(self.r)
