"""What was read from a file, kept until the file changes."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class FileMemo(Generic[T]):
    """``read(path)`` of each regular file, read again only when its size, modification time
    or inode changed; None for a path that is not a regular file."""

    def __init__(self, read: Callable[[str], T]) -> None:
        self._read = read
        self._seen: dict[str, tuple[tuple[int, float, int], T]] = {}

    def get(self, path: str | None) -> T | None:
        if path is None:
            return None
        try:
            info = os.stat(path)
        except (OSError, ValueError):  # ValueError: a NUL in a path read from disk
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        stamp = (info.st_size, info.st_mtime, info.st_ino)
        seen = self._seen.get(path)
        if seen is None or seen[0] != stamp:
            seen = (stamp, self._read(path))
            self._seen[path] = seen
        return seen[1]
