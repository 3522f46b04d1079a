"""A corpus tree placed for a real resume is resumed under session ids of its own.

The resume guard refuses a session any process of the machine resumes (``claude --resume
ID``): two suites on one machine, each resuming its copy of one corpus session, refused each
other ("process N is already resuming session ...") while their copies kept the corpus's ids.
"""

from __future__ import annotations

import pytest

from tests.corpus import own_session_ids, tree
from tests.e2e.test_rehearsal import place


def session_ids(root) -> set[str]:  # type: ignore[no-untyped-def]
    return {path.name.removesuffix(".jsonl") for path in root.glob("projects/*/*")}


@pytest.mark.parametrize("name", ["mid-failure", "killed"])
def test_a_placed_tree_holds_none_of_the_corpus_session_ids(cli_home, name):
    place(name, cli_home)
    corpus = session_ids(tree(name))
    placed = session_ids(cli_home.config_dir)
    assert corpus and placed and not corpus & placed
    for path in cli_home.root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not [old for old in corpus if old.encode() in data], path


def test_a_tree_with_no_session_is_refused(tmp_path):
    (tmp_path / "projects").mkdir()
    with pytest.raises(ValueError, match="no session under"):
        own_session_ids(tmp_path)
