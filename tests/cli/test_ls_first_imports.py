"""A first listing (``wftop ls --no-cache``) imports what reads runs, and nothing it does not
use: every module it imports is work before its walkers and readers start."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_ls_kept_rows import imported
from tests.corpus import copy_tree


def test_a_first_listing_does_not_import_the_resume_package(tmp_path: Path) -> None:
    """It asks the state dir's path of `wftop.core.system.statedir`, where the resume
    package's store imported its records, state machine and lock to hand it on (24 M
    instructions of every first listing)."""
    root = copy_tree("clean", tmp_path)
    first = imported(root, tmp_path / "cache", "--no-cache")
    assert "wftop.core.index.reader" in first  # it read the run
    assert "wftop.core.system.statedir" in first
    assert not {name for name in first if name.startswith("wftop.core.resume")}
