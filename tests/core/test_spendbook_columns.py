"""The spend book's file writes a folder's entries as columns (`wftop.core.cost.shelf`): read
back, they answer as they were kept, and columns that do not line up cost time, never an
answer."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from wftop.core.cost.shelf import COLUMNS, STAMP_TEXT, text_stamps
from wftop.core.cost.spendbook import SpendBook
from wftop.core.cost.usage import Spends

LONG_AGO = 1_700_000_000
NOW = LONG_AGO + 3600.0


def transcript(folder: Path, name: str, output_tokens: int) -> str:
    usage = {"input_tokens": 10, "output_tokens": output_tokens}
    record = {
        "type": "assistant",
        "requestId": "req_1",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"id": "msg_1", "model": "claude-sonnet-4-5", "usage": usage},
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(record, separators=(",", ":")) + "\n")
    os.utime(path, ns=(LONG_AGO * 10**9, LONG_AGO * 10**9))
    return str(path)


def book(tmp_path: Path) -> SpendBook:
    return SpendBook(tmp_path / "state" / "spends", clock=lambda: NOW)


def kept_folder(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    """A folder of three transcripts (two spend the same) whose spends a book kept."""
    folder = tmp_path / "run"
    paths = {
        name: transcript(folder, name, tokens)
        for name, tokens in (("agent-a1.jsonl", 10), ("agent-a2.jsonl", 20), ("agent-a3.jsonl", 10))
    }
    spends = Spends(book(tmp_path))
    for path in paths.values():
        spends.of(path)
    spends.keep()
    return folder, paths, book(tmp_path).file_of(str(folder))


def entries_of(file: Path, folder: Path) -> dict[str, Any]:
    entries: dict[str, Any] = json.loads(file.read_bytes())["dirs"][str(folder)]
    return entries


def test_a_folder_s_entries_are_written_as_columns_and_answer_as_kept(tmp_path: Path) -> None:
    folder, paths, file = kept_folder(tmp_path)
    entries = entries_of(file, folder)
    assert sorted(entries) == sorted([*COLUMNS, "spends"])
    assert entries["names"] == ["a1", "a2", "a3"]  # the agents' transcripts by id
    assert entries["agents"] == 3
    assert len(entries["spends"]) == 2  # each spend once
    stamps = text_stamps(entries["stamps"])
    assert stamps is not None
    for row, path in enumerate(paths.values()):
        info = os.stat(path)
        assert stamps[3 * row : 3 * row + 3] == [info.st_size, info.st_mtime_ns, info.st_ino]
    again = book(tmp_path)
    table = again.kept(str(folder))
    assert {agent: spend.tokens.output for agent, spend in table.items()} == {
        "a1": 10,
        "a2": 20,
        "a3": 10,
    }
    info = os.stat(paths["agent-a2.jsonl"])
    found = again.get(paths["agent-a2.jsonl"], (info.st_size, info.st_mtime_ns, info.st_ino))
    assert found is not None and found.tokens.output == 20


def test_a_plan_reads_a_folders_agents_by_id_and_no_stamp_as_a_number(tmp_path: Path) -> None:
    """The agents' transcripts come first, by id, the other files after them by name, and
    each entry's stamp in one text: a folder vouched for is priced from the names and the
    spends alone, by agent id (a plan looks each call's agent up by id, with no file name
    made per call); a stamp the text cannot hold (a file of before 1970) is not kept."""
    folder = tmp_path / "run"
    paths = [transcript(folder, name, 10) for name in ("notes.jsonl", "agent-b1.jsonl")]
    old = transcript(folder, "agent-b2.jsonl", 30)
    os.utime(old, ns=(-(10**9), -(10**9)))
    spends = Spends(book(tmp_path))
    for path in [*paths, old]:
        spends.of(path)
    spends.keep()
    entries = entries_of(book(tmp_path).file_of(str(folder)), folder)
    assert (entries["names"], entries["agents"]) == (["b1", "notes.jsonl"], 1)
    assert len(entries["stamps"]) == 2 * STAMP_TEXT
    again = book(tmp_path)
    assert {agent: spend.tokens.output for agent, spend in again.kept(str(folder)).items()} == {
        "b1": 10
    }
    for path in paths:
        info = os.stat(path)
        assert again.get(path, (info.st_size, info.st_mtime_ns, info.st_ino)) is not None


def unlined(entries: dict[str, Any]) -> None:
    entries["at"].pop()


def a_stamp_short(entries: dict[str, Any]) -> None:
    entries["stamps"] = entries["stamps"][:-STAMP_TEXT]


def a_name_not_text(entries: dict[str, Any]) -> None:
    entries["names"][0] = 7


def a_spend_out_of_range(entries: dict[str, Any]) -> None:
    entries["at"][0] = 5


def a_spend_not_a_number(entries: dict[str, Any]) -> None:
    entries["at"][0] = True


@pytest.mark.parametrize(
    ("damage", "taken"),
    [
        (unlined, set()),
        (a_stamp_short, set()),
        (a_name_not_text, set()),
        (a_spend_out_of_range, {"a2", "a3"}),
        (a_spend_not_a_number, {"a2", "a3"}),
    ],
)
def test_columns_that_do_not_line_up_cost_time_never_an_answer(
    tmp_path: Path, damage: Any, taken: set[str]
) -> None:
    folder, paths, file = kept_folder(tmp_path)
    data = json.loads(file.read_bytes())
    entries = data["dirs"][str(folder)]
    assert "names" in entries
    damage(entries)
    file.write_text(json.dumps(data))
    assert set(book(tmp_path).kept(str(folder))) == taken
    for name, tokens in (("agent-a1.jsonl", 30), ("agent-a2.jsonl", 40), ("agent-a3.jsonl", 30)):
        transcript(folder, name, tokens)  # the same size and stamp: only a read sees it
    spends = Spends(book(tmp_path))
    found = {name[6:-6]: spends.of(path) for name, path in paths.items()}
    assert {agent: spend and spend.tokens.output for agent, spend in found.items()} == {
        "a1": 10 if "a1" in taken else 30,
        "a2": 20 if "a2" in taken else 40,
        "a3": 10 if "a3" in taken else 30,
    }
