"""``wftop __fetch``: one file of a run's own folder, masked, at most what was asked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus import copy_tree, only_journal
from wftop.core.remote.fetch import CUT_EXIT


def fetch(root: Path, name: str, *more: str) -> subprocess.CompletedProcess[bytes]:
    journal = only_journal(root)
    run_dir = journal.parent
    session = run_dir.parent.parent.parent.name
    argv = [sys.executable, "-m", "wftop.cli", "__fetch", f"--session={session}"]
    argv += [f"--root={root}", f"--file={name}", *more, "--", run_dir.name]
    return subprocess.run(argv, capture_output=True, check=False, timeout=60)


def test_the_journal_comes_whole_and_masked(tmp_path):
    root = copy_tree("killed", tmp_path / "t")
    journal = only_journal(root)
    with open(journal, "a") as handle:
        handle.write('{"type":"started","key":"k","label":"ghp_' + "a" * 36 + '"}\n')
    done = fetch(root, "journal.jsonl")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(b"\n") == journal.read_bytes().count(b"\n")
    assert b"ghp_" not in done.stdout and b"[masked:github_token]" in done.stdout


def test_a_longer_file_is_cut_at_a_whole_line_and_says_so(tmp_path):
    root = copy_tree("killed", tmp_path / "t")
    done = fetch(root, "journal.jsonl", "--max-bytes=300")
    assert done.returncode == CUT_EXIT
    assert 0 < len(done.stdout) <= 300 and done.stdout.endswith(b"\n")


@pytest.mark.parametrize(
    "name", ["../../../../x.jsonl", "agent-../x.jsonl", "journal.json", "agent-a b.jsonl", "x"]
)
def test_only_the_runs_own_files_are_printed(tmp_path, name):
    root = copy_tree("killed", tmp_path / "t")
    done = fetch(root, name)
    assert done.returncode == 2 and done.stdout == b""
    (line,) = done.stderr.decode().strip().splitlines()
    assert name in line


def test_a_link_in_the_run_folder_is_not_followed(tmp_path):
    root = copy_tree("killed", tmp_path / "t")
    secret = tmp_path / "elsewhere.jsonl"
    secret.write_text('{"private": true}\n')
    link = only_journal(root).parent / "agent-alink.jsonl"
    os.symlink(secret, link)
    done = fetch(root, "agent-alink.jsonl")
    assert done.returncode == 2 and b"private" not in done.stdout
    assert b"agent-alink.jsonl" in done.stderr  # named, and why it was not read


def test_a_fifo_in_the_run_folder_is_refused_without_waiting_for_a_writer(tmp_path):
    root = copy_tree("killed", tmp_path / "t")
    os.mkfifo(only_journal(root).parent / "agent-afifo.jsonl")
    done = fetch(root, "agent-afifo.jsonl")  # fetch() waits at most 60 s (a hang fails)
    assert done.returncode == 2 and done.stdout == b""
    assert b"not a regular file" in done.stderr
