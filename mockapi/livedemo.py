"""The live demo: a real ``claude`` runs a real Workflow against the built-in loopback mock, is
killed mid-flight, and leaves a dead run for wftop to resume.

No Textual here: ``wftop.cli.commands.demo`` opens the app (or prints) over what this builds. The
mock binds 127.0.0.1 only and answers everything itself, so no key is needed and no tokens
are spent; the temporary dir (config dir, HOME, state dir, logs) is removed on exit.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from wftop.mockapi import load_script
from wftop.mockapi.cliproc import CliHome, cli_env, cli_version
from wftop.mockapi.scenario import RUN_PROMPT, SIX_AGENTS, CliRun, age_tree, agents_config, run_step
from wftop.mockapi.server import MockAPI

AGED_S = 300.0
"""How far the killed run's file times are moved back: past the guard's 60 s quiet window."""
RESUME_DELAY_S = 2.0
"""How long a5 and a6 take when they run live during the resume, so it can be watched."""
LOOPBACK = "127.0.0.1,localhost,::1"


def demo_agents() -> dict[str, object]:
    """a1–a4 answer quickly; a5 hangs on its first try (the kill lands then) and answers on
    the resume; a6 runs only on the resume."""
    return agents_config(
        SIX_AGENTS,
        delay_s=0.2,
        a5={"hang_attempts": [1], "delay_s": RESUME_DELAY_S},
        a6={"delay_s": RESUME_DELAY_S},
    )


@dataclass
class LiveDemo:
    """What the live demo built: where, against what, and the killed run."""

    temp: Path
    home: CliHome
    mock: MockAPI
    claude: str
    version: str
    killed: CliRun
    env: dict[str, str]
    """The environment wftop (and the resume it launches) runs with."""
    seconds: float
    """Wall time from start to the dead run on disk."""
    mark: int
    """The mock's last request seq when the run was killed."""

    @property
    def root(self) -> str:
        return str(self.home.config_dir)

    def live_since_kill(self) -> list[str]:
        """Sub-agents the mock answered live after the kill (what the resume re-ran)."""
        return self.mock.live_agents(since=self.mark)


def demo_env(home: CliHome, url: str, state: Path, claude: str) -> dict[str, str]:
    """The CLI's isolated env (see `cli_env`), plus wftop's state dir and loopback no-proxy."""
    return cli_env(
        home,
        url,
        {
            "WFTOP_STATE_DIR": str(state),
            "WFTOP_CLAUDE": claude,
            "NO_PROXY": LOOPBACK,
            "no_proxy": LOOPBACK,
        },
    )


@contextlib.contextmanager
def live_demo(claude: str, say: Callable[[str], None]) -> Iterator[LiveDemo]:
    """Start the mock, run and kill a real Workflow, age it; clean everything up on exit."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="wftop-demo-") as temp_name:
        temp = Path(temp_name)
        home = CliHome.create(temp / "cli", cwd=temp / "demo-project")
        mock = MockAPI(
            {"script": load_script("six.js"), "agents": demo_agents(), "hang_max_s": 300},
            log_path=temp / "mock-requests.jsonl",
        )
        with mock:
            say(f"mock Messages API on {mock.url} (loopback only: no key, no tokens)")
            version = cli_version(claude)
            say(
                f"claude {version}: running Workflow mock-six "
                "(a1, then a2 a3 a4 in parallel(), then a5, a6)"
            )
            env = demo_env(home, mock.url, temp / "state", claude)
            extra = {k: env[k] for k in ("NO_PROXY", "no_proxy")}
            killed = run_step(
                claude, mock, home, RUN_PROMPT, env_extra=extra, kill_when_agent=("a5", 1)
            )
            say(
                f"a5 was in flight: killed the CLI's process group with SIGKILL "
                f"(run {killed.run_id}, session {killed.session_id[:8]}…)"
            )
            age_tree(home.config_dir, AGED_S)
            say(
                f"file times moved back {AGED_S / 60:.0f} min: past the resume guard's "
                "60 s quiet window (a real dead run gets there by waiting)"
            )
            demo = LiveDemo(
                temp,
                home,
                mock,
                claude,
                version,
                killed,
                env,
                time.monotonic() - started,
                mock.mark(),
            )
            try:
                yield demo
            finally:
                stop_leftover_resume(demo)


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    """Run with exactly ``env`` as ``os.environ`` (what wftop passes on), then restore it."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def stop_leftover_resume(demo: LiveDemo) -> None:
    """A resume launched from the TUI runs detached; stop it before its dir is removed."""
    from wftop.core.resume.driver import ResumeDriver
    from wftop.core.resume.launcher import SubprocessLauncher
    from wftop.core.resume.store import ResumeStore
    from wftop.core.system.procs import default_table

    state = demo.temp / "state"
    run_id = demo.killed.run_id
    if not state.is_dir() or run_id is None:
        return
    processes = default_table()
    driver = ResumeDriver(ResumeStore(state), SubprocessLauncher(processes), processes)
    with contextlib.suppress(Exception):
        active = driver.active(run_id)
        if active is None:
            return
        plan = headless_plan(demo)
        attempt = driver.attach(plan, active) if plan is not None else None
        if attempt is not None:
            driver.stop(attempt)


def headless_plan(demo: LiveDemo):  # type: ignore[no-untyped-def]
    """The resume plan for the killed run, as ``wftop resume --dry-run`` would print it."""
    from wftop.core.index.coldpass import scan_roots
    from wftop.core.resume.plan import make_plan
    from wftop.core.system.procs import default_table

    runs = [run for run in scan_roots([demo.root]).runs if run.run_id == demo.killed.run_id]
    if not runs:
        return None
    with environment(demo.env):
        processes = default_table()
        return make_plan(runs[0], processes=processes, now=time.time(), claude_bin=demo.claude)
