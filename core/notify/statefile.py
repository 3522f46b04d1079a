"""A small JSON table in the state dir that every wftop process of the user shares.

`StateTable.update` takes an exclusive ``flock`` on a lock file beside the table, reads it,
lets the caller change it and writes it back with `wftop.core.system.atomic.atomic_write`:
two processes never lose each other's change, and a reader never sees half a file. The
dir is 0700 and the files 0600 (`wftop.core.resume.lock`). A table that is missing,
unreadable or of another version reads as empty.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import orjson

from wftop.core.system.atomic import atomic_write
from wftop.core.system.statedir import ensure_private_dir, open_private

T = TypeVar("T")


class StateTable:
    """``<dir>/<name>.json`` holding ``{"version": N, "entries": {…}}``."""

    def __init__(self, folder: Path, name: str, version: int) -> None:
        self.folder = folder
        self.path = folder / f"{name}.json"
        self.lock_path = folder / f"{name}.lock"
        self.version = version

    def read(self) -> dict[str, Any]:
        """The entries as last written (empty when there is no usable table)."""
        try:
            data = orjson.loads(self.path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}
        if not isinstance(data, dict) or data.get("version") != self.version:
            return {}
        entries = data.get("entries")
        return entries if isinstance(entries, dict) else {}

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        ensure_private_dir(self.folder)
        fd = open_private(self.lock_path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing drops the lock

    def update(self, change: Callable[[dict[str, Any]], T]) -> T:
        """Apply ``change`` to the entries under the lock and write them back (raises
        `OSError` when the state dir cannot be written)."""
        with self._locked():
            entries = self.read()
            result = change(entries)
            data = orjson.dumps({"version": self.version, "entries": entries})
            atomic_write(self.path, data, sync=False)  # as it was: the lock orders writers
            return result
