"""A run read whole is folded in one loop (`fold_whole`, no call per line), what its
records fed one by one make, and what a fold whose calls a snapshot shares makes fed the rest
(each call copied before it changes), call for call and field for field: every journal of
every tree under ``tests/data`` (the CLI's current and older builds, forensics' damaged
sessions, the fixtures), and records made by hypothesis (every kind, keyed and keyless,
repeats, fields of the wrong type). What the fold keeps of a row is held against the
counting fold's own loop by ``tests/core/test_counting_fold.py``."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fuzz import KEYS, LABELS, TYPES
from tests.core.test_reliability_props import records
from tests.corpus import DATA
from wftop.core.read import foldcall
from wftop.core.read import journal as journal_module
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import read_all

JOURNALS = sorted(str(path) for path in DATA.rglob("journal.jsonl"))


def state(fold: JournalFold) -> dict[str, Any]:
    """Everything a fold holds, in order."""
    return {
        "calls": list(fold.calls.items()),
        "counts": (fold.started_lines, fold.result_lines, fold.failed_lines, fold.keyless_lines),
        "restore": fold.restore_state,
        "last_agent": fold.last_agent_id,
        "open": list(fold.open_keys),
        "failed": list(fold.failed_keys),
        "unlabelled": list(fold.unlabelled),
        "reruns": list(fold.rerun_agent_ids),
    }


def one_by_one(numbered: list[tuple[int, dict[str, Any]]]) -> JournalFold:
    fold = JournalFold()
    for line, record in numbered:
        fold.feed(line, record)
    return fold


def test_there_are_journals_of_every_kind() -> None:
    assert len(JOURNALS) >= 20


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda path: os.path.relpath(path, DATA))
def test_every_journal_folds_in_one_loop_as_record_by_record(journal: str) -> None:
    numbered = read_all(journal).records
    whole = JournalFold().feed_all(numbered)
    assert state(whole) == state(one_by_one(numbered))


odd = st.fixed_dictionaries(
    {"type": st.sampled_from([*TYPES, None, 3])},
    optional={
        "key": st.sampled_from([*KEYS, "", None, 7, "agent:a1"]),
        "agentId": st.sampled_from(["a1", "a2", "", None, 5]),
        "label": st.sampled_from([*LABELS, None, ["a1"]]),
        "phase": st.sampled_from(["P", "", None, 1]),
        "result": st.sampled_from([None, {"n": 1}, [1, "x"], "text", float("inf")]),
    },
)


@settings(
    max_examples=int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(st.tuples(st.integers(1, 60), st.one_of(records, odd)), max_size=40))
def test_any_records_fold_in_one_loop_as_record_by_record(
    numbered: list[tuple[int, dict[str, Any]]],
) -> None:
    whole = JournalFold().feed_all(numbered)
    assert state(whole) == state(one_by_one(numbered))
    after = JournalFold().feed_all(numbered[: len(numbered) // 2])
    after.snapshot()  # its calls shared from here: the rest fed line by line
    after.feed_all(numbered[len(numbered) // 2 :])
    assert state(after) == state(whole)


def test_a_run_read_whole_is_folded_in_one_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loops counted, not timed: a plan folds 200,000 lines, and a call of a method per line
    (two for each new call) was a third of its fold. A fold whose calls a snapshot shares
    still folds line by line (each call it changes copied first)."""
    numbered = read_all(next(path for path in JOURNALS if "corpus/killed/" in path)).records
    loops: list[int] = []
    real = journal_module.fold_whole

    def counted(records: list[tuple[int, dict[str, Any]]], *rest: Any) -> Any:
        loops.append(len(records))
        return real(records, *rest)

    monkeypatch.setattr(journal_module, "fold_whole", counted)
    fold = JournalFold().feed_all(numbered)
    assert loops == [len(numbered)] and len(fold.calls) >= 5
    fold.snapshot()
    fold.feed_all(numbered)
    assert loops[1:] == [1] * len(numbered)


def test_the_fold_makes_a_keyed_call_by_position(monkeypatch: pytest.MonkeyPatch) -> None:
    """A class called with a keyword is handed a dict of them (a fifth of making a call,
    100,000 of them in a plan): the fold makes each keyed call by position, its key, place
    and first line first (a call made whole at its ``started`` line is not handed to its
    __init__ at all: its fields are set where it is made), and the call is the one those
    keywords make."""
    numbered = [
        (1, {"type": "started", "key": "k1", "agentId": "a1", "label": "one"}),
        (2, {"type": "started", "agentId": "a2"}),  # keyless: a call of its agent's own
        (3, {"type": "failed", "key": "k2", "agentId": "a3"}),
        (4, {"type": "result", "key": "k1", "agentId": "a1", "result": {"n": 1}}),
    ]
    made: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    class Counted(foldcall.Call):
        __slots__ = ()

        def __init__(self, *args: Any, **keywords: Any) -> None:
            made.append((args, keywords))
            super().__init__(*args, **keywords)

    monkeypatch.setattr(foldcall, "Call", Counted)
    fold = JournalFold().feed_all(numbered)
    assert [keywords for args, keywords in made] == [{"keyless": True}, {}]
    made_at = [args[:3] for args, keywords in made]
    assert made_at == [("agent:a2", 1, 2), ("k2", 2, 3)]
    whole = fold.calls["k1"]
    assert type(whole) is Counted and (whole.order, whole.first_line, whole.label) == (0, 1, "one")
    for key, order, line in (args[:3] for args, keywords in made if not keywords):
        call = fold.calls[key]
        assert (call.order, call.first_line) == (order, line) and not call.keyless
