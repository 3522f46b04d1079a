"""A run's script and name where its snapshot names both: the session's scripts folder is
not listed for it (listings counted, not timed), and the row is the one a listing gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core.test_rowcache import listing
from tests.corpus import copy_tree
from wftop.core.index import coldpass
from wftop.core.index.naming import RunNames, sorted_listing
from wftop.core.read.discovery import run_folders_of
from wftop.core.read.snapshot import read_snapshot


def named_where(root: Path, script: str | None) -> tuple[Path, Path]:
    """The ``clean`` tree's snapshot, its ``scriptPath`` set to ``script`` (None: the script
    the CLI wrote in the session's scripts folder), and that script."""
    (snapshot,) = root.glob("projects/*/*/workflows/wf_*.json")
    (written,) = snapshot.parent.glob("scripts/*.js")
    data = json.loads(snapshot.read_text())
    data["scriptPath"] = str(written) if script is None else script
    snapshot.write_text(json.dumps(data))
    return snapshot, written


def test_a_run_whose_snapshot_names_it_and_its_existing_script_lists_no_scripts_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed: list[str] = []

    def counted(folder: str) -> list[str]:
        listed.append(folder)
        return sorted_listing(folder)

    monkeypatch.setattr(coldpass, "sorted_listing", counted)
    root = copy_tree("clean", tmp_path / "named")
    snapshot, written = named_where(root, None)
    (row,), _, _ = listing([root], None)
    assert listed == []
    assert (row["name"], row["script_path"]) == ("mock-six", str(written))
    (folder,), _ = run_folders_of([str(root)])
    names = RunNames(folder)
    names.find(read_snapshot(str(snapshot))[0], counted)
    assert listed == []
    assert names.script_slug == "mock-six"  # asked: listed then
    gone = copy_tree("clean", tmp_path / "gone")
    _, written = named_where(gone, str(tmp_path / "elsewhere.js"))
    (row,), _, _ = listing([gone], None)
    assert listed == [str(written.parent)]  # the script it names is not there: looked for
    assert (row["name"], row["script_path"]) == ("mock-six", str(written))
