"""What transcripts spent, kept between processes (`SpendBook`): a transcript is read again
when its stamp changes in any part, a kept answer is used while it holds, and a book that
is corrupt, foreign or out of bounds costs time, never an answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.corpus import copy_tree, only_journal
from wftop.core.cost import spendbook
from wftop.core.cost import tally as tally_module
from wftop.core.cost import usage as usage_module
from wftop.core.cost.spendbook import SETTLE_S, SpendBook, book_for
from wftop.core.cost.tally import SpendTally
from wftop.core.cost.usage import Spends

LONG_AGO = 1_700_000_000
NOW = LONG_AGO + 3600.0


def assistant(output_tokens: int) -> bytes:
    record = {
        "type": "assistant",
        "requestId": "req_1",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {
            "id": "msg_1",
            "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": 10, "output_tokens": output_tokens},
        },
    }
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def transcript(folder: Path, output_tokens: int, *, mtime: int = LONG_AGO) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "agent-a1.jsonl"
    path.write_bytes(assistant(output_tokens))
    os.utime(path, ns=(mtime * 10**9, mtime * 10**9))
    return str(path)


def book(tmp_path: Path, **kwargs: object) -> SpendBook:
    return SpendBook(tmp_path / "state" / "spends", clock=lambda: NOW, **kwargs)  # type: ignore[arg-type]


def spent(tmp_path: Path, path: str) -> int:
    spends = Spends(book(tmp_path))
    found = spends.of(path)
    spends.keep()
    assert found is not None
    return found.tokens.output


def test_a_kept_spend_is_used_while_the_stamp_holds(tmp_path: Path) -> None:
    """Another process finds the spend kept: the transcript is not read while its size,
    time and inode are the ones kept (its bytes changed behind an unchanged stamp: the
    kept answer, which only a book consulted can give)."""
    path = transcript(tmp_path / "run", 20)
    assert spent(tmp_path, path) == 20
    Path(path).write_bytes(assistant(30))  # same size
    os.utime(path, ns=(LONG_AGO * 10**9, LONG_AGO * 10**9))
    assert spent(tmp_path, path) == 20


def test_a_transcript_changed_at_the_same_size_is_read_again(tmp_path: Path) -> None:
    path = transcript(tmp_path / "run", 20)
    assert spent(tmp_path, path) == 20
    transcript(tmp_path / "run", 30, mtime=LONG_AGO + 1)  # same size, a new mtime
    assert spent(tmp_path, path) == 30


def test_a_transcript_replaced_by_another_file_is_read_again(tmp_path: Path) -> None:
    path = transcript(tmp_path / "run", 20)
    assert spent(tmp_path, path) == 20
    other = transcript(tmp_path / "other", 30)
    os.replace(other, path)  # same size, same mtime, another inode
    assert spent(tmp_path, path) == 30


def test_a_transcript_modified_just_before_it_was_read_is_not_kept(tmp_path: Path) -> None:
    """Within the file system's clock tick a rewrite of the same size keeps its stamp: a
    transcript that recent is read again by the next process."""
    recent = int(NOW - SETTLE_S / 2)
    path = transcript(tmp_path / "run", 20, mtime=recent)
    assert spent(tmp_path, path) == 20
    Path(path).write_bytes(assistant(30))
    os.utime(path, ns=(recent * 10**9, recent * 10**9))
    assert spent(tmp_path, path) == 30


@pytest.mark.parametrize(
    ("contents", "why"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"version": 999, "dirs": {}}', f"version 999, expected {spendbook.VERSION}"),
    ],
)
def test_a_corrupt_or_foreign_file_is_ignored_with_a_log_line(
    tmp_path: Path, contents: bytes, why: str
) -> None:
    path = transcript(tmp_path / "run", 20)
    assert spent(tmp_path, path) == 20
    kept = book(tmp_path).file_of(str(tmp_path / "run"))
    kept.write_bytes(contents)
    Path(path).write_bytes(assistant(30))
    os.utime(path, ns=(LONG_AGO * 10**9, LONG_AGO * 10**9))
    assert spent(tmp_path, path) == 30  # read, not taken from the file
    log = (tmp_path / "state" / "spends" / spendbook.LOG).read_text()
    assert f"{kept}: {why}" in log
    assert json.loads(kept.read_bytes())["version"] == spendbook.VERSION  # written again


def test_entries_of_another_price_data_are_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = transcript(tmp_path / "run", 20)
    assert spent(tmp_path, path) == 20
    kept = book(tmp_path).file_of(str(tmp_path / "run"))
    data = json.loads(kept.read_bytes())
    data["prices"] = "0.0.1"
    kept.write_text(json.dumps(data))
    reads: list[str] = []
    real = usage_module._read

    def counted(where: str) -> object:
        reads.append(where)
        return real(where)

    monkeypatch.setattr(usage_module, "_read", counted)
    assert spent(tmp_path, path) == 20
    assert reads == [path]
    assert "prices '0.0.1', expected" in (tmp_path / "state" / "spends" / spendbook.LOG).read_text()


def test_the_book_stays_within_its_bound_least_recently_used_first(tmp_path: Path) -> None:
    paths = [transcript(tmp_path / f"run{n}", 20 + n) for n in range(3)]
    for n, path in enumerate(paths):
        spent(tmp_path, path)
        kept = book(tmp_path).file_of(str(tmp_path / f"run{n}"))
        os.utime(kept, (LONG_AGO + n, LONG_AGO + n))
    size = kept.stat().st_size
    small = book(tmp_path, max_bytes=size * 2 + size // 2)
    spends = Spends(small)
    extra = transcript(tmp_path / "run3", 40)
    spends.of(extra)
    spends.keep()
    left = sorted(p.name for p in (tmp_path / "state" / "spends").glob("*.json"))
    expected = sorted(small.file_of(str(tmp_path / f"run{n}")).name for n in (2, 3))
    assert left == expected


def test_no_book_in_a_root_and_none_written_read_only(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    root.mkdir()
    assert book_for(root, [str(root)]) is None
    assert book_for(root / "deeper", [str(root)]) is None
    assert book_for(tmp_path / "state", [str(root)]) is not None
    path = transcript(tmp_path / "run", 20)
    read_only = book_for(tmp_path / "state", [str(root)], writable=False)
    spends = Spends(read_only)
    assert spends.of(path) is not None
    spends.keep()
    assert not (tmp_path / "state").exists()


def dry_run(root: Path, state: Path, run_id: str) -> tuple[str, str]:
    env = {**os.environ, "WFTOP_STATE_DIR": str(state)}
    argv = [sys.executable, "-m", "wftop.cli", "resume", run_id, "--dry-run", "--json"]
    argv += ["--no-default-root", "--root", str(root), "--claude", "/nonexistent/claude"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode in (0, 3), done.stderr
    return done.stdout, done.stderr


def test_a_plan_prints_the_same_with_no_book_a_kept_one_and_a_corrupt_one(
    tmp_path: Path,
) -> None:
    root = copy_tree("killed", tmp_path)
    past = time.time() - 600
    for path in root.rglob("*"):
        os.utime(path, (past, past))
    run_id = only_journal(root).parent.name
    state = tmp_path / "state"
    first, _ = dry_run(root, state, run_id)
    files = list((state / "spends").glob("*.json"))
    assert files  # the agents' transcripts were kept
    again, _ = dry_run(root, state, run_id)
    for kept in files:
        kept.write_bytes(b"\x00garbage")
    corrupt, errors = dry_run(root, state, run_id)
    assert json.loads(first)["forecasts"] == json.loads(again)["forecasts"]
    assert first == again == corrupt
    assert errors == ""
    assert "not JSON" in (state / "spends" / spendbook.LOG).read_text()


def test_a_transcript_whose_path_is_not_utf8_is_read_and_not_kept(tmp_path: Path) -> None:
    folder = Path(os.fsdecode(os.fsencode(tmp_path / "run") + b"-\xff\xfe"))
    path = transcript(folder, 20)
    assert spent(tmp_path, path) == 20
    assert spent(tmp_path, path) == 20
    assert not list((tmp_path / "state" / "spends").glob("*.json"))


def test_a_book_keeps_its_folder_within_bounds_at_its_first_save_then_once_a_minute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine's first read saves after each batch of 256 runs: a folder of 20,000 files
    is not listed at each."""
    moment = [NOW]
    kept = SpendBook(tmp_path / "state" / "spends", clock=lambda: moment[0])
    pruned: list[float] = []
    real = SpendBook._prune

    def counted(self: SpendBook, written: list[Path]) -> None:
        pruned.append(moment[0])
        real(self, written)

    monkeypatch.setattr(SpendBook, "_prune", counted)
    for n, later in enumerate((0.0, 1.0, 59.0, 61.0)):
        moment[0] = NOW + later
        spends = Spends(kept)
        spends.of(transcript(tmp_path / f"run{n}", 20))
        spends.keep()
    assert pruned == [NOW, NOW + 61.0]
    assert len(list((tmp_path / "state" / "spends").glob("*.json"))) == 4


def test_a_transcript_the_book_keeps_nothing_of_is_read_without_a_stat_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person's first listing stat'ed each agent transcript before reading it, to ask a
    book that kept nothing of it yet (32,165 at 5,000 runs): the stamp it keeps comes from
    the open file, and a later read asks the book by a stat, as before."""
    path = transcript(tmp_path / "run", 20)
    stats: list[str] = []
    stamp = tally_module._stamp

    def counted(where: str) -> tuple[int, int, int] | None:
        stats.append(where)
        return stamp(where)

    monkeypatch.setattr(tally_module, "_stamp", counted)
    kept = book(tmp_path)
    first = SpendTally(kept)
    first.started([("k1", "a1")])
    assert first.total(str(tmp_path / "run")).tokens.output == 20
    assert stats == []
    kept.save()
    again = SpendTally(book(tmp_path))
    again.started([("k1", "a1")])
    Path(path).write_bytes(assistant(30))  # the same size and time: the kept answer
    os.utime(path, ns=(LONG_AGO * 10**9, LONG_AGO * 10**9))
    assert again.total(str(tmp_path / "run")).tokens.output == 20
    assert stats == [path]
