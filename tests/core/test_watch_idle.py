"""What the watch helper costs while nothing changes: the watch of the shallow folders (a
root, the folder holding it) looks for news a few times a second, not at every step of the
deep watch (each look takes the interpreter: with both at 15 ms, 0.4% of a core at 20,000
runs, idle). A root made again is still followed within a second
(tests/core/test_index_made_again.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import pytest
import watchfiles

from wftop.core.index import watcher


class Stdin:
    """A stdin that is already closed (the helper ends once both watches have)."""

    def __init__(self) -> None:
        read, write = os.pipe()
        os.close(write)
        self.fd = read

    def fileno(self) -> int:
        return self.fd


async def test_the_shallow_watch_looks_four_times_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    looks: list[tuple[tuple[str, ...], bool, int]] = []

    def awatch(*paths: str, **options: Any) -> AsyncGenerator[set[tuple[Any, str]], None]:
        looks.append((paths, options.get("recursive", True), options["step"]))

        async def nothing() -> AsyncGenerator[set[tuple[Any, str]], None]:
            return
            yield

        return nothing()

    monkeypatch.setattr(watchfiles, "awatch", awatch)
    stdin = Stdin()
    monkeypatch.setattr(sys, "stdin", stdin)
    deep, shallow = str(tmp_path / "projects"), str(tmp_path)
    with open(os.devnull, "w") as out:
        monkeypatch.setattr(sys, "stdout", out)  # where the helper says it is ready
        try:
            assert await watcher._serve(15, 15, [deep], [shallow]) == 0
        finally:
            os.close(stdin.fd)
    assert looks == [((deep,), True, 15), ((shallow,), False, 250)]
