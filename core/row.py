"""A run as a list holds it: `RunRow`, one immutable value per run, and its JSON shape.

A `wftop.core.model.Run` carries a run's whole fold (every call, every attempt); a list needs
a few dozen facts of it: who the run is, what it is called, how it stands, how its calls
stand, where its files are. `RunRow.of` takes those facts from a `Run` once; `RunRow.to_json`
is the ``wftop ls --json`` row, the one shape every stream of runs a person or another host
reads uses (``ls --json``, the rows cache, ``ls --watch --json``, a remote host's);
`RunRow.from_json` reads such a row back from a pipe, a socket or another host, checking
every field it knows and naming the first one that is wrong (`RowError`): a row that came
from a process is never trusted. The engine's stream to its views (of the same wftop) sends
each row as the array of its fields' values (`array_line`, read back checked alike by
`RunRow.from_array`), which the rows cache keeps beside the row.

Adding a field: declare it below with its `Wire` kind (`wftop.core.rowwire`; where it sits
is where it prints), and take it from the run in `RunRow.of`; `to_json` and `from_json`
follow from the declaration. A field with a default may be missing from a row (an older
wftop, another host), which then reads as the default.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from itertools import repeat
from operator import attrgetter, call
from sys import intern
from typing import TYPE_CHECKING, Any

import orjson

from wftop.core.cost.tokens import NO_TOKENS, NOTHING, Tokens
from wftop.core.read.runfolder import run_ident
from wftop.core.read.verdicts import Cause, Liveness
from wftop.core.rowbatch import PlainBatch, SlotFiller
from wftop.core.rowwire import (
    COUNT,
    DOLLARS,
    FAILURES,
    FLAG,
    LABELS,
    LIVENESS,
    MAYBE_COUNT,
    MAYBE_TEXT,
    MOMENT,
    NAME,
    STATUS,
    TALLY,
    TEXT,
    TOKENS,
    PlainRows,
    Wire,
    moment,
    wire,
    wrong,
)
from wftop.core.rowwire import RowError as RowError
from wftop.core.rowwire import Tally as Tally
from wftop.core.status import ENDED, Status, iso_utc, json_safe_dict, status_word
from wftop.core.text.jsonout import dumps_masked
from wftop.core.text.redact import Redactor

if TYPE_CHECKING:  # a view reads rows: what reads a run's spend is the engine's
    from wftop.core.cost.usage import Spends
    from wftop.core.model import Run


@dataclass(frozen=True, slots=True)
class RunRow:
    """What a list needs of one run, in the order ``ls --json`` prints it.

    Made from a `Run` by `of`, from a JSON row by `from_json`. Slotted and immutable: an
    engine and every view hold one per run (20,000 of them), and rows cross threads.
    """

    run_id: str = wire(NAME)
    session_id: str = wire(NAME)
    project: str = wire(NAME)
    """The project folder's name: the slug Claude Code derives from the working directory."""
    project_name: str = wire(TEXT, default="")
    """The name a person uses: the working directory's last folder (else the slug's end)."""
    root: str = wire(TEXT, default="")
    """The config root the run was found under (on its host, for a remote run)."""
    cwd: str | None = wire(MAYBE_TEXT, default=None)
    name: str | None = wire(MAYBE_TEXT, default=None)
    status: Status = wire(STATUS, default=Status.DEAD)
    started: int = wire(COUNT, default=0)
    """Journal lines: ``started``, then ``result`` below."""
    returned: int = wire(COUNT, default=0)
    failed: int = wire(COUNT, default=0)
    """Calls that failed (`failures`), whether or not a ``failed`` line says so."""
    calls: int = wire(COUNT, default=0)
    in_flight: tuple[str, ...] = wire(LABELS, default=())
    """Labels of the calls in flight (none once the run ended)."""
    failed_calls: tuple[str, ...] = wire(LABELS, default=())
    rerun_tokens: int | None = wire(MAYBE_COUNT, default=0)
    dead_workers: int = wire(COUNT, default=0)
    journal: str | None = wire(MAYBE_TEXT, default="")
    """The run's ``journal.jsonl``; None when it is not on disk (`wftop.core.read.standin`)."""
    snapshot: str | None = wire(MAYBE_TEXT, default=None)
    snapshot_current: bool = wire(FLAG, default=False)
    script_path: str | None = wire(MAYBE_TEXT, default=None)
    owner: Liveness = wire(LIVENESS, default=Liveness.UNKNOWN)
    owner_pid: int | None = wire(MAYBE_COUNT, default=None)
    superseded_by: str | None = wire(MAYBE_TEXT, default=None)
    last_activity: float | None = wire(MOMENT, default=None)
    """Seconds since the epoch, to the millisecond that JSON holds (ISO 8601 there): a row
    read back from its JSON equals the row."""
    unreadable_lines: int = wire(COUNT, default=0)
    host: str | None = wire(MAYBE_TEXT, default=None)
    """The SSH host the run lives on (None: this machine)."""
    unreadable_reason: str | None = wire(MAYBE_TEXT, default=None)
    """Why the journal, on disk, cannot be read (``status: unreadable``); None otherwise."""
    call_states: Tally = wire(TALLY, default=Tally())
    """How the calls stand (a row without it reads them from the counts and labels)."""
    cost_usd: float | None = wire(DOLLARS, default=None)
    """What its calls spent (`wftop.core.cost`), to a millionth of a dollar (as JSON holds
    it); None when a model is unpriced (or, in a row from an older wftop, unknown)."""
    tokens: Tokens = wire(TOKENS, default=NO_TOKENS)
    unpriced_models: tuple[str, ...] = wire(LABELS, default=())
    missing_transcripts: int = wire(COUNT, default=0)
    """Attempts whose transcript is gone or unreadable: what they spent is not counted."""
    cost_is_lower_bound: bool = wire(FLAG, default=False)
    """``cost_usd`` and ``tokens`` leave out the attempts whose transcript is missing: the
    run spent at least that much."""
    cost_pending: bool = wire(FLAG, default=False)
    """What the run spent is not read yet (``cost_usd`` None, no tokens): an engine's first
    rows of a large first read go out before their transcripts are read, and a change set
    fills them in (`wftop.core.engine.coldstart`). Printed only when true: a row read in
    full, as every ``ls --json`` row is, never carries it."""
    failed_lines: int = wire(COUNT, default=0)
    """The journal's ``failed`` lines."""
    failures: tuple[tuple[str, str], ...] = wire(FAILURES, default=())
    """(label, kind) of each failed call (`wftop.core.read.failures`); a row without them
    (another host's older wftop) reads its ``failed_calls`` with no kind known."""
    stale: bool = False
    """A remote run whose host cannot be reached now: its last known state (not sent)."""
    ident: str = field(init=False, default="")
    """`wftop.core.read.runfolder.run_ident`; a remote run's root reads ``<host>:<root>``."""
    shown_status: str = field(init=False, default="")
    """`wftop.core.model.status_word`: the status, or ``partial``."""

    def __post_init__(self) -> None:
        root = self.root if self.host is None else f"{self.host}:{self.root}"
        object.__setattr__(self, "ident", run_ident(root, self.session_id, self.run_id))
        shown = status_word(self.status.value, len(self.failed_calls))
        object.__setattr__(self, "shown_status", shown)

    @classmethod
    def _of_values(cls, values: list[Any]) -> RunRow:
        """The row of every field in `WIRE`'s order, as `RunRow(*values)` makes it, without
        its ``__init__``'s call a field (`PLAIN`'s rows: 20,000 at a view's start): each slot
        set through its own setter, then what ``__post_init__`` adds."""
        row: RunRow = object.__new__(cls)
        deque(map(call, SETTERS, repeat(row), values), 0)
        for setter, default in UNSENT:
            setter(row, default)
        row.__post_init__()
        return row

    @classmethod
    def batch_from_json(cls, items: Sequence[Any]) -> list[RunRow] | None:
        """The rows of a batch of JSON rows (a message of the engine's stream), read a field
        at a time over all of them (`wftop.core.rowbatch.PlainBatch`), each equal to its
        `from_json`; None when not every one is as wftop prints a row: then read each with
        `from_json`, which says what is wrong with which."""
        return cls._batch(BATCH.columns(items) if cls is RunRow else None)  # a subclass: row by row

    @classmethod
    def _batch(cls, columns: list[list[Any]] | None) -> list[RunRow] | None:
        """The rows of every field's values (`PlainBatch`; None: none)."""
        if columns is None:
            return None
        for at in SHARED_AT:
            if STR_ONLY.issuperset(map(type, columns[at])):
                columns[at] = list(map(intern, columns[at]))
            else:
                columns[at] = [intern(text) if type(text) is str else text for text in columns[at]]
        roots = columns[ROOT_AT]
        if any(host is not None for host in columns[HOST_AT]):
            roots = [
                root if host is None else f"{host}:{root}"
                for root, host in zip(roots, columns[HOST_AT], strict=True)
            ]
        idents = map(run_ident, roots, columns[SESSION_AT], columns[RUN_AT])
        words = map(status_word, map(WORD_OF, columns[STATUS_AT]), map(len, columns[FAILED_AT]))
        unsent = [repeat(default) for _setter, default in UNSENT]
        rows: list[RunRow] = FILLER.made(len(columns[0]), [*columns, *unsent, idents, words])
        return rows

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    @property
    def folder_ident(self) -> str:
        """The ident the run's own host names it by (this machine's, for a local run)."""
        return run_ident(self.root, self.session_id, self.run_id)

    @classmethod
    def of(cls, run: Run, spends: Spends | None = None, *, pending: bool = False) -> RunRow:
        """The row of a run (made once per change of the run, in whichever thread read it);
        what it spent is read from its agents' transcripts (``spends`` keeps those read).
        ``pending``: none is read, and the row says its spend is to come (`cost_pending`)."""
        folder, fold = run.folder, run.fold
        if pending:
            spent = NOTHING
        elif run.spend is not None:
            spent = run.spend
        else:
            from wftop.core.cost.runs import run_spend  # its transcripts' reader with it

            spent = run_spend(run, spends).total
        flight = tuple(call.label for call in run.in_flight_calls)
        dead = run.status is Status.DEAD
        return cls(
            run_id=folder.run_id,
            session_id=folder.session_id,
            project=folder.project,
            project_name=run.project_short,
            root=folder.root,
            cwd=run.cwd,
            name=run.name,
            status=run.status,
            started=fold.started_lines,
            returned=fold.result_lines,
            failed=len(run.failures),
            failed_lines=fold.failed_lines,
            calls=len(fold.calls),
            in_flight=flight,
            failed_calls=tuple(run.failed_labels),
            failures=tuple((failure.label, failure.kind) for failure in run.failures),
            rerun_tokens=run.rerun_tokens,
            dead_workers=len(flight) if dead else 0,
            journal=None if run.journal_missing else folder.journal,
            snapshot=folder.snapshot if run.snapshot is not None else None,
            snapshot_current=run.snapshot_current,
            script_path=run.script_path,
            owner=run.owner.liveness,
            owner_pid=run.owner.entry.pid if run.owner.entry else None,
            superseded_by=run.superseded_by,
            last_activity=moment(iso_utc(run.last_activity), "last_activity"),
            unreadable_lines=len(run.problems),
            unreadable_reason=run.unreadable_reason,
            host=run.host,
            call_states=Tally(*run.call_counts),
            cost_usd=None if pending else spent.to_json()["cost_usd"],
            tokens=spent.tokens,
            unpriced_models=spent.unpriced_models,
            missing_transcripts=spent.missing,
            cost_is_lower_bound=spent.lower_bound,
            cost_pending=pending,
            stale=run.stale,
        )

    def json_fields(self) -> dict[str, Any]:
        """`to_json` before names are made printable
        (for `wftop.core.text.jsonout.dumps_masked`)."""
        return {
            name: kind.dump(getattr(self, name))
            for name, kind in WIRE
            if name not in SPARSE or getattr(self, name)
        }

    def to_json(self) -> dict[str, Any]:
        """The ``wftop ls --json`` row; bytes of names that are not UTF-8 read ``\\xNN``."""
        return json_safe_dict(self.json_fields())

    def printed(self, redactor: Redactor) -> bytes:
        """The row as ``ls --json`` prints it, secrets masked: one item of the array,
        indented as an item of it (the rows cache keeps it so, the engine's stream on one
        line: `wftop.core.engine.protocol.one_line`)."""
        return printed_item(self.json_fields(), redactor)

    @classmethod
    def from_json(cls, data: Any, *, host: str | None = None) -> RunRow:
        """The row a JSON object describes, every known field checked (`RowError` names the
        first that is wrong); fields it does not know are left out. ``host``: the host the
        row came from, which replaces the one it names."""
        if type(data) is dict:
            plain = PLAIN.read(data)
            if plain is not None:  # as wftop prints a row: every field there, each as printed
                if host is not None:
                    plain[HOST_AT] = host
                for at in SHARED_AT:
                    if type(plain[at]) is str:
                        plain[at] = intern(plain[at])
                return cls._of_values(plain) if cls is RunRow else cls(*plain)
        if not isinstance(data, Mapping):
            raise wrong("row", "an object", data)
        values: dict[str, Any] = {}
        for name, load in LOADS:
            if name in data:
                values[name] = load(data[name], name)
            elif name in REQUIRED:
                raise RowError(f"{name}: missing (a row names its {', '.join(sorted(REQUIRED))})")
        if host is not None:
            values["host"] = host
        for name in SHARED:
            value = values.get(name)
            if type(value) is str:
                values[name] = intern(value)
        if "call_states" not in data:
            values["call_states"] = guessed_tally(values)
        if "failures" not in data:
            unknown = Cause.CLEAN_OR_UNKNOWN.value
            values["failures"] = tuple((label, unknown) for label in values.get("failed_calls", ()))
        return cls(**values)

    @classmethod
    def from_array(cls, data: Any) -> RunRow:
        """The row a JSON array of its fields' values describes, in `WIRE`'s order, every
        one there (`array_line`: the engine's stream), checked as `from_json` checks one."""
        if type(data) is not list or len(data) != len(WIRE_NAMES):
            raise wrong("row", f"an array of its {len(WIRE_NAMES)} fields' values", data)
        return cls.from_json(dict(zip(WIRE_NAMES, data, strict=True)))

    @classmethod
    def batch_from_arrays(cls, items: Sequence[Any]) -> list[RunRow] | None:
        """`batch_from_json` of rows each an array of its fields' values (`array_line`)."""
        return cls._batch(BATCH.array_columns(items) if cls is RunRow else None)


WIRE: tuple[tuple[str, Wire], ...] = tuple(
    (item.name, item.metadata["wire"]) for item in fields(RunRow) if "wire" in item.metadata
)
"""Every field that crosses the wire, in print order, with its kind."""
LOADS = tuple((name, kind.load) for name, kind in WIRE)
"""How each is read back (`from_json`), in the same order."""
SHARED = ("project", "project_name", "root", "cwd", "name", "host")
"""Fields whose text many rows share (every run of a root, a project, a script): a row
read from JSON holds the one copy (`sys.intern`), not its own (20,000 rows in a view)."""
REQUIRED = frozenset({"run_id", "session_id", "project", "status"})
"""What a row cannot go without: who the run is, and how it stands."""
SPARSE = frozenset({"cost_pending"})
"""Fields printed only when they hold something (true)."""
PLAIN = PlainRows(WIRE, {item.name: item.default for item in fields(RunRow) if item.name in SPARSE})
"""How a row as wftop prints it is read (`from_json`), where it can be: every field in
`WIRE`'s order, which is the order `RunRow` takes them in (the fields after are not sent)."""
SHARED_AT = tuple(PLAIN.names.index(name) for name in SHARED)
HOST_AT = PLAIN.names.index("host")
SETTERS = tuple(vars(RunRow)[name].__set__ for name in PLAIN.names)
"""Each field's slot setter, in `WIRE`'s order (`RunRow._of_values`)."""
UNSENT_NAMES = tuple(
    item.name for item in fields(RunRow) if item.init and item.name not in PLAIN.names
)
UNSENT = tuple(
    (vars(RunRow)[name].__set__, RunRow.__dataclass_fields__[name].default) for name in UNSENT_NAMES
)
"""The setter and default of each field a row's JSON does not hold (``stale``)."""
BATCH = PlainBatch(
    WIRE, {item.name: item.default for item in fields(RunRow) if item.name in SPARSE}
)
"""How a batch of rows as wftop prints them is read (`RunRow.batch_from_json`)."""
STR_ONLY = frozenset({str})
ROOT_AT, SESSION_AT, RUN_AT = (PLAIN.names.index(name) for name in ("root", "session_id", "run_id"))
STATUS_AT, FAILED_AT = PLAIN.names.index("status"), PLAIN.names.index("failed_calls")
FILLER = SlotFiller(RunRow, (*PLAIN.names, *UNSENT_NAMES, "ident", "shown_status"))
"""Makes a batch's rows (`RunRow.batch_from_json`) from every field's values: the wire's in
its order, those a row's JSON does not hold (`UNSENT`), then what `RunRow.__post_init__`
sets."""
WORD_OF = attrgetter("value")


def guessed_tally(values: Mapping[str, Any]) -> Tally:
    """How the calls stand, as far as a row without ``call_states`` tells: the labels in
    flight and failed, the other calls done."""
    flight, failed = len(values.get("in_flight", ())), len(values.get("failed_calls", ()))
    done = max(0, values.get("calls", 0) - flight - failed)
    if values.get("status") in (Status.RUNNING, Status.STALLED):
        return Tally(done=done, failed=failed, running=flight)
    return Tally(done=done, failed=failed, dead=flight)


def printed_item(fields: dict[str, Any], redactor: Redactor) -> bytes:
    """A row's JSON fields (`RunRow.json_fields`) as ``ls --json`` prints the row, secrets
    masked: one item of the array, indented as an item of it (`RunRow.printed`)."""
    text = dumps_masked(fields, redactor, indent=True)
    return b"  " + text.replace(b"\n", b"\n  ")


WIRE_NAMES = tuple(name for name, _kind in WIRE)
"""The fields of a row as an array of their values (`array_line`), in this order."""
_ARRAY_DEFAULTS = tuple(
    (item.name, item.metadata["wire"].dump(item.default))
    for item in fields(RunRow)
    if "wire" in item.metadata
)


def array_line(data: Mapping[str, Any]) -> bytes:
    """A row as its JSON fields (`RunRow.json_fields`, or a printed row parsed) on one line
    as the engine's stream sends it: a JSON array of every field's value in `WIRE`'s order,
    a field left out (a sparse one) as its default; `RunRow.from_array` reads it back. An
    array is parsed at about half the cost of the object (no key read for each field), and
    read a field at a time over a batch without a key compared (`PlainBatch.array_columns`)."""
    return orjson.dumps([data.get(name, default) for name, default in _ARRAY_DEFAULTS])
