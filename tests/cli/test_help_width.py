"""The help is as wide as argparse would make it: `terminal_columns` is
`shutil.get_terminal_size`'s width, measured without importing `shutil`."""

from __future__ import annotations

import argparse
import shutil

import pytest

from wftop.cli import options
from wftop.cli.main import build_parser
from wftop.cli.options import terminal_columns


@pytest.mark.parametrize("columns", [None, "57", "0", "-3", "wide", "200"])
def test_the_columns_are_shutil_s(monkeypatch: pytest.MonkeyPatch, columns: str | None) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns


@pytest.mark.parametrize("columns", ["40", "97", "160"])
@pytest.mark.parametrize("command", [None, "ls", "resume"])
def test_the_help_is_the_one_argparse_writes(
    monkeypatch: pytest.MonkeyPatch, columns: str, command: str | None
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    ours = build_parser(command).format_help()
    monkeypatch.setattr(options, "Formatter", argparse.HelpFormatter)
    assert ours == build_parser(command).format_help()
