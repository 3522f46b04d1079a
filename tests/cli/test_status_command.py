"""``wftop status``, ``--read-only`` refusals, ``completion`` and ``--version``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
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
    return {"WFTOP_CACHE_DIR": str(tmp_path / "cache")}


def roots(*names: str) -> list[str]:
    out = ["--no-default-root"]
    for name in names:
        out += ["--root", str(DEMO / name)]
    return out


def test_status_counts_what_needs_attention(cache):
    done = wftop("status", *roots("killed", "killed-in-parallel", "clean"), env=cache)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "⚠ 2 dead\n"


def test_a_run_completed_with_failed_calls_needs_you(cache):
    """mid-failure completed with a3 failed: partial, in every format; not completed."""
    plain = wftop("status", *roots("mid-failure", "clean"), env=cache)
    assert (plain.returncode, plain.stdout) == (0, "⚠ 1 partial\n")
    tmux = wftop("status", "--format", "tmux", *roots("mid-failure", "killed"), env=cache)
    assert tmux.stdout == "⚠ #[fg=red,bold]1 dead#[default] · #[fg=yellow]1 partial#[default]\n"
    for _ in range(2):  # read, then from the cache of ended runs
        done = wftop("status", "--format", "json", *roots("mid-failure"), env=cache)
        data = json.loads(done.stdout)
        assert data == {"attention": 1, "counts": {"partial": 1}, "line": "⚠ 1 partial"}


def test_ls_says_partial_and_its_json_keeps_completed(cache):
    table = wftop("ls", *roots("mid-failure"), env=cache)
    assert table.stdout.splitlines()[1].startswith("⚠ partial  ")
    (row,) = json.loads(wftop("ls", "--json", *roots("mid-failure"), env=cache).stdout)
    assert (row["status"], row["failed_calls"]) == ("completed", ["a3"])


def test_status_is_empty_when_all_is_well(cache):
    done = wftop("status", *roots("clean"), env=cache)
    assert (done.returncode, done.stdout) == (0, "")


def test_status_tmux_and_json(cache):
    tmux = wftop("status", "--format", "tmux", *roots("killed"), env=cache)
    assert tmux.stdout == "⚠ #[fg=red,bold]1 dead#[default]\n"
    done = wftop("status", "--format", "json", *roots("killed", "clean"), env=cache)
    data = json.loads(done.stdout)
    assert data == {"attention": 1, "counts": {"completed": 1, "dead": 1}, "line": "⚠ 1 dead"}


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


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_name_every_command(shell):
    done = wftop("completion", shell)
    assert done.returncode == 0, done.stderr
    for command in ("ls", "resume", "demo", "drill", "status", "completion"):
        assert command in done.stdout


def test_bash_completion_parses_and_completes(tmp_path):
    script = tmp_path / "wftop.bash"
    script.write_text(wftop("completion", "bash").stdout)
    probe = (
        f"source {script}; COMP_WORDS=(wftop status --format ''); COMP_CWORD=3; _wftop; "
        'echo "${COMPREPLY[@]}"'
    )
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) >= {"plain", "tmux", "json"}
