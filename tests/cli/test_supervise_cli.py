"""``wftop supervise`` as a process: its state files, its flags, its off switch and its modes.

The runs are copies of real trees; ``claude`` is a script that only records that it was
started, so a test can tell that nothing was launched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.corpus import copy_tree
from tests.faults_kit import TOP, unprivileged
from tests.supervise_kit import make_resumable

LAUNCHED = "launched.txt"


@pytest.fixture
def place(tmp_path: Path) -> Path:
    root = copy_tree("mid-failure", tmp_path)
    (tmp_path / "work").mkdir()
    make_resumable(root, tmp_path / "work")
    past = time.time() - 600
    for path in root.rglob("*"):
        os.utime(path, (past, past), follow_symlinks=False)
    claude = tmp_path / "claude"
    claude.write_text(f'#!/bin/sh\necho "$CLAUDE_CONFIG_DIR $*" >> {tmp_path / LAUNCHED}\n')
    claude.chmod(0o755)
    return tmp_path


def supervise(
    place: Path, *args: str, prefix: list[str] | None = None, config: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(TOP), "WFTOP_STATE_DIR": str(place / "state")}
    if config is not None:
        (place / "config.toml").write_text(config)
        env["WFTOP_CONFIG"] = str(place / "config.toml")
    root, claude = str(place / "mid-failure"), str(place / "claude")
    argv = [
        *(prefix or []),
        sys.executable,
        "-m",
        "wftop.cli",
        "supervise",
        "--no-default-root",
        "--root",
        root,
        "--claude",
        claude,
        *args,
    ]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)


def audit_file(place: Path) -> Path:
    return place / "state" / "supervise" / "audit.jsonl"


def nothing_launched(place: Path) -> bool:
    """No resume was started (asking the version and rehearsing in a throwaway dir are not)."""
    started = (place / LAUNCHED).read_text().splitlines() if (place / LAUNCHED).exists() else []
    resumed = [line for line in started if "--version" not in line and "rehearsal" not in line]
    return not resumed and not (place / "state" / "launches").exists()


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("audit.jsonl", '{"at": "2027-01-15T08:00:00Z"}\nnot json\n', "audit.jsonl:1: "),
        ("audit.jsonl", "\x00\x01garbage\n", "audit.jsonl:1: "),
        ("state.json", '{"version": 2, "marks": []}', "state.json:1: not a version 1"),
        ("state.json", "[]", "state.json:1: "),
    ],
)
def test_a_corrupt_or_foreign_state_file_is_one_line_and_no_launch(place, name, text, says):
    folder = place / "state" / "supervise"
    folder.mkdir(parents=True, mode=0o700)
    (folder / name).write_text(text)
    done = supervise(place, "--once", "--all", "--max-usd", "1", "--backoff", "0")
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert says in line and "expected" in line
    assert (folder / name).read_text() == text
    assert nothing_launched(place)


def test_a_state_file_that_is_a_link_is_left_alone(place):
    folder = place / "state" / "supervise"
    folder.mkdir(parents=True, mode=0o700)
    elsewhere = place / "elsewhere.json"
    elsewhere.write_text("mine")
    (folder / "state.json").symlink_to(elsewhere)
    for args in (("--once", "--all", "--max-usd", "1"), ("--off",)):
        done = supervise(place, *args)
        assert done.returncode == 2, done.stderr
        (line,) = done.stderr.splitlines()
        assert "state.json: not a regular file" in line
    assert elsewhere.read_text() == "mine" and nothing_launched(place)


def test_an_audit_log_it_cannot_write_is_one_line_and_no_launch(place):
    prefix = unprivileged()
    folder = place / "state" / "supervise"
    folder.mkdir(parents=True, mode=0o700)
    audit_file(place).write_text("")
    audit_file(place).chmod(0o400)
    done = supervise(place, "--once", "--all", "--max-usd", "1", "--backoff", "0", prefix=prefix)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "audit.jsonl: cannot be written (Permission denied)" in line
    assert nothing_launched(place)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--attempts", "0"), "expected a whole number of resumes of at least 1"),
        (("--attempts", "1.5"), "expected a whole number of resumes"),
        (("--backoff", "-1"), "expected a number of seconds of at least 0"),
        (("--max-usd", "nan"), "expected a number of dollars"),
        (("--daily-usd", "inf"), "expected a number of dollars"),
        (("--fallback", "owner"), "invalid choice: 'owner'"),
        (("--once", "--dry-run"), "not allowed with argument"),
    ],
)
def test_a_bad_flag_is_refused_before_anything_is_read(place, args, says):
    done = supervise(place, *args)
    assert done.returncode == 2 and says in done.stderr
    assert not (place / "state").exists()


def test_a_bad_supervise_table_in_the_config_names_the_key(place):
    done = supervise(place, "--dry-run", "--all", config="[supervise]\nattempts = 0\n")
    assert done.returncode == 2
    assert "config.toml: [supervise] attempts must be a whole number of resumes of at least 1" in (
        done.stderr
    )
    unknown = supervise(place, "--dry-run", "--all", config="[supervise]\nmax_dollars = 3\n")
    assert unknown.returncode == 2 and "unknown key 'max_dollars'" in unknown.stderr


def the_row(place: Path, *extra: str) -> dict:
    """The one run's ``--dry-run --json`` row, with a config capping runs at $0.00001."""
    config = "[supervise]\nmax_usd = 0.00001\n"
    done = supervise(place, "--dry-run", "--all", "--backoff", "0", "--json", *extra, config=config)
    (row,) = [json.loads(line) for line in done.stdout.splitlines()]
    return row


def test_the_configs_cap_is_used_and_a_flag_wins(place):
    row = the_row(place)
    assert row["would"] == "refuse" and row["cap_usd"] == 0.00001
    assert "budget of < $0.0001 (--max-usd)" in row["reason"]
    row = the_row(place, "--max-usd", "5")
    assert row["cap_usd"] == 5.0 and "budget of $5.00 (--max-usd)" in row["reason"]


def test_read_only_refuses_what_launches_and_allows_what_reads(place):
    once = supervise(place, "--once", "--all", "--max-usd", "1", "--read-only")
    assert once.returncode == 2 and "supervise is switched off by --read-only" in once.stderr
    for mode in ("--status", "--log", "--dry-run"):
        done = supervise(place, mode, "--read-only")
        assert done.returncode == 0, (mode, done.stderr)
    assert nothing_launched(place)


def test_a_dry_run_says_what_it_would_do_and_writes_nothing(place):
    done = supervise(place, "--dry-run", "--all", "--max-usd", "1", "--backoff", "3600")
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    assert line.startswith("wf_6838482f-c9a  would refuse: the surgical forecast is open-ended")
    assert not (place / "state").exists() and nothing_launched(place)


def test_the_log_prints_every_line_as_text_or_as_written(place):
    done = supervise(place, "--once", "--all", "--backoff", "0")  # no cap: refused, told
    assert done.returncode == 0, done.stderr
    written = audit_file(place).read_text().splitlines()
    assert [json.loads(line)["decision"] for line in written] == ["considered", "refused"]
    as_json = supervise(place, "--log", "--json")
    assert as_json.stdout.splitlines() == written
    text = supervise(place, "--log").stdout.splitlines()
    assert len(text) == 2 and "  refused     no cap (--max-usd" in text[1], text
    status = supervise(place, "--status")
    assert status.stdout.splitlines()[0] == "supervisor  not running"
    assert "refused     no cap" in status.stdout


def test_off_takes_every_mark_off(place):
    from wftop.core.supervise.state import SuperviseStore

    store = SuperviseStore(place / "state")
    store.toggle("wf_6838482f-c9a", str(place / "mid-failure"))
    done = supervise(place, "--off")
    assert done.returncode == 0
    assert done.stdout.strip() == "supervision off: 1 auto mark taken off"
    assert store.read_state().marks == () and store.read_state().off_at is not None


def test_what_a_person_must_hear_goes_out_on_the_notification_channels(place):
    told = place / "told.jsonl"
    script = f"import sys; open({str(told)!r}, 'a').write(sys.stdin.read().strip() + '\\n')"
    command = json.dumps([sys.executable, "-c", script])
    config = f'[notifications]\nchannels = ["command"]\ncommand = {command}\n'
    done = supervise(place, "--once", "--all", config=config)
    assert done.returncode == 0, done.stderr
    (event,) = [json.loads(line) for line in told.read_text().splitlines()]
    assert (event["event"], event["after"], event["run_id"]) == (
        "supervisor",
        "refused",
        "wf_6838482f-c9a",
    )
    assert "no cap (--max-usd, or [supervise] max_usd)" in event["text"]
    assert "wftop supervise: notify: " in done.stderr  # and on stderr, for a service's journal
    again = supervise(place, "--once", "--all", config=config)
    assert again.returncode == 0 and len(told.read_text().splitlines()) == 1
    off = config.replace("[notifications]\n", "[notifications]\nsupervisor = false\n")
    supervise(place, "--once", "--all", "--max-usd", "0.000001", config=off)
    assert len(told.read_text().splitlines()) == 1 and nothing_launched(place)
