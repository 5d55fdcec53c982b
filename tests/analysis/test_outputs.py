"""Issue 40: the report's outputs (analysis/outputs.py) never replace a FIFO, a device or a
directory, refuse with one line and exit 2 before drawing anything, and leave no temporary."""
from __future__ import annotations

import os
import subprocess

import pytest

from conftest import ROOT
from analysis import outputs


def _report(*args):
    return subprocess.run(["/usr/bin/python3", str(ROOT / "analysis" / "report.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_report_refuses_a_fifo_as_its_folder_or_its_page(synthetic_h5, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = _report(synthetic_h5, "-o", fifo)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == f"error: <command line>: -o: '{fifo}' exists and is not a directory; give a folder for the report\n"
    folder = tmp_path / "rep"
    folder.mkdir()
    os.mkfifo(folder / "report.html")
    proc = _report(synthetic_h5, "-o", folder)
    assert proc.returncode == 2, proc.stderr
    assert "is not a regular file (a device, FIFO or socket)" in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert sorted(p.name for p in folder.iterdir()) == ["report.html"]  # no figure drawn, nothing left
    assert fifo.is_fifo() and (folder / "report.html").is_fifo()


def test_atomic_text_replaces_a_file_and_refuses_a_directory_leaving_no_temporary(tmp_path):
    target = tmp_path / "page.html"
    target.write_text("old")
    outputs.write_text(target, "new")
    assert target.read_text() == "new"
    (tmp_path / "dir.html").mkdir()
    with pytest.raises(SystemExit) as e:
        outputs.write_text(tmp_path / "dir.html", "x")
    assert e.value.code == 2

    def failing(tmp):
        open(tmp, "w").write("partial")
        raise OSError("disk full")
    with pytest.raises(OSError):
        outputs.write_atomically(target, failing)
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.html", "page.html"]
