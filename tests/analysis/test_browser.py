"""The HTML reports in a real browser. Headless Chromium (Debian's `chromium`) opens the run report
and the sweep report; the test fails on any console error, uncaught exception or image that does
not load, and saves a screenshot of each page ($FLEETSIM_SCREENSHOT_DIR, else the test's temporary
directory; the path is printed). Skipped, with a message, where Chromium is not installed
(`FLEETSIM_WITH_CHROMIUM=1 scripts/setup` or `apt-get install chromium` to run these), except
where FLEETSIM_REQUIRE_BROWSER=1 (set by .ci/run, which installs Chromium): there a missing
browser FAILS the test, so CI never passes without having run it. About 15 s for the three tests.

The check loads a copy of the page with a probe script inserted first in <head>: it records
console.error calls and error events (failed scripts and images included), then after `load` lists
the images that did not decode, and writes its findings into the DOM, which --dump-dom returns."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis import report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")

PROBE = """<script>
window.__probe = {errors: []};
(function () {
  const original = console.error.bind(console);
  console.error = function (...args) { window.__probe.errors.push(args.map(String).join(' ')); original(...args); };
  window.addEventListener('error', function (ev) {
    const t = ev.target;
    window.__probe.errors.push(t && t !== window && t.tagName ? 'failed to load <' + t.tagName.toLowerCase() + '> ' +
      String(t.src || t.href || '').slice(0, 80) : 'uncaught: ' + ev.message);
  }, true);
  window.addEventListener('load', function () {
    const broken = Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)
      .map(i => i.alt || String(i.src).slice(0, 80));
    const p = document.createElement('pre');
    p.id = 'fleetsim-probe';
    p.textContent = JSON.stringify({errors: window.__probe.errors, images: document.images.length, broken: broken});
    document.body.appendChild(p);
  });
})();
</script>"""

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--allow-file-access-from-files", "--enable-logging=stderr", "--v=0"]


def _need_chromium():
    if not CHROMIUM and os.environ.get("FLEETSIM_REQUIRE_BROWSER") == "1":
        pytest.fail("FLEETSIM_REQUIRE_BROWSER=1 but Chromium is not installed: the browser check of the HTML "
                    "reports must run here (FLEETSIM_WITH_CHROMIUM=1 scripts/setup installs it)")
    if not CHROMIUM:
        pytest.skip("Chromium is not installed: the browser check of the HTML reports is skipped "
                    "(apt-get install chromium to run it)")


def _chromium(*args, timeout=120):
    return subprocess.run([CHROMIUM, *FLAGS, *args], capture_output=True, text=True, timeout=timeout)


def open_in_browser(page: Path) -> dict:
    """Loads `page` in headless Chromium; returns the probe's findings plus the browser's own
    resource-loading errors from its log."""
    text = page.read_text(encoding="utf-8")
    probed = page.with_name(page.stem + ".probe.html")
    probed.write_text(re.sub(r"<head>", "<head>" + PROBE, text, count=1), encoding="utf-8")
    try:
        proc = _chromium("--virtual-time-budget=15000", "--dump-dom", probed.resolve().as_uri())
    finally:
        probed.unlink()
    m = re.search(r'<pre id="fleetsim-probe">(.*?)</pre>', proc.stdout, re.S)
    assert m, f"the page did not finish loading in Chromium (exit {proc.returncode}):\n{proc.stderr[-2000:]}"
    found = json.loads(html.unescape(m.group(1)))
    found["log_errors"] = [line for line in proc.stderr.splitlines()
                           if "net::ERR_" in line or "Failed to load resource" in line or "Uncaught" in line]
    return found


def screenshot(page: Path, name: str, fallback_dir: Path) -> Path:
    out_dir = Path(os.environ.get("FLEETSIM_SCREENSHOT_DIR", "") or fallback_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = (out_dir / f"{name}.png").resolve()
    proc = _chromium("--hide-scrollbars", "--window-size=1200,5200", f"--screenshot={out}", page.resolve().as_uri())
    assert out.exists() and out.stat().st_size > 10000, f"no screenshot (exit {proc.returncode}):\n{proc.stderr[-2000:]}"
    print(f"screenshot of {page.name}: {out}")
    return out


def _assert_clean(found: dict, page: Path):
    assert found["errors"] == [], f"{page}: console errors {found['errors']}"
    assert found["broken"] == [], f"{page}: images that did not load {found['broken']}"
    assert found["log_errors"] == [], f"{page}: browser log {found['log_errors']}"
    assert found["images"] > 0, f"{page}: no figures"


def test_the_checker_catches_a_broken_image_and_a_console_error(tmp_path):
    _need_chromium()
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><head><title>t</title></head><body><img src='missing.png' alt='missing'>"
                   "<script>console.error('boom')</script></body></html>", encoding="utf-8")
    found = open_in_browser(bad)
    assert found["broken"] == ["missing"]
    assert any("boom" in e for e in found["errors"])


def test_the_run_report_opens_cleanly_in_chromium_with_the_iteration_gantt(real_h5, tmp_path):
    _need_chromium()
    out = tmp_path / "report"
    report.main([str(real_h5), "-o", str(out)])
    page = out / "report.html"
    assert (out / "iteration_timeline.png").exists(), "the run report lacks the iteration Gantt chart"
    assert "iteration_timeline" in page.read_text(encoding="utf-8")
    _assert_clean(open_in_browser(page), page)
    screenshot(page, "run_report", tmp_path)


def test_the_sweep_report_opens_cleanly_in_chromium(real_sweep, tmp_path):
    _need_chromium()
    sweep_dir, _ = real_sweep
    out = tmp_path / "sweep_report"
    report.main([str(sweep_dir), "-o", str(out)])
    page = out / "report.html"
    _assert_clean(open_in_browser(page), page)
    screenshot(page, "sweep_report", tmp_path)
