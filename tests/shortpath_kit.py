"""Short folders of a test's own, for what a long temp dir would break.

A Unix socket's path must fit ``sun_path`` (104 bytes on macOS, 108 on Linux, its NUL
included), and a long ``TMPDIR`` (macOS's ``/var/folders/…/T/``) or a deep ``--basetemp``
passes that limit: a tmux server cannot start, and wftop's engine runs over pipes (as it
should) where a test expects it shared over a socket. A text column that cuts a path may cut
off what a test planted at its end. A test that needs a short path makes one with
`short_dir` and removes it itself.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from tests.leftovers_kit import gone

SHORT_BASE = "/tmp"
"""Where short folders go when it can be written (short on every POSIX system); else the
temp dir, whatever its length."""


def new_short_dir(prefix: str) -> Path:
    """A new private folder under `SHORT_BASE` (``/tmp/<prefix><8 random>``); the caller
    removes it (`remove`)."""
    base = SHORT_BASE if os.access(SHORT_BASE, os.W_OK | os.X_OK) else None
    return Path(tempfile.mkdtemp(prefix=prefix, dir=base))


def naming(folder: Path) -> list[int]:
    """The pids of the processes whose command line names ``folder`` or a path in it."""
    inside = f"{folder}{os.sep}"
    pids = []
    for process in psutil.process_iter(["cmdline"]):
        argv = process.info["cmdline"] or []
        if any(arg == str(folder) or arg.startswith(inside) for arg in argv):
            pids.append(process.pid)
    return pids


def remove(folder: Path, *, wait: float = 10.0) -> None:
    """Remove ``folder`` and what is in it, once no process names it in its command line or
    after ``wait`` seconds: an engine there goes a second after its last view, and what it
    writes as it goes (its spends) would make the folder anew."""
    deadline = time.monotonic() + wait
    running = naming(folder)
    while running and time.monotonic() < deadline:
        time.sleep(0.05)
        running = [pid for pid in running if not gone(pid)]
    shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def short_dir(prefix: str) -> Iterator[Path]:
    """`new_short_dir` for the time of a ``with`` block, then removed."""
    folder = new_short_dir(prefix)
    try:
        yield folder
    finally:
        remove(folder)
