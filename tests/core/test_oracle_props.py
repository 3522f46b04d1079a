"""Mutated real journals read as JavaScript's JSON.parse reads them, through every command.

The checker is ``bench/fuzz_journals.py`` (`check_case`), which runs 100,000 such journals
(docs/reliability.md); here hypothesis drives it over modest example counts
(``WFTOP_HYPOTHESIS_EXAMPLES`` raises them): the reader's records and unreadable lines are
JSON.parse's (node), ``ls --json`` and ``stats --json`` count its lines, and no command of
`bench.fuzz_journals.COMMANDS` raises.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fuzz_journals import Tree, check_case, copy_trees, mutate, mutate_once, nested
from tests.json_oracle import Oracle, skip_reason

EXAMPLES = int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "150"))
SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]

if (why := skip_reason()) is not None:
    pytest.skip(why, allow_module_level=True)


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> list[Tree]:
    return copy_trees(tmp_path_factory.mktemp("trees"))


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    with Oracle() as started:
        yield started


@pytest.fixture(autouse=True)
def no_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan asks no installed claude for its version."""
    monkeypatch.setenv("WFTOP_CLAUDE", str(tmp_path / "no-claude"))


@settings(max_examples=max(10, EXAMPLES // 5), deadline=None, suppress_health_check=SUPPRESSED)
@given(st.data())
def test_mutated_journals_through_every_command(trees, oracle, data):
    tree = data.draw(st.sampled_from(trees))
    rng = data.draw(st.randoms(use_true_random=False))
    check_case(tree, mutate(rng, tree.original), oracle)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=SUPPRESSED)
@given(st.data())
def test_the_reader_reads_what_json_parse_reads(trees, oracle, data):
    """The reader alone, over more journals (every command costs 0.1 s a journal)."""
    tree = data.draw(st.sampled_from(trees))
    rng = data.draw(st.randoms(use_true_random=False))
    content = tree.original
    for _ in range(data.draw(st.integers(1, 6))):
        content = mutate_once(rng, content)
    check_case(tree, content, oracle, commands=False)


@pytest.mark.parametrize("depth", [255, 1_025, 100_000])
def test_a_result_nested_deep_through_every_command(trees, oracle, depth):
    tree = next(tree for tree in trees if tree.root.name == "killed")
    value = nested(random.Random(depth), depth)
    content = tree.original.replace(b'{"agent":"a4","ok":true,"n":4}', value)
    assert content != tree.original
    check_case(tree, content, oracle)
