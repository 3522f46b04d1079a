"""Every command on a run whose call ``a4`` returned a value nested 100,000 levels.

The CLI reads that line (``JSON.parse`` reads any depth) and would serve a4 from cache on a
resume. wftop read it as "not valid JSON", so a4 counted in flight (``5/3``), and the
exports crashed on what they could read; now every command counts it returned, masks the
secret at its bottom and prints it as the JSON it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deep_kit import DEEP, RUN_ID, SECRET, SESSION_ID, deep_tree, nested

MASKED_BOTTOM = b'{"deep":"[masked:anthropic_key]"}'
NOTE = f"nested {DEEP:,} levels deep: too deep to lay out, shown as compact JSON"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return deep_tree(tmp_path_factory.mktemp("deep"))


def wftop(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", "--no-default-root", "--root", str(root), *args],
        capture_output=True,
        env={**os.environ, "WFTOP_STATE_DIR": str(root.parent / "state")},
        timeout=120,
    )
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")[-2000:]
    assert SECRET.encode() not in done.stdout + done.stderr
    return done


def test_ls_counts_the_deep_result_returned(root):
    table = wftop(root, "ls")
    assert table.returncode == 0
    assert b" 5/4/0 " in table.stdout and b"a5" in table.stdout
    listed = wftop(root, "ls", "--json")
    (row,) = json.loads(listed.stdout)
    assert (row["started"], row["returned"], row["in_flight"]) == (5, 4, ["a5"])
    assert row["unreadable_lines"] == 0
    assert listed.stderr == b""


def test_stats(root):
    text = wftop(root, "stats")
    assert b"calls started: 5; returned: 4" in text.stdout
    data = json.loads(wftop(root, "stats", "--json").stdout)
    assert (data["started"], data["returned"]) == (5, 4)


def test_scan_reads_the_session_with_its_deep_tool_input(root):
    (session,) = root.glob(f"projects/*/{SESSION_ID}.jsonl")
    for form in ([], ["--json"]):
        done = wftop(root, "scan", "--session", str(session), *form)
        assert done.returncode == 0, done.stderr
        assert b"not valid JSON" not in done.stdout + done.stderr


def test_export_json_writes_the_deep_result_as_the_json_it_was(root):
    done = wftop(root, "export", RUN_ID, "--format", "json")
    assert done.returncode == 0 and done.stderr == b""
    compact = nested(DEEP).replace(b'{"deep":"' + SECRET.encode() + b'"}', MASKED_BOTTOM)
    assert compact in done.stdout
    head = done.stdout.replace(compact, b'"<deep>"')  # what Python's own parser can read
    calls = json.loads(head)["calls"]
    assert [(call["label"], call["state"]) for call in calls] == [
        ("a1", "done"),
        ("a2", "done"),
        ("a3", "done"),
        ("a4", "done"),
        ("a5", "dead"),
    ]
    assert calls[3]["result"] == "<deep>" and calls[3]["result_note"] == NOTE
    assert calls[0]["result"] == {"agent": "a1", "ok": True, "n": 1}
    assert calls[0]["result_note"] is None
    assert json.loads(head)["redaction"]["kinds"] == {"anthropic_key": 1}


def test_export_md_shows_the_deep_result_compact_with_a_note(root):
    done = wftop(root, "export", RUN_ID)
    assert done.returncode == 0 and done.stderr == b""
    text = done.stdout.decode()
    assert f"Result (journal; {NOTE}):" in text
    assert MASKED_BOTTOM.decode() in text
    assert "- calls: 5, returned: 4" in text


@pytest.mark.parametrize("form", [[], ["--json"]])
def test_resume_dry_run_serves_the_deep_result_from_cache(root, form):
    done = wftop(root, "resume", RUN_ID, "--dry-run", *form)
    assert done.returncode == 3  # the session's working directory is gone: refused
    if form:
        forecast = json.loads(done.stdout)["forecast"]
        assert (forecast["cached"], forecast["live"]) == (["a1", "a2", "a3", "a4"], ["a5"])
    else:
        assert b"a1, a2, a3, a4 from cache; a5 live" in done.stdout
