"""Regexes compiled on first use: `Compiled`."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping


class Compiled(Mapping[str, re.Pattern[str]]):
    """Regexes by name, each compiled the first time it is asked for: a command that
    masks nothing (or only finds nothing to mask) compiles none of them."""

    def __init__(self, sources: dict[str, str]) -> None:
        self._sources = sources
        self._made: dict[str, re.Pattern[str]] = {}

    def __getitem__(self, name: str) -> re.Pattern[str]:
        made = self._made.get(name)
        if made is None:
            made = self._made[name] = re.compile(self._sources[name])
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._sources)

    def __len__(self) -> int:
        return len(self._sources)
