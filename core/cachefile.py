"""Small private cache files in the user cache dir: read whole, replaced whole.

A cache only ever costs time when it is missing, unreadable, of another version or
cannot be written: every reader treats those as an empty cache. Files are private
(0700 dir, 0600 file, whatever the umask) because they name the user's runs; they
are written to a temporary name and renamed, so a reader never sees half a file and
two writers never mix.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import orjson


def cache_dir() -> Path:
    """``$WFTOP_CACHE_DIR``, else the platform's user cache dir for wftop."""
    configured = os.environ.get("WFTOP_CACHE_DIR")
    if configured:
        return Path(configured)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("wftop"))


def load_cache(path: Path, version: int) -> dict[str, Any]:
    """The entries of a cache file written by `save_cache` with the same ``version``."""
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict) or data.get("version") != version:
        return {}
    entries = data.get("runs")
    return entries if isinstance(entries, dict) else {}


def save_cache(path: Path, version: int, entries: dict[str, Any]) -> None:
    """Replace the cache file; a cache that cannot be written is left as it was."""
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temp, flags, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(orjson.dumps({"version": version, "runs": entries}))
        os.replace(temp, path)
    except (OSError, TypeError):  # TypeError: an entry JSON cannot hold
        with contextlib.suppress(OSError):
            os.unlink(temp)
