"""The shared engine started as early as a view can start it: before the view imports the
engine's stream, its rows or anything else of its own (`start_early`), so that the
engine's start (its interpreter, imports, rows cache and walk) overlaps the view's on a
second CPU. Nothing here imports more than where the engine lives (`wftop.core.engine.place`)
and how it is started: `engine_argv`, the environment that chooses it (`ENGINE_ENV`,
`LINGER_ENV`), `spawn`. The view's connector then takes the engine started here
(`wftop.core.engine.shared.SocketConnector`, `Early`) and waits for it to listen.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from wftop.core.compared import record
from wftop.core.engine.place import Place, place_for

ENGINE_ENV = "WFTOP_ENGINE"
"""``pipe``: every view runs its own engine, even where one could be shared."""
LINGER_ENV = "WFTOP_ENGINE_LINGER"
"""Seconds a shared engine started by this view stays once no view listens (tests shorten
it); the engine's own default otherwise."""


@record
class Early:
    """A shared engine started early: its process, and the lock held (its fd) while it
    comes up, so that no other view starts another meanwhile."""

    process: subprocess.Popen[bytes]
    lock: int


def engine_argv(
    place: Place | None,
    roots: Sequence[str],
    stall_window: float,
    cache: bool,
    log: str | None = None,
) -> list[str]:
    """How an engine for these is started (over stdio pipes when ``place`` is None)."""
    argv = [sys.executable, "-m", "wftop.core.engine"]
    argv += ["--stdio"] if place is None else ["--socket", place.socket]
    log = place.log if place is not None else log
    if log is not None:
        argv += ["--log", log]
    for root in roots:
        argv += ["--root", root]
    argv += ["--stall-window", repr(stall_window)]
    if not cache:
        argv.append("--no-cache")
    return argv


def shared_argv(
    place: Place, roots: Sequence[str], stall_window: float, cache: bool, linger: float | None
) -> list[str]:
    """How the shared engine at ``place`` is started (``linger``: None, its own default)."""
    argv = engine_argv(place, roots, stall_window, cache)
    return argv + ([] if linger is None else ["--linger", repr(linger)])


def linger_of(linger: float | None) -> float | None:
    """``linger`` if given, else `LINGER_ENV`'s (None: the engine's default)."""
    if linger is None and os.environ.get(LINGER_ENV):
        return float(os.environ[LINGER_ENV])
    return linger


def spawn(place: Place, argv: list[str]) -> subprocess.Popen[bytes]:
    """Start the shared engine, in a session of its own (it outlives this view); its
    stderr is its log, its stdout says when it listens (`OSError`: it could not start)."""
    log = os.open(place.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        return subprocess.Popen(  # noqa: S603 - an argv list of this interpreter
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            start_new_session=True,
        )
    finally:
        os.close(log)


def start_early(place: Place, argv: list[str]) -> Early | None:
    """Start the engine at ``place`` now, where none answers and no view is starting one,
    without waiting for it to listen (synchronous, no event loop). None: one answers
    (whichever version), another view is starting one, or none could be started: the
    view's connector sorts that out when it connects."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(place.socket)
    except OSError:
        pass
    else:
        return None
    finally:
        probe.close()
    try:
        place.prepare()
        lock = os.open(place.lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # another view is starting it
        os.close(lock)
        return None
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(place.socket)  # left by an engine that was killed
        return Early(spawn(place, argv), lock)
    except OSError:
        os.close(lock)
        return None


def started_early(
    roots: list[str],
    stall_window: float,
    *,
    cache: bool = True,
    state: Path | None = None,
    linger: float | None = None,
) -> Early | None:
    """The shared engine for these, started now (`start_early`) where views share one."""
    if os.environ.get(ENGINE_ENV) == "pipe":
        return None
    place = place_for(roots, stall_window, cache=cache, state=state)
    if place is None:
        return None
    return start_early(place, shared_argv(place, roots, stall_window, cache, linger_of(linger)))
