"""The heal's rules on real and hand-made journals.

The real CLI resuming a relocated or healed copy: ``tests/e2e/test_realcli_relocated_resume.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.corpus import copy_tree, only_journal
from tests.relocate_kit import (
    NEW_SID,
    RUN,
    failed,
    journal_at,
    key,
    line,
    result,
    started,
    states,
)
from wftop.core.read.journal import CallState
from wftop.core.resume.relocate import fold_lines, heal_plan, healed_fold, relocate_journal


@pytest.fixture
def target_session(tmp_path: Path) -> Path:
    return tmp_path / "projects" / "-proj" / NEW_SID


# -- the heal on real journals -----------------------------------------------------------------


def test_heal_drops_only_the_failed_line_of_the_failed_call(tmp_path, target_session):
    source = only_journal(copy_tree("mid-failure", tmp_path))
    raw = source.read_bytes().splitlines(keepends=True)
    done = relocate_journal(source, target_session, source.parent.name, heal=True)
    assert [(d.line, d.label, d.agent_id) for d in done.dropped] == [
        (10, "a3", "ae6bf04ed763901ff")
    ]
    assert done.target.read_bytes() == b"".join(raw[:9] + raw[10:])
    before, after = states(source), states(done.target)
    a3 = done.dropped[0].key
    assert before[a3][0] is CallState.FAILED
    assert after[a3] == (CallState.IN_FLIGHT, False, False, False, False, 1)
    assert {k: v for k, v in after.items() if k != a3} == {
        k: v for k, v in before.items() if k != a3
    }


def test_heal_of_the_fanout_failure_drops_b2_only(tmp_path, target_session):
    source = only_journal(copy_tree("fanout-failure", tmp_path))
    done = relocate_journal(source, target_session, source.parent.name, heal=True)
    assert [(d.line, d.label) for d in done.dropped] == [(18, "b2")]
    assert done.kept == ()


def test_a_call_that_failed_and_later_returned_keeps_its_failed_line(tmp_path, target_session):
    source = only_journal(copy_tree("mid-failure-resumed", tmp_path))
    done = relocate_journal(source, target_session, source.parent.name, heal=True)
    assert done.dropped == ()
    assert [(k.label, k.reason.split(":")[0]) for k in done.kept] == [
        ("a3", "failed, then returned a result")
    ]
    assert done.target.read_bytes() == source.read_bytes()


def test_a_journal_of_an_older_cli_without_failed_lines_is_copied_as_is(tmp_path, target_session):
    source = only_journal(copy_tree("2.1.207-mid-failure", tmp_path))
    done = relocate_journal(source, target_session, source.parent.name, heal=True)
    assert (done.dropped, done.kept) == ((), ())
    assert done.target.read_bytes() == source.read_bytes()


# -- the heal's edge cases (hand-made journals) -----------------------------------------------

EDGE_CASES = {
    "failed with an empty agentId after a start": (
        [started(1, "a1", "x"), failed(1, "")],
        [2],
        None,
    ),
    "never started (agentId empty, no started line)": ([failed(1, "")], [], "never started"),
    "keyless old lines": (
        [line(type="started", agentId="a1"), line(type="failed", agentId="a1")],
        [],
        "keyless",
    ),
    "demoted, then failed": (
        [started(1, "a1", "x"), result(1, "a1"), started(1, "a2", "x"), failed(1, "a2")],
        [],
        "a newer attempt demoted",
    ),
    "failed, re-run still in flight": (
        [started(1, "a1", "x"), failed(1, "a1"), started(1, "a2", "x")],
        [2],
        None,
    ),
    "failed twice": (
        [started(1, "a1", "x"), failed(1, "a1"), started(1, "a2", "x"), failed(1, "a2")],
        [2, 4],
        None,
    ),
    "two orchestrators: a result, then a late failure": (
        [started(1, "a1", "x"), started(1, "a2", "x"), result(1, "a2"), failed(1, "a1")],
        [],
        "an earlier result",
    ),
    "failed, then returned (replaced chain)": (
        [started(1, "a1", "x"), failed(1, "a1"), started(1, "a2", "x"), result(1, "a2")],
        [],
        "failed, then returned",
    ),
}


@pytest.mark.parametrize("name", list(EDGE_CASES))
def test_heal_edge_cases(tmp_path, target_session, name):
    lines, dropped_lines, kept_reason = EDGE_CASES[name]
    source = journal_at(tmp_path, b'{"type":"launched"}\n' + b"".join(lines))
    done = relocate_journal(source, target_session, RUN, heal=True)
    assert [d.line - 1 for d in done.dropped] == dropped_lines
    expected = b'{"type":"launched"}\n' + b"".join(
        raw for number, raw in enumerate(lines, 1) if number not in dropped_lines
    )
    assert done.target.read_bytes() == expected
    if kept_reason is None:
        assert done.kept == ()
        assert all(s[0] is CallState.IN_FLIGHT and not s[2] for s in states(done.target).values())
    else:
        assert len(done.kept) == 1 and kept_reason in done.kept[0].reason


def test_heal_leaves_other_calls_and_odd_lines_untouched(tmp_path, target_session):
    content = b"".join(
        [
            b'{"type":"launched"}\n',
            started(1, "a1", "one"),
            result(1, "a1"),
            b"not json at all\n",
            b"\n",
            started(2, "a2", "two"),
            started(3, "a3", "three"),
            failed(3, "a3"),
            b'{"type":"failed","key":"' + key(2).encode() + b'","agentId":"a2\xff"}\n',
            b'{"type":"resumed"}\n',
            b'{"type":"future-kind","x":1}\n',
        ]
    )
    source = journal_at(tmp_path, content)
    done = relocate_journal(source, target_session, RUN, heal=True)
    # The failed line with invalid UTF-8 is read the CLI's way (replacement character) and dropped.
    assert sorted((d.line, d.label) for d in done.dropped) == [(8, "three"), (9, "two")]
    kept_lines = content.splitlines(keepends=True)
    assert done.target.read_bytes() == b"".join(kept_lines[:7] + kept_lines[9:])


def test_heal_plan_is_usable_on_a_fold_alone(tmp_path):
    source = only_journal(copy_tree("mid-failure", tmp_path))
    fold, _ = fold_lines(source)
    plan = heal_plan(fold)
    assert [fold.calls[k].label for k in plan.drop_keys] == ["a3"]


def test_healed_fold_matches_what_the_copy_reads(tmp_path, target_session):
    from wftop.core.read.jsonl import read_all

    for name in ("mid-failure", "fanout-failure", "mid-failure-resumed"):
        source = only_journal(copy_tree(name, tmp_path / name))
        fold, drop = healed_fold(read_all(source).records)
        done = relocate_journal(
            source,
            target_session.parent / name.replace("-", "") / NEW_SID,
            source.parent.name,
            heal=True,
        )
        assert drop == {d.line for d in done.dropped}
        copied, _ = fold_lines(done.target)
        assert {k: (c.state, c.failed) for k, c in fold.calls.items()} == {
            k: (c.state, c.failed) for k, c in copied.calls.items()
        }


def test_malformed_keys_do_not_break_the_heal(tmp_path, target_session):
    content = (
        b'{"type":"launched"}\n'
        + started(1, "a1", "x")
        + failed(1, "a1")
        + b'{"type":"failed","key":["not","a","string"],"agentId":"a9"}\n'
    )
    source = journal_at(tmp_path, content)
    done = relocate_journal(source, target_session, RUN, heal=True)
    assert [d.line for d in done.dropped] == [3]
    assert done.target.read_bytes().endswith(b'"agentId":"a9"}\n')
