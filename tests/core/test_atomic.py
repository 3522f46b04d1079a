"""`atomic_write`: the one way wftop replaces a file, and the runner's copy of it."""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

import pytest

from wftop.core.index import cachefile
from wftop.core.notify import statefile
from wftop.core.resume import runner
from wftop.core.system import atomic
from wftop.core.system.atomic import atomic_write


def source_of(module: object, name: str) -> str:
    path = Path(module.__file__)  # type: ignore[attr-defined]
    text = path.read_text()
    (found,) = [
        node
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef) and node.name == name
    ]
    segment = ast.get_source_segment(text, found)
    assert segment is not None
    return segment


def test_the_runner_keeps_an_equal_copy():
    """The runner runs by file path and imports nothing of wftop: its copy must not drift."""
    assert source_of(runner, "atomic_write") == source_of(atomic, "atomic_write")


def test_a_file_is_replaced_whole_and_private(tmp_path):
    target = tmp_path / "status.json"
    target.write_bytes(b"old")
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert os.listdir(tmp_path) == ["status.json"]


@pytest.mark.parametrize("fails", ["fsync", "replace"])
def test_a_write_that_fails_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch, fails):
    target = tmp_path / "status.json"
    target.write_bytes(b"old")

    def broken(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, fails, broken)
    with pytest.raises(OSError):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["status.json"]


def test_a_link_in_the_temp_files_place_is_never_followed(tmp_path, monkeypatch):
    """The temp file is made new (O_EXCL, O_NOFOLLOW): a link planted where it goes is an
    error, never a write through the link."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"kept")
    monkeypatch.setattr(os, "urandom", lambda n: b"\0" * n)
    (tmp_path / f".status.json.{os.getpid()}.00000000.tmp").symlink_to(elsewhere)
    with pytest.raises(FileExistsError):
        atomic_write(tmp_path / "status.json", b"new")
    assert elsewhere.read_bytes() == b"kept"


def test_the_runner_the_rows_cache_and_the_state_tables_write_with_it(tmp_path, monkeypatch):
    written: list[tuple[str, bool]] = []

    def record(path: object, data: bytes, *, sync: bool = True) -> None:
        written.append((Path(path).name, sync))  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "atomic_write", record)
    monkeypatch.setattr(cachefile, "atomic_write", record)
    monkeypatch.setattr(statefile, "atomic_write", record)
    runner.write_status(str(tmp_path / "status.json"), {"runner_pid": 1})
    cachefile.save_cache(tmp_path / "rows.json", 1, {})
    statefile.StateTable(tmp_path / "state", "acks", 1).update(lambda entries: None)
    assert written == [("status.json", True), ("rows.json", False), ("acks.json", False)]
