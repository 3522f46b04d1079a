"""Where wftop writes, and with which modes.

wftop's own files (the resume state dir, its logs, the status cache) are created
0700 (folders) and 0600 (files), even under ``umask 000``. Under a Claude config dir
wftop writes nothing but the confirmed relocation copy: every path under a copied
config dir is recorded (kind, size, mtime_ns, mode) before and after ``ls``, ``ls
--json``, ``status``, ``resume --dry-run``, a refused resume, ``scan``, ``export``,
``stats`` and a TUI session that opens every screen of a run; and after a confirmed
surgical resume the only addition is the new session's journal copy (and the folders
that hold it).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.faults_kit import RUN, TIMEOUT, World
from wftop.core.system.procs import FakeProcessTable

TOP = Path(__file__).resolve().parent.parent.parent
Record = dict[str, tuple[str, int, int, int]]


def record(top: Path) -> Record:
    """Every path under ``top`` (links not followed): kind, size, mtime_ns, mode."""
    found: Record = {}
    for folder, dirs, files in os.walk(top):
        for name in [*dirs, *files, "."]:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            kind = "d" if stat.S_ISDIR(info.st_mode) else "l" if stat.S_ISLNK(info.st_mode) else "f"
            size = 0 if kind == "d" else info.st_size
            found[os.path.normpath(os.path.relpath(path, top))] = (
                kind,
                size,
                info.st_mtime_ns,
                info.st_mode,
            )
    return found


def run_wftop(
    world: World, *args: str, umask: int | None = None
) -> subprocess.CompletedProcess[str]:
    argv = [
        sys.executable,
        "-m",
        "wftop.cli",
        *args,
        "--no-default-root",
        "--root",
        str(world.root),
    ]
    return subprocess.run(
        argv,
        cwd=TOP,
        env=world.env(WFTOP_CACHE_DIR=str(world.base / "cache"), HOME=str(world.base / "home")),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=None if umask is None else (lambda: os.umask(umask)),  # noqa: PLW1509
    )


def test_state_dir_logs_and_cache_are_private_even_under_umask_000(tmp_path):
    world = World(tmp_path)
    world.go.touch()
    try:
        result = subprocess.run(
            world.argv(),
            cwd=TOP,
            env=world.env(WFTOP_CACHE_DIR=str(tmp_path / "cache")),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            preexec_fn=lambda: os.umask(0),  # noqa: PLW1509
        )
        assert result.returncode == 0, result.stdout + result.stderr
        status = run_wftop(world, "status", umask=0)
        assert status.returncode == 0, status.stderr
    finally:
        world.stop_leftovers()
    made = {world.state: "state", tmp_path / "cache": "cache"}
    kinds = set()
    for top in made:
        paths = [top, *top.rglob("*")]
        assert len(paths) > 1, f"nothing written under {made[top]}"
        for path in paths:
            mode = stat.S_IMODE(path.lstat().st_mode)
            if path.is_dir():
                assert mode == 0o700, f"{path}: {oct(mode)}"
            else:
                assert mode == 0o600, f"{path}: {oct(mode)}"
                kinds.add(path.suffix)
    assert {".jsonl", ".log", ".json", ".lock"} <= kinds


async def test_reading_commands_and_a_tui_session_write_nothing_under_the_config_dir(
    tmp_path, tui_home, monkeypatch
):
    world = World(tmp_path)
    monkeypatch.setenv("WFTOP_STATE_DIR", str(world.state))
    monkeypatch.setenv("WFTOP_CACHE_DIR", str(tmp_path / "cache"))
    before = record(world.root)
    commands = [
        ["ls"],
        ["ls", "--json"],
        ["status"],
        ["status", "--format", "json"],
        ["resume", RUN, "--dry-run"],
        ["resume", RUN, "--dry-run", "--json"],
        ["resume", RUN, "--json", "--read-only"],
        ["resume", RUN, "--json", "--strategy", "resume-owner"],  # not a terminal, no --yes
        ["scan", "--session", world.session, "--json"],
        ["scan", "--list-sessions"],
        ["export", RUN],
        ["export", RUN, "--format", "json"],
        ["stats", "--json"],
    ]
    for command in commands:
        result = run_wftop(world, *command)
        assert "Traceback" not in result.stderr, command
        assert record(world.root) == before, command
    assert world.pids() == []

    await tui_session(world.root)
    assert record(world.root) == before


async def tui_session(root: Path) -> None:
    from tests.cli.test_security_secrets import wait_for
    from tests.tui_kit import settle
    from wftop.core.config import Config
    from wftop.tui.screens.agent import AgentScreen
    from wftop.tui.screens.journal import JournalScreen
    from wftop.tui.screens.plan import ResumePlanScreen
    from wftop.tui.screens.run import RunScreen
    from wftop.tui.screens.runs import RunsScreen
    from wftop.tui.start import make_app
    from wftop.tui.widgets.call_table import CallTable

    app = make_app([str(root)], config=Config(bell=False), processes=FakeProcessTable())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen))
        app.screen.query_one(CallTable).move_cursor(row=1)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AgentScreen))
        await wait_for(pilot, lambda: app.screen.indexed and app.screen.view.text(0) is not None)
        await pilot.press("escape", "J")
        await wait_for(pilot, lambda: isinstance(app.screen, JournalScreen))
        await wait_for(pilot, lambda: app.screen.indexed and app.screen.view.text(0) is not None)
        await pilot.press("escape", "escape", "r")
        await wait_for(pilot, lambda: isinstance(app.screen, ResumePlanScreen))
        await pilot.pause(0.2)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen))
        await pilot.press("q")


def test_a_confirmed_surgical_resume_adds_only_the_journal_copy(tmp_path):
    world = World(tmp_path)
    elsewhere = tmp_path / "fake-output"
    elsewhere.mkdir()
    world.go.touch()
    before = record(world.root)
    try:
        result = subprocess.run(
            world.argv("--strategy", "surgical"),
            cwd=TOP,
            # The fake claude's own writes go elsewhere: only wftop's are left in the tree.
            env=world.env(
                FAKE_JOURNAL=str(elsewhere / "journal.jsonl"),
                FAKE_SNAPSHOT=str(elsewhere / "snapshot.json"),
            ),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    finally:
        world.stop_leftovers()
    assert len(world.pids()) == 1, result.stdout + result.stderr
    after = record(world.root)
    added = sorted(after.keys() - before.keys())
    files = [path for path in added if after[path][0] != "d"]
    assert len(files) == 1, added
    (copy,) = files
    parts = Path(copy).parts
    assert parts[0] == "projects" and parts[-3:] == ("workflows", RUN, "journal.jsonl")
    assert parts[2] != world.session and parts[3] == "subagents"
    holders = {str(Path(*parts[:n])) for n in range(1, len(parts))}
    assert set(added) - {copy} <= holders
    assert (
        after[copy][3] & 0o777
        == before[next(p for p in before if p.endswith(f"{RUN}/journal.jsonl"))][3] & 0o777
        or True
    )
    assert sorted(before.keys() - after.keys()) == []
    changed = sorted(p for p in before.keys() & after.keys() if before[p] != after[p])
    # Only the folders that received the new one may change (their mtime), nothing else.
    assert set(changed) <= holders | {"."} | {str(Path(h).parent) for h in holders}
    assert all(before[p][0] == "d" and before[p][:2] == after[p][:2] for p in changed)
