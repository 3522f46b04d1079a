"""One question to a running shared engine, without starting one: ``wftop status``'s counts.

`running_counts` looks for the socket of an engine serving the roots (with the rows cache
or without: both serve the same runs), asks it for the runs per shown status, and returns
them, or None when no engine of this wftop version answers with every run read (then the
caller reads the runs itself). It never starts an engine and never waits long: a status
bar calls it every few seconds.
"""

from __future__ import annotations

import contextlib
import os
import socket

from wftop.core.engine import protocol as wire
from wftop.core.engine.place import place_for
from wftop.core.version import package_version

ASK_TIMEOUT = 2.0
"""Longest wait for an engine's answer (seconds)."""


def running_counts(roots: list[str], stall_window: float) -> wire.Counts | None:
    """Runs per shown status, and those that may need a person, from the engine serving
    ``roots``, if one runs and has read them all; None otherwise."""
    for cache in (True, False):
        place = place_for(roots, stall_window, cache=cache)
        if place is None or not os.path.exists(place.socket):
            continue
        counts = ask_counts(place.socket)
        if counts is not None:
            return counts
    return None


def ask_counts(path: str, timeout: float = ASK_TIMEOUT) -> wire.Counts | None:
    """The counts the engine at ``path`` answers with (None: no such answer)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(timeout)
            connection.connect(path)
            connection.sendall(wire.ask_line("status", package_version()))
            data = _read_all(connection)
    except OSError:
        return None
    hello: wire.Message | None = None
    for line in data.splitlines():
        try:
            message = wire.decode(line)
        except wire.ProtocolError:
            return None
        if hello is None:
            hello = message
            if not isinstance(hello, wire.Hello) or (hello.protocol, hello.wftop) != (
                wire.PROTOCOL,
                package_version(),
            ):
                return None
        elif isinstance(message, wire.Counts):
            return message if message.complete else None
    return None


def _read_all(connection: socket.socket) -> bytes:
    parts = []
    with contextlib.suppress(TimeoutError):
        while block := connection.recv(1 << 16):
            parts.append(block)
    return b"".join(parts)
