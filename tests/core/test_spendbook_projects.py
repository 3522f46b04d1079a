"""The spend book keeps a project's run folders and session transcripts in one file (a
first listing made a file per run folder, and making files was most of what it added to a
listing with no book), and two processes that write the same project's file keep what each
read (files counted and transcript reads counted, not timed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.test_spendbook import NOW, transcript
from wftop.core.cost import usage as usage_module
from wftop.core.cost.ratebook import RATES
from wftop.core.cost.spendbook import SpendBook, group_of
from wftop.core.cost.usage import Spends


def project_runs(tmp_path: Path, count: int) -> tuple[Path, list[str]]:
    """A project folder and a transcript in each of ``count`` run folders of its sessions
    (two runs a session), and in the project folder itself (as a session transcript is)."""
    project = tmp_path / "root" / "projects" / "-home-dev-p"
    paths = [
        transcript(project / f"session-{n // 2}" / "subagents" / "workflows" / f"wf_{n}", 20 + n)
        for n in range(count)
    ]
    return project, [*paths, transcript(project, 30)]


def folder(tmp_path: Path) -> Path:
    return tmp_path / "state" / "spends"


def files(tmp_path: Path) -> list[Path]:
    return [path for path in folder(tmp_path).glob("*.json") if path.name != RATES]


def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every transcript read from now on."""
    taken: list[str] = []
    real = usage_module._read
    monkeypatch.setattr(usage_module, "_read", lambda path: taken.append(path) or real(path))
    return taken


def outputs(paths: list[str], spends: Spends) -> list[int]:
    found = [spends.of(path) for path in paths]
    spends.keep()
    return [spend.tokens.output if spend is not None else -1 for spend in found]


def test_a_projects_run_folders_and_session_transcripts_are_kept_in_one_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, paths = project_runs(tmp_path, 3)
    spent = [20, 21, 22, 30]
    assert outputs(paths, Spends(SpendBook(folder(tmp_path), clock=lambda: NOW))) == spent
    assert len(files(tmp_path)) == 1
    assert {group_of(str(Path(path).parent)) for path in paths} == {str(project)}
    taken = reads(monkeypatch)
    again = Spends(SpendBook(folder(tmp_path), clock=lambda: NOW))
    assert outputs(paths, again) == spent
    assert taken == []


def test_two_processes_writing_one_projects_file_keep_what_each_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project, (first, second, _own) = project_runs(tmp_path, 2)
    one = Spends(SpendBook(folder(tmp_path), clock=lambda: NOW))
    other = Spends(SpendBook(folder(tmp_path), clock=lambda: NOW))
    assert one.of(first) is not None
    assert other.of(second) is not None  # both looked in the file before either wrote it
    one.keep()
    other.keep()
    taken = reads(monkeypatch)
    assert outputs([first, second], Spends(SpendBook(folder(tmp_path), clock=lambda: NOW))) == [
        20,
        21,
    ]
    assert taken == []


def test_a_directory_not_a_run_folder_is_kept_in_a_file_of_its_own(tmp_path: Path) -> None:
    project = tmp_path / "root" / "projects" / "-home-dev-p"
    assert group_of(str(project)) == str(project)
    assert group_of(str(project / "wf_1")) == str(project / "wf_1")
    assert group_of(str(project / "s" / "other" / "workflows" / "wf_1")) == str(
        project / "s" / "other" / "workflows" / "wf_1"
    )


def test_a_projects_file_is_read_once_however_many_of_its_run_folders_it_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan kept one run of a project; a listing then looks up each of its runs: the
    project's file is read once, not once per run folder it holds nothing of."""
    _project, paths = project_runs(tmp_path, 4)
    assert outputs(paths[:1], Spends(SpendBook(folder(tmp_path), clock=lambda: NOW))) == [20]
    opened: list[Path] = []
    real = SpendBook._entries
    monkeypatch.setattr(
        SpendBook,
        "_entries",
        lambda book, path, *a, **k: opened.append(path) or real(book, path, *a, **k),
    )
    listing = SpendBook(folder(tmp_path), clock=lambda: NOW)
    assert outputs(paths, Spends(listing)) == [20, 21, 22, 23, 30]
    assert len(opened) == 2  # read when first looked in, and again to write over
