"""JSON goes to stdout as it was encoded, its newline written after it: the 18.6 MB of the
plan of a 100,000-call run joined to its newline first was a copy into 4,500 pages of fresh
memory (what reaches stdout is the same text; the objects handed to it are compared)."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_resume_exact import argv, root
from wftop.cli import output
from wftop.cli.commands import resume as resume_command
from wftop.cli.main import main
from wftop.core.text import jsonout

__all__ = ["root"]  # the killed tree, aged and with its cwd present (a fixture)


class Handed(io.BytesIO):
    """A stdout's buffer that keeps each object written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.handed: list[Any] = []

    def write(self, data: Any) -> int:
        self.handed.append(data)
        return super().write(data)


def handed_stdout(monkeypatch: pytest.MonkeyPatch) -> Handed:
    buffer = Handed()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(buffer, encoding="utf-8"))
    return buffer


def test_a_plans_json_is_written_as_encoded(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[bytes] = []
    real = resume_command.dumps_masked

    def dumps_masked(*args: Any, **kwargs: Any) -> bytes:
        encoded.append(real(*args, **kwargs))
        return encoded[-1]

    monkeypatch.setattr(resume_command, "dumps_masked", dumps_masked)
    buffer = handed_stdout(monkeypatch)
    assert main(argv(root, "--json")) == 0
    sys.stdout.flush()
    (text,) = encoded
    assert any(data is text for data in buffer.handed)
    assert buffer.getvalue() == text + b"\n"


def test_print_json_writes_the_encoded_text_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    text = b'{"runs": []}'
    monkeypatch.setattr(jsonout, "dumps", lambda value, indent=True: text)
    buffer = handed_stdout(monkeypatch)
    output.print_json({"runs": []})
    sys.stdout.flush()
    assert buffer.handed[0] is text
    assert buffer.getvalue() == text + b"\n"
