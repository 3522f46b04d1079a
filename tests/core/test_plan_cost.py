"""A plan reads what it needs once: the run's journal, the transcripts of the calls it asks
about, the runs of its id. A plan of a 100,000-call run took 15 s of CPU folding the same
journal five times and reading every agent's transcript three times; each test holds one
of those to what the plan needs (reads counted, not timed), and the walk gives what the
walk of every re-running call gave."""

from __future__ import annotations

import gc
import json
import os
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import DATA, copy_tree, only_journal, tree
from wftop.core.forecast import inputs, instant, keyorder
from wftop.core.forecast.fates import Fate, Forecast
from wftop.core.forecast.inputs import ForecastInput, gather
from wftop.core.forecast.instant import Call, Span, predict
from wftop.core.index.coldpass import scan_roots
from wftop.core.index.reader import RunReader
from wftop.core.read import journal as journal_module
from wftop.core.read import jsonl
from wftop.core.read.journal import JournalFold, call_key
from wftop.core.read.jsonl import read_all
from wftop.core.resume import plan as plan_module
from wftop.core.resume import relocate
from wftop.core.resume.plan import make_plan
from wftop.core.resume.relocate import heal_plan, healed_fold
from wftop.core.resume.request import what_is_left
from wftop.core.system.procs import FakeProcessTable

NOW = 1_800_000_000.0
CORPUS = ["killed", "killed-in-parallel", "mid-failure", "api-errors-429", "clean", "resumed"]


def grown(tmp_path: Path, name: str, calls: int) -> Path:
    """A tree whose run holds ``calls`` more returned calls, each with its transcript,
    after its first line."""
    root = copy_tree(name, tmp_path)
    grow(root, calls)
    return root


def grow(root: Path, calls: int) -> None:
    """``calls`` more returned calls (``g0`` on) in the run of tree ``root``, each with its
    transcript, after the journal's first line."""
    journal = only_journal(root)
    lines = []
    for n in range(calls):
        key, agent = f"v2:grown{n}", f"agrown{n:08d}"
        lines.append(
            json.dumps({"type": "started", "key": key, "agentId": agent, "label": f"g{n}"})
        )
        lines.append(json.dumps({"type": "result", "key": key, "agentId": agent, "result": n}))
        prompt = {"type": "user", "message": {"role": "user", "content": f"do {n}"}}
        (journal.parent / f"agent-{agent}.jsonl").write_text(json.dumps(prompt) + "\n")
    first, rest = journal.read_bytes().split(b"\n", 1)
    journal.write_bytes(first + b"\n" + "\n".join(lines).encode() + b"\n" + rest)


def the_run(root: Path) -> Any:
    (run,) = scan_roots([str(root)], processes=FakeProcessTable(), now=lambda: NOW).runs
    return run


def plan_of(run: Any) -> Any:
    return make_plan(
        run, processes=FakeProcessTable(), now=NOW, claude_bin="claude", cli_version=(2, 1, 332)
    )


@pytest.mark.parametrize(("name", "reads"), [("killed", 0), ("mid-failure", 0)])
def test_a_plan_reads_the_runs_journal_once_at_most(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, reads: int
) -> None:
    """The run as read is the plan's journal; its heal (surgical: mid-failure's failed line
    dropped) is made from its fold, not read again (`wftop.core.resume.healfold`)."""
    run = the_run(copy_tree(name, tmp_path))
    read: list[str] = []
    real = jsonl.JsonlTail.read

    def counted(self: jsonl.JsonlTail) -> jsonl.Batch:
        read.append(self.path)
        return real(self)

    monkeypatch.setattr(jsonl.JsonlTail, "read", counted)
    plan_of(run)
    assert read.count(run.folder.journal) == reads


def test_a_plan_reads_the_transcripts_of_the_calls_it_asks_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed while its last call ran: 500 calls before it return from cache, whatever
    their prompts say; only calls walked after a call that re-runs have theirs read."""
    run = the_run(grown(tmp_path, "killed", 500))
    asked: list[str | None] = []
    real = inputs.agent_prompt
    monkeypatch.setattr(inputs, "agent_prompt", lambda path: asked.append(path) or real(path))
    monkeypatch.setattr(inputs, "agent_tokens", lambda path: asked.append(path) or 0)
    plan = plan_of(run)
    assert len(plan.forecast.cached) > 500
    assert len(asked) <= 2 * len(plan.forecast.live)


def test_a_plan_of_one_run_reads_no_other_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``resume RUN`` reads the runs of that id (and decides which continued which), not the
    whole tree."""
    root = copy_tree("killed", tmp_path)
    other = copy_tree("clean", tmp_path / "other")
    shutil.copytree(other / "projects", root / "projects", dirs_exist_ok=True)
    read: list[str] = []
    real = RunReader.refresh

    def counted(self: RunReader, **options: Any) -> bool:
        read.append(self.folder.run_id)
        return real(self, **options)

    monkeypatch.setattr(RunReader, "refresh", counted)
    killed = only_journal(copy_tree("killed", tmp_path / "again")).parent.name
    (run,) = scan_roots([str(root)], processes=FakeProcessTable(), run_id=killed).runs
    assert read == [killed] and run.run_id == killed


def rekeyed_by_every_call(
    call: Call, rerunning: Any, facts: ForecastInput, spans: Any
) -> str | None:
    """The walk's question as it was asked before: every re-running call in turn, its group
    made and its results' values gathered for each (the oracle of the test below)."""
    prompt = facts.prompt_of(call)
    span = spans.get(call.key)
    if not prompt or span is None:
        return None
    for earlier in rerunning.calls:
        if earlier.phase is not None and earlier.phase == call.phase:
            continue
        ended = spans[earlier.key].earliest_end if earlier.key in spans else None
        if ended is None or span.keyed < ended:
            continue
        group = [
            other
            for other in facts.fold.ordered_calls()
            if other is not call and (other.phase == earlier.phase or other is earlier)
        ]
        leaves: set[str] = set()
        for other in group:
            if other.has_result:
                leaves |= inputs.leaves_of(other)
        if any(leaf in prompt for leaf in leaves):
            return earlier.label
    return None


def random_facts(seed: int) -> ForecastInput:
    """A run of calls in a few phases, some failed or in flight, with prompts that quote
    results of other calls, and spans with overlapping calls."""
    rng = random.Random(seed)
    fold = JournalFold()
    line = 0
    values = [f"v{n}" for n in range(12)]
    for n in range(rng.randrange(5, 40)):
        key, phase = f"k{n}", rng.choice(["A", "B", "C", None])
        line += 1
        record = {"type": "started", "key": key, "agentId": f"a{n}", "label": f"c{n}"}
        fold.feed(line, record | ({"phase": phase} if phase else {}))
        end = rng.random()
        line += 1
        if end < 0.15:
            fold.feed(line, {"type": "failed", "key": key, "agentId": f"a{n}"})
        elif end < 0.9:
            result = {"out": rng.choice(values), "more": [rng.choice(values)]}
            fold.feed(line, {"type": "result", "key": key, "agentId": f"a{n}", "result": result})
    order = fold.ordered_calls()
    spans = {}
    for call in order:
        start = call.first_line + rng.choice([0, 0, 0.25])
        ended = None if call.state.value == "in_flight" else start + rng.randrange(1, 9)
        spans[call.key] = Span(start, ended)
    prompts = {
        call.key: " ".join(rng.sample(values, rng.randrange(0, 3)))
        for call in order
        if rng.random() < 0.8
    }
    return ForecastInput(fold, order, "journal", False, None, prompts=prompts, spans=spans)


@pytest.mark.parametrize("seed", range(60))
def test_the_walk_finds_the_call_that_re_keys_another_as_asking_every_call_did(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Each later call asked every call re-running before it, and made its group each time
    (a run failed early with 100,000 calls after: quadratic); the walk asks each phase
    once. Both forecasts are the same."""
    facts = random_facts(seed)
    quick = predict(facts, "resume-owner")
    monkeypatch.setattr(instant, "_rekeyed_by", rekeyed_by_every_call)
    assert predict(random_facts(seed), "resume-owner") == quick


@pytest.mark.parametrize("name", CORPUS)
def test_every_corpus_forecast_is_the_walk_of_every_call(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    quick = predict(gather(run, cli_version=(2, 1, 332)), "resume-owner")
    monkeypatch.setattr(instant, "_rekeyed_by", rekeyed_by_every_call)
    assert predict(gather(run, cli_version=(2, 1, 332)), "resume-owner") == quick


def test_a_plan_is_made_with_the_cyclic_collector_paused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan builds objects for each call (fates, spends) and none of them in a cycle: the
    collector walked them again and again (0.3-0.4 s of CPU at 100,000 calls), and after
    the plan it collects as before."""
    run = the_run(copy_tree("killed", tmp_path))
    seen: list[bool] = []
    real = plan_module.call_costs
    monkeypatch.setattr(
        plan_module, "call_costs", lambda *args: seen.append(gc.isenabled()) or real(*args)
    )
    assert gc.isenabled()
    plan_of(run)
    assert seen == [False]
    assert gc.isenabled()


def test_a_forecasts_lists_of_labels_are_made_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan, its table and its JSON ask each forecast for its cached and live calls a
    dozen times: each list walks the forecast's calls once (100,000 calls a walk)."""
    run = the_run(copy_tree("mid-failure", tmp_path))
    walked: list[tuple[int, tuple[Fate, ...]]] = []
    real = Forecast.labels

    def labels(self: Forecast, *fates: Fate) -> list[str]:
        walked.append((id(self), fates))
        return real(self, *fates)

    monkeypatch.setattr(Forecast, "labels", labels)
    plan = plan_of(run)
    shown = [plan.to_json(), plan.to_json(), what_is_left(plan)]
    assert shown[0] == shown[1] and "surgical runs" in shown[2]
    assert walked and len(walked) == len(set(walked))


JOURNALS = sorted(str(path) for path in DATA.rglob("journal.jsonl"))


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda path: os.path.relpath(path, DATA))
def test_the_heal_folds_the_journal_once_and_the_failed_calls_lines_again(
    monkeypatch: pytest.MonkeyPatch, journal: str
) -> None:
    """The heal is decided from the lines of the calls that failed (a call folds from its
    own lines): a heal of 100,000 calls folded every line twice. What it drops and the copy's
    fold are those of the heal decided from the whole journal's fold."""
    records = read_all(journal).records
    whole = heal_plan(JournalFold().feed_all(records))
    drop = {
        number
        for number, record in records
        if record.get("type") == "failed" and call_key(record) in whole.drop_keys
    }
    failed = {call_key(record) for _line, record in records if record.get("type") == "failed"}
    own = sum(call_key(record) in failed for _line, record in records)
    folded: list[int] = []
    real = journal_module.fold_whole

    def counted(lines: list[Any], *args: Any) -> Any:
        folded.append(len(lines))
        return real(lines, *args)

    monkeypatch.setattr(journal_module, "fold_whole", counted)
    fold, dropped = healed_fold(records)
    assert sum(folded) <= len(records) + own
    assert dropped == drop
    monkeypatch.setattr(journal_module, "fold_whole", real)
    assert fold == JournalFold().feed_all(relocate.renumbered(records, drop))


def test_a_plans_healed_copy_keeps_results_as_its_read_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan (`resume --dry-run`) reads its run with results as parsed, and so is its
    healed copy folded (packing 100,000 results it holds anyway was a tenth of its heal)."""
    (run,) = mid_failure_read(tmp_path)
    healed: list[JournalFold] = []
    real = plan_module.healed_journal

    def recorded(path: str) -> tuple[JournalFold, set[int]]:
        found = real(path)
        healed.append(found[0])
        return found

    monkeypatch.setattr(plan_module, "healed_journal", recorded)
    plan_of(run)
    assert healed and healed[0] is not run.fold and healed[0].packs is False


def mid_failure_read(tmp_path: Path) -> list[Any]:
    """The runs of a copy of ``mid-failure`` (whose heal drops its failed line) as a plan
    reads them."""
    root = copy_tree("mid-failure", tmp_path)
    return scan_roots([str(root)], processes=FakeProcessTable(), packed=False).runs


def test_a_plans_forecasts_sort_the_damaged_runs_spans_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The forecasts of a run whose heal drops lines (resume-owner's of the run, surgical's
    of its healed copy) share the damaged run's spans, sorted once (100,000 calls: 0.45 s
    each time)."""
    (run,) = mid_failure_read(tmp_path)
    made: list[int] = []
    real = keyorder.Orderings.of.__func__

    def counted(cls: type[keyorder.Orderings], spans: Any) -> keyorder.Orderings:
        made.append(len(spans))
        return real(cls, spans)

    monkeypatch.setattr(keyorder.Orderings, "of", classmethod(counted))
    plan = plan_of(run)
    assert plan.forecasts["surgical"].calls is not plan.forecasts["resume-owner"].calls
    assert made == [len(run.fold.calls)]
