"""Memory a process let go of, given back to the system, where the platform can.

A process that read every run builds and drops a fold per run: the allocator keeps most of
what was freed for later, so an engine that has read 20,000 runs stays hundreds of megabytes
large while it holds a fraction of that. glibc (Linux) gives its free pages back on
``malloc_trim(0)``; other C libraries (macOS's, musl's) have no such call, and there the
fallback does nothing (the memory is reused by the process, not returned). `ctypes` is
imported when the platform's way is first looked up, not with this module (the TUI imports
it at its start, and gives memory back in a thread once its rows are filled in).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache

Trim = Callable[[], bool]
"""Give freed memory back; True when something could be asked of the allocator."""


def no_trim() -> bool:
    """The portable fallback: nothing to ask, nothing done."""
    return False


def _glibc_trim() -> Trim | None:
    """glibc's ``malloc_trim``, or None where this process's C library has none: looked up
    among the symbols the process has loaded (its C library's among them), where
    ``ctypes.util.find_library`` ran ``ldconfig`` in a process of its own."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int

    def give_back() -> bool:
        trim(0)
        return True

    return give_back


def trimmer(platform: str | None = None) -> Trim:
    """How this platform gives freed memory back: glibc's ``malloc_trim(0)`` on Linux, where
    the C library has it; `no_trim` elsewhere."""
    platform = sys.platform if platform is None else platform
    if platform.startswith("linux"):
        found = _glibc_trim()
        if found is not None:
            return found
    return no_trim


@cache
def _this_platforms() -> Trim:
    return trimmer()


def give_back_memory(trim: Trim | None = None) -> bool:
    """Give what the allocator keeps free back to the system (``trim``: the platform's,
    `trimmer`, looked up once, unless given); True when the allocator was asked."""
    return (trim or _this_platforms())()
