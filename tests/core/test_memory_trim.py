"""Freed memory given back to the system once an engine has read every run: glibc's
``malloc_trim`` where there is one, nothing elsewhere (macOS), and the engine asks once its
live index is built."""

from __future__ import annotations

import sys

import pytest

from tests.core.test_engine import running, until
from tests.corpus import copy_tree
from wftop.core.system import memory


def test_a_platform_without_malloc_trim_gives_nothing_back_and_says_so():
    trim = memory.trimmer("darwin")
    assert trim is memory.no_trim
    assert memory.give_back_memory(trim) is False


def test_linux_without_glibc_falls_back_to_doing_nothing(monkeypatch):
    monkeypatch.setattr(memory, "_glibc_trim", lambda: None)  # musl: no malloc_trim
    assert memory.trimmer("linux") is memory.no_trim


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc is Linux's")
def test_on_linux_the_allocator_is_asked():
    trim = memory.trimmer()
    assert trim is not memory.no_trim
    assert memory.give_back_memory(trim) is True


async def test_the_engine_gives_memory_back_once_built_and_after_its_first_full_sweep(tmp_path):
    # first after the live index read every run and its rows went out, before following;
    # then once the sweep that follows a new watch (every run's files stat'ed) is done:
    # at 20,000 runs the engine kept some 20 MB more without it
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean")]
    asked: list[bool] = []

    def trim() -> bool:
        asked.append(engine.following)
        return True

    async with running(roots, trim=trim) as engine:
        await until(lambda: len(asked) >= 2)
        assert asked == [False, True] and engine.index is not None
