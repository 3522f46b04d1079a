"""What a connection to an engine is, whatever carries it: a `Channel` (read line by line,
then asked why it ended), a `Connector` that makes one, the hello that must begin every
stream (`check_hello`), how an engine process ended in words (`describe_exit`), and the
errors a view is told in one line.

The two connectors are `wftop.core.engine.pipes` (an engine of the view's own) and
`wftop.core.engine.shared` (one engine per user, over a socket);
`wftop.core.engine.link.EngineLink` reads whichever it is given.
"""

from __future__ import annotations

import signal
from typing import Protocol

from wftop.core.engine import protocol as wire
from wftop.core.version import package_version


class EngineError(Exception):
    """No engine could be reached or started; the message says why, in one line."""


class Foreign(EngineError):
    """What answers at the socket is no engine of this wftop version."""


class Channel(Protocol):
    """One connection to an engine."""

    shared: bool

    async def readline(self) -> bytes: ...

    async def ended(self, pid: int | None) -> str:
        """Why the stream ended (after it did), in words; closes what is left."""

    async def close(self) -> None: ...


class Connector(Protocol):
    async def connect(self) -> Channel: ...


def describe_exit(code: int | None, pid: int | None) -> str:
    """How an engine process ended, for a person."""
    who = f"the engine (pid {pid})" if pid else "the engine"
    if code is None:
        return f"{who} closed its stream"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"{who} was killed ({name})"
    return f"{who} exited with {code}"


def check_hello(line: bytes) -> wire.Hello:
    """The hello an engine's stream begins with, if it is this wftop's and protocol's
    (`EngineError` says why not; `Foreign` when it is another version's)."""
    try:
        message = wire.decode(line)
    except wire.ProtocolError as error:
        raise Foreign(f"the engine's stream broke: {error}") from None
    if not isinstance(message, wire.Hello):
        raise Foreign("the engine did not say hello first")
    if (message.protocol, message.wftop) != (wire.PROTOCOL, package_version()):
        raise Foreign(
            f"the engine speaks wftop {message.wftop}, protocol {message.protocol}"
            f" (this is {package_version()}, protocol {wire.PROTOCOL})"
        )
    return message
