"""An independent reader of journals: JavaScript's ``JSON.parse`` in node
(``tests/json_oracle.js``), as Claude Code reads them. wftop's reader and every count its
commands print are held to it (the property tests, ``bench/fuzz_journals.py``).

Node comes with the suite (npm installs the pinned CLI): where it is missing the tests that
need it skip, and under ``CI=true`` they fail instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).with_name("json_oracle.js")


@dataclass(frozen=True)
class Reading:
    """What JSON.parse makes of one file."""

    records: tuple[tuple[int, str | None, str | None], ...]
    """(line, ``type``, ``key``) of every line that is a JSON object (strings, else None)."""
    problems: tuple[int, ...]
    """Lines that do not parse, or are not objects (a last line without its newline aside)."""
    unknown: int
    """Records of a ``type`` the CLI does not write (the CLI's reader skips them)."""
    started: int
    result: int
    failed: int


def node() -> str | None:
    return shutil.which("node")


def skip_reason() -> str | None:
    """Why the oracle cannot run here (None: it can); under CI it must."""
    if node() is not None:
        return None
    if os.environ.get("CI") == "true":
        raise RuntimeError("node is missing: the JSON.parse oracle cannot run under CI")
    return "no node on this machine: the JSON.parse oracle cannot run"


class Oracle:
    """One node process answering for file after file."""

    def __init__(self) -> None:
        binary = node()
        if binary is None:
            raise RuntimeError("no node on this machine")
        self._process = subprocess.Popen(
            [binary, str(SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def read(self, path: str | os.PathLike[str]) -> Reading:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(os.fspath(path) + "\n")
        self._process.stdin.flush()
        answer: dict[str, Any] = json.loads(self._process.stdout.readline())
        if "error" in answer:
            raise RuntimeError(f"the oracle failed on {path}: {answer['error']}")
        return Reading(
            tuple((line, kind, key) for line, kind, key in answer["records"]),
            tuple(answer["problems"]),
            answer["unknown"],
            answer["started"],
            answer["result"],
            answer["failed"],
        )

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=10)

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
