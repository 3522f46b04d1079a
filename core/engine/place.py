"""Where a shared engine lives: its socket, lock and log in the state dir, named by what it
serves.

Views share an engine only when it serves exactly what they would ask of their own: the
same roots in the same order, the same stall window, the rows cache used or not, and the
same protocol and wftop version. All of that makes one key, and the key names the files:
``<state dir>/engine/<key>.sock`` (the socket), ``.lock`` (held while a view starts an
engine, so two views starting at once start one) and ``.log`` (the engine's stderr).
`place_for` returns None where a socket cannot be used (no AF_UNIX, or a state dir so deep
the path passes the platform's limit): the view then runs an engine of its own over pipes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import orjson

from wftop.core.compared import compared
from wftop.core.engine.version import PROTOCOL
from wftop.core.system.platforms import can_share_engine
from wftop.core.system.statedir import ensure_private_dir, state_dir
from wftop.core.version import package_version


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Place:
    """The files of one shared engine."""

    socket: str
    lock: str
    log: str

    def prepare(self) -> None:
        """Make the engine folder (private) before an engine is started there."""
        ensure_private_dir(Path(self.socket).parent)


def engine_key(roots: list[str], stall_window: float, *, cache: bool) -> str:
    """What an engine serves, as a short digest (which engine a view may share)."""
    what = [PROTOCOL, package_version(), roots, stall_window, cache]
    return hashlib.sha256(orjson.dumps(what)).hexdigest()[:16]


def _stem(roots: list[str], stall_window: float, cache: bool, state: Path | None) -> Path:
    folder = (state if state is not None else state_dir()) / "engine"
    return folder / engine_key(roots, stall_window, cache=cache)


def log_for(
    roots: list[str], stall_window: float, *, cache: bool, state: Path | None = None
) -> str:
    """The log of the engine that serves these (a view's own engine over pipes too)."""
    return f"{_stem(roots, stall_window, cache, state)}.log"


def place_for(
    roots: list[str], stall_window: float, *, cache: bool, state: Path | None = None
) -> Place | None:
    """The files of the engine that serves these, or None where views cannot share one."""
    stem = _stem(roots, stall_window, cache, state)
    socket = f"{stem}.sock"
    if not can_share_engine(socket):
        return None
    return Place(socket, f"{stem}.lock", f"{stem}.log")
