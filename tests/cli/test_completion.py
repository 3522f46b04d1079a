"""Shell completion: the global options everywhere, and run ids from the rows cache."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_global_options import GIVEN
from tests.corpus import copy_tree

BIN = Path(sys.executable).parent


def wftop(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WFTOP_NOW": "1800000000"}
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """One config dir holding two runs: ``killed`` (dead) and ``clean`` (completed)."""
    tree = copy_tree("killed", tmp_path)
    clean = copy_tree("clean", tmp_path / "c")
    for project in (clean / "projects").iterdir():
        os.rename(project, tree / "projects" / project.name)
    return tree


def listed_ids(root: Path) -> list[str]:
    import json

    rows = json.loads(wftop("ls", "--no-default-root", "--root", str(root), "--json").stdout)
    return [row["run_id"] for row in rows]


def complete(script: str, words: list[str]) -> list[str]:
    """COMPREPLY after ``_wftop`` runs in a real bash on ``words`` (the last one is the word
    being completed)."""
    probe = (
        f"source {shlex.quote(script)}; COMP_WORDS=({' '.join(map(shlex.quote, words))}); "
        f"COMP_CWORD={len(words) - 1}; _wftop; printf '%s\\n' \"${{COMPREPLY[@]}}\""
    )
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_every_script_knows_every_global_option(shell):
    text = wftop("completion", shell).stdout
    for flag in GIVEN:
        assert flag in text if shell != "fish" else f"-l {flag[2:]}" in text
    assert "__complete-runs" in text


def test_the_hidden_helper_prints_run_ids_from_the_cache_only(root):
    args = ["__complete-runs", "--root", str(root), "--no-default-root"]
    assert wftop(*args).stdout == ""  # nothing cached yet: it does not scan the tree
    ids = listed_ids(root)
    assert len(ids) == 2
    assert wftop(*args).stdout.splitlines() == ids  # newest activity first, as ls lists them
    assert wftop("__complete-runs", "--no-default-root").stdout == ""  # no root, no ids


def test_bash_completes_run_ids_after_global_options(root, tmp_path):
    script = tmp_path / "wftop.bash"
    script.write_text(wftop("completion", "bash").stdout)
    ids = listed_ids(root)
    line = ["wftop", "--root", str(root), "--no-default-root", "resume"]
    assert sorted(complete(str(script), [*line, ""])) == sorted(ids)
    assert complete(str(script), [*line, ids[0][:6]]) == [
        i for i in ids if i.startswith(ids[0][:6])
    ]
    assert "--stall-window" in complete(str(script), ["wftop", "export", "--st"])
    before = complete(str(script), ["wftop", "--root", str(root), "sta"])
    assert sorted(before) == ["stats", "status"]
    flags = complete(str(script), ["wftop", "--stall-window", "60", "ls", "--"])
    assert "--json" in flags and "--root" in flags


def shell_env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_fish_completes_run_ids_and_global_options(root, tmp_path):
    if shutil.which("fish") is None:
        pytest.skip("no fish on this machine")
    script = tmp_path / "wftop.fish"
    script.write_text(wftop("completion", "fish").stdout)
    ids = listed_ids(root)

    def complete_fish(line: str) -> list[str]:
        probe = f"source {shlex.quote(str(script))}; complete -C{shlex.quote(line)}"
        done = subprocess.run(
            ["fish", "-c", probe], capture_output=True, text=True, env=shell_env()
        )
        assert done.returncode == 0, done.stderr
        return [line.split("\t")[0] for line in done.stdout.splitlines()]

    line = f"wftop --root {root} --no-default-root export "
    assert sorted(complete_fish(line)) == sorted(ids)
    assert "--stall-window" in complete_fish("wftop ls --st")
    assert sorted(complete_fish(f"wftop --root {root} st")) == ["stats", "status"]


ZSH_STUBS = """
compdef() { : }
_arguments() {
  print -r -- "ARGS $*"
  for spec in "$@"; do [[ $spec == *_wftop_runs* ]] && _wftop_runs; done
  [[ "$*" == *'->command'* ]] && state=command
}
_describe() { print -r -- "DESCRIBE $1" }
compadd() { print -rl -- "ID "${^ids} }
"""


def test_zsh_finds_the_command_after_global_options_and_offers_run_ids(root, tmp_path):
    """zsh's completion system needs a terminal; its functions are stubbed to print what
    wftop's function hands them, and the function runs in a real zsh."""
    if shutil.which("zsh") is None:
        pytest.skip("no zsh on this machine")
    script = tmp_path / "_wftop"
    script.write_text(wftop("completion", "zsh").stdout)
    ids = listed_ids(root)

    def run(*words: str) -> list[str]:
        probe = (
            f"{ZSH_STUBS}\nsource {shlex.quote(str(script))}\n"
            f"words=({' '.join(map(shlex.quote, words))}); CURRENT={len(words)}\n_wftop\n"
            'print -r -- "AT $words[1] $CURRENT"'
        )
        done = subprocess.run(
            ["zsh", "-f", "-c", probe], capture_output=True, text=True, env=shell_env()
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    out = run("wftop", "--root", str(root), "--no-default-root", "resume", "")
    assert [line[3:] for line in out if line.startswith("ID ")] == ids
    assert out[-1] == "AT resume 2"
    out = run("wftop", "--stall-window", "5", "")
    assert "DESCRIBE command" in out
    assert any(line.startswith("ARGS ") and "--root[" in line for line in out)
