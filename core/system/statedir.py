"""Where wftop keeps its state, and how it makes its private folders and files: all a view
needs to place and start its engine (`wftop.core.engine.place`) and to keep its marks and
notifications (`wftop.core.notify`), without the modules of the resume store that re-export
them (`wftop.core.resume.store`, `wftop.core.resume.lock`)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Final

STATE_DIR_ENV: Final = "WFTOP_STATE_DIR"
"""Environment variable that overrides the state dir (tests use it)."""
DIR_MODE: Final = 0o700
FILE_MODE: Final = 0o600


def state_dir() -> Path:
    """wftop's state dir: ``$WFTOP_STATE_DIR`` or the platform's user state dir."""
    override = os.environ.get(STATE_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_state_dir("wftop"))


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) with mode 0700; tighten it if it is wider.

    Parents that already exist are left alone; only ``path`` itself is tightened.
    """
    missing: list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(directory, DIR_MODE)
    info = path.stat()
    if info.st_mode & 0o077 and info.st_uid == os.geteuid():
        os.chmod(path, DIR_MODE)
    return path


def open_private(path: Path, flags: int) -> int:
    """``os.open`` a regular file created 0600 (never following a final symlink)."""
    fd = os.open(path, flags | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, FILE_MODE)
    if os.fstat(fd).st_mode & 0o077:
        os.fchmod(fd, FILE_MODE)
    return fd
