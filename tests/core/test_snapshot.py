"""The end-of-run snapshot as the index holds it: what a run list reads taken out up front,
the rest kept as compact text until a view asks for it."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import orjson

from tests.corpus import tree
from tests.deep_kit import DEEP, nested
from tests.memory_kit import held
from wftop.core.read.deepjson import DeepJson
from wftop.core.read.deepjson import dumps as deep_dumps
from wftop.core.read.jsonline import parse_line
from wftop.core.read.snapshot import (
    BULKY_FIELDS,
    Snapshot,
    parse_iso_time,
    read_snapshot,
    read_snapshot_with_stat,
)

DEEP_VALUE = "@deep@"
"""Where a snapshot written for a test holds arrays nested `DEEP` levels."""

BAD = "@bad@"
"""Where it holds a byte that is not UTF-8."""

TREES = ("clean", "mid-failure", "api-errors-429", "killed-in-parallel-resumed", "resumed")


def snapshots() -> list[Path]:
    found = [path for name in TREES for path in tree(name).glob("projects/*/*/workflows/*.json")]
    assert len(found) >= len(TREES)
    return found


def test_a_snapshot_reads_as_its_file_says():
    for path in snapshots():
        data = orjson.loads(path.read_bytes())
        snapshot, problem = read_snapshot(str(path))
        assert problem is None and snapshot is not None
        rows = [item for item in data["workflowProgress"] if item.get("type") == "workflow_agent"]
        assert snapshot.agent_ids() == {row["agentId"] for row in rows}
        errored = {row["agentId"] for row in rows if row.get("state") == "error"}
        assert snapshot.errored_agent_ids() == errored
        assert (snapshot.status, snapshot.name) == (data["status"], data.get("workflowName"))
        assert snapshot.timestamp == parse_iso_time(data["timestamp"])
        left_out = {*BULKY_FIELDS, "workflowProgress"}
        assert snapshot.data == {k: v for k, v in data.items() if k not in left_out}
        assert [row.agent_id for row in snapshot.rows] == [row["agentId"] for row in rows]
        assert snapshot.raw_rows == tuple(rows)


def test_a_snapshot_holds_less_than_its_text_until_a_view_asks():
    """20,000 runs hold 20,000 snapshots: a parsed object costs several times its text, and
    its agent rows are most of that text (they are read again when a view asks)."""
    paths = snapshots() * 20
    text = sum(
        len(
            orjson.dumps(
                {k: v for k, v in orjson.loads(path.read_bytes()).items() if k not in BULKY_FIELDS}
            )
        )
        for path in paths
    )

    def listed() -> list[Snapshot | None]:
        read = [read_snapshot(str(path))[0] for path in paths]
        for snapshot in read:
            assert snapshot is not None
            snapshot.agent_ids(), snapshot.errored_agent_ids(), snapshot.timestamp  # noqa: B018
        return read

    _read, kept = held(listed)
    # Measured: 0.80 of its text (1.49 when the rows were held as compact text, 3.8 parsed).
    assert kept < text, (kept, text)


def test_a_listed_snapshot_reads_its_agent_rows_only_when_asked(tmp_path):
    source = next(path for path in snapshots() if b"workflow_agent" in path.read_bytes())
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    read_snapshot(str(path))  # orjson keeps the keys it first reads, for every later read
    (snapshot, _), kept = held(lambda: read_snapshot(str(path)))
    assert snapshot is not None
    progress = len(orjson.dumps(orjson.loads(source.read_bytes())["workflowProgress"]))
    assert kept < progress, (kept, progress)  # the rows alone are more than all it holds
    rows = snapshot.rows
    assert rows and {row.agent_id for row in rows} == snapshot.agent_ids()
    gone, _ = read_snapshot(str(path))
    path.unlink()
    assert gone is not None and gone.rows == () and gone.agent_ids() == snapshot.agent_ids()


def test_a_snapshot_read_sets_its_fields_as_its_constructor_would(monkeypatch):
    """A list makes a `Snapshot` of every ended run's file: its fields are set in its dict,
    not through the frozen dataclass's ``__init__`` (a call to ``object.__setattr__`` for
    each of 11 fields, a third of the work of making one), and it is the snapshot that
    ``__init__`` makes of the same fields: equal, every field there, its hash the same."""
    made: list[Snapshot] = []
    init = Snapshot.__init__

    def counted_init(self: Snapshot, *args: object, **kwargs: object) -> None:
        made.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(Snapshot, "__init__", counted_init)
    for path in snapshots():
        for packed in (True, False):
            snapshot, problem, _info = read_snapshot_with_stat(str(path), packed=packed)
            assert problem is None and snapshot is not None
            values = {field.name: getattr(snapshot, field.name) for field in fields(Snapshot)}
            again = Snapshot(**values)
            assert snapshot == again and hash(snapshot) == hash(again)
            assert {name: getattr(again, name) for name in values} == values
    assert len(made) == 2 * len(snapshots())  # the ones made here again, none read


def test_snapshots_read_share_one_empty_set_of_agents():
    """A list holds a snapshot of each ended run, most of which say that no agent errored
    and none was cached: an empty frozenset is 216 bytes, so they hold one between them."""
    read = [read_snapshot(str(path))[0] for path in snapshots() * 2]
    sets = [s.errored for s in read if s] + [s.cached for s in read if s]
    sets += [s.agent_id_set for s in read if s]
    empty = [one for one in sets if not one]
    assert len(empty) >= 4 and all(one is empty[0] for one in empty)
    assert any(s and s.errored for s in read)  # those that hold agents hold their own


def test_a_snapshot_writes_again_only_what_it_keeps_and_keeps_what_a_line_read_holds(
    tmp_path, monkeypatch
):
    """Whether a snapshot nests deeper than orjson writes is found out on what it keeps
    alone: its script and its rows (most of its bytes) are never written again for it. What
    it keeps is what `parse_line` holds of the file, those fields out: a kept field nested
    past `MAX_DEPTH` held as `DeepJson`, one nested as deep in its result or its rows
    changing nothing of the rest, packed or not."""
    data = orjson.loads(snapshots()[0].read_bytes())
    script = "export const meta = { name: 'kept-out' }\n" + "// a line of the script\n" * 400
    shapes = {
        "plain": {**data, "script": script},
        "deep args": {**data, "script": script, "args": DEEP_VALUE},
        "deep result": {**data, "script": script, "result": DEEP_VALUE},
        "deep args, a byte not UTF-8": {
            **data,
            "script": script,
            "args": DEEP_VALUE,
            "summary": BAD,
        },
    }
    written: list[bool] = []  # whether each value written held the script, as written
    real = orjson.dumps

    def dumps(value: object, *args: object, **kwargs: object) -> bytes:
        written.append(type(value) is dict and "script" in value)
        return real(value, *args, **kwargs)  # type: ignore[arg-type]

    for name, shape in shapes.items():
        path = tmp_path / f"{name}.json"
        raw = real(shape).replace(b'"@deep@"', nested(DEEP)).replace(b"@bad@", b"\xff")
        path.write_bytes(raw)
        whole = parse_line(raw)
        for dropped in (*BULKY_FIELDS, "workflowProgress"):
            whole.pop(dropped, None)
        for packed in (True, False):
            written.clear()
            monkeypatch.setattr(orjson, "dumps", dumps)
            snapshot, problem, _info = read_snapshot_with_stat(str(path), packed=packed)
            monkeypatch.setattr(orjson, "dumps", real)
            assert problem is None and snapshot is not None, name
            assert written and not any(written), name
            assert deep_dumps(snapshot.data) == deep_dumps(whole), (name, packed)
            assert snapshot.agent_ids() and snapshot.name == data.get("workflowName"), name
            if "args" in shape:  # held where it opens past what orjson writes
                value = snapshot.data["args"]
                while type(value) is list:
                    (value,) = value
                assert type(value) is DeepJson
