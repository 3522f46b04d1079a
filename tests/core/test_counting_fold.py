"""A list's first read folds each journal into what a row shows (`CountingFold`); its rows are
the rows of the full fold, field for field, and so are the rows a cold pass makes straight
from each run's reader, with no `Run` (`wftop.core.index.countrow`).

The differential: every run of every tree under ``tests/data`` (the CLI's current and older
builds, forensics' damaged sessions, the fixtures), read both ways; then journals made by
hypothesis (every record kind, keyed and keyless, repeats, torn lines, garbage) in a run
folder with and without a snapshot, an owner alive or gone. ``bench/fuzz.py`` makes the same
comparison of the folds, one of its invariants, over 100,000 fuzzed journals.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bench.fuzz import row_facts
from tests.core.test_reliability_props import journals, records
from tests.corpus import DATA, copy_tree, only_journal
from wftop.core.cost.tally import SpendTally
from wftop.core.cost.usage import Spends
from wftop.core.index import countrow
from wftop.core.index.cachefile import ended, settled
from wftop.core.index.coldpass import ColdPass
from wftop.core.index.scriptlook import NamedScript
from wftop.core.read.countfold import CountingFold, WholeCallsNotKept
from wftop.core.read.discovery import run_folders_of
from wftop.core.read.journal import JournalFold
from wftop.core.read.runfolder import RunFolder
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcess, FakeProcessTable
from wftop.core.text.prefilter import may_hold_secret
from wftop.core.text.redact import PATH_KEYS

NOW = 1_800_000_000.0
TREES = sorted(
    str(tree)
    for tree in [*DATA.iterdir(), *DATA.glob("*/*")]
    if (tree / "projects").is_dir() and any(tree.glob("projects/*/*/subagents/workflows/wf_*"))
)


def both_rows(roots: list[str], processes: FakeProcessTable | None = None) -> list[Any]:
    """Every run's row read in full and read for its row, side by side; and the row made
    straight from its reader (`ColdPass.counted`), field for field the full row's."""
    folders, _problems = run_folders_of(roots)
    cold = ColdPass.of(roots, folders, processes=processes or FakeProcessTable(), now=lambda: NOW)
    full = [RunRow.of(run) for run in cold.read(folders)]
    counted = [RunRow.of(run) for run in cold.read(folders, for_rows=True)]
    for pending in (False, True):
        assert straight_rows(cold, folders, pending) == [
            (
                list(RunRow.of(run, pending=pending).json_fields().items()),
                (run.problems, run.last_activity, run.folder.journal),
                (NamedScript.of(run.snapshot.script_path if run.snapshot else None),)
                + (settled(run), ended(run)),
            )
            for run in cold.read(folders)
        ]
    return list(zip(full, counted, strict=True))


def straight_rows(cold: ColdPass, folders: list[RunFolder], pending: bool) -> list[Any]:
    """`ColdPass.counted`'s rows: their fields in order, and what is kept of each run; each
    row's masking test (`countrow.may_be_masked`, which searches only `countrow.ROW_TEXTS`)
    is that of every string in it but its paths."""
    made = list(cold.counted(folders, Spends(), pending=pending))
    for fields in (one.fields for one in made):
        assert pending or fields.keys() == countrow.ROW_KEYS
        assert not texts([fields[key] for key in countrow.ROW_PLAIN if key in fields])
        every = texts([value for key, value in fields.items() if key not in PATH_KEYS])
        assert countrow.may_be_masked(fields) == may_hold_secret("\n".join(every))
    return [
        (
            list(one.fields.items()),
            (one.problems, one.last_activity, one.journal),
            (one.named, one.settled, one.ended),
        )
        for one in made
    ]


def texts(values: Iterable[Any]) -> list[str]:
    """Every string in ``values``, in lists and objects too."""
    found: list[str] = []
    for value in values:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list | tuple | dict):
            found += texts(value.values() if isinstance(value, dict) else value)
    return found


@pytest.mark.parametrize("root", TREES, ids=lambda root: os.path.relpath(root, DATA))
def test_every_tree_reads_the_same_rows_counted(root: str) -> None:
    pairs = both_rows([root])
    assert pairs
    for full, counted in pairs:
        assert counted == full
        assert counted.to_json() == full.to_json()


def test_the_trees_hold_what_a_row_shows_of_every_kind() -> None:
    """The trees are worth comparing: failed, in flight and re-run calls are there."""
    rows = [full for root in TREES for full, _ in both_rows([root])]
    assert {row.status.value for row in rows} >= {"completed", "dead"}
    assert any(row.failed_calls for row in rows) and any(row.in_flight for row in rows)
    assert any(row.rerun_tokens for row in rows) and any(row.cost_usd for row in rows)


def test_a_whole_call_view_of_a_counting_fold_says_so() -> None:
    fold = CountingFold().feed_all([(1, {"type": "started", "key": "k", "agentId": "a1"})])
    assert len(fold.calls) == 1 and fold.calls["k"].label == "a1"
    for view in (fold.ordered_calls, fold.snapshot, fold.agent_ids, lambda: list(fold.calls)):
        with pytest.raises(WholeCallsNotKept):
            view()


PROPS = settings(
    max_examples=int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@PROPS
@given(st.lists(st.tuples(st.integers(1, 50), records), max_size=40))
def test_a_counting_fold_reads_what_the_full_fold_reads_of_any_records(
    numbered: list[tuple[int, dict[str, Any]]],
) -> None:
    full = JournalFold().feed_all(numbered)
    counted = CountingFold().feed_all(numbered)
    assert row_facts(counted) == row_facts(full)


class _Said(SpendTally):
    """A tally that keeps the attempts it is told, as it is told them."""

    def __init__(self) -> None:
        super().__init__(once=True)
        self.said: list[Any] = []

    def started(self, attempts: Iterable[tuple[str, str]]) -> None:
        self.said.append(("started", list(attempts)))
        super().started(attempts)

    def returned(self, attempts: Iterable[tuple[str, str]]) -> None:
        self.said.append(("returned", list(attempts)))
        super().returned(attempts)


@PROPS
@given(st.lists(st.lists(st.tuples(st.integers(1, 50), records), max_size=20), max_size=3))
def test_a_counting_fold_gathers_the_attempts_a_tally_reads_of_the_same_records(
    batches: list[list[tuple[int, dict[str, Any]]]],
) -> None:
    """What a counting fold gathers of each batch of records it folds (`take_attempts`) is
    what a spend tally reads of them itself (`SpendTally.lines`): the attempts begun and
    the attempts returned, by call key and agent, in order; none once taken."""
    fold = CountingFold()
    for batch in batches:
        read = _Said()
        read.lines(batch)
        fold.feed_all(batch)
        begun, ended = fold.take_attempts()
        assert [("started", begun), ("returned", ended)] == read.said
        assert fold.take_attempts() == ([], [])


def test_a_run_read_for_its_row_walks_its_journals_records_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run read for its row hands its tally the attempts its counting fold gathered: no
    second pass over the records (`SpendTally.lines`), and the same rows (every tree)."""
    walked: list[int] = []
    lines = SpendTally.lines

    def counted_lines(self: SpendTally, records: Any) -> None:
        walked.append(1)
        lines(self, records)

    monkeypatch.setattr(SpendTally, "lines", counted_lines)
    for root in TREES:
        folders, _problems = run_folders_of([root])
        cold = ColdPass.of([root], folders, processes=FakeProcessTable(), now=lambda: NOW)
        assert list(cold.counted(folders, Spends(), pending=False))
    assert walked == []


def test_a_run_read_for_its_row_makes_each_of_its_paths_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A `RunFolder`'s paths are made again at each ask: a run read for its row asks for
    its journal's twice (its reader, its row), its snapshot's once, and its session's
    transcript once for all the runs of the session (their working directory), and makes
    no identity where no run was superseded; the same rows."""
    root = copy_tree("clean", tmp_path)
    (folder,) = root.glob("projects/*/*/subagents/workflows/wf_*")
    shutil.copytree(folder, folder.with_name("wf_0c0c0c0c-002"))
    (snapshot,) = root.glob("projects/*/*/workflows/wf_*.json")
    shutil.copy(snapshot, snapshot.with_name("wf_0c0c0c0c-002.json"))
    folders, _problems = run_folders_of([str(root)])
    cold = ColdPass.of([str(root)], folders, processes=FakeProcessTable(), now=lambda: NOW)
    assert len(folders) == 2 and not cold.superseded
    made: Counter[str] = Counter()
    for name in ("journal", "snapshot", "transcript", "ident"):
        path = getattr(RunFolder, name)

        def counted(self: RunFolder, name: str = name, path: Any = path) -> str:
            made[name] += 1
            return str(path.fget(self))

        monkeypatch.setattr(RunFolder, name, property(counted))
    rows = straight_rows(cold, folders, pending=False)
    assert made == Counter({"journal": 4, "snapshot": 2, "transcript": 1})
    monkeypatch.undo()
    assert rows == straight_rows(cold, folders, pending=False)


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_tree("killed", tmp_path_factory.mktemp("fold"))


@PROPS
@given(journals, st.booleans(), st.booleans())
def test_a_run_read_for_its_row_is_the_run_read_in_full(
    run_folder: Path, content: bytes, snapshot: bool, alive: bool
) -> None:
    """A fuzzed journal in a run folder, with the clean run's snapshot or none, its session's
    owner alive or gone: the row read counting is the row read in full."""
    only_journal(run_folder).write_bytes(content)
    place = next(run_folder.glob("projects/*/*/workflows"), None) or (
        only_journal(run_folder).parents[3] / "workflows"
    )
    target = place / f"{only_journal(run_folder).parent.name}.json"
    if snapshot:
        place.mkdir(exist_ok=True)
        shutil.copy(next(copy_source_snapshot()), target)
    elif target.exists():
        target.unlink()
    processes = FakeProcessTable({4242: FakeProcess("777")} if alive else {})
    registry = run_folder / "sessions" / "4242.json"
    registry.parent.mkdir(exist_ok=True)
    session = only_journal(run_folder).parents[3].name
    registry.write_text(json.dumps({"pid": 4242, "sessionId": session, "procStart": "777"}))
    for full, counted in both_rows([str(run_folder)], processes):
        assert counted == full


def copy_source_snapshot() -> Any:
    return (DATA / "corpus" / "clean").glob("projects/*/*/workflows/wf_*.json")


def test_a_result_under_another_key_than_its_start_is_not_a_return_of_it(tmp_path: Path) -> None:
    """An agent started under one key whose result line names no key (so the fold files the
    result under a call of its own): read counting or in full, its missing transcript is of
    an attempt that never returned under its call, so neither read counts it missing."""
    root = copy_tree("killed", tmp_path)
    lines = [
        {"type": "started", "key": "v2:k1", "label": "a1", "agentId": "a0000000000000001"},
        {"type": "result", "agentId": "a0000000000000001", "result": "done"},
    ]
    only_journal(root).write_text("".join(json.dumps(line) + "\n" for line in lines))
    for full, counted in both_rows([str(root)]):
        assert counted == full


def test_a_counted_row_keeps_whether_the_script_its_snapshot_names_is_a_file(
    tmp_path: Path,
) -> None:
    """What a rows cache keeps with a row (`NamedScript`) is the look its reader took at the
    script the snapshot names: a file there, and a path with none, as `NamedScript.of` says."""
    root = copy_tree("clean", tmp_path)
    snapshot = next(root.glob("projects/*/*/workflows/wf_*.json"))
    script = tmp_path / "kept-script.js"
    script.write_text("export const meta = { name: 'kept' }\n")
    for named, exists in ((script, True), (tmp_path / "gone.js", False)):
        data = json.loads(snapshot.read_text())
        data["scriptPath"] = str(named)
        snapshot.write_text(json.dumps(data))
        both_rows([str(root)])
        folders, _problems = run_folders_of([str(root)])
        cold = ColdPass.of([str(root)], folders, processes=FakeProcessTable(), now=lambda: NOW)
        made = list(cold.counted(folders, Spends(), pending=True))
        assert [row.named for row in made] == [NamedScript(str(named), exists)]


DEEP, HUGE = "\x00deep", "\x00huge"
"""Stand-ins in a fuzzed snapshot for what `json` cannot write: nesting past what orjson
reads back, and a number past a float's range (`1e999`, read as infinity)."""
_texts = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["a3", "[a3] failed: API Error: 529 Overloaded", "parallel[1] failed: x"]),
    st.sampled_from(["\ud800", DEEP, HUGE, "completed", "failed", "killed"]),
)
_values = st.one_of(st.none(), st.booleans(), st.integers(-2, 2**70), _texts)
_items = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["workflow_agent", "workflow_phase", "other"]),
        "agentId": st.one_of(st.sampled_from(["", "a1"]), _values),
        "state": st.one_of(st.sampled_from(["error", "done", "start"]), _values),
        "cached": _values,
        "skipped": _values,
        "error": _values,
        "label": _values,
    },
)
_failure_lines = st.sampled_from(
    ["[a3] failed: API Error: 529 Overloaded", "parallel[1] failed: 429", "[a1] failed: x"]
)
snapshots = st.fixed_dictionaries(
    {
        "logs": st.one_of(st.lists(st.one_of(_failure_lines, _values), max_size=4), _values),
        "workflowProgress": st.one_of(st.lists(_items, max_size=3), _values),
    },
    optional={
        "status": st.one_of(st.sampled_from(["completed", "failed", "killed"]), _values),
        "workflowName": _values,
        "scriptPath": _values,
        "timestamp": st.one_of(st.sampled_from(["2027-01-15T08:00:00.000Z", "x"]), _values),
        "error": _values,
        "summary": _values,
        "script": _values,
    },
)


@pytest.fixture(scope="module")
def failed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run whose call ``a3`` failed, its transcript gone: only the snapshot says why."""
    root = copy_tree("mid-failure", tmp_path_factory.mktemp("snapshots"))
    (only_journal(root).parent / "agent-ae6bf04ed763901ff.jsonl").unlink()
    return root


@PROPS
@given(
    snapshots,
    st.sampled_from(["", "done", "error", "done"]),
    st.sampled_from([None, None, 0, 40]),
    st.booleans(),
    st.one_of(st.none(), _failure_lines),
)
@example({"logs": [], "workflowProgress": []}, "done", None, False, "[a3] failed: API Error: 529")
@example(
    {"logs": [DEEP, HUGE], "workflowProgress": [], "status": "failed"}, "error", None, True, None
)
def test_a_run_read_for_its_row_reads_any_snapshot_as_the_run_read_in_full(
    failed_run: Path,
    data: dict[str, Any],
    journals_agents: str,
    cut: int | None,
    alive: bool,
    said: str | None,
) -> None:
    """A fuzzed snapshot (any field of any type, rows naming the journal's agents or not,
    log lines naming its calls, a lone surrogate, nesting deeper than orjson writes back,
    1e999, cut short) beside a run that failed, its owner alive or gone: the row read for
    a list (its snapshot kept as parsed, not packed) is the row read in full."""
    if said is not None and isinstance(data["logs"], list):
        data["logs"].append(said)
    (target,) = failed_run.glob("projects/*/*/workflows/wf_*.json")
    if journals_agents and isinstance(data.get("workflowProgress"), list):
        journal = [json.loads(line) for line in only_journal(failed_run).read_text().splitlines()]
        agents = {line["agentId"] for line in journal if "agentId" in line}
        for agent in sorted(agents):
            item = {"type": "workflow_agent", "agentId": agent, "state": journals_agents}
            data["workflowProgress"].append({**item, "error": agent} if agent < "a8" else item)
    text = json.dumps(data).replace(json.dumps(DEEP), "[" * 300 + "]" * 300)
    raw = text.replace(json.dumps(HUGE), "1e999").encode()
    target.write_bytes(raw if cut is None else raw[:cut])
    processes = FakeProcessTable({4242: FakeProcess("777")} if alive else {})
    registry = failed_run / "sessions" / "4242.json"
    registry.parent.mkdir(exist_ok=True)
    session = target.parents[1].name
    registry.write_text(json.dumps({"pid": 4242, "sessionId": session, "procStart": "777"}))
    for full, counted in both_rows([str(failed_run)], processes):
        assert counted == full


def test_an_agent_started_twice_under_one_key_is_missing_twice_both_ways(tmp_path: Path) -> None:
    """A damaged journal starts one agent twice under one key and returns it, its transcript
    gone: the full read counts each attempt missing, and so does the row read counting."""
    root = copy_tree("killed", tmp_path)
    start = {"type": "started", "key": "v2:k1", "label": "a1", "agentId": "a0000000000000001"}
    lines = [start, start, {**start, "type": "result", "result": "done"}]
    only_journal(root).write_text("".join(json.dumps(line) + "\n" for line in lines))
    for full, counted in both_rows([str(root)]):
        assert counted == full
        assert full.missing_transcripts == 2
