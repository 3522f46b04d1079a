"""What transcripts spent, kept between processes: read a transcript once per change.

The plan of a run of 100,000 calls prices each call's last attempt from its transcript, and
reading 100,000 files was most of its time. `SpendBook` keeps what each transcript spent
under the transcript's path and stamp (size, modification time in nanoseconds, inode): a
transcript whose stamp is the one kept is not read again, one that changed in any of the
three (a rewrite of the same size included) is. It is shared by the plan, ``wftop ls`` and
the engine, through `wftop.core.cost.usage.Spends`.

Files, in a folder of the state dir (never under a Claude config dir: `book_for` says no
book when the folder lies in a root it reads): one per project folder, holding the entries
of its session transcripts and of every run folder of its sessions, and one per other
directory of transcripts, named by a digest of that folder's path (`group_of`), which the
file also holds. A first listing of 5,000 runs in 41 projects writes 41 files, not one per
run folder: making a file cost the kernel 0.15-0.6 ms where it was measured, most of what
a first listing with a book added to one without. Written whole with the one
`atomic_write`, over what the file holds then (the other run folders of the project,
written by another process meanwhile, stay), private (0700 folder, 0600 files). A file of
an earlier version (version 1: one per directory; 2: one per session) is ignored, left for
the pruning. The folder is bounded (`MAX_BYTES`, looked at when a
book first writes, then once a minute): the files used least recently go first. A file
that is corrupt, of another version of the book or of other price data is ignored (a line
in ``spends.log`` beside them says which and why) and written again.

An entry is kept only for a transcript last modified more than `SETTLE_S` seconds before it
was read: a file rewritten within the same tick of the file system's clock, at the same
size, would show the same stamp.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

import orjson

from wftop.core.cost.prices import keep_rates, price_data
from wftop.core.cost.ratebook import RATES, RateBook
from wftop.core.cost.shelf import Shelf, Stamp, agent_of, columns_of, payload_spend
from wftop.core.cost.tokens import Spend
from wftop.core.system.atomic import atomic_write

VERSION = 5
"""Bump whenever what an entry holds, how the file writes it (4: as columns; 5: agents by
id first, the stamps as one text), or what a transcript's spend means, changes."""

MAX_BYTES = 128 << 20
"""The book's folder at most (its files, least recently used first out)."""

PRUNE_EVERY_S = 60.0
"""A book keeps its folder within bounds at its first save, then at most this often."""

SETTLE_S = 2.0
"""A transcript modified this recently when it was read is not kept (see the module)."""

LOG = "spends.log"

STAT_IN_FOLDER = os.stat in os.supports_dir_fd
"""The platform stats a name in an open directory (Linux and macOS do; `stat_by_fd`)."""

FolderStamp = tuple[int, int]
"""A directory's inode and modification time (ns): any file made, removed or renamed in it
changes the time."""


class SpendBook:
    """What transcripts spent by path and stamp, kept in ``folder`` (see the module).

    Args:
        folder: The book's folder (made when first written).
        writable: False: read what is kept, write nothing (``--read-only``).
        clock: Seconds since the epoch (tests pass their own).
        max_bytes: The folder at most.
    """

    def __init__(
        self,
        folder: Path,
        *,
        writable: bool = True,
        clock: Callable[[], float] = time.time,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.folder = folder
        self.writable = writable
        self.clock = clock
        self.max_bytes = max_bytes
        self._prices = price_data()["version"]
        self.rates = RateBook(folder / RATES, self._prices, writable=writable)
        """The rates the package gave, kept beside the entries (`wftop.core.cost.ratebook`);
        this process prices from them."""
        keep_rates(self.rates)
        self._dirs: dict[str, Shelf] = {}
        """Directory → its entries, for every directory looked in."""
        self._dirty: set[str] = set()
        self._loaded: set[str] = set()
        """The groups (`group_of`) whose file was read since the last save: a directory of
        one that holds no entries of it has none (a file is not read again per directory)."""
        self._pruned: float | None = None
        """When this book last kept its folder within bounds (None: not yet)."""

    def file_of(self, directory: str) -> Path:
        """The file that keeps the entries of ``directory``'s transcripts (and of the other
        directories of its `group_of`)."""
        group = group_of(directory)
        name = hashlib.sha256(group.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        return self.folder / f"{name}.json"

    def get(self, path: str, stamp: Stamp) -> Spend | None:
        """What transcript ``path`` spent when its stamp was ``stamp``; None: not kept."""
        directory, _, name = path.rpartition(os.sep)
        return self._shelf(directory).get(name, stamp)

    def holds(self, path: str) -> bool:
        """Whether an entry of transcript ``path`` is kept, whatever its stamp (none: the
        transcript must be read, and no ``stat`` of it first can spare that)."""
        directory, _, name = path.rpartition(os.sep)
        return name in self._shelf(directory).files

    def put(self, path: str, stamp: Stamp, spend: Spend) -> None:
        """Keep what transcript ``path`` spent at ``stamp`` (unless it was modified too
        recently to tell a later change by its stamp)."""
        if stamp[1] > (self.clock() - SETTLE_S) * 1e9:
            return
        directory, _, name = path.rpartition(os.sep)
        if self._shelf(directory).put(name, stamp, spend):
            self._dirty.add(directory)

    def vouched(self, directory: str, stamp: FolderStamp) -> bool:
        """Whether ``directory``'s entries were vouched for at its stamp ``stamp`` (its inode
        and modification time now): then `kept` answers for its files without a stamp."""
        return self._shelf(directory).folder == list(stamp)

    def vouch(self, directory: str, stamp: FolderStamp) -> None:
        """Keep ``directory``'s stamp with its entries: every transcript of it looked up in
        this process was checked against its own stamp after ``stamp`` was taken (see
        `wftop.core.cost.usage.Spends.settle` for when that may be trusted). Not kept for
        a directory modified within `SETTLE_S` of the clock (a file made in the same tick
        of the file system's clock would leave the stamp as it is)."""
        if stamp[1] > (self.clock() - SETTLE_S) * 1e9:
            return
        shelf = self._shelf(directory)
        if shelf.folder != list(stamp):
            shelf.folder = list(stamp)
            self._dirty.add(directory)

    def drop(self, path: str) -> None:
        """Forget transcript ``path`` (it is gone: a folder vouched for keeps no entry of a
        file it no longer holds)."""
        directory, _, name = path.rpartition(os.sep)
        if self._shelf(directory).files.pop(name, None) is not None:
            self._dirty.add(directory)

    def checked(self, directory: str) -> dict[str, Spend]:
        """What each agent's transcript of ``directory`` spent as kept, by agent id, for
        the files whose stamp now (a ``stat`` each) is the one kept."""
        shelf = self._shelf(directory)
        spends, count = shelf.spends, len(shelf.spends)
        found: dict[str, Spend] = {}
        by_fd = bool(shelf.files) and stat_by_fd(shelf.files)
        try:  # each file stat'ed by its name in the open folder: no walk of the whole path
            folder = os.open(directory, os.O_RDONLY) if by_fd else -1
        except (OSError, ValueError):
            return found
        try:
            for name, entry in shelf.files.items():
                agent = agent_of(name)
                if agent is None or type(entry) is not list or len(entry) != 4:
                    continue
                at = entry[3]
                spend = spends[at] if type(at) is int and 0 <= at < count else None
                if spend is None:
                    continue
                try:
                    if by_fd:
                        info = os.stat(name, dir_fd=folder)
                    else:
                        info = os.stat(os.path.join(directory, name))
                except (OSError, ValueError):
                    continue
                if (info.st_size, info.st_mtime_ns, info.st_ino) == (entry[0], entry[1], entry[2]):
                    found[agent] = spend
        finally:
            if by_fd:
                os.close(folder)
        return found

    def kept(self, directory: str) -> dict[str, Spend]:
        """What each agent's transcript of ``directory`` spent as kept, by agent id, its
        stamp not compared (for a directory `vouched` for)."""
        return self._shelf(directory).agents()

    def save(self, keep: Collection[str] = ()) -> None:
        """Write the files of the directories that gained entries, let go of every entry
        read but those of the directories ``keep`` (a run being followed: its file is not
        read again at its next change), and keep the folder within its bound. Nothing is
        raised: a book that cannot be written costs time, never an answer."""
        self.rates.save()
        dirty, self._dirty = self._dirty, set()
        dirs = self._dirs
        self._dirs = {directory: dirs[directory] for directory in keep if directory in dirs}
        self._loaded = set()
        if not self.writable or not dirty:
            return
        groups: dict[str, list[str]] = {}
        for directory in dirty:
            groups.setdefault(group_of(directory), []).append(directory)
        written = []
        with contextlib.suppress(OSError):
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            for group, changed in groups.items():
                path = self.file_of(changed[0])
                kept = self._entries(path, group, quiet=True)  # what other processes wrote
                for directory in changed:
                    kept[directory] = dirs[directory].payload()
                head = {"version": VERSION, "prices": self._prices, "group": group}
                try:
                    data = orjson.dumps(head | {"dirs": kept})
                except TypeError:  # a path that is not valid UTF-8: not kept
                    continue
                if len(data) <= self.max_bytes:
                    atomic_write(path, data, sync=False)
                    written.append(path)
            if self._pruned is None or self.clock() - self._pruned >= PRUNE_EVERY_S:
                self._pruned = self.clock()  # a folder of 20,000 files is not listed per save
                self._prune(written)

    def _shelf(self, directory: str) -> Shelf:
        found = self._dirs.get(directory)
        if found is None:
            found = self._load(directory)
        return found

    def _load(self, directory: str) -> Shelf:
        """``directory``'s entries from its file, and those of the other directories of
        its file that this process holds none of yet."""
        group = group_of(directory)
        if group in self._loaded:
            empty = self._dirs[directory] = Shelf({}, [])
            return empty
        self._loaded.add(group)
        path = self.file_of(directory)
        kept = self._entries(path, group)
        if kept and self.writable:
            with contextlib.suppress(OSError):
                os.utime(path)  # used: the last to go when the folder is pruned
        for other, entries in kept.items():
            if other not in self._dirs:  # its columns were checked (`_entries`)
                spends = [payload_spend(payload) for payload in entries["spends"]]
                columns = (entries["names"], entries["at"], entries["stamps"], entries["agents"])
                self._dirs[other] = Shelf.read(columns, spends, entries.get("folder"))
        found = self._dirs.get(directory)
        if found is None:
            found = self._dirs[directory] = Shelf({}, [])  # none kept yet
        return found

    def _entries(self, path: Path, group: str, *, quiet: bool = False) -> dict[str, Any]:
        """The entries file ``path`` keeps, by directory, where they are this book's of
        ``group``; {} when there is none, or (said in the log unless ``quiet``) it is
        corrupt or foreign."""
        try:
            data = path.read_bytes()
        except OSError:
            return {}  # none kept yet (or unreadable: written again)
        try:
            kept = orjson.loads(data)
        except orjson.JSONDecodeError as error:
            if not quiet:
                self._log(f"{path}: not JSON ({error}); ignored")
            return {}
        why = self._foreign(kept, group)
        if why:
            if not quiet:
                self._log(f"{path}: {why}; ignored")
            return {}
        return {
            directory: entries
            for directory, entries in kept["dirs"].items()
            if group_of(directory) == group
            and isinstance(entries, dict)
            and isinstance(entries.get("spends"), list)
            and columns_of(entries) is not None
        }

    def _foreign(self, kept: object, group: str) -> str:
        """Why ``kept`` (a file's contents) is not this book's entries of ``group``; ""
        when it is."""
        if not isinstance(kept, dict):
            return "not a JSON object"
        if kept.get("version") != VERSION:
            return f"version {kept.get('version')!r}, expected {VERSION}"
        if kept.get("prices") != self._prices:
            return f"prices {kept.get('prices')!r}, expected {self._prices!r}"
        if kept.get("group") != group:
            return "not the entries of its project or directory"
        if not isinstance(kept.get("dirs"), dict):
            return "no entries by directory"
        return ""

    def _prune(self, written: Iterable[Path]) -> None:
        """The least recently used files removed until the folder is within its bound (the
        files just written stay)."""
        keep = set(written)
        files = []
        with os.scandir(self.folder) as found:
            for item in found:
                if (
                    item.name.endswith(".json")
                    and item.name != RATES
                    and item.is_file(follow_symlinks=False)
                ):
                    info = item.stat(follow_symlinks=False)
                    files.append((info.st_mtime_ns, info.st_size, Path(item.path)))
        size = sum(entry[1] for entry in files)
        for _used, bytes_, path in sorted(files):
            if size <= self.max_bytes:
                break
            if path not in keep:
                path.unlink(missing_ok=True)
                size -= bytes_

    def _log(self, line: str) -> None:
        if not self.writable:
            return
        with contextlib.suppress(OSError):
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(self.folder / LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock()))
            with os.fdopen(fd, "a", encoding="utf-8", errors="replace") as out:
                out.write(f"{when} {line}\n")


def group_of(directory: str) -> str:
    """Whose file keeps ``directory``'s entries: a run folder's
    (``<project>/<session>/subagents/workflows/wf_…``) is its project's, with the project's
    session transcripts and other run folders; any other directory's is its own."""
    head, _, name = directory.rpartition(os.sep)
    if name.startswith("wf_"):
        session, _, middle = head.rpartition(os.sep + "subagents" + os.sep)
        project = os.path.dirname(session)
        if middle == "workflows" and project and project != session:
            return project
    return directory


def stat_by_fd(names: Iterable[str]) -> bool:
    """Whether files ``names`` of one directory can be stat'ed by name in the open directory
    (a ``stat`` with ``dir_fd``, where the platform has it and no name holds a separator);
    else each by its whole path."""
    return STAT_IN_FOLDER and not any(os.sep in name for name in names)


def spends_folder(roots: Iterable[str]) -> Path | None:
    """The book's folder in the state dir; None where `book_for` gives no book."""
    from wftop.core.system.statedir import state_dir

    folder = state_dir() / "spends"
    return None if _in_roots(folder, roots) else folder


def book_for(state: Path, roots: Iterable[str], *, writable: bool = True) -> SpendBook | None:
    """The book in state dir ``state`` (its ``spends`` folder); None when that folder lies
    in one of ``roots`` (a Claude config dir: wftop writes nothing there)."""
    folder = state / "spends"
    return None if _in_roots(folder, roots) else SpendBook(folder, writable=writable)


def rates_for(state: Path, roots: Iterable[str], *, writable: bool = True) -> RateBook | None:
    """The spend book's rate book alone, this process's to price from (`keep_rates`), for a
    listing that keeps no spends (``--no-cache``: the book keeps the package's answers, not
    a run's); None where `book_for` gives none."""
    folder = state / "spends"
    if _in_roots(folder, roots):
        return None
    book = RateBook(folder / RATES, price_data()["version"], writable=writable)
    keep_rates(book)
    return book


def _in_roots(folder: Path, roots: Iterable[str]) -> bool:
    where = os.path.realpath(folder)
    for root in roots:
        top = os.path.realpath(root)
        if where == top or where.startswith(top.rstrip(os.sep) + os.sep):
            return True
    return False
