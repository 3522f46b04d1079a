"""``wftop status``, ``--read-only`` refusals, ``completion`` and ``--version``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

DEMO = Path(__file__).parent.parent.parent / "mockapi" / "bundled"


def wftop(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "WFTOP_READ_ONLY"}
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=full,
    )


@pytest.fixture
def cache(tmp_path: Path) -> dict[str, str]:
    return {
        "WFTOP_CACHE_DIR": str(tmp_path / "cache"),
        "WFTOP_STATE_DIR": str(tmp_path / "state"),
    }


@pytest.fixture
def roots(tmp_path: Path) -> Callable[..., list[str]]:
    """``--root`` options for fresh copies of bundled trees: written a minute ago, so their
    dead runs are within the attention window."""

    def make(*names: str, age: float = 60.0) -> list[str]:
        out = ["--no-default-root"]
        moment = time.time() - age
        for name in names:
            copy = tmp_path / "trees" / name
            if not copy.exists():
                shutil.copytree(DEMO / name, copy)
                for path in copy.rglob("*"):
                    os.utime(path, (moment, moment), follow_symlinks=False)
            out += ["--root", str(copy)]
        return out

    return make


def test_status_counts_what_needs_attention(cache, roots):
    done = wftop("status", *roots("killed", "killed-in-parallel", "clean"), env=cache)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "⚠ 2 dead\n"


def test_a_run_completed_with_failed_calls_needs_you(cache, roots):
    """mid-failure completed with a3 failed: partial, in every format; not completed."""
    plain = wftop("status", *roots("mid-failure", "clean"), env=cache)
    assert (plain.returncode, plain.stdout) == (0, "⚠ 1 partial\n")
    tmux = wftop("status", "--format", "tmux", *roots("mid-failure", "killed"), env=cache)
    assert tmux.stdout == "⚠ #[fg=red,bold]1 dead#[default] · #[fg=yellow]1 partial#[default]\n"
    for _ in range(2):  # read, then from the cache of ended runs
        done = wftop("status", "--format", "json", *roots("mid-failure"), env=cache)
        data = json.loads(done.stdout)
        assert data == {
            "attention": 1,
            "counts": {"partial": 1},
            "needs_you": {
                "dead": 0,
                "stalled": 0,
                "failed": 0,
                "partial": 1,
                "unreadable": 0,
                "unreachable": 0,
            },
            "line": "⚠ 1 partial",
        }


def test_ls_says_partial_and_its_json_keeps_completed(cache, roots):
    table = wftop("ls", *roots("mid-failure"), env=cache)
    assert table.stdout.splitlines()[1].startswith("⚠ partial  ")
    (row,) = json.loads(wftop("ls", "--json", *roots("mid-failure"), env=cache).stdout)
    assert (row["status"], row["failed_calls"]) == ("completed", ["a3"])


def test_status_is_empty_when_all_is_well(cache, roots):
    done = wftop("status", *roots("clean"), env=cache)
    assert (done.returncode, done.stdout) == (0, "")


def test_status_tmux_and_json(cache, roots):
    tmux = wftop("status", "--format", "tmux", *roots("killed"), env=cache)
    assert tmux.stdout == "⚠ #[fg=red,bold]1 dead#[default]\n"
    done = wftop("status", "--format", "json", *roots("killed", "clean"), env=cache)
    data = json.loads(done.stdout)
    assert data == {
        "attention": 1,
        "counts": {"completed": 1, "dead": 1},
        "needs_you": {
            "dead": 1,
            "stalled": 0,
            "failed": 0,
            "partial": 0,
            "unreadable": 0,
            "unreachable": 0,
        },
        "line": "⚠ 1 dead",
    }


def test_dead_runs_older_than_the_attention_window_leave_the_line(cache, roots, tmp_path):
    old = roots("killed", "mid-failure", age=3 * 86400)
    done = wftop("status", "--format", "json", *old, env=cache)
    data = json.loads(done.stdout)
    assert (data["attention"], data["counts"]) == (0, {"dead": 1, "partial": 1})
    assert wftop("status", *old, env=cache).stdout == ""
    config = tmp_path / "config.toml"
    config.write_text("attention_window = 345600\n")
    wide = wftop("status", *old, env={**cache, "WFTOP_CONFIG": str(config)})
    assert wide.stdout == "⚠ 1 dead · 1 partial\n"


def test_ack_all_quiets_the_status_line_until_a_run_changes(cache, roots, tmp_path):
    trees = roots("killed", "killed-in-parallel", "mid-failure", "clean")
    assert (
        wftop("status", "--format", "plain", *trees, env=cache).stdout == "⚠ 2 dead · 1 partial\n"
    )
    acked = wftop("ack", "--all", *trees, env=cache)
    assert acked.returncode == 0, acked.stderr
    assert sorted(acked.stdout.splitlines()) == [
        "wf_2c9d1c86-e0c: seen (partial)",
        "wf_a0a3cc30-435: seen (dead)",
        "wf_b7599545-1a6: seen (dead)",
    ]
    assert wftop("status", "--format", "plain", *trees, env=cache).stdout == ""
    data = json.loads(wftop("status", "--format", "json", *trees, env=cache).stdout)
    assert data["attention"] == 0 and data["line"] == ""
    (journal,) = (tmp_path / "trees" / "killed").rglob("journal.jsonl")
    with journal.open("a") as handle:
        handle.write("\n")  # the run changed: it needs you again
    assert wftop("status", *trees, env=cache).stdout == "⚠ 1 dead\n"
    again = wftop("ack", "--all", *trees, env=cache)
    assert again.stdout.splitlines()[-1] == "2 of them had been marked seen already"


def test_ack_names_runs_by_id_and_refuses_what_it_cannot_find(cache, roots):
    trees = roots("killed", "killed-in-parallel")
    done = wftop("ack", "wf_b7599545-1a6", *trees, env=cache)
    assert (done.returncode, done.stdout) == (0, "wf_b7599545-1a6: seen (dead)\n")
    assert wftop("status", *trees, env=cache).stdout == "⚠ 1 dead\n"
    missing = wftop("ack", "wf_nope", *trees, env=cache)
    assert missing.returncode == 2
    assert missing.stderr.startswith("wftop: no run wf_nope under ")
    both = wftop("ack", "--all", "wf_b7599545-1a6", *trees, env=cache)
    assert both.returncode == 2 and "not both" in both.stderr
    read_only = wftop("ack", "--all", "--read-only", *trees, env=cache)
    assert read_only.returncode == 2 and "switched off by --read-only" in read_only.stderr


def test_status_cache_of_ended_runs_follows_the_files(tmp_path, cache):
    root = tmp_path / "clean"
    shutil.copytree(DEMO / "clean", root)
    args = ("status", "--format", "json", "--no-default-root", "--root", str(root))
    assert json.loads(wftop(*args, env=cache).stdout)["counts"] == {"completed": 1}
    assert json.loads(wftop(*args, env=cache).stdout)["counts"] == {"completed": 1}
    for snapshot in root.rglob("workflows/wf_*.json"):
        snapshot.unlink()  # no snapshot, no live owner: the cached "completed" must not stick
    assert json.loads(wftop(*args, env=cache).stdout)["counts"] == {"dead": 1}


@pytest.mark.parametrize(
    "args",
    [
        ("--read-only", "resume", "wf_abcdef1"),
        ("resume", "wf_abcdef1", "--read-only"),
        ("--read-only", "drill"),
    ],
)
def test_read_only_refuses_what_launches(args):
    done = wftop(*args)
    assert done.returncode == 2
    assert "switched off by --read-only" in done.stderr


def test_read_only_from_the_environment():
    done = wftop("resume", "wf_abcdef1", env={"WFTOP_READ_ONLY": "1"})
    assert done.returncode == 2 and "--read-only" in done.stderr


def test_version():
    done = wftop("--version")
    assert done.returncode == 0 and done.stdout.startswith("wftop ")


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_scripts_name_every_command(shell):
    done = wftop("completion", shell)
    assert done.returncode == 0, done.stderr
    for command in ("ls", "resume", "demo", "drill", "status", "ack", "completion"):
        assert command in done.stdout


def test_bash_completion_parses_and_completes(tmp_path):
    script = tmp_path / "wftop.bash"
    script.write_text(wftop("completion", "bash").stdout)
    probe = (
        f"source {script}; COMP_WORDS=(wftop status --format ''); COMP_CWORD=3; _shtab_wftop; "
        'echo "${COMPREPLY[@]}"'
    )
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) >= {"plain", "tmux", "json"}
