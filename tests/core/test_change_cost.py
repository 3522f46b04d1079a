"""What one appended line costs the live index does not grow with the run it joins.

A run of tens of thousands of calls gets a line: the index must re-read that line, not copy,
walk or stat what the run made before it. Each test holds one step of that path to the work
its change needs (memory allocated, files looked at, bytes read: counts, not clocks), and
checks it gives what the whole walk gives.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_index import rows
from tests.corpus import copy_tree, only_journal
from tests.memory_kit import held
from wftop.core.calls import call_states
from wftop.core.cost.tally import ExactSum
from wftop.core.cost.tokens import Spend, Tokens, exact_total
from wftop.core.index import reader as reader_module
from wftop.core.index import supersede
from wftop.core.index.coldpass import scan_roots
from wftop.core.index.live import LiveIndex
from wftop.core.model import Run, Status, TranscriptStats, count_calls
from wftop.core.read import shared
from wftop.core.read.failures import Failure
from wftop.core.read.journal import JournalFold
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import NO_OWNER
from wftop.core.read.usage import AgentUsages, RerunTokens
from wftop.core.row import RunRow, Tally
from wftop.core.system.procs import FakeProcess, FakeProcessTable

CALLS = 20_000


def started(key: str, agent: str, label: str | None = None) -> dict[str, Any]:
    return {"type": "started", "key": key, "agentId": agent, "label": label or key}


def returned(key: str, agent: str) -> dict[str, Any]:
    return {"type": "result", "key": key, "agentId": agent, "result": {"ok": True}}


def big_fold(calls: int = CALLS) -> JournalFold:
    records = []
    for n in range(calls):
        records += [(2 * n + 1, started(f"k{n}", f"a{n}")), (2 * n + 2, returned(f"k{n}", f"a{n}"))]
    return JournalFold().feed_all(records)


def test_a_line_after_a_snapshot_copies_what_it_changes_not_the_run() -> None:
    """Every change set holds a snapshot of the fold; the line after one used to copy the
    key table of every call (1.4 MB for 20,000 calls)."""
    fold = big_fold()
    fold.snapshot()
    line = iter(range(10**6, 2 * 10**6))

    def one_change() -> JournalFold:
        fold.feed(next(line), started("k5", "again"))
        return fold.snapshot()  # held, as a change set holds it: the copy is what it keeps

    one_change()
    _held, kept = held(one_change)
    assert kept < 32 * 1024, kept


def shape(fold: JournalFold) -> Any:
    return (
        [
            (c.key, c.order, c.state, c.label, c.agent_ids, c.results_seen)
            for c in fold.calls.values()
        ],
        {key: fold.calls[key].label for key in fold.calls},
        [fold.calls[key].order for key in fold.open_keys],
        [fold.calls[key].order for key in fold.failed_keys],
        list(fold.rerun_agent_ids),
        (fold.started_lines, fold.result_lines, fold.failed_lines, len(fold.calls)),
    )


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Chunks of four calls, so a few hundred calls cross many chunk edges."""
    monkeypatch.setattr(shared, "CHUNK_BITS", 2)
    yield


@pytest.mark.parametrize("seed", range(6))
def test_every_snapshot_stays_the_fold_of_the_lines_before_it(
    small_chunks: None, seed: int
) -> None:
    """Snapshots taken between random lines each equal a fresh fold of the lines up to it,
    however the fold went on (new calls, attempts, results and failures of old ones)."""
    rng = random.Random(seed)
    live = JournalFold()
    records: list[tuple[int, dict[str, Any]]] = []
    taken: list[tuple[JournalFold, int]] = []
    for line in range(1, 600):
        key = f"k{rng.randrange(line // 3 + 1)}"
        kind = rng.choice(["started", "started", "result", "failed"])
        record: dict[str, Any] = {"type": kind, "key": key, "agentId": f"a{line}"}
        if kind == "started" and rng.random() < 0.5:
            record["label"] = rng.choice(["x", "y", f"l{line}"])
        records.append((line, record))
        live.feed(line, record)
        if rng.random() < 0.2:
            taken.append((live.snapshot(), len(records)))
    for snapshot, count in taken:
        assert shape(snapshot) == shape(JournalFold().feed_all(records[:count]))
    assert shape(live) == shape(JournalFold().feed_all(records))


def test_counting_a_runs_calls_by_state_does_not_walk_them() -> None:
    """A run with failed calls shows how many calls stand in each state: that walked every
    call at every change; the failed ones are counted from the run's failures by key."""
    records = [(1, {"type": "started", "key": "lone", "agentId": "z1", "label": "w"})]
    records.append((2, {"type": "failed", "key": "lone", "agentId": "z1"}))
    for n in range(3, 3000):
        records.append((n, started(f"k{n}", f"a{n}", label="w" if n % 500 == 0 else None)))
    fold = JournalFold().feed_all(records)
    run = the_run_of(fold)
    walked = Counter(view.state.value for view in call_states(run))

    class Unwalkable(dict[str, Any]):
        def values(self) -> Any:
            raise AssertionError("every call walked")

        def __iter__(self) -> Any:
            raise AssertionError("every call walked")

    fold.calls = Unwalkable(fold.calls)
    assert count_calls(run) == (0, 0, 1, 2997, 0) == tuple(walked[name] for name in Tally._fields)


def the_run_of(fold: JournalFold) -> Run:
    """A running run of ``fold``, its one failed call failed (as the reader finds it)."""
    folder = RunFolder("/r", "p", "s", "wf_aaaaaa", "/r/x", "/r/x")
    lone = fold.calls["lone"]
    failure = Failure(lone.key, lone.label, "network", None, "journal")
    return Run(
        folder, fold, None, False, NO_OWNER, Status.RUNNING, None, None, None, 0, None,
        TranscriptStats(), None, failures=(failure,),
    )  # fmt: skip


def live_tree(tmp_path: Path, calls: int) -> tuple[Path, Path, FakeProcessTable]:
    """The killed tree, its run grown to ``calls`` calls (an agent transcript each) and its
    session owned by a live process."""
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    with journal.open("a") as handle:
        for n in range(calls):
            (journal.parent / f"agent-ag{n}.jsonl").write_text('{"type":"user"}\n')
            handle.write(json.dumps(started(f"v2:g{n}", f"ag{n}")) + "\n")
            handle.write(json.dumps(returned(f"v2:g{n}", f"ag{n}")) + "\n")
    (session,) = {path.parent.name for path in root.glob("projects/*/*/subagents")}
    (root / "sessions").mkdir(exist_ok=True)
    record = {"pid": 4242, "sessionId": session, "procStart": "777"}
    (root / "sessions" / "4242.json").write_text(json.dumps(record))
    return root, journal, FakeProcessTable({4242: FakeProcess("777")})


def test_a_line_of_a_live_run_stats_its_agent_not_every_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live run's transcripts tell running from stalled; a journal line used to list and
    stat every one of them (a run of 30,000 calls: 30,000 stats a line)."""
    root, journal, owner = live_tree(tmp_path, 300)
    moment = journal.stat().st_mtime + 5
    index = LiveIndex([str(root)], processes=owner, now=lambda: moment)
    (run,) = index.cold_start().added
    assert run.status.value == "running" and run.transcripts.count > 300
    listed: list[str] = []
    real_scandir = os.scandir
    monkeypatch.setattr(
        reader_module.os, "scandir", lambda path: listed.append(path) or real_scandir(path)
    )
    agent = journal.parent / "agent-late.jsonl"
    agent.write_text('{"type":"user"}\n')
    os.utime(agent, (moment, moment))
    with journal.open("a") as handle:
        handle.write(json.dumps(started("v2:late", "late")) + "\n")
    change = index.apply(index.classify([str(journal), str(agent)]))
    assert change is not None and listed == []
    (after,) = change.changed
    assert after.transcripts.count == run.transcripts.count + 1 and after.last_activity == moment
    fresh = scan_roots([str(root)], processes=owner, now=lambda: moment).runs
    assert rows(index.runs()) == rows(fresh)


def test_the_tokens_of_done_re_runs_are_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resume that re-ran thousands of calls: each journal line used to stat every re-run
    agent's transcript; only the agents still running are read again."""
    folder = tmp_path / "wf_x"
    folder.mkdir()
    agents = [f"a{n:04x}" for n in range(400)]
    for n, agent in enumerate(agents):
        usage = {"message": {"usage": {"input_tokens": n, "output_tokens": 1}}}
        line = {"type": "assistant", **usage}
        (folder / f"agent-{agent}.jsonl").write_text(json.dumps(line) + "\n")
    tally = RerunTokens()
    first = tally.tokens(str(folder), agents, running={agents[-1]})
    assert first == AgentUsages().tokens(str(folder), agents)
    looked: list[str] = []
    real_stat = os.stat
    monkeypatch.setattr(
        "wftop.core.read.memo.os.stat", lambda path: looked.append(path) or real_stat(path)
    )
    assert tally.tokens(str(folder), agents, running={agents[-1]}) == first
    assert [Path(path).name for path in looked] == [f"agent-{agents[-1]}.jsonl"]


def lines_of(path: Path) -> list[bytes] | None:
    """What a journal is compared by: its lines, ``failed`` lines and empty ones left out."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    return [line for line in raw.split(b"\n") if line and b'"type":"failed"' not in line]


@pytest.mark.parametrize("seed", range(40))
def test_a_chain_tells_a_prefix_as_the_lines_do(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    pool = [b'{"type":"started","key":"k%d"}' % n for n in range(6)]
    pool += [b'{"type":"failed","key":"k1"}', b"", b"\r", b"x"]
    older, newer = tmp_path / "older.jsonl", tmp_path / "newer.jsonl"
    head = b"\n".join(rng.choice(pool) for _ in range(rng.randrange(6)))
    older.write_bytes(head + rng.choice([b"", b"\n"]))
    tail = b"\n".join(rng.choice(pool) for _ in range(rng.randrange(4)))
    newer.write_bytes(rng.choice([head, head.replace(b"k2", b"k3")]) + b"\n" + tail)
    chains = {}
    for path in (older, newer):
        chains[path] = chain = supersede.Chain(str(path))
        chain.update()
    mine, theirs = lines_of(older), lines_of(newer)
    assert mine is not None and theirs is not None
    assert (len(chains[older]), len(chains[newer])) == (len(mine), len(theirs))
    expected = bool(mine) and len(theirs) > len(mine) and theirs[: len(mine)] == mine
    told = len(chains[newer]) > len(mine) > 0 and chains[newer].digest(len(mine)) == chains[
        older
    ].digest(len(mine))
    assert told == expected


def test_a_continued_run_growing_is_read_for_what_was_appended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run copied into a new session and going on there: each of its lines used to read
    both journals whole to decide again that the old copy is superseded."""
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    session = journal.parents[3]
    copy = session.parent / "5e55c0de-96da-45a1-841d-2b381f965487"
    target = copy / journal.relative_to(session)
    target.parent.mkdir(parents=True)
    target.write_bytes(journal.read_bytes() + json.dumps(started("v2:n0", "n0")).encode() + b"\n")
    index = LiveIndex([str(root)], processes=FakeProcessTable())
    index.cold_start()
    read: list[int] = []
    real_open = open

    class Counted:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> Any:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def fileno(self) -> int:
            return int(self.handle.fileno())

        def seek(self, at: int) -> None:
            self.handle.seek(at)

        def read(self) -> bytes:
            data: bytes = self.handle.read()
            read.append(len(data))
            return data

    monkeypatch.setattr(
        supersede, "open", lambda path, mode: Counted(real_open(path, mode)), raising=False
    )
    appended = 0
    for n in range(1, 40):
        line = json.dumps(started(f"v2:n{n}", f"n{n}")).encode() + b"\n"
        with target.open("ab") as handle:
            handle.write(line)
        index.apply(index.classify([str(target)]))
        if n == 1:  # the first change reads both journals whole
            read.clear()
        else:
            appended += len(line)
    assert 0 < sum(read) <= appended
    fresh = scan_roots([str(root)], processes=FakeProcessTable()).runs
    assert rows(index.runs()) == rows(fresh)
    assert {run.status.value for run in index.runs()} == {"superseded", "dead"}


def spend_line(message: str, model: str, tokens: int) -> str:
    usage = {"input_tokens": tokens, "output_tokens": tokens // 10, "cache_read_input_tokens": 7}
    body = {"id": message, "role": "assistant", "model": model, "usage": usage}
    line = {"type": "assistant", "requestId": f"r{message}", "message": body}
    return json.dumps(line, separators=(",", ":")) + "\n"  # compact, as the CLI writes


def row_of(run: Any) -> dict[str, Any]:
    return RunRow.of(run).to_json()


def test_what_a_growing_run_spent_is_kept_as_each_transcript_changes(tmp_path: Path) -> None:
    """A run's row says what it spent; a live index keeps it as lines come and transcripts
    grow, equal to what reading every transcript of the run gives (to the millionth of a
    dollar, whatever order the transcripts were read in)."""
    root = copy_tree("costs", tmp_path)
    journal = only_journal(root)
    index = LiveIndex([str(root)], processes=FakeProcessTable(), spends=True)
    index.cold_start()

    def agrees() -> None:
        fresh = scan_roots([str(root)], processes=FakeProcessTable()).runs
        assert [row_of(run) for run in index.runs()] == [row_of(run) for run in fresh]

    agrees()
    (first, *_rest) = sorted(journal.parent.glob("agent-*.jsonl"))
    with first.open("a") as handle:
        handle.write(spend_line("m-late", "claude-opus-5-5", 1234))
    assert index.apply(index.classify([str(first)])) is not None
    agrees()
    agent = journal.parent / "agent-anew0000000000001.jsonl"
    agent.write_text(spend_line("m-new", "claude-sonnet-4-5", 999) + spend_line("m-odd", "x-1", 5))
    with journal.open("a") as handle:
        handle.write(json.dumps(started("v2:new", "anew0000000000001")) + "\n")
    index.apply(index.classify([str(agent), str(journal)]))
    agrees()
    (run,) = index.runs()
    assert run.spend is not None and "x-1" in run.spend.unpriced_models
    agent.write_text(spend_line("m-new", "claude-sonnet-4-5", 999))
    index.apply(index.classify([str(agent)]))
    agrees()
    assert "x-1" not in row_of(index.runs()[0])["unpriced_models"]


def test_a_line_of_a_live_run_reads_what_its_new_agent_spent_not_every_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row says what its run spent: made at every change, it read (or stat'ed) every
    attempt's transcript (a run of 10,000 calls: 44 ms of CPU a line)."""
    root, journal, owner = live_tree(tmp_path, 300)
    index = LiveIndex([str(root)], processes=owner, spends=True)
    (run,) = index.cold_start().added
    row_of(run)
    looked: list[str] = []
    real = os.stat

    def counted(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        looked.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted)
    agent = journal.parent / "agent-late.jsonl"
    agent.write_text(spend_line("m1", "claude-opus-5-5", 50))
    with journal.open("a") as handle:
        handle.write(json.dumps(started("v2:late", "late")) + "\n")
    change = index.apply(index.classify([str(journal), str(agent)]))
    assert change is not None
    (after,) = change.changed
    assert row_of(after)["tokens"]["input"] >= 50
    assert {Path(path).name for path in looked if "agent-" in path} == {"agent-late.jsonl"}


@pytest.mark.parametrize("seed", range(20))
def test_a_tally_is_the_exact_total_whatever_order_it_took_them_in(seed: int) -> None:
    rng = random.Random(seed)
    models = ["claude-opus-5-5", "claude-sonnet-4-5", "unknown-model"]

    def spend() -> Spend:
        unpriced = rng.random() < 0.1
        tokens = Tokens(*(rng.randrange(5000) for _ in range(5)))
        cost = None if unpriced else rng.random() * rng.choice([1e-6, 1e-3, 1.0, 37.0])
        return Spend(tokens, cost, (rng.choice(models),) if unpriced else (), rng.randrange(9))

    spent = [spend() for _ in range(rng.randrange(1, 60))]
    exact = ExactSum()
    for item in spent:
        exact.add(item, 1)
    taken = rng.sample(spent, len(spent) // 3)
    for item in taken:
        exact.add(item, -1)
        exact.add(item, 1)
    assert exact.spend() == exact_total(rng.sample(spent, len(spent)))


def test_the_session_transcript_is_read_for_failure_notices_once_while_it_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed call whose journal line and transcript say nothing of why is looked for in
    the session's completion notices: that read the whole session transcript at every
    change of the run; now again only when the transcript changed."""
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    with journal.open("a") as handle:
        handle.write(json.dumps({"type": "failed", "key": "v2:gone", "agentId": "agone"}) + "\n")
    read: list[str] = []
    real = reader_module.notice_failures
    monkeypatch.setattr(
        reader_module, "notice_failures", lambda path, run: read.append(path) or real(path, run)
    )
    index = LiveIndex([str(root)], processes=FakeProcessTable())
    (run,) = index.cold_start().added
    assert [failure.key for failure in run.failures] == ["v2:gone"]
    for n in range(3):
        with journal.open("a") as handle:
            handle.write(json.dumps(started(f"v2:more{n}", f"amore{n}")) + "\n")
        index.apply(index.classify([str(journal)]))
    assert len(read) == 1
    (transcript,) = root.glob("projects/*/*.jsonl")
    with transcript.open("a") as handle:
        handle.write("{}\n")
    with journal.open("a") as handle:
        handle.write(json.dumps(started("v2:last", "alast")) + "\n")
    index.apply(index.classify([str(journal)]))
    assert len(read) == 2
