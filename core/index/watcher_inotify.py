"""The watch helper on Linux: ``python -m wftop.core.index.watcher_inotify``, inotify asked
directly, speaking as `wftop.core.index.watcher.serve` speaks.

One inotify watch per folder: the folders named and every one below them (``--shallow``
ones: their own entries only). The helper keeps each watch's folder as its path's bytes, one
table for them all, and imports neither asyncio nor watchfiles: over 20,000 runs (60,000
folders) it was 56 MB with watchfiles (whose tables kept some 550 bytes a folder) and its
set-up took the interpreter for seconds.

A folder made below a deep one is watched as it is seen, and what it already holds is said
changed (it may have been written before its watch was up); a folder moved away is
forgotten with everything below it, and watched again where it lands if that is watched. A
queue that overflowed says every folder named changed: the index looks at them again. It
prints ``ready`` once every watch is up, then one JSON list of changed paths a batch (a
batch ends once ``STEP_MS`` pass with no news, or ``DEBOUNCE_MS`` after its first), and ends
when its stdin closes. Where inotify cannot be had, the watchfiles helper serves instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import json
import os
import select
import struct
import sys
import time
from collections.abc import Iterator

from wftop.core.index.watcher_args import helper_args

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
MASK = (
    IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
    | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW
)  # fmt: skip
"""What each folder's watch reports: its entries written, made, removed or moved, and
itself removed or moved (links are not followed: a linked run is watched where it lives)."""
EVENT = struct.Struct("iIII")
"""An event's head: watch, mask, cookie, length of the name after it."""


class Inotify:
    """One inotify instance and the folder of each of its watches."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self._add = libc.inotify_add_watch
        self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self._rm = libc.inotify_rm_watch
        self._rm.argtypes = [ctypes.c_int, ctypes.c_int]
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error))
        self.fd: int = fd
        self.folders: dict[int, bytes] = {}
        """Each watch's folder."""
        self.shallow: set[int] = set()
        """The watches of folders watched without what is below them."""
        self.named: list[bytes] = []
        """The folders named, deep and shallow: said changed when the queue overflowed."""

    def watch(self, folder: bytes, *, deep: bool = True, found: list[bytes] | None = None) -> None:
        """Watch ``folder`` and, ``deep``, every folder below it (what they hold added to
        ``found``, where given). A folder gone meanwhile or unreadable is passed over; no
        room for another watch (``fs.inotify.max_user_watches``) is an `OSError`."""
        stack = [folder]
        while stack:
            path = stack.pop()
            wd = self._add(self.fd, path, MASK)
            if wd < 0:
                error = ctypes.get_errno()
                if error == 28:  # ENOSPC: no watch left
                    raise OSError(error, os.strerror(error), os.fsdecode(path))
                continue
            self.folders[wd] = path
            if not deep:
                self.shallow.add(wd)
                continue
            try:
                with os.scandir(path) as entries:
                    for entry in entries:
                        if found is not None:
                            found.append(entry.path)
                        try:
                            if entry.is_dir(follow_symlinks=False):
                                stack.append(entry.path)
                        except OSError:
                            pass
            except OSError:
                pass

    def forget(self, folder: bytes) -> None:
        """Stop watching ``folder`` and everything below it (moved away: its watches would
        report under paths that are no more)."""
        below = folder + b"/"
        for wd, path in list(self.folders.items()):
            if path == folder or path.startswith(below):
                del self.folders[wd]
                self.shallow.discard(wd)
                self._rm(self.fd, wd)

    def events(self) -> Iterator[tuple[int, int, bytes]]:
        """The events queued now: (watch, mask, name)."""
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            at = 0
            while at < len(data):
                wd, mask, _cookie, length = EVENT.unpack_from(data, at)
                at += EVENT.size
                yield wd, mask, data[at : at + length].rstrip(b"\0")
                at += length

    def take(self, changed: set[bytes]) -> int:
        """Add the paths the queued events name to ``changed``, watching folders made
        below a deep one; how many events there were."""
        count = 0
        for wd, mask, name in self.events():
            count += 1
            if mask & IN_Q_OVERFLOW:
                changed.update(self.named)
                continue
            folder = self.folders.get(wd)
            if folder is None:
                continue
            if mask & IN_IGNORED:  # the folder is gone, and its watch with it
                del self.folders[wd]
                self.shallow.discard(wd)
                continue
            path = folder + b"/" + name if name else folder
            changed.add(path)
            if not (mask & IN_ISDIR) or wd in self.shallow:
                continue
            if mask & IN_MOVED_FROM:
                self.forget(path)
            elif mask & (IN_CREATE | IN_MOVED_TO):
                found: list[bytes] = []
                with contextlib.suppress(OSError):  # no watch left: the sweeps see to it
                    self.watch(path, found=found)
                changed.update(found)
        return count


def said(changed: set[bytes]) -> bytes:
    """A batch as the helper prints it: a JSON list of paths, sorted (a path whose name is
    not UTF-8 is left out: no run's files have such names)."""
    paths = []
    for path in sorted(changed):
        try:
            paths.append(path.decode())
        except UnicodeDecodeError:
            continue
    return json.dumps(paths, ensure_ascii=False).encode() + b"\n"


def serve(argv: list[str]) -> int:
    """The helper: ``DEBOUNCE_MS STEP_MS FOLDER... [--shallow FOLDER...]`` (as
    `wftop.core.index.watcher.serve`, which serves where inotify cannot be had)."""
    debounce, step, paths, shallow = helper_args(argv)
    try:
        inotify = Inotify()
    except (OSError, AttributeError):  # no inotify here (or no instance left)
        from wftop.core.index.watcher import serve as served

        return served(argv)
    for folder in paths:
        inotify.watch(os.fsencode(folder))
    for folder in shallow:
        inotify.watch(os.fsencode(folder), deep=False)
    inotify.named = [os.fsencode(folder) for folder in (*paths, *shallow)]
    return follow(inotify, debounce, step)


def follow(inotify: Inotify, debounce_ms: int, step_ms: int) -> int:
    """Say ``ready``, then each batch of changed paths, until stdin closes."""
    out = sys.stdout.buffer
    out.write(b"ready\n")
    out.flush()
    stdin = sys.stdin.fileno()
    poller = select.poll()
    poller.register(inotify.fd, select.POLLIN)
    poller.register(stdin, select.POLLIN | select.POLLHUP)
    changed: set[bytes] = set()
    first = 0.0
    while True:
        news = 0
        for fd, _event in poller.poll(step_ms if changed else None):
            if fd == stdin:
                if not os.read(stdin, 4096):
                    return 0
            else:
                if not changed:
                    first = time.monotonic()
                news += inotify.take(changed)
        if changed and (not news or time.monotonic() - first >= debounce_ms / 1000):
            try:
                out.write(said(changed))
                out.flush()
            except BrokenPipeError:
                return 0
            changed = set()


if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1:]))
