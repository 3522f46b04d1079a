"""A settled run's transcripts are priced from the spend book with one ``stat`` of their
folder, not one per call (a plan of 100,000 calls spent a fifth of its time in them), and
every change the folder's stamp shows is read: a transcript made, replaced or removed, and
any change at all while the run's owner may be alive (stats and reads counted, not timed)."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import copy_tree, only_journal
from wftop.core.cost import usage as usage_module
from wftop.core.cost.spendbook import SETTLE_S, SpendBook
from wftop.core.cost.tokens import Spend
from wftop.core.cost.usage import Spends
from wftop.core.forecast.costs import CallCosts, call_costs
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.sessions import Liveness, Owner
from wftop.core.system.procs import FakeProcessTable

LONG_AGO = 1_700_000_000
NOW = 2_000_000_000.0
"""Long after every file of the copied tree was written."""


def the_run(root: Path) -> Any:
    """The tree's run, its folder last modified long before (a file made in it now changes
    its stamp, whatever the file system's clock tick)."""
    os.utime(only_journal(root).parent, (LONG_AGO, LONG_AGO))
    (run,) = scan_roots([str(root)], processes=FakeProcessTable(), now=lambda: NOW).runs
    return run


def costs_of(run: Any, state: Path, clock: float = NOW) -> CallCosts:
    """A plan's call costs, its spends kept in the book in ``state`` (a process of its own)."""
    spends = Spends(SpendBook(state, clock=lambda: clock))
    costs = call_costs(run, spends)
    spends.keep()
    return costs


class Looks:
    """Every ``stat`` and read of an agent transcript."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real_stat, real_read = os.stat, usage_module._read

        def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
            self._note(path)
            return real_stat(path, *args, **kwargs)

        def read(path: str) -> Any:
            self._note(path)
            return real_read(path)

        monkeypatch.setattr(os, "stat", stat)
        monkeypatch.setattr(usage_module, "_read", read)

    def _note(self, path: Any) -> None:
        if isinstance(path, str) and os.path.basename(path).startswith("agent-"):
            self.paths.append(path)

    def taken(self) -> list[str]:
        taken, self.paths = self.paths, []
        return taken


def last_spends(costs: CallCosts) -> dict[str, Spend]:
    """By call key: what its last attempt spent."""
    return {key: costs.last_of(key)[0] for key in costs.calls}


def output_of(costs: CallCosts) -> dict[str, int]:
    return {key: spend.tokens.output for key, spend in last_spends(costs).items()}


def a_priced_transcript(folder: Path) -> tuple[str, Path]:
    """A call's key and its last agent's transcript that spent some output tokens."""
    journal = folder / "journal.jsonl"
    last: dict[str, str] = {}
    for line in journal.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "started":
            last[record["key"]] = record["agentId"]
    for key, agent in last.items():
        path = folder / f"agent-{agent}.jsonl"
        if path.exists() and b'"output_tokens"' in path.read_bytes():
            return key, path
    raise AssertionError("no priced transcript")


def more_output(path: Path, output_tokens: int) -> bytes:
    """The transcript's bytes with one more response of ``output_tokens``."""
    record = {
        "type": "assistant",
        "requestId": "req_more",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {
            "id": "msg_more",
            "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": 1, "output_tokens": output_tokens},
        },
    }
    return path.read_bytes() + json.dumps(record, separators=(",", ":")).encode() + b"\n"


def test_a_settled_runs_plan_takes_its_transcripts_from_the_book_with_no_stat_of_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = the_run(copy_tree("killed", tmp_path))
    state = tmp_path / "state"
    looks = Looks(monkeypatch)
    first = costs_of(run, state)
    assert len(looks.taken()) >= 4  # the first plan stats or reads each transcript
    assert any(output_of(first).values())
    again = costs_of(run, state)
    assert looks.taken() == []
    assert last_spends(again) == last_spends(first)


def test_a_transcript_replaced_in_a_settled_runs_folder_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resume's new agents, a transcript removed or replaced: the folder's stamp changes,
    every transcript is looked at again, and the folder is vouched for again."""
    run = the_run(copy_tree("killed", tmp_path))
    state = tmp_path / "state"
    key, path = a_priced_transcript(Path(run.folder.path))
    before = costs_of(run, state).last_of(key)[0].tokens.output
    replacement = path.with_name("replacement.tmp")
    replacement.write_bytes(more_output(path, 1000))
    os.replace(replacement, path)
    looks = Looks(monkeypatch)
    assert costs_of(run, state).last_of(key)[0].tokens.output == before + 1000
    assert looks.taken()
    assert costs_of(run, state).last_of(key)[0].tokens.output == before + 1000
    assert looks.taken() == []


def test_a_transcript_removed_from_a_settled_runs_folder_counts_as_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = the_run(copy_tree("killed", tmp_path))
    state = tmp_path / "state"
    key, path = a_priced_transcript(Path(run.folder.path))
    assert not costs_of(run, state).last_of(key)[0].lower_bound
    path.unlink()
    looks = Looks(monkeypatch)
    assert costs_of(run, state).last_of(key)[0].lower_bound
    assert len(looks.taken()) >= 4
    assert costs_of(run, state).last_of(key)[0].lower_bound
    assert {os.path.basename(seen) for seen in looks.taken()} == {path.name}


def test_a_run_whose_owner_may_be_alive_has_each_transcript_looked_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its agents may be writing: a transcript grown in place (the folder's stamp as it was)
    is read, though the folder was vouched for while the run was settled."""
    run = the_run(copy_tree("killed", tmp_path))
    state = tmp_path / "state"
    key, path = a_priced_transcript(Path(run.folder.path))
    before = costs_of(run, state).last_of(key)[0].tokens.output
    looks = Looks(monkeypatch)
    costs_of(run, state)
    assert looks.taken() == []
    folder = os.stat(run.folder.path)
    with path.open("ab") as grown:
        grown.write(more_output(path, 1000)[path.stat().st_size :])
    os.utime(run.folder.path, ns=(folder.st_atime_ns, folder.st_mtime_ns))
    alive = dataclasses.replace(run, owner=Owner(Liveness.ALIVE))
    assert costs_of(alive, state).last_of(key)[0].tokens.output == before + 1000
    assert str(path) in looks.taken()


def test_a_folder_modified_within_the_settle_time_is_not_vouched_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript made in the same tick of the file system's clock would leave its
    folder's stamp as it was: a folder that recent is looked at file by file next time."""
    root = copy_tree("killed", tmp_path)
    for transcript in only_journal(root).parent.glob("agent-*.jsonl"):
        os.utime(transcript, (LONG_AGO - 60, LONG_AGO - 60))  # each kept by the book
    run = the_run(root)
    state = tmp_path / "state"
    modified = LONG_AGO
    costs_of(run, state, clock=modified + SETTLE_S / 2)
    looks = Looks(monkeypatch)
    costs_of(run, state, clock=modified + SETTLE_S / 2)
    assert looks.taken()
    costs_of(run, state)
    assert looks.taken()
    costs_of(run, state)
    assert looks.taken() == []


def test_a_folder_vouched_for_is_written_with_its_entries(tmp_path: Path) -> None:
    """Another process (the next plan, a list) finds the folder's stamp in the book's file."""
    run = the_run(copy_tree("killed", tmp_path))
    state = tmp_path / "state"
    costs_of(run, state)
    kept = json.loads(SpendBook(state).file_of(run.folder.path).read_bytes())
    folder = os.stat(only_journal(tmp_path / "killed").parent)
    assert kept["dirs"][run.folder.path]["folder"] == [folder.st_ino, folder.st_mtime_ns]
