"""A plan of 100,000 calls makes no list of every call where one call or a count answers:
the CLI build that wrote the journal is asked of its first call, and a journal with no
``failed`` line has no line for a heal to drop (a list of the calls refused, not timed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.corpus import copy_tree, only_journal
from wftop.core.forecast.launchinfo import writer_version
from wftop.core.index.coldpass import scan_roots
from wftop.core.resume.relocate import fold_lines, heal_plan
from wftop.core.system.procs import FakeProcessTable


def no_list() -> Any:
    raise AssertionError("a list of every call")


@pytest.mark.parametrize("name", ["killed", "resumed", "mid-failure"])
def test_the_journals_writer_is_asked_of_its_first_call(name: str, tmp_path: Path) -> None:
    (run,) = scan_roots([str(copy_tree(name, tmp_path))], processes=FakeProcessTable()).runs
    found = writer_version(run)
    assert found is not None
    run.fold.ordered_calls = no_list  # type: ignore[method-assign]
    assert writer_version(run) == found


@pytest.mark.parametrize(("name", "dropped"), [("killed", []), ("mid-failure", ["a3"])])
def test_a_journal_with_no_failed_line_has_nothing_for_a_heal_to_drop(
    name: str, dropped: list[str], tmp_path: Path
) -> None:
    fold, _ = fold_lines(only_journal(copy_tree(name, tmp_path)))
    if not fold.failed_lines:
        fold.ordered_calls = no_list  # type: ignore[method-assign]
    plan = heal_plan(fold)
    assert [fold.calls[key].label for key in plan.drop_keys] == dropped
    assert plan.kept == ()
