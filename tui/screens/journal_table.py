"""The journal as a table: line, time, event, label, phase, agent, attempt, key, and what the
line says (a result's preview, a failure's kind and why).

A row is drawn from its own line (`wftop.tui.screens.journal.verdict_of`: the reader's rules,
so an unreadable line reads ``✗ unreadable`` and why, as in the raw view) and from what the
run knows of its call (`JournalFacts`: the call's label and phase for a ``result`` line that
names none, the attempt, the failure). The journal keeps no time: a ``started`` line reads the
time of its agent transcript's first record, a ``result`` or ``failed`` line its last
(`transcript_span`, read in the view's thread, once per agent). Columns leave from the right
as the pane narrows: the key, the agent and the phase go first; the line, the event, the
label and the preview stay.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson
from rich.text import Text

from wftop.core.calls import State, open_state
from wftop.core.model import Run
from wftop.core.read.agent_transcript import transcript_path
from wftop.core.read.errors import ErrorEvent, cause_words, classify_event
from wftop.core.read.failures import Failure, last_api_error
from wftop.core.read.journal import Call
from wftop.core.read.lineindex import Line
from wftop.core.read.lineverdict import ELIDED_BYTES
from wftop.core.read.spans import transcript_span
from wftop.core.text.gate import gate
from wftop.core.text.redact import Redactor
from wftop.tui.format import one_line, size
from wftop.tui.styles import Palette

T = TypeVar("T")

PREVIEW_SCAN = 4096
"""Characters of a result masked and flattened for its preview."""


@dataclass(frozen=True)
class Column:
    name: str
    width: int


NARROW = (Column("LINE", 5), Column("TIME", 8), Column("EVENT", 8), Column("LABEL", 8),
          Column("#", 2))  # fmt: skip
"""The columns a 60-column pane keeps; the preview takes what is left."""
WIDE = (Column("LINE", 5), Column("TIME", 8), Column("EVENT", 8), Column("LABEL", 10),
        Column("PHASE", 8), Column("AGENT", 9), Column("#", 2), Column("KEY", 8))  # fmt: skip
WIDEST = (Column("LINE", 6), Column("TIME", 12), Column("EVENT", 8), Column("LABEL", 16),
          Column("PHASE", 12), Column("AGENT", 17), Column("#", 2), Column("KEY", 12))  # fmt: skip
PREVIEW_MIN = 24
"""Cells the preview keeps at the least (at 200 columns, 60: the widest columns come then)."""
EDGES = 4
"""Cells of the pane's padding and scrollbar."""


def columns_for(width: int) -> tuple[Column, ...]:
    """The columns of a pane ``width`` cells wide (the preview after them)."""
    for columns, preview_cells in ((WIDEST, PREVIEW_MIN * 2 + 12), (WIDE, PREVIEW_MIN)):
        if sum(c.width + 1 for c in columns) + preview_cells + EDGES <= width:
            return columns
    return NARROW


@dataclass
class JournalFacts:
    """What the run knows of each call, for the rows: read once, shared by the row threads."""

    folder: str
    calls: dict[str, Call]
    failures: dict[str, Failure]
    open_words: str = "no result yet"
    """What an open call's latest ``started`` line says: the run may go on, or it is dead."""
    spans: dict[str, tuple[float, float] | None] = field(default_factory=dict)
    errors: dict[str, ErrorEvent | None] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def of(cls, run: Run) -> JournalFacts:
        running = open_state(run) is State.RUNNING
        return cls(
            run.folder.path,
            dict(run.fold.calls),
            {failure.key: failure for failure in run.failures},
            "no result yet" if running else "no result: dead with its run",
        )

    def span(self, agent: str) -> tuple[float, float] | None:
        """The first and last moment of an agent's transcript (read once)."""
        return self._read_once(self.spans, agent, transcript_span)

    def error(self, agent: str) -> ErrorEvent | None:
        """The API error an attempt's transcript ends on (read once): an attempt that ended
        so failed, with or without a ``failed`` line (the CLI writes none for a 429)."""
        return self._read_once(self.errors, agent, last_api_error)

    def _read_once(
        self, kept: dict[str, T | None], agent: str, read: Callable[[str], T | None]
    ) -> T | None:
        """What ``read`` says of an agent's transcript, read once by whichever row thread
        asks first."""
        with self.lock:
            if agent in kept:
                return kept[agent]
        path = transcript_path(self.folder, agent)
        found = read(path) if path is not None else None
        with self.lock:
            kept[agent] = found
        return found


def error_words(kind: str, evidence: str | None) -> str:
    """``rate limited · API Error: Request rejected (429)``: a failure's kind, then why."""
    why = (evidence or "").split(": ", 1)[-1]
    return one_line(f"{cause_words(kind)} · {why}")


def failure_words(
    facts: JournalFacts, call: Call | None, key: object, agent: str, attempt: int | None
) -> str | None:
    """Why an attempt failed: the run's failure of its call when it is the call's latest
    attempt (the call's one state, as every surface gives it), else what its own transcript
    ends on; None when that does not say."""
    if call is None or attempt is None or attempt == call.attempts:
        failure = facts.failures.get(key) if isinstance(key, str) else None
        return error_words(failure.kind, failure.evidence) if failure is not None else None
    event = facts.error(agent) if agent else None
    if event is not None:
        return error_words(classify_event(event)[0].value, event.evidence)
    return None


def clock(moment: float | None, width: int) -> str:
    """``09:58:20`` (``09:58:20.493`` in a wide column), in UTC as the CLI writes."""
    if moment is None:
        return ""
    text = datetime.fromtimestamp(moment, UTC).strftime("%H:%M:%S.%f")
    return text[:12] if width >= 12 else text[:8]


def short_key(key: object, width: int) -> str:
    """A cache key's first hex digits (``v2:34eb13c6…`` reads ``34eb13c6``)."""
    text = key if isinstance(key, str) else ""
    return text.split(":", 1)[-1][:width]


def preview(value: object) -> str:
    """One line of a result (an object or array as its compact JSON)."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = orjson.dumps(value, default=repr).decode()
        except TypeError:
            text = repr(value)
    return one_line(text[:PREVIEW_SCAN])


def text_field(record: dict[str, Any], name: str) -> str:
    """A field of a record when it is a string; ``""`` otherwise."""
    value = record.get(name)
    return value if isinstance(value, str) else ""


def attempt_of(call: Call | None, record: dict[str, Any], number: int) -> int | None:
    """Which attempt of its call a line speaks of (1-based): a ``started`` line by its line
    number, a ``result`` or ``failed`` line by its agent."""
    if call is None:
        return None
    if record.get("type") == "started" and number in call.attempt_lines:
        return call.attempt_lines.index(number) + 1
    agent = record.get("agentId")
    if isinstance(agent, str) and agent in call.agent_ids:
        return call.agent_ids.index(agent) + 1
    return None


def cells_of(
    record: dict[str, Any], number: int, facts: JournalFacts, columns: tuple[Column, ...]
) -> tuple[dict[str, str], str, str]:
    """The cells of a record's row (by column name), its preview and the preview's style."""
    kind = record.get("type")
    key = record.get("key")
    call = facts.calls.get(key) if isinstance(key, str) else None
    agent = text_field(record, "agentId")
    label = text_field(record, "label") or (call.label if call is not None else "")
    phase = text_field(record, "phase") or (call.phase or "" if call is not None else "")
    moment = None
    span = facts.span(agent) if agent and kind in ("started", "result", "failed") else None
    if span is not None:
        moment = span[0] if kind == "started" else span[1]
    attempt = attempt_of(call, record, number)
    widths = {column.name: column.width for column in columns}
    time_width = widths.get("TIME", 8)
    cells = {
        "TIME": clock(moment, time_width),
        "EVENT": str(kind) if kind is not None else "?",
        "LABEL": label,
        "PHASE": phase,
        "AGENT": agent,
        "#": str(attempt) if attempt is not None else "",
        "KEY": short_key(key, widths.get("KEY", 8)),
    }
    said, style = "", ""
    if kind == "result":
        said = preview(record.get("result"))
    elif kind == "failed":
        said = failure_words(facts, call, key, agent, attempt) or "failed (no error recorded)"
        style = "error"
    elif kind == "started" and call is not None and attempt is not None:
        said, style = started_words(facts, call, key, agent, attempt)
    elif kind not in ("started", "result", "failed", None):
        extra = {name: value for name, value in record.items() if name != "type"}
        said = one_line(orjson.dumps(extra, default=repr).decode()) if extra else ""
    return cells, said, style


def started_words(
    facts: JournalFacts, call: Call, key: object, agent: str, attempt: int
) -> tuple[str, str]:
    """What became of a ``started`` attempt that has no result: the API error it ended on
    (the CLI writes no ``failed`` line for one), started again, still open, or dead with its
    run; nothing when it returned or its own ``failed`` line says."""
    if agent in call.returned_agent_ids:
        return "", ""
    latest = attempt == call.attempts
    if latest and call.failed:
        return "", ""  # its failed line says why
    if not latest and call.failures_seen:
        return "", ""  # a failed line of its call says why (the CLI started it again)
    failed = failure_words(facts, call, key, agent, attempt)
    if failed is not None:
        return failed, "error"
    if latest:
        return (facts.open_words, "warning") if not call.has_result else ("", "")
    return f"no result: started again (attempt {attempt + 1})", "warning"


def table_row(
    line: Line,
    verdict: dict[str, Any] | str | None,
    mask: Redactor,
    palette: Palette,
    facts: JournalFacts,
    columns: tuple[Column, ...],
    number_width: int = 5,
) -> Text:
    """One row of the table: the cells of a record, or what the line is when it is none
    (``number_width``: digits of the line numbers, as wide on every row)."""
    out = Text(no_wrap=True, overflow="ellipsis")
    width = max(columns[0].width, number_width)
    out.append(f"{line.number:>{width}} ", palette["muted"])
    if isinstance(verdict, str):
        out.append("✗ unreadable: ", palette["error"])
        out.append(gate(mask(verdict)), palette["error"])
        raw = line.raw[:PREVIEW_SCAN].decode("utf-8", errors="replace")
        out.append("  " + gate(mask(one_line(raw))))
        return out
    if verdict is None:
        if not line.complete:
            out.append("… partial line (no newline yet)", palette["warning"])
        else:
            out.append("(empty line)", palette["muted"])
        return out
    record = dict(verdict)
    elided = record.pop(ELIDED_BYTES, None)
    cells, said, style = cells_of(record, line.number, facts, columns)
    for column in columns[1:]:
        text = gate(mask(cells.get(column.name, "")))
        if len(text) > column.width:
            text = text[: column.width - 1] + "…"
        name = {"EVENT": "primary", "TIME": "muted", "KEY": "muted", "#": "muted"}
        out.append(f"{text:<{column.width}} ", palette[name.get(column.name, "")])
    if elided is not None:
        out.append(f"(line of {size(line.size)}, its result not shown) ", palette["warning"])
    if not line.complete:
        out.append("(no newline yet) ", palette["warning"])
    out.append(gate(mask(said)), palette[style])
    return out


def header_line(columns: tuple[Column, ...], number_width: int = 5) -> str:
    """The column names over the rows."""
    first = columns[0]
    width = max(first.width, number_width)
    names = [f"{first.name:>{width}}", *(f"{c.name:<{c.width}}" for c in columns[1:])]
    return " ".join(names) + " RESULT OR ERROR"


FILTER_FIELDS = ("type", "label", "phase")
KEY_PREFIX = 12
"""Hex digits of a key the filter matches a ``result`` or ``failed`` line by (a line names
no label: its call's, by key; 48 bits of a hash tell 20,000 calls apart)."""
MAX_FILTER_KEYS = 20_000
"""Calls a filter names by key at the most (their pattern is made in 0.6 s; a filter that
matches more calls keeps their ``started`` lines and the lines that name them)."""

Trie = dict[int, "Trie"]
END = -1
"""A trie's mark of a word ending there."""


def alternation(words: list[bytes]) -> bytes:
    """A pattern matching any of ``words``, as a trie (``a(?:b|c)``), so a line is tried
    against one branch per character, not against every word: a 100,000-line journal
    filtered by 5,000 keys is scanned in 0.05 s, not 2.2 s."""
    trie: Trie = {}
    for word in words:
        node = trie
        for byte in word:
            node = node.setdefault(byte, {})
        node[END] = {}

    def emit(node: Trie) -> bytes:
        branches = [
            re.escape(bytes([byte])) + emit(node[byte]) for byte in sorted(node) if byte >= 0
        ]
        if not branches:
            return b""
        ends = END in node
        body = (
            branches[0] if len(branches) == 1 and not ends else b"(?:" + b"|".join(branches) + b")"
        )
        return body + (b"?" if ends else b"")

    return emit(trie)


def line_filter(text: str, calls: dict[str, Call]) -> re.Pattern[bytes] | None:
    """The lines whose event, label or phase hold ``text`` (any case, a line written with
    spaces after its colons too), a ``result`` or ``failed`` line by its call's label and
    phase: a pattern over a line's bytes, as the index looks for rows (None: every line)."""
    if not text:
        return None
    wanted = text.casefold()
    fields = b"|".join(name.encode() for name in FILTER_FIELDS)
    pattern = b'"(?:' + fields + b')"\\s*:\\s*"[^"\\n]{0,40}?' + re.escape(text.encode("utf-8"))
    keys = sorted(
        {
            key[: len("v2:") + KEY_PREFIX].encode("utf-8")
            for key, call in calls.items()
            if wanted in call.label.casefold() or wanted in (call.phase or "").casefold()
        }
    )
    if keys and len(keys) <= MAX_FILTER_KEYS:
        pattern += b'|"key"\\s*:\\s*"' + alternation(keys)
    return re.compile(pattern, re.IGNORECASE)
