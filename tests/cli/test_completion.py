"""Shell completion: the global options everywhere, and run ids from the rows cache."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.cli.test_global_options import GIVEN
from tests.corpus import copy_tree
from tests.shortpath_kit import new_short_dir, remove
from tests.tmux_kit import needs

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
    """COMPREPLY after the function the script registers for ``wftop`` (``complete -F``) runs
    in a real bash on ``words`` (the last one is the word being completed)."""
    (function,) = re.findall(r"^complete .*-F (\S+) wftop$", Path(script).read_text(), re.M)
    probe = (
        f"source {shlex.quote(script)}; COMP_WORDS=({' '.join(map(shlex.quote, words))}); "
        f"COMP_CWORD={len(words) - 1}; {function}; printf '%s\\n' \"${{COMPREPLY[@]}}\""
    )
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_every_script_knows_every_global_option(shell):
    text = wftop("completion", shell).stdout
    for flag in GIVEN:
        assert flag in text
    assert "__complete-runs" in text


def test_fish_is_not_offered():
    """shtab writes no fish script: ``fish`` is refused as any shell it does not know."""
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", "completion", "fish"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "invalid choice: 'fish'" in done.stderr


def test_the_values_that_name_paths_are_shtabs():
    """The options module names shtab's completions without importing it (every command
    would pay for the import): they must be what shtab says."""
    import shtab

    from wftop.cli.options import DIR_VALUES, FILE_VALUES

    for ours, theirs in ((DIR_VALUES, shtab.DIRECTORY), (FILE_VALUES, shtab.FILE)):
        assert ours == {shell: theirs[shell] for shell in ours}


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


def test_zsh_completes_run_ids_and_commands_after_global_options(root, tmp_path):
    """A real interactive zsh (in tmux, its completion system loaded from a folder holding
    the script as ``_wftop``) is typed a line and Tab twice (the first inserts what the
    choices share, the second lists them)."""
    needs("zsh", "tmux")  # under CI=true a missing one fails: zsh's completion must be run
    functions = tmp_path / "functions"
    functions.mkdir()
    (functions / "_wftop").write_text(wftop("completion", "zsh").stdout)
    (tmp_path / ".zshrc").write_text(
        f"fpath=({shlex.quote(str(functions))} $fpath)\n"
        "autoload -U compinit && compinit -u -D\nPROMPT='%% '\n"
    )
    ids = listed_ids(root)
    sockets = new_short_dir("wftop-zsh-")  # short: a socket's path fits sun_path
    env = {**shell_env(), "ZDOTDIR": str(tmp_path), "TMUX_TMPDIR": str(sockets)}
    env.pop("TMUX", None)
    tmux = ["tmux", "-L", f"wftop-zsh-{uuid.uuid4().hex[:8]}", "-f", os.devnull]

    def run(*args: str) -> str:
        done = subprocess.run([*tmux, *args], env=env, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def typed(line: str, *shown: str) -> str:
        run("send-keys", "-t", "zsh", "C-u", line, "Tab")
        time.sleep(0.5)
        run("send-keys", "-t", "zsh", "Tab")
        deadline = time.monotonic() + 20
        while not all(text in (screen := run("capture-pane", "-p", "-t", "zsh")) for text in shown):
            assert time.monotonic() < deadline, f"never showed {shown}:\n{screen}"
            time.sleep(0.1)
        return screen

    try:
        run("new-session", "-d", "-s", "zsh", "-x", "200", "-y", "50", "zsh")
        typed(f"wftop --root {root} --no-default-root resume ", *ids)
        run("send-keys", "-t", "zsh", "C-c")
        screen = typed(f"wftop --stall-window 5 --root {root} sta", "stats", "status")
        assert "export" not in screen.splitlines()[-1]
        run("send-keys", "-t", "zsh", "C-c")
        typed("wftop ls --no-", "--no-default-root", "--no-mouse")
    finally:
        subprocess.run([*tmux, "kill-server"], env=env, capture_output=True, check=False)
        remove(sockets)
