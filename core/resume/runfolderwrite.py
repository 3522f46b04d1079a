"""Where a relocated journal is written (`wftop.core.resume.relocate`): its run folder made
private, a hidden temporary name beside the target, and the finished copy renamed into place
(never over a journal that differs) with its folder synced."""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from wftop.core.resume.errors import RelocationConflict, RelocationError


def make_run_dir(run_dir: Path) -> None:
    """``run_dir`` and the folders it lacks made 0700; refused where it is a link, not a
    folder, or resolves elsewhere (the CLI would refuse it)."""
    missing: list[Path] = []
    probe = run_dir
    while not os.path.lexists(probe) and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(directory, 0o700)
    if run_dir.is_symlink() or not run_dir.is_dir():
        msg = f"the run folder {str(run_dir)!r} is a link or not a directory: the CLI refuses it"
        raise RelocationError(msg)
    real = Path(os.path.realpath(run_dir))
    if real.parts[-3:] != run_dir.parts[-3:]:
        msg = f"the run folder {str(run_dir)!r} resolves to {str(real)!r}; the CLI would refuse it"
        raise RelocationError(msg)


def temp_path(folder: Path) -> Path:
    """A hidden name in ``folder`` for a journal being written."""
    import secrets  # not at the top: a plan writes no journal

    return folder / f".journal.jsonl.{secrets.token_hex(6)}.tmp"


def file_sha256(path: Path) -> str:
    """The SHA-256 of ``path``'s bytes, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def install(output: Path, target: Path) -> bool:
    """Rename ``output`` to ``target`` unless it exists; True if an identical one did."""
    if os.path.lexists(target):
        if target.is_symlink() or not target.is_file():
            msg = f"the target {str(target)!r} exists and is not a regular file"
            raise RelocationConflict(msg)
        if file_sha256(target) == file_sha256(output):
            return True
        msg = (
            f"the target journal {str(target)!r} exists with different content "
            "(it may already have been resumed there); refusing to replace it"
        )
        raise RelocationConflict(msg)
    os.rename(output, target)
    dir_fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return False
