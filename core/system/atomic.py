"""One way to replace a file at once: `atomic_write`.

Standard library only, and the function is written so that it can be copied: the detached
runner (`wftop.core.resume.runner`) runs by file path with ``python -I`` and imports nothing
of wftop, so it keeps a copy of `atomic_write`, held equal to this one by
``tests/core/test_atomic.py``. Journals copied into another session are not written with it:
`wftop.core.resume.relocate` streams a copy and never replaces a file that exists.
"""

from __future__ import annotations

import contextlib
import os


def atomic_write(path: str | os.PathLike[str], data: bytes, *, sync: bool = True) -> None:
    """Replace the file at ``path`` with ``data`` at once: a reader finds the old file or
    the new one, never a part. ``data`` goes to a new file beside it (mode 0600, never
    through a link), is flushed to disk unless ``sync`` is false (a cache that a crash
    may lose), then renamed over ``path``. On failure the old file is left as it was, the
    temporary one removed, and the `OSError` raised."""
    folder, name = os.path.split(os.fspath(path))
    temp = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
    fd = os.open(temp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
