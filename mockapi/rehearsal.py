"""Let the installed CLI rehearse a resume, offline, and say which calls it served from cache.

The run is copied into a throwaway config dir: the session transcript and the journal for
``resume-owner``; for ``relocate`` and ``surgical`` the journal alone (healed for surgical,
by the very function a real surgical resume uses) into a new session. The run's script is
copied there too, and the CLI runs in a stand-in working dir inside the throwaway dir, with
exactly the argv the real resume would use and the user's variables that change cache keys
(`KEYING_ENV`), pointed at this package's mock Messages API on loopback. The mock answers
the resume turn with the ``Workflow`` call and every live sub-agent call at once with a fresh
answer that fits its output schema: no tokens, no tool run by any agent, nothing written
outside the throwaway dir (the user's journal, transcript and script are only read). What
the CLI appended to the copied journal and wrote in the rehearsed run's snapshot says which
calls ran and which came from cache (`wftop.core.forecast.exact`). Answer timing does not change
which calls the CLI serves from cache, so instant answers predict the real resume.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wftop.core.forecast.exact import (
    RehearsalFailed,
    Seen,
    exact_forecast,
    first_miss_index,
)
from wftop.core.forecast.fates import Forecast
from wftop.core.read.snapshot import read_snapshot
from wftop.core.read.standin import name_calls
from wftop.core.resume.command import Strategy, build_argv, build_prompt
from wftop.core.resume.plan import Plan
from wftop.core.resume.rehearse import Rehearse
from wftop.core.resume.relocate import fold_lines, relocate_journal
from wftop.core.resume.where import find_claude, project_slug
from wftop.mockapi.cliproc import CliHome, CliProcess, RealCliError, cli_env, cli_version
from wftop.mockapi.server import MockAPI

DEFAULT_TIMEOUT_S = 120.0
REHEARSAL_CONFIG = {"any_agent": True, "final_text": "Rehearsal finished."}
"""The mock answers every sub-agent, whatever its prompt (`wftop.mockapi.flow`)."""
KEYING_ENV = ("CLAUDE_CODE_WORKFLOW_SUBAGENT_MODEL", "CLAUDE_CODE_SUBAGENT_MODEL_FORCE")
"""Variables of the user's environment that change the CLI's cache keys (a call's ``model``
is left out of its key when either is set, spec C.1): the rehearsing CLI gets them too."""


NO_CLAUDE = (
    "no claude CLI to rehearse with (--claude, the config's claude, $WFTOP_CLAUDE, "
    "then claude on PATH)"
)


class RehearsalError(RehearsalFailed):
    """The rehearsal could not say what the CLI would do (one line, for the user)."""


class RehearsalTimedOut(RehearsalError):
    timed_out = True


@dataclass(frozen=True)
class Rehearsal:
    forecast: Forecast
    seconds: float
    requests: int
    """Requests the mock answered (none of them reached a real model)."""


def rehearse(
    plan: Plan,
    claude: str,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    workdir: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Rehearsal:
    """Rehearse ``plan`` (any strategy but ``fresh``) with the ``claude`` binary.

    ``environ`` is the environment the real resume will run in (this process's by default);
    only its `KEYING_ENV` variables reach the rehearsing CLI.

    Raises:
        RehearsalError: no script to run, the copy failed, the CLI failed or timed out.
    """
    if plan.strategy is Strategy.FRESH:
        msg = "a fresh relaunch runs every call: there is nothing to rehearse"
        raise RehearsalError(msg)
    run = plan.run
    if not plan.script_path or not os.path.isfile(plan.script_path):
        msg = f"cannot rehearse: the run's script {plan.script_path or '(unknown)'} is not on disk"
        raise RehearsalError(msg)
    environ = os.environ if environ is None else environ
    began = time.monotonic()
    try:
        version = cli_version(claude, timeout=timeout)
    except subprocess.TimeoutExpired:
        msg = f"{claude} --version did not answer within {timeout:g} s"
        raise RehearsalTimedOut(msg) from None
    except OSError as error:
        msg = f"cannot run {claude}: {error.strerror or error}"
        raise RehearsalError(msg) from None
    with tempfile.TemporaryDirectory(prefix="wftop-rehearsal-", dir=workdir) as temp:
        base = Path(temp)
        stand_in = os.path.basename((plan.cwd or run.folder.project).rstrip("/")) or "project"
        home = CliHome.create(base / "cli", cwd=base / "cli" / "work" / stand_in)
        project = home.projects / project_slug(str(home.cwd))
        try:
            session, journal = _lay_out(plan, project)
            # Where the CLI keeps a session's scripts: it reads a script there without asking.
            script = project / run.session_id / "workflows" / "scripts"
            script.mkdir(parents=True, exist_ok=True)
            script = script / os.path.basename(plan.script_path)
            shutil.copyfile(plan.script_path, script)
        except OSError as error:  # a RelocationError too
            msg = f"cannot copy the run for the rehearsal: {error}"
            raise RehearsalError(msg) from None
        fold, _ = fold_lines(journal)
        name_calls(fold, run.snapshot)
        prompt = build_prompt(run.run_id, str(script), plan.args)
        argv = build_argv(plan.strategy, claude, session, prompt, plan.extra_flags)
        with MockAPI(config=REHEARSAL_CONFIG, log_path=base / "requests.jsonl") as mock:
            try:
                keying = {name: environ[name] for name in KEYING_ENV if name in environ}
                env = cli_env(home, mock.url, {"TMPDIR": str(home.tmp_dir), **keying})
                with CliProcess(argv, env, home.cwd, base / "rehearsal") as proc:
                    code = proc.wait(max(0.1, timeout - (time.monotonic() - began)))
                    tail = proc.tail(400)
            except RealCliError:
                msg = f"the rehearsal did not finish within {timeout:g} s (claude {version})"
                raise RehearsalTimedOut(msg) from None
            requests = len(mock.requests)
        seen = _what_was_seen(project / session, run.run_id, version)
        if code != 0 and not seen.completed:
            last = tail.strip().splitlines()[-1:] or ["no output"]
            msg = f"claude {version} exited with {code} while rehearsing: {last[0][:200]}"
            raise RehearsalError(msg)
    notes = [
        f"rehearsed with claude {version} against mock answers: a call whose prompt embeds a "
        "re-run call's result shows as a re-run (the safe side)"
    ]
    forecast = exact_forecast(fold, plan.strategy.value, seen, notes)
    return Rehearsal(forecast, time.monotonic() - began, requests)


def rehearsal_cli(configured: str | None = None) -> str | None:
    """The ``claude`` a rehearsal runs: the one a resume would run (`find_claude`), when it
    is an executable file; None when there is none."""
    return shutil.which(find_claude(configured))


def rehearser(
    claude: str | None,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    environ: Mapping[str, str] | None = None,
) -> Rehearse:
    """`rehearse` as the command line and the TUI call it: a plan in, its exact forecast out.
    Without a ``claude`` (None) every call raises `RehearsalError` saying so."""

    def run(plan: Plan, /) -> Forecast:
        if claude is None:
            raise RehearsalError(NO_CLAUDE)
        return rehearse(plan, claude, timeout=timeout, environ=environ).forecast

    return run


def _lay_out(plan: Plan, project: Path) -> tuple[str, Path]:
    """Copy what the strategy's resume reads into ``project``; (session id, journal copy)."""
    run = plan.run
    source = Path(run.folder.journal)
    if plan.strategy is Strategy.RESUME_OWNER:
        session = run.session_id
        transcript = Path(run.folder.session_dir + ".jsonl")
        if not transcript.is_file():
            msg = f"cannot rehearse resume-owner: the session transcript {transcript} is gone"
            raise RehearsalError(msg)
        project.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(transcript, project / f"{session}.jsonl")
        journal = project / session / "subagents" / "workflows" / run.run_id / "journal.jsonl"
        journal.parent.mkdir(parents=True)
        shutil.copyfile(source, journal)
        return session, journal
    session = str(uuid.uuid4())
    result = relocate_journal(
        source, project / session, run.run_id, heal=plan.strategy is Strategy.SURGICAL
    )
    return session, result.target


def _what_was_seen(session_dir: Path, run_id: str, version: str) -> Seen:
    """What the rehearsed run's snapshot says: which results were served, whether it ended."""
    snapshot, _ = read_snapshot(str(session_dir / "workflows" / f"{run_id}.json"))
    if snapshot is None:
        return Seen(frozenset(), 0, False, version)
    rows = snapshot.rows
    return Seen(
        served=frozenset(row.agent_id for row in rows if row.cached and row.agent_id),
        calls=len(rows),
        completed=snapshot.data.get("status") == "completed",
        cli_version=version,
        first_miss_index=first_miss_index(snapshot.logs),
        labels_by_index=tuple((row.index, row.label) for row in rows if row.label),
    )
