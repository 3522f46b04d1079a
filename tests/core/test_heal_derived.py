"""The fold of a run's healed copy made from the run's own fold (`derived_heal`) is the one
its records give folded as the copy numbers them (`healed_fold`), in every field and
order, wherever it is made: every journal of every tree under ``tests/data`` and records
made by hypothesis (every kind, keyed and keyless, repeats, fields of the wrong type, lines
numbered with gaps); where the fold does not say it (a call that failed twice, a dropped
line that is the last to name an agent, a call in flight taken in again after a result),
none is made and the plan reads the journal again (`healed_journal`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.test_fold_in_one_loop import odd, state
from tests.core.test_reliability_props import records
from tests.corpus import DATA
from wftop.core.read.journal import JournalFold
from wftop.core.read.journalfile import reading_once
from wftop.core.read.jsonl import read_all
from wftop.core.resume import healfold
from wftop.core.resume.healfold import derived_heal, healed_journal
from wftop.core.resume.relocate import heal_plan, healed_fold

JOURNALS = sorted(str(path) for path in DATA.rglob("journal.jsonl"))

Records = list[tuple[int, dict[str, Any]]]


def whole(fold: JournalFold) -> dict[str, Any]:
    """`state` of a fold, its other lines and packing too."""
    return {**state(fold), "others": fold.other_lines, "packs": fold.packs}


def derived_as_folded(numbered: Records, packs: bool = True) -> bool | None:
    """Whether the derived heal of ``numbered`` is the copy's fold; None: none is derived."""
    fold = JournalFold(packs=packs).feed_all(numbered)
    plan = heal_plan(fold)
    if not plan.drop_keys:
        return None
    derived = derived_heal(fold, plan)
    if derived is None:
        return None
    made, drop = derived
    want, dropped = healed_fold(numbered, packs=packs, plan=plan)
    return drop == dropped and whole(made) == whole(want) and made == want


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda path: os.path.relpath(path, DATA))
def test_every_journal_heals_from_its_fold_as_its_copy_folds(journal: str) -> None:
    assert derived_as_folded(read_all(journal).records) in (True, None)


def test_the_failed_trees_heal_from_their_folds() -> None:
    made = [derived_as_folded(read_all(path).records, packs=False) for path in JOURNALS]
    assert made.count(True) >= 3 and False not in made


@settings(
    max_examples=int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(st.tuples(st.integers(1, 3), st.one_of(records, records, records, odd)), max_size=40),
    st.booleans(),
)
def test_any_records_heal_from_their_fold_as_their_copy_folds(
    gapped: list[tuple[int, dict[str, Any]]], packs: bool
) -> None:
    numbered, line = [], 0
    for gap, record in gapped:
        line += gap
        numbered.append((line, record))
    assert derived_as_folded(numbered, packs) in (True, None)


KINDS = {"s": "started", "r": "result", "f": "failed"}
script = st.lists(st.sampled_from(["s", "sr", "sf", "s", "sr", "ssf"]), min_size=1, max_size=2)


@st.composite
def journals(draw: st.DrawFn) -> list[dict[str, Any]]:
    """The lines of up to 8 calls, each started and returned or failed once or twice, lines
    of calls interleaved at random, a few lines of any kind put among them: a heal that
    can be derived about one journal in fifteen, the others each a case that cannot."""
    scripts = [list("".join(parts)) for parts in draw(st.lists(script, max_size=8))]
    rng = draw(st.randoms(use_true_random=False))
    lines: list[dict[str, Any]] = []
    while any(scripts):
        at = rng.choice([place for place, left in enumerate(scripts) if left])
        agent = draw(st.sampled_from([f"a{at}", f"a{at}", "", "b7"]))
        kind = KINDS[scripts[at].pop(0)]
        lines.append({"type": kind, "key": f"v2:{at}", "agentId": agent, "label": f"c{at}"})
    for place, record in draw(
        st.lists(st.tuples(st.integers(0, 40), st.one_of(records, odd)), max_size=3)
    ):
        lines.insert(place, record)
    return lines


@settings(
    max_examples=int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "600")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(journals(), st.lists(st.integers(1, 3), min_size=60, max_size=60), st.booleans())
def test_calls_that_failed_heal_from_their_fold_as_their_copy_folds(
    lines: list[dict[str, Any]], gaps: list[int], packs: bool
) -> None:
    numbered, line = [], 0
    for gap, record in zip(gaps, lines, strict=False):
        line += gap
        numbered.append((line, record))
    numbered += [(line + place, record) for place, record in enumerate(lines[len(gaps) :], 1)]
    assert derived_as_folded(numbered, packs) in (True, None)


def started(key: str, agent: str, label: str = "") -> dict[str, Any]:
    return {"type": "started", "key": key, "agentId": agent, "label": label or key}


def result(key: str, agent: str) -> dict[str, Any]:
    return {"type": "result", "key": key, "agentId": agent, "result": {"ok": True}}


def failed(key: str, agent: str) -> dict[str, Any]:
    return {"type": "failed", "key": key, "agentId": agent}


HEALED = [
    started("v2:a", "a1"), result("v2:a", "a1"),
    started("v2:b", "a2"), failed("v2:b", "a2"),  # healed: in flight again
    started("v2:c", "a3"), started("v2:d", "a4"), result("v2:c", "a3"),
]  # fmt: skip

NOT_SAID = {
    "failed twice": [*HEALED, started("v2:b", "a5"), failed("v2:b", "a5"), started("v2:e", "a6")],
    "last agent named by a dropped line": HEALED[:4],
    "in flight again after a result": [*HEALED, started("v2:a", "a7"), result("v2:d", "a4")],
    "failed before it started": [*HEALED, failed("v2:x", "a8"), started("v2:x", "a9")],
}


def numbered(lines: list[dict[str, Any]]) -> Records:
    return list(enumerate(lines, 1))


def test_a_call_that_failed_once_at_its_end_heals_from_the_fold() -> None:
    assert derived_as_folded(numbered(HEALED)) is True


@pytest.mark.parametrize("case", NOT_SAID)
def test_what_the_fold_does_not_say_is_not_derived(case: str) -> None:
    lines = numbered(NOT_SAID[case])
    fold = JournalFold().feed_all(lines)
    plan = heal_plan(fold)
    assert plan.drop_keys and derived_heal(fold, plan) is None


def write(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return str(path)


@pytest.mark.parametrize("case", ["healed", *NOT_SAID])
def test_a_plans_heal_reads_the_journal_again_only_where_its_fold_does_not_say_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    lines = HEALED if case == "healed" else NOT_SAID[case]
    path = write(tmp_path / "journal.jsonl", lines)
    fold = JournalFold().feed_all(read_all(path).records)
    reads: list[str] = []

    def counted(where: str) -> Any:
        reads.append(where)
        return read_all(where)

    monkeypatch.setattr(healfold, "read_all", counted)
    info = os.stat(path)
    with reading_once({path: ((info.st_size, info.st_mtime), fold)}):
        made, drop = healed_journal(path)
    assert reads == ([] if case == "healed" else [path])
    want, dropped = healed_fold(read_all(path).records)
    assert drop == dropped and whole(made) == whole(want)


def test_a_name_given_to_a_healed_call_leaves_the_runs_call_as_it_was() -> None:
    lines = [{**line, "label": ""} if line["type"] == "started" else line for line in HEALED]
    fold = JournalFold().feed_all(numbered(lines))
    plan = heal_plan(fold)
    derived = derived_heal(fold, plan)
    assert derived is not None and fold.unlabelled
    healed = derived[0]
    before = {key: (call.label, call.phase) for key, call in fold.calls.items()}
    assert healed.name({"a1": ("one", "P"), "a3": ("three", "P")})
    assert {key: (call.label, call.phase) for key, call in fold.calls.items()} == before
    assert healed.calls["v2:a"].label == "one" and fold.calls["v2:a"].label == "a1"
