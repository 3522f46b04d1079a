"""The end-of-run snapshot ``<session>/workflows/<runId>.json``.

Claude Code writes it only when a run ends (completed, failed or killed), and each
resume overwrites it. After a crash it is absent, or it is older than the journal.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from wftop.core.read.deepjson import dumps, parse_deep, writable
from wftop.core.read.isotime import parse_iso_time as parse_iso_time  # where it was
from wftop.core.read.jsonl import Problem
from wftop.core.read.jsonline import SHALLOW_BYTES, UnreadableLine, parse_line, parse_shallow

MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024

SKIPPED: Final = "\x00skipped"
"""`Snapshot.row_errors`' value for a row the user skipped that gives no error text."""


@dataclass(frozen=True)
class AgentRow:
    """One ``workflow_agent`` row of the snapshot's ``workflowProgress``."""

    index: int
    label: str
    agent_id: str
    state: str
    """``start``, ``progress``, ``done`` or ``error``."""
    phase: str | None = None
    cached: bool = False
    tokens: int | None = None
    tool_calls: int | None = None
    duration_ms: int | None = None
    error: str | None = None
    prompt_preview: str | None = None
    result_preview: str | None = None
    attempt: int | None = None


@dataclass(frozen=True)
class Snapshot:
    """A parsed snapshot. Only what a run list needs is taken out up front; the other
    fields are read from ``data`` on first use (a run list never asks for most), which is
    kept as compact JSON until then."""

    path: str
    status: str | None
    """``completed``, ``failed`` or ``killed``."""
    name: str | None = None
    script_path: str | None = None
    packed: bytes = field(default=b"{}", repr=False, compare=False)
    """The snapshot object as compact JSON, its `BULKY_FIELDS` and ``workflowProgress`` left
    out: parsed, it would hold several times its size for every run of a list, which reads
    only the fields taken out up front (these and the four below)."""
    timestamp: float | None = field(default=None, compare=False)
    """Epoch seconds when the snapshot was written."""
    agent_id_set: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    """The agents of its ``workflow_agent`` rows."""
    errored: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    """The agents whose row says ``error``."""
    cached: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    """The agents whose row says ``cached`` (served from the journal by the resume that wrote
    the snapshot)."""
    row_errors: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    """Agent id → the ``error`` of its row, for the rows that say ``error`` or were
    ``skipped`` (`SKIPPED` when the row gives no text): the few a run list keeps."""
    agent_rows: int = field(default=0, compare=False)
    """How many ``workflow_agent`` items ``workflowProgress`` held when it was read: the
    items themselves are read from the file again when a view asks (`raw_rows`)."""

    @cached_property
    def data(self) -> dict[str, Any]:
        """The snapshot object as read (without its `BULKY_FIELDS`), parsed on first use."""
        data: dict[str, Any] = parse_line(self.packed)
        return data

    @cached_property
    def summary(self) -> str | None:
        return _str(self.data.get("summary"))

    @property
    def has_args(self) -> bool:
        return "args" in self.data

    @property
    def args(self) -> Any:
        return self.data.get("args")

    @cached_property
    def phases(self) -> tuple[str, ...]:
        phases = self.data.get("phases")
        return tuple(
            str(phase.get("title"))
            for phase in (phases if isinstance(phases, list) else [])
            if isinstance(phase, dict) and phase.get("title")
        )

    @property
    def agent_count(self) -> int | None:
        return _int(self.data.get("agentCount"))

    @property
    def duration_ms(self) -> int | None:
        return _int(self.data.get("durationMs"))

    @cached_property
    def logs(self) -> tuple[str, ...]:
        logs = self.data.get("logs")
        return tuple(str(line) for line in logs) if isinstance(logs, list) else ()

    @property
    def error(self) -> str | None:
        return _str(self.data.get("error"))

    @cached_property
    def raw_rows(self) -> tuple[dict[str, Any], ...]:
        """The ``workflow_agent`` items; `rows` turns them into `AgentRow`s.

        A run list needs only their agent ids and states, taken out when the file was read
        (`agent_id_set`, `errored`): the items, most of a snapshot's size, are not held but
        read from the file again here, by the view that asks (in a worker: a run screen's
        rows, a resume plan). A snapshot is written when its run ends; a resume that ends
        writes it again, and then these are the newer rows (the index hands out a new run
        for that change soon after). If it is gone or no longer reads, there are no rows.
        """
        if "workflowProgress" in self.data:  # made from an object, not read from a file
            return agent_items(self.data)
        if not self.agent_rows:
            return ()
        data, _problem, _info = _read_object(self.path)
        return agent_items(data) if data is not None else ()

    @property
    def rows_held(self) -> bool:
        """`raw_rows` are in memory: asking for them does not read the file."""
        return (
            not self.agent_rows
            or "raw_rows" in self.__dict__
            or "workflowProgress" in (self.__dict__.get("data") or ())
        )

    @cached_property
    def rows(self) -> tuple[AgentRow, ...]:
        return tuple(_agent_row(item, number) for number, item in enumerate(self.raw_rows, 1))

    def agent_ids(self) -> set[str]:
        return set(self.agent_id_set)

    def errored_agent_ids(self) -> set[str]:
        """Agents whose row says ``error``."""
        return set(self.errored)


def agent_items(data: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """The ``workflow_agent`` items of a snapshot object's ``workflowProgress``."""
    progress = data.get("workflowProgress")
    return tuple(
        item
        for item in (progress if type(progress) is list else ())
        if type(item) is dict and item.get("type") == "workflow_agent"
    )


def read_snapshot(path: str) -> tuple[Snapshot | None, Problem | None]:
    """Read a snapshot; (None, None) when it does not exist."""
    snapshot, problem, _info = read_snapshot_with_stat(path)
    return snapshot, problem


def read_snapshot_with_stat(
    path: str, *, packed: bool = True
) -> tuple[Snapshot | None, Problem | None, os.stat_result | None]:
    """`read_snapshot`, plus the status of the file that was read (None if none was).
    ``packed`` False: its object is kept as parsed (`Snapshot.data` at once, `Snapshot.packed`
    empty), for a snapshot read for a row and let go of with it: packing it cost a list
    an ``orjson.dumps`` of every snapshot, and the failures of a run parsed it again."""
    raw, problem, info = _read_bytes(path)
    if raw is None:
        return None, problem, info
    data, problem = _object_of(path, raw, parse_shallow)
    if data is None:
        return None, problem, info
    return _snapshot_from(path, data, packed, raw), None, info


def _read_object(
    path: str,
) -> tuple[dict[str, Any] | None, Problem | None, os.stat_result | None]:
    """The snapshot file's object, or why there is none (no problem: there is no file)."""
    raw, problem, info = _read_bytes(path)
    if raw is None:
        return None, problem, info
    data, problem = _object_of(path, raw, parse_line)
    return data, problem, info


def _read_bytes(path: str) -> tuple[bytes | None, Problem | None, os.stat_result | None]:
    """The snapshot file's bytes, or why there are none (no problem: there is no file)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None, None, None
    except OSError as error:
        return None, Problem(path, 0, error.strerror or str(error)), None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            problem = Problem(path, 0, "not a regular file, expected a JSON snapshot")
            return None, problem, info
        if info.st_size > MAX_SNAPSHOT_BYTES:
            problem = Problem(path, 0, f"snapshot of {info.st_size} bytes is too large to read")
            return None, problem, info
        raw = _read_fd(fd, info.st_size)
    except OSError as error:
        return None, Problem(path, 0, error.strerror or str(error)), None
    finally:
        os.close(fd)
    return raw, None, info


def _object_of(
    path: str, raw: bytes, parse: Callable[[bytes], Any]
) -> tuple[dict[str, Any] | None, Problem | None]:
    """The object a snapshot's bytes hold (read by ``parse``), or why there is none."""
    try:
        data = parse(raw)
    except UnreadableLine:
        return None, Problem(path, 1, "not valid JSON, expected a workflow snapshot object")
    if not isinstance(data, dict):
        return None, Problem(path, 1, "expected a JSON object")
    return data, None


def _read_fd(fd: int, size: int) -> bytes:
    """The whole regular file behind ``fd`` (it may have grown since it was stat'ed)."""
    parts: list[bytes] = []
    while True:
        wanted = max(size, 64 * 1024) + 1
        block = os.read(fd, wanted)
        parts.append(block)
        if len(block) < wanted:
            return b"".join(parts)


def _str(value: object) -> str | None:
    return value if type(value) is str else None


def _int(value: object) -> int | None:
    return value if type(value) is int else None


def _agent_row(item: dict[str, Any], position: int) -> AgentRow:
    get = item.get
    agent_id = get("agentId")
    agent_id = agent_id if type(agent_id) is str else ""
    label = get("label")
    state = get("state")
    return AgentRow(
        _int(get("index")) or position,
        label if type(label) is str and label else agent_id,
        agent_id,
        state if type(state) is str else "",
        _str(get("phaseTitle")),
        get("cached") is True,
        _int(get("tokens")),
        _int(get("toolCalls")),
        _int(get("durationMs")),
        _str(get("error")),
        _str(get("promptPreview")),
        _str(get("resultPreview")),
        _int(get("attempt")),
    )


BULKY_FIELDS = ("script", "result")
"""Fields of a snapshot that can be megabytes and that no view reads from it (the script
is on disk, the result in the journal): dropped so an index's memory does not follow them."""


def _snapshot_from(
    path: str, data: dict[str, Any], packed: bool = True, raw: bytes | None = None
) -> Snapshot:
    """The `Snapshot` of the object ``data`` (``raw``: the bytes it was read from by
    `parse_shallow`, none of it held as `parse_line` holds it yet: what it keeps is held
    here, once its bulky fields and rows are out)."""
    for bulky in BULKY_FIELDS:
        data.pop(bulky, None)
    progress = data.pop("workflowProgress", None)  # read again when a view asks (`raw_rows`)
    if raw is not None:
        data = _held_rest(raw, data)
    agents: list[str] = []
    errored: list[str] = []
    cached: list[str] = []
    row_errors: dict[str, str] = {}
    rows = 0
    for item in progress if type(progress) is list else ():  # `agent_items`, in one pass
        if type(item) is not dict or item.get("type") != "workflow_agent":
            continue
        rows += 1
        agent = item.get("agentId")
        if type(agent) is str and agent:
            agents.append(agent)
            if item.get("cached") is True:
                cached.append(agent)
            state = item.get("state")
            if state == "error":
                errored.append(agent)
            if state == "error" or item.get("skipped") is True:
                text = item.get("error")
                skipped = item.get("skipped") is True and not (type(text) is str and text)
                row_errors[agent] = SKIPPED if skipped else (text if type(text) is str else "")
    get = data.get
    snapshot = _blank(Snapshot)  # its fields set in its dict, not by a `__setattr__` each
    values = snapshot.__dict__  # a key at a time, in order: it stays a dict of shared keys
    values["path"] = path
    values["status"] = _str(get("status"))
    values["name"] = _str(get("workflowName"))
    values["script_path"] = _str(get("scriptPath"))
    values["packed"] = bytes(memoryview(dumps(data))) if packed else b"{}"  # orjson leaves room
    values["timestamp"] = parse_iso_time(get("timestamp"))
    values["agent_id_set"] = frozenset(agents) if agents else _NONE
    values["errored"] = frozenset(errored) if errored else _NONE
    values["cached"] = frozenset(cached) if cached else _NONE
    values["row_errors"] = row_errors
    values["agent_rows"] = rows
    if not packed:
        values["data"] = data  # what `Snapshot.data` would have parsed
    return snapshot


def _held_rest(raw: bytes, data: dict[str, Any]) -> dict[str, Any]:
    """What a snapshot keeps of its object (``data``, its `BULKY_FIELDS` and rows out), as
    `parse_line` would have held it (`wftop.core.read.deepjson.held`): itself where it nests
    no deeper than orjson writes, else the file's bytes read again at any depth, less the
    same fields. Only what is kept is searched for a depth orjson cannot write (the script
    and the rows, most of a snapshot's bytes, were written whole again for it: a tenth of
    reading a snapshot); the rows' fields a snapshot takes out lie three levels down, where
    the two reads agree."""
    if len(raw) <= SHALLOW_BYTES or writable(data):
        return data
    # Nested too deep, as orjson read it (what `parse_lenient` read is held already): the
    # bytes are UTF-8, and read again at any depth.
    again = parse_deep(raw.decode())
    for name in (*BULKY_FIELDS, "workflowProgress"):
        again.pop(name, None)
    return again  # type: ignore[no-any-return]


_NONE: frozenset[str] = frozenset()
"""The one empty set of agents of every snapshot read (most say none errored and none was
cached): an empty frozenset is 216 bytes, and a list holds a snapshot for each ended run."""

_blank = object.__new__
"""A frozen dataclass's instance with no field set yet: `_snapshot_from` sets each field of
a `Snapshot` in its ``__dict__``, where the generated ``__init__`` makes an
``object.__setattr__`` call for each of its 11 fields (a third of the work of making one of
a parsed snapshot, which a list does for every ended run)."""


def snapshot_is_current(
    snapshot: Snapshot, journal_mtime: float | None, last_agent_id: str | None
) -> bool:
    """Whether the snapshot describes the journal's latest run.

    The agent of the journal's last line must be one of the snapshot's rows: a run
    resumed after the snapshot was written appends agents the snapshot never saw.
    This survives copies that reset file times. Only a snapshot without rows falls
    back to comparing its timestamp with the journal's modification time.
    """
    if last_agent_id is None:
        return True
    ids = snapshot.agent_id_set
    if ids:
        return last_agent_id in ids
    if snapshot.timestamp is not None and journal_mtime is not None:
        return snapshot.timestamp >= journal_mtime
    return False
