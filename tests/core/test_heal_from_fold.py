"""A plan's heal is decided from its run's own fold (`healed_journal`), and the healed copy's
fold is made from it too: no line is folded again, where the journal was read again and its
lines folded as the copy's (and, before that, the failed calls' lines were looked for among
all of them and folded once more to decide the heal)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_plan_cost import grown, the_run
from wftop.core.read import journal as journal_module
from wftop.core.read.journalfile import reading_once
from wftop.core.read.jsonl import read_all
from wftop.core.resume.healfold import healed_journal
from wftop.core.resume.relocate import healed_fold


def test_a_plans_heal_folds_no_line_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = the_run(grown(tmp_path, "mid-failure", 40))
    path = run.folder.journal
    records = read_all(path).records
    folded: list[int] = []
    real = journal_module.fold_whole

    def counted(lines: list[Any], *args: Any) -> Any:
        folded.append(len(lines))
        return real(lines, *args)

    info = os.stat(path)
    monkeypatch.setattr(journal_module, "fold_whole", counted)
    with reading_once({path: ((info.st_size, info.st_mtime), run.fold)}):
        fold, dropped = healed_journal(path)
    monkeypatch.setattr(journal_module, "fold_whole", real)
    assert dropped and folded == []
    assert (fold, dropped) == healed_fold(records)
