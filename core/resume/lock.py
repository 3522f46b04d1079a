"""Private files and the per-run resume lock, in wftop's state dir.

Directories are created 0700 and files 0600 (with those modes from the start, never
wider, whatever the umask). The lock is an exclusive, non-blocking ``flock``; the
kernel drops it when its holder dies, so a crashed wftop never leaves a run locked.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from wftop.core.resume.errors import ResumeBusy
from wftop.core.system.statedir import open_private


def append_line(path: Path, line: bytes) -> None:
    """Append one line to a private file, fsynced; a torn last line is ended first, so the
    new one stays whole."""
    fd = open_private(path, os.O_RDWR | os.O_APPEND)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


class RunLock:
    """An exclusive, non-blocking ``flock`` on ``<state>/locks/<runId>.lock``.

    The lock file holds a line naming the holder, so that a second caller's
    `ResumeBusy` says who is resuming. The kernel drops the lock when the holder
    dies, so a crashed wftop never leaves a run locked. ``busy`` words what a second
    caller is told for another lock than a run's (the supervisor's).
    """

    def __init__(self, path: Path, run_id: str, holder: str, *, busy: str | None = None) -> None:
        self.path = path
        self.run_id = run_id
        self.holder = holder
        self.busy = busy
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, *, wait: float = 0.0) -> RunLock:
        """Take the lock, retrying for up to ``wait`` seconds.

        Raises:
            ResumeBusy: Someone else (possibly this process) holds it.
        """
        if self._fd is not None:
            msg = f"the resume lock of {self.run_id} is already held by this object"
            raise ResumeBusy(msg, holder=self.holder)
        fd = open_private(self.path, os.O_RDWR)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read_holder(fd)
                    os.close(fd)
                    who = f"lock {self.path} held by {holder or 'an unknown process'}"
                    msg = (
                        f"{self.busy} ({who})"
                        if self.busy
                        else f"a resume of {self.run_id} is already in progress ({who}); "
                        "wait for it, or re-attach to it"
                    )
                    raise ResumeBusy(msg, holder=holder) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{self.holder}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)  # closing the only descriptor drops the flock

    def __enter__(self) -> RunLock:
        return self if self.held else self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_holder(fd: int) -> str:
    try:
        return os.pread(fd, 512, 0).decode(errors="replace").strip()
    except OSError:
        return ""
