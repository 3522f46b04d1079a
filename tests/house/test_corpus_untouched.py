"""Runs last (``tests/conftest.py`` orders it so): every file under ``tests/data`` and
``mockapi/bundled`` is byte-identical.

``tests/conftest.py`` records the sha256 of each file when the session starts; any
test that wrote into the corpus instead of a private copy (``tests.corpus.copy_tree``),
removed a file or added one shows up here by path.
"""

from __future__ import annotations

import pytest

from tests.conftest import CORPUS_SUMS, corpus_checksums


def test_the_corpus_is_byte_identical_after_the_suite(request: pytest.FixtureRequest) -> None:
    before = request.config.stash[CORPUS_SUMS]
    after = corpus_checksums()
    assert len(before) > 100
    changed = sorted(path for path in before.keys() & after.keys() if before[path] != after[path])
    assert changed == []
    assert sorted(before.keys() - after.keys()) == [], "removed"
    assert sorted(after.keys() - before.keys()) == [], "added"
