"""Shared fixtures: an isolated environment for every test, the real CLI, the TUI's trees."""

from __future__ import annotations

import gc
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

from tests.leftovers_kit import MARK, start_reaper
from tests.realcli import CliHome, find_claude
from tests.shortpath_kit import short_dir
from wftop.mockapi.server import MockAPI

pytest_plugins = ("tests.launch_kit",)

if TYPE_CHECKING:
    from tests.ssh_kit import SshHosts

CLEARED_PREFIXES = ("WFTOP_", "CLAUDE_", "ANTHROPIC_", "XDG_", "TMUX")
"""The machine's variables that could reach wftop or the CLI; a test starts without them."""
CLEARED = ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "TZ")
KEPT = ("WFTOP_CLAUDE", MARK)
"""Where the person running the suite keeps their ``claude`` (see `claude_bin`), and the mark
of what the suite starts (`tests.leftovers_kit`)."""


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """A throwaway HOME (``home``), XDG dirs, config dir and cache, no ``CLAUDE_CONFIG_DIR``,
    no ``NO_COLOR``, UTC: never the machine's own."""
    for name in list(os.environ):
        if (name.startswith(CLEARED_PREFIXES) or name in CLEARED) and name not in KEPT:
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    for name, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_DATA_HOME", ".local/share"),
    ):
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.setenv("WFTOP_CONFIG", str(home / "no-config.toml"))
    monkeypatch.setenv("WFTOP_CACHE_DIR", str(home / "wftop-cache"))
    # A shared engine a test starts goes soon after its last view (not a minute later).
    monkeypatch.setenv("WFTOP_ENGINE_LINGER", "1")
    monkeypatch.setenv("TZ", "UTC")


@pytest.fixture(scope="session", autouse=True)
def isolated_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """`isolate` for the whole session, set up before every fixture of a module, class or
    package, which run before a test's own `isolated_environment`: what they copy or start
    (a shared tree's commands, the wheel's pip, the JSON oracle) sees no variable, HOME or
    config of the machine's either."""
    home = tmp_path_factory.mktemp("session-home")
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, home)
        yield home


@pytest.fixture(autouse=True)
def isolated_environment(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test (and every command it starts) sees a throwaway HOME of its own (`isolate`)."""
    home = tmp_path_factory.mktemp("home")
    isolate(monkeypatch, home)
    return home


@pytest.fixture
def short_state_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """wftop's state dir (``WFTOP_STATE_DIR``) at a short path of the test's own, removed after
    it: an engine's socket there fits ``sun_path`` however long the temp dir's path is (under a
    long one the engine runs over pipes, `tests.shortpath_kit`)."""
    with short_dir("wftop-state-") as folder:
        monkeypatch.setenv("WFTOP_STATE_DIR", str(folder))
        yield folder


LEFT_COLLECTOR_OFF = pytest.StashKey[list[str]]()
"""The tests that left the cyclic collector off (`collector_as_found`)."""


@pytest.fixture(autouse=True)
def collector_as_found(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test leaves the cyclic collector on if it found it on. The TUI's start pauses it until
    the app's first draw or its end (`wftop.tui.collector.StartPause`); a test that runs that
    start with the app's run replaced (``main([...])``) gets to neither, and every test after
    it in the same process ran with the collector off. It is switched back on, and the test
    named for tests/house/test_collector_left_on.py."""
    enabled = gc.isenabled()
    yield
    if enabled and not gc.isenabled():
        gc.enable()
        request.config.stash.setdefault(LEFT_COLLECTOR_OFF, []).append(request.node.nodeid)


# --- property tests (hypothesis) ------------------------------------------------------------
# No example is held to a time: a loaded machine (other suites, a build) makes a 20 ms example
# take 300 ms, and hypothesis's default 200 ms deadline and its "too slow" health check then fail
# a test that is right. A test that must be quick says so itself (bench/ measures speed). The
# profile keeps the rest of the one loaded before it (hypothesis loads its "ci" one under CI).

settings.register_profile(
    "wftop",
    settings.get_profile(settings.get_current_profile_name()),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("wftop")

# --- end of property tests ------------------------------------------------------------------


# --- real CLI + loopback mock Messages API (tests/realcli.py, wftop.mockapi) ----------------


@pytest.fixture
def claude_bin() -> str:
    """The real ``claude`` binary (``$WFTOP_CLAUDE``, ``tests/e2e/claude-code``, or PATH)."""
    found = find_claude()
    if found is None:
        why = "no claude CLI: run `npm ci --prefix tests/e2e/claude-code` or set WFTOP_CLAUDE"
        if os.environ.get("CI") == "true":
            pytest.fail(why + " (CI=true: a real-CLI test must run)")
        pytest.skip(why)
    return found


@pytest.fixture
def mock_api(tmp_path: Path) -> Iterator[MockAPI]:
    """A started mock Messages API; its request log is also written to ``mock-requests.jsonl``."""
    with MockAPI(log_path=tmp_path / "mock-requests.jsonl") as mock:
        yield mock


@pytest.fixture
def cli_home(tmp_path: Path) -> CliHome:
    """An isolated HOME / CLAUDE_CONFIG_DIR / temp dir / cwd for the CLI (``.config_dir``)."""
    return CliHome.create(tmp_path / "cli")


# --- end of real CLI fixtures ---------------------------------------------------------------


# --- TUI fixtures (tests/tui/, and the commands that list the same trees) -------------------
# One config root that combines several real corpus trees, with fixed file times, a fixed clock
# and a fake process table, so every run status appears and every picture is the same each time.

TUI_NOW = 1_800_000_000.0
"""The fixed clock of the TUI tests (2027-01-15 08:00 UTC)."""

TUI_PIDS = {4242: "777", 4343: "778"}
"""Fake live processes: pid → procStart."""


def _tui_place(name: str, root: Path, age: float, session: str | None = None) -> Path:
    """Copy a corpus tree's project into ``root``; optionally move its session to a new id."""
    import os
    import shutil

    from tests.corpus import tree

    source = tree(name) / "projects"
    (project,) = [entry for entry in source.iterdir() if entry.is_dir()]
    (session_dir,) = [entry for entry in project.iterdir() if entry.is_dir()]
    target_project = root / "projects" / project.name
    target_project.mkdir(parents=True, exist_ok=True)
    new_id = session or session_dir.name
    target = target_project / new_id
    shutil.copytree(session_dir, target)
    transcript = project / f"{session_dir.name}.jsonl"
    if transcript.exists():
        shutil.copy2(transcript, target_project / f"{new_id}.jsonl")
    stamp = TUI_NOW - age
    for path in [target, *target.rglob("*"), target_project / f"{new_id}.jsonl"]:
        if path.exists():
            os.utime(path, (stamp, stamp))
    return target


def _tui_snapshot_status(session_dir: Path, status: str) -> None:
    import json

    (snapshot,) = session_dir.glob("workflows/wf_*.json")
    data = json.loads(snapshot.read_text())
    data["status"] = status
    stamp = snapshot.stat().st_mtime
    snapshot.write_text(json.dumps(data))
    import os

    os.utime(snapshot, (stamp, stamp))


def _tui_owner(root: Path, pid: int, session_dir: Path) -> None:
    import json

    sessions = root / "sessions"
    sessions.mkdir(exist_ok=True)
    record = {"pid": pid, "sessionId": session_dir.name, "procStart": TUI_PIDS[pid]}
    (sessions / f"{pid}.json").write_text(json.dumps(record))


@pytest.fixture
def tui_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of its own, so paths show as ``~/…`` and no user config is read."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def tui_root(tui_home: Path) -> Path:
    """Every status at once: running, stalled, dead, completed, failed, killed, superseded.

    Built from the real trees: ``2.1.265-killed`` and ``2.1.207-killed`` get a live owner
    (running, and stalled after 25 quiet minutes), ``killed-in-parallel`` is dead, ``clean``
    and ``mid-failure`` completed, ``api-errors-429`` and ``2.1.246-mid-failure`` have their
    snapshot status set to failed and killed, and ``killed`` moved to another session is
    superseded by ``resumed``.
    """
    root = tui_home / "claude"
    _tui_place("clean", root, age=2 * 3600)
    _tui_place("resumed", root, age=26 * 3600)
    _tui_place("killed", root, age=50 * 3600, session="5e55c0de-96da-45a1-841d-2b381f965487")
    _tui_place("mid-failure", root, age=3 * 3600)
    _tui_snapshot_status(_tui_place("api-errors-429", root, age=5 * 3600), "failed")
    _tui_snapshot_status(_tui_place("2.1.246-mid-failure", root, age=6 * 3600), "killed")
    _tui_place("killed-in-parallel", root, age=20 * 60)
    _tui_owner(root, 4242, _tui_place("2.1.265-killed", root, age=30))
    _tui_owner(root, 4343, _tui_place("2.1.207-killed", root, age=25 * 60))
    return root


@pytest.fixture
def tui_processes():  # type: ignore[no-untyped-def]
    from wftop.core.system.procs import FakeProcess, FakeProcessTable

    return FakeProcessTable({pid: FakeProcess(start) for pid, start in TUI_PIDS.items()})


@pytest.fixture
def snapshots_at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep SVG baselines in the top-level ``snapshots/<test module>/`` folder.

    syrupy 4.8 has no ``--snapshot-dirname``; pytest-textual-snapshot builds its extension
    from the module attribute ``SVGImageExtension``, so a subclass with another ``dirname``
    put there redirects every baseline of the tests that use this fixture.
    """
    import pytest_textual_snapshot

    top = Path(__file__).parent.parent / "snapshots"
    base = pytest_textual_snapshot.SVGImageExtension

    class RootSnapshots(base):  # type: ignore[misc, valid-type]
        @classmethod
        def dirname(cls, *, test_location):  # type: ignore[no-untyped-def, override]
            return str(top / test_location.basename)

    monkeypatch.setattr(pytest_textual_snapshot, "SVGImageExtension", RootSnapshots)


# --- end of TUI fixtures --------------------------------------------------------------------------


# --- corpus checksums (tests/house/test_corpus_untouched.py) -------------------------------------
# At session start, the sha256 of every file under tests/data and mockapi/bundled (symlinks by their
# target text, never followed); the last test of the suite checks that nothing changed them.

CORPUS_CHECKED = [
    Path(__file__).parent / "data",
    Path(__file__).parent.parent / "mockapi" / "bundled",
]
CORPUS_SUMS = pytest.StashKey[dict[str, str]]()
REAPER = pytest.StashKey[object]()


def corpus_checksums() -> dict[str, str]:
    """Path (relative to the repository) → sha256 of the file, or ``link:<target>``."""
    import hashlib
    import os

    top = Path(__file__).parent.parent
    sums: dict[str, str] = {}
    for base in CORPUS_CHECKED:
        for folder, dirs, files in os.walk(base):
            for name in sorted(
                [*files, *(d for d in dirs if os.path.islink(os.path.join(folder, d)))]
            ):
                path = os.path.join(folder, name)
                key = os.path.relpath(path, top)
                if os.path.islink(path):
                    sums[key] = "link:" + os.readlink(path)
                elif name.endswith(".pyc") or "__pycache__" in folder:
                    continue
                else:
                    with open(path, "rb") as handle:
                        sums[key] = hashlib.sha256(handle.read()).hexdigest()
    return sums


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[CORPUS_SUMS] = corpus_checksums()
    session.config.stash[REAPER] = start_reaper()  # nothing the suite starts outlives it


RUN_LAST = ("test_corpus_untouched", "test_collector_left_on")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The checks of what the suite did (the corpus, the collector) run after every other
    test, wherever they are collected."""
    last = [item for item in items if item.module.__name__.endswith(RUN_LAST)]
    items[:] = [item for item in items if item not in last] + last


# --- end of corpus checksums --------------------------------------------------------------------


# --- remote hosts over SSH (tests/ssh_kit.py) -----------------------------------------------


@pytest.fixture
def ssh_hosts(tmp_path: Path) -> Iterator[SshHosts]:
    """Throwaway SSH "hosts" on loopback (asyncssh servers), reached by the system ssh."""
    if shutil.which("ssh") is None:
        why = "no OpenSSH client (ssh) on PATH"
        if os.environ.get("CI") == "true":
            pytest.fail(why + " (CI=true: the remote tests must run)")
        pytest.skip(why)
    from tests.ssh_kit import SshHosts

    hosts = SshHosts(tmp_path / "ssh")
    try:
        yield hosts
    finally:
        hosts.close()
