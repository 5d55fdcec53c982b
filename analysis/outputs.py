"""The one way the analysis scripts write what a user's -o names (issue 40), as fleetsim's
sim/core/atomic_file.hpp does: an output folder must be a folder (or new); each file is written to
a temporary next to it, then renamed over it, and the rename never replaces something that is not
a regular file (a FIFO would block the writer forever; as root a device would be deleted). A
refusal is one line on stderr naming the option, exit 2, with no temporary left behind."""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path


class OutputError(SystemExit):
    """Bad output path: printed as one line, exit 2 (a SystemExit, so scripts stop cleanly)."""

    def __init__(self, option: str, message: str):
        print(f"error: <command line>: {option}: {message}", file=sys.stderr)
        super().__init__(2)


def _kind(path: Path) -> str:
    """'' when `path` is absent or a regular file (symbolic links followed), else what it is."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return ""
    except OSError as e:
        return f"unusable ({e.strerror})"
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file (a device, FIFO or socket)"


def output_dir(path, option: str = "-o") -> Path:
    """The folder for a report's files: an existing folder, or created (with its parents)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(option, f"'{p}' exists and is not a directory; give a folder for the report")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(option, f"cannot create '{p}': {e.strerror}") from None
    return p


def check_file(path, option: str = "-o") -> None:
    """Refuses, before any work, a target that is a directory, FIFO, device or socket."""
    kind = _kind(Path(path))
    if kind:
        raise OutputError(option, f"'{path}' is {kind}; the report writes a new or regular file there")


def write_atomically(path, write, option: str = "-o") -> str:
    """Calls write(temporary_path), then renames the temporary over `path` (checked again first)."""
    target = Path(path)
    check_file(target, option)
    tmp = target.with_name(f"{target.name}.tmp.{os.getpid()}{target.suffix}")
    try:
        write(tmp)
        check_file(target, option)
        os.replace(tmp, target)
    finally:
        if tmp.exists() and not tmp.is_symlink() and tmp.is_file():
            tmp.unlink()
    return str(target)


def write_text(path, text: str, option: str = "-o") -> str:
    return write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"), option)


def save_figure(fig, path, option: str = "-o", **kwargs) -> str:
    """fig.savefig into place atomically (the temporary keeps the suffix, which sets the format)."""
    return write_atomically(path, lambda tmp: fig.savefig(tmp, **kwargs), option)
