"""The rows cache's answer before a walk (`rows_before_walk`): what an engine can show a
view at once, each row checked by its run's stamps, no folder listed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_rowcache import listing
from tests.corpus import CORPUS, copy_tree, only_journal
from wftop.core.index.keptrows import kept_rows, rows_before_walk
from wftop.core.index.rowcache import RowCache


def kept_roots(tmp_path: Path) -> list[Path]:
    names = ("clean", "killed", "mid-failure")
    assert all((CORPUS / name / "projects").is_dir() for name in names)
    return [copy_tree(name, tmp_path) for name in names]


def test_the_rows_kept_are_answered_without_listing_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = kept_roots(tmp_path)
    cache = tmp_path / "rows"
    rows, _, _ = listing(roots, cache)
    names = [str(root) for root in roots]

    listed: list[str] = []
    scandir, listdir = os.scandir, os.listdir

    def seen_scandir(path: str) -> Any:
        listed.append(path)
        return scandir(path)

    def seen_listdir(path: str) -> list[str]:
        listed.append(path)
        return listdir(path)

    monkeypatch.setattr(os, "scandir", seen_scandir)
    monkeypatch.setattr(os, "listdir", seen_listdir)
    early = rows_before_walk(names, RowCache.open(names, cache))
    monkeypatch.undo()
    assert sorted(listed) == sorted(f"{root}{os.sep}sessions" for root in names)  # owners alone
    assert [json.loads(kept.row) for kept in early] == rows  # newest first, as listed
    assert len(early) == len(roots)


def test_a_run_changed_or_gone_is_not_answered(tmp_path: Path) -> None:
    roots = kept_roots(tmp_path)
    cache = tmp_path / "rows"
    rows, _, _ = listing(roots, cache)
    killed = next(root for root in roots if root.name == "killed")
    with only_journal(killed).open("a") as journal:
        journal.write(json.dumps({"type": "started", "key": "k9", "agentId": "n9"}) + "\n")
    clean = next(root for root in roots if root.name == "clean")
    shutil.rmtree(only_journal(clean).parent)
    names = [str(root) for root in roots]
    early = rows_before_walk(names, RowCache.open(names, cache))
    left = [row for row in rows if row["root"] not in (str(killed), str(clean))]
    assert [json.loads(kept.row) for kept in early] == left and len(left) == 1


def test_a_cache_that_keeps_nothing_looks_for_no_run_s_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ls --no-cache`` (a cache with no folder): every run is to read, none looked up in
    it, and the answer is the one a lookup of each gives."""
    roots = [str(root) for root in kept_roots(tmp_path)]
    looked: list[str] = []
    find = RowCache.find

    def counted(self: RowCache, folder: Any, *args: Any, **kwargs: Any) -> Any:
        looked.append(folder.journal)
        return find(self, folder, *args, **kwargs)

    monkeypatch.setattr(RowCache, "find", counted)
    kept = kept_rows(roots, RowCache(None, roots))
    assert looked == [] and kept.kept == [] and kept.keys == {}
    assert kept.unread == kept.folders and len(kept.folders) >= 3
    monkeypatch.undo()
    walked = kept_rows(roots, RowCache(tmp_path / "rows", roots))  # an empty cache looks
    assert walked.unread == kept.unread and walked.kept == []
    assert set(walked.keys) == {folder.journal for folder in kept.unread}
