"""The watch helper on Linux, inotify asked directly: run as a script of the standard library
alone (`command`: ``python -I -S .../watcher_inotify.py``), speaking as
`wftop.core.index.watcher.serve` speaks.

One inotify watch per folder: the folders named and every one below them (``--shallow``
ones: their own entries only). The helper keeps the folder of each watch in one table for
them all (`Folders`: each folder's name under its parent's watch), and loads neither
asyncio, watchfiles nor site-packages: over 20,000 runs (60,000 folders) it was 56 MB with
watchfiles (whose tables kept some 550 bytes a folder) and its set-up took the interpreter
for seconds.

A folder made below a deep one is watched as it is seen, and what it already holds is said
changed (it may have been written before its watch was up); a folder moved away is
forgotten with everything below it, and watched again where it lands if that is watched. A
queue that overflowed says every folder named changed: the index looks at them again. It
prints ``ready`` once every watch is up, then one JSON list of changed paths a batch (a
batch ends once ``STEP_MS`` pass with no news, or ``DEBOUNCE_MS`` after its first), and ends
when its stdin closes, also while it is still setting its watches up (over 20,000 runs that
takes seconds, and a helper that went on after its engine held 60,000 watches of the user's
for nothing), or when the thread that started it ends (`end_with_parent`: an engine killed
with SIGKILL). Where inotify cannot be had it ends at once (`NO_INOTIFY`), and the
watchfiles helper serves instead. A folder the kernel refuses a watch (no watch left of the
user's ``fs.inotify.max_user_watches``) is left unwatched with everything below it, and said on
a line of its own (`refused`: the folders left, while setting up before ``ready``, or a folder
made since), and the helper goes on watching the others: its caller polls only the folders
said, and says so. It imports nothing of wftop (it is not run as part of it).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import select
import signal
import struct
import sys
import time
from array import array
from collections.abc import Callable, Iterator
from typing import NamedTuple

SHALLOW = "--shallow"
"""On a helper's command line: the folders after it are watched without what is below."""
NO_INOTIFY = 3
"""The helper's exit code where inotify cannot be had (its caller runs watchfiles' instead)."""
REFUSED = 4
"""The watchfiles helper's exit code when the kernel refused a watch it set up (after a
`refused` line; this one goes on without the folders refused)."""

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
LOOK_EVERY = 256
"""Watches set up between two looks at whether the helper is still wanted."""
PR_SET_PDEATHSIG = 1
"""prctl(2): the signal this process gets when the thread that started it ends."""


class Unwanted(Exception):
    """The helper's stdin closed while it set its watches up: nobody reads what it would say."""


class Folders:
    """The folder of each watch, by its number: its name below its parent watch's folder (a
    folder named: its whole path, under none). Watch numbers count up from 1, so two lists
    indexed by them hold 60,000 folders in some 5 MB, where each watch's path in a table
    took 17."""

    def __init__(self) -> None:
        self._parent = array("i", [0])
        self._name: list[bytes | None] = [None]

    def put(self, wd: int, parent: int, name: bytes) -> None:
        if wd >= len(self._name):
            grow = wd + 1 - len(self._name)
            self._parent.extend([0] * grow)
            self._name.extend([None] * grow)
        self._parent[wd], self._name[wd] = parent, name

    def drop(self, wd: int) -> None:
        if 0 < wd < len(self._name):
            self._parent[wd], self._name[wd] = 0, None

    def path(self, wd: int) -> bytes | None:
        """The watch's folder (None: no such watch, or one below a folder no more watched)."""
        parts: list[bytes] = []
        while 0 < wd < len(self._name):
            name = self._name[wd]
            if name is None:
                return None
            parts.append(name)
            wd = self._parent[wd]
        return b"/".join(reversed(parts)) if parts else None

    def items(self) -> Iterator[tuple[int, bytes]]:
        """Every watch and its folder."""
        for wd in range(1, len(self._name)):
            path = self.path(wd)
            if path is not None:
                yield wd, path

    def values(self) -> list[bytes]:
        return [path for _wd, path in self.items()]


class Inotify:
    """One inotify instance and the folder of each of its watches."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)  # the C library this process runs on
        self._add = libc.inotify_add_watch
        self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self._rm = libc.inotify_rm_watch
        self._rm.argtypes = [ctypes.c_int, ctypes.c_int]
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error))
        self.fd: int = fd
        self.folders = Folders()
        """Each watch's folder."""
        self.shallow: set[int] = set()
        """The watches of folders watched without what is below them."""
        self.named: list[bytes] = []
        """The folders named, deep and shallow: said changed when the queue overflowed."""
        self.unwanted: Callable[[], bool] = lambda: False
        """Whether the helper's reader went away, asked every `LOOK_EVERY` watches set up."""
        self.refusals: list[tuple[OSError, bool]] = []
        """Folders the kernel refused a watch, not said yet: each unwatched with what is below
        it (True: that too was to be watched), the error naming it."""

    def watch(
        self,
        folder: bytes,
        *,
        deep: bool = True,
        found: list[bytes] | None = None,
        under: tuple[int, bytes] | None = None,
    ) -> None:
        """Watch ``folder`` and, ``deep``, every folder below it (what they hold added to
        ``found``, where given); ``under``: the watch of the folder it is in, and its name
        there. A folder gone meanwhile or unreadable is passed over; one with no room for its
        watch (``fs.inotify.max_user_watches``) is left unwatched with what is below it, and
        added to `refusals`; the reader gone meanwhile (`unwanted`) is `Unwanted`."""
        stack = [(folder, *(under or (0, folder)))]
        count = 0
        while stack:
            count += 1
            if count % LOOK_EVERY == 0 and self.unwanted():
                raise Unwanted
            path, parent, name = stack.pop()
            wd = self._add(self.fd, path, MASK)
            if wd < 0:
                error = ctypes.get_errno()
                if error in (errno.ENOSPC, errno.ENOMEM):  # no watch left: said, polled
                    self.refusals.append((OSError(error, os.strerror(error), path), deep))
                continue
            self.folders.put(wd, parent, name)
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
                                stack.append((entry.path, wd, entry.name))
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
                self.folders.drop(wd)
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
            folder = self.folders.path(wd)
            if folder is None:
                continue
            if mask & IN_IGNORED:  # the folder is gone, and its watch with it
                self.folders.drop(wd)
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
                self.watch(path, found=found, under=(wd, name))  # refused: said, polled
                changed.update(found)
        return count


def end_with_parent() -> None:
    """Have the kernel end this process (SIGTERM) when the thread that started it ends, however
    it ends: a helper whose engine was killed with SIGKILL, its stdin held open by a process
    the engine forked, would go on holding its watches."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def closed(fd: int) -> bool:
    """Whether the pipe at ``fd`` is closed at its other end (what was written is read and
    dropped: a helper is told nothing on its stdin)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    for _fd, event in poller.poll(0):
        if event & select.POLLIN and os.read(fd, 4096):
            continue
        return True
    return False


def command() -> list[str]:
    """How the helper is run: this interpreter, isolated, without site-packages (nothing of
    them is needed), on this file."""
    return [sys.executable, "-I", "-S", os.path.abspath(__file__)]


def refused(refusals: list[tuple[OSError, bool]]) -> bytes:
    """Folders the kernel refused a watch, as the helper says them, on a line (where the
    caller reads a JSON list of paths): ``{"refused": ERRNO, "path": FIRST, "deep":
    [FOLDER...], "shallow": [FOLDER...]}``, each folder unwatched (``deep``: with what is
    below it); nothing when there are none."""
    if not refusals:
        return b""
    first = refusals[0][0]
    folders = {
        deep: [os.fsdecode(e.filename or "") for e, d in refusals if d == deep]
        for deep in (True, False)
    }
    what = {
        "refused": errno.errorcode.get(first.errno or 0, str(first.errno)),
        "path": os.fsdecode(first.filename or ""),
        "deep": folders[True],
        "shallow": folders[False],
    }
    return json.dumps(what, ensure_ascii=False).encode() + b"\n"


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


class HelperArgs(NamedTuple):
    debounce_ms: int
    step_ms: int
    paths: list[str]
    shallow: list[str]


def helper_args(argv: list[str]) -> HelperArgs:
    """A watch helper's command line (this one's and watchfiles', `wftop.core.index.watcher`):
    ``DEBOUNCE_MS STEP_MS FOLDER... [--shallow FOLDER...]``, read, and Ctrl+C left to its
    parent to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    debounce, step, *paths = argv
    shallow: list[str] = []
    if SHALLOW in paths:
        at = paths.index(SHALLOW)
        paths, shallow = paths[:at], paths[at + 1 :]
    return HelperArgs(int(debounce), int(step), paths, shallow)


def serve(argv: list[str]) -> int:
    """The helper: ``DEBOUNCE_MS STEP_MS FOLDER... [--shallow FOLDER...]``; ends with
    `NO_INOTIFY`, nothing said, where inotify cannot be had."""
    debounce, step, paths, shallow = helper_args(argv)
    try:
        inotify = Inotify()
    except (OSError, AttributeError):  # no inotify here (or no instance left)
        return NO_INOTIFY
    end_with_parent()
    stdin = sys.stdin.fileno()
    inotify.unwanted = lambda: closed(stdin)
    try:
        if inotify.unwanted():  # its engine went before this helper could ask to go with it
            return 0
        for folder in paths:
            inotify.watch(os.fsencode(folder))
        for folder in shallow:
            inotify.watch(os.fsencode(folder), deep=False)
    except Unwanted:
        return 0
    inotify.named = [os.fsencode(folder) for folder in (*paths, *shallow)]
    return follow(inotify, debounce, step)


def follow(inotify: Inotify, debounce_ms: int, step_ms: int) -> int:
    """Say the folders refused a watch, if any, and ``ready``, then each batch of changed
    paths (after the folders made since and refused), until stdin closes."""
    out = sys.stdout.buffer
    out.write(refused(inotify.refusals) + b"ready\n")
    out.flush()
    inotify.refusals.clear()
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
                try:
                    news += inotify.take(changed)
                except Unwanted:  # stdin closed while a large folder made was set up
                    return 0
        if changed and (not news or time.monotonic() - first >= debounce_ms / 1000):
            try:
                out.write(refused(inotify.refusals) + said(changed))
                out.flush()
            except BrokenPipeError:
                return 0
            changed = set()
            inotify.refusals.clear()


if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1:]))
