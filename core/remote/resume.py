"""A resume on another host: ``wftop resume`` run there over SSH, its events read here.

The host plans, guards and launches, where the run's files, processes and CLI are; this
side only reads the JSON events that ``wftop resume --yes --json`` prints (one per line:
``state``, ``cache_miss``, ``refused``, ``error``, ``done``), read as journals are
(`wftop.core.remote.lines`: any depth); a line that is no JSON (a banner, a warning) is told
as an ``unreadable`` event naming the host and the line. The CLI it starts runs there
under wftop's detached runner (`wftop.core.resume.runner`, a session of its own), so it goes
on when the SSH connection drops or this wftop quits; only the reading of its events stops.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from wftop.core.model import Run
from wftop.core.remote.lines import HostLineError, host_line
from wftop.core.remote.transport import Unreachable, classify_exit
from wftop.core.system.procs import end_child


def resume_args(run: Run, *mode: str) -> list[str]:
    """``wftop resume`` on the host for this run, with ``mode`` (``--dry-run``, ``--yes``)
    and JSON output. Every value is given as ``--name=value`` or after ``--``: nothing the
    host sent reads as an option."""
    folder = run.folder
    return [
        "resume",
        f"--session={folder.session_id}",
        f"--root={folder.root}",
        "--no-default-root",
        *mode,
        "--json",
        "--",
        folder.run_id,
    ]


def event_text(event: dict[str, Any]) -> str:
    """One event of a resume, in the words the local plan uses."""
    kind = event.get("event")
    if kind == "state":
        reason = event.get("reason")
        state = str(event.get("state", "?")).replace("_", " ")
        return f"{state}: {reason}" if reason else state
    if kind == "cache_miss":
        return f"cache miss: {event.get('label')} runs again"
    if kind == "refused":
        return f"refused: {event.get('guard')}"
    if kind in ("error", "unreadable"):
        return f"{kind}: {event.get('reason')}"
    if kind == "done":
        state = str(event.get("state", "?")).replace("_", " ")
        return (
            f"{state} · live: {words(event.get('live'))} · from cache: {words(event.get('cached'))}"
        )
    return str(kind or "?")


def words(items: Any) -> str:
    return ", ".join(str(item) for item in items) if isinstance(items, list) and items else "-"


@dataclass
class Ended:
    """How the reading of a remote resume ended."""

    last: dict[str, Any] | None
    """The last event the host sent (its outcome, when it ran to the end)."""
    failure: Unreachable | None
    """Why the connection ended early (None: wftop there exited 0)."""


class RemoteResume:
    """``wftop resume RUN --yes --json`` on a host, read as it goes."""

    def __init__(self, argv: Sequence[str], host: str = "the host") -> None:
        self.argv = list(argv)
        self.host = host
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.ended: Ended | None = None

    def events(self) -> Iterator[dict[str, Any]]:
        """Each event as the host prints it; `ended` says how it stopped."""
        process = subprocess.Popen(  # noqa: S603 - an argv list; the host name was checked
            self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        with self._lock:
            self._process = process
            if self._closed:
                end_child(process)
        stderr: deque[str] = deque(maxlen=20)
        drain = threading.Thread(target=drain_into, args=(process.stderr, stderr), daemon=True)
        drain.start()
        last: dict[str, Any] | None = None
        assert process.stdout is not None
        for number, line in enumerate(process.stdout, 1):
            try:
                event = host_line(self.host, number, line)
            except HostLineError as error:  # not an event (a warning printed there): told
                yield {"event": "unreadable", "reason": str(error)}
                continue
            if isinstance(event, dict):
                last = event
                yield event
        process.wait()
        drain.join(timeout=2.0)
        code = process.returncode
        failure = None if code == 0 else classify_exit(code, "".join(stderr))
        self.ended = Ended(last, failure)

    def close(self) -> None:
        """Stop reading (the resume on the host goes on)."""
        with self._lock:
            self._closed = True
            process = self._process
        if process is not None:
            end_child(process)


def drain_into(stream: IO[bytes] | None, into: deque[str]) -> None:
    """Read a child's stream to its end, keeping its last lines (its stderr: why it ended)."""
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError):
        for raw in stream:
            into.append(raw.decode("utf-8", "replace"))
