"""A first run that leads somewhere: no Claude config dir here, or a root one level too deep."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.corpus import copy_tree

HINT = "Claude Code has not run here: pass --root DIR, set CLAUDE_CONFIG_DIR, or try wftop demo"


def wftop(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "WFTOP_STATE_DIR": os.environ["HOME"] + "/state", **(env or {})},
    )


def test_with_no_claude_config_dir_ls_says_where_it_looked_and_what_to_try():
    looked = Path(os.environ["HOME"]) / ".claude"
    assert not looked.exists()
    done = wftop("ls")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"wftop: {looked}: no such directory: {HINT}\n"
    named = wftop("ls", env={"CLAUDE_CONFIG_DIR": str(looked.parent / "elsewhere")})
    assert named.stderr == f"wftop: {looked.parent / 'elsewhere'}: no such directory: {HINT}\n"


class OpenedApp:
    """What `wftop.tui.start.make_app` was asked for, in place of the app (it runs nothing)."""

    def __init__(self, roots: list[str], **_kwargs: object) -> None:
        self.roots = roots
        self.return_code = 0
        opened.append(self)

    def run(self, **_kwargs: object) -> None:
        return None


opened: list[OpenedApp] = []


def test_with_no_claude_config_dir_the_tui_opens_over_it_and_beside_a_root_drops_it(
    monkeypatch, tmp_path
):
    import wftop.tui.start
    from wftop.cli.main import main

    looked = Path(os.environ["HOME"]) / ".claude"
    monkeypatch.setenv("WFTOP_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(wftop.tui.start, "make_app", OpenedApp)
    opened.clear()
    assert main([]) == 0
    assert [app.roots for app in opened] == [[str(looked)]]  # it watches for it (a first run)
    root = copy_tree("killed", tmp_path)
    assert main(["--root", str(root)]) == 0
    assert opened[-1].roots == [str(root)]
    assert main(["--root", str(tmp_path / "nope")]) == 2  # a root named is still checked
    assert len(opened) == 2


def test_with_no_claude_config_dir_status_prints_nothing_and_json_zero_counts():
    plain = wftop("status")
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, "", "")
    tmux = wftop("status", "--format", "tmux")
    assert (tmux.returncode, tmux.stdout, tmux.stderr) == (0, "", "")
    done = wftop("status", "--format", "json")
    assert (done.returncode, done.stderr) == (0, "")
    said = json.loads(done.stdout)
    assert (said["attention"], said["counts"], said["line"]) == (0, {}, "")
    assert {"dead", "stalled", "failed", "partial"} <= set(said["needs_you"])
    assert set(said["needs_you"].values()) == {0}
    named = wftop("status", "--root", str(Path(os.environ["HOME"]) / "nope"))
    assert named.returncode == 2
    assert (
        "nope: no such directory (expected a Claude config dir holding projects/)" in named.stderr
    )


def test_a_root_that_is_a_projects_folder_names_its_parent(tmp_path):
    root = copy_tree("killed", tmp_path)
    for command in ("ls", "status"):
        done = wftop(command, "--no-default-root", "--root", str(root / "projects"))
        assert done.returncode == 2
        assert done.stderr == (
            f"wftop: {root / 'projects'}: a projects/ folder, not a Claude config dir:"
            f" did you mean its parent, {root}?\n"
        )
    assert wftop("ls", "--no-default-root", "--root", str(root)).returncode == 0
