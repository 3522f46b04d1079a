"""One launched resume (`Attempt`): the plan as it was launched, the watchers of its journal
and its output stream, and the plan moved to a new session for the fallback.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from wftop.core.compared import compared
from wftop.core.forecast.fates import Fate
from wftop.core.resume.launcher import Launch, Strategy, build_argv
from wftop.core.resume.plan import Plan
from wftop.core.resume.records import RequestStatus
from wftop.core.resume.tripwire import JournalWatch, Progress, StreamWatch, newest_journal


@compared
@dataclass(eq=False, repr=False)
class Attempt:
    """One launched resume: its request, the launch and where to look for its outcome."""

    plan: Plan
    request: str
    launch: Launch
    watch: JournalWatch
    stream: StreamWatch

    @property
    def journal(self) -> str | None:
        return self.watch.journal

    @property
    def snapshot(self) -> str | None:
        journal = self.watch.journal
        if journal is None:
            return None
        run_id = os.path.basename(os.path.dirname(journal))
        session_dir = Path(journal).parents[3]
        return str(session_dir / "workflows" / f"{run_id}.json")

    @property
    def progress(self) -> Progress:
        return self.watch.progress


def watchers(
    plan: Plan,
    journal: str,
    log_path: Path,
    session_dir: str,
    *,
    cached: set[str] | None = None,
    skip_lines: int | None = None,
) -> tuple[JournalWatch, StreamWatch]:
    """The journal and stream watchers of a launch; a fresh run's journal is found later.

    ``cached``: the calls the followed forecast serves from cache (default: the plan's);
    ``skip_lines``: the journal's lines at launch (default: all it holds now).
    """
    if cached is None:
        cached = set(plan.forecast.labels(Fate.CACHED))
    if plan.strategy is Strategy.FRESH:
        watch = JournalWatch(None, cached, find=newest_journal(session_dir))
    else:
        watch = JournalWatch(journal, cached, skip_lines=skip_lines)
    return watch, StreamWatch(str(log_path), cached, watch.progress)


def as_launched(plan: Plan, status: RequestStatus) -> Plan:
    """``plan`` with what the request's launch recorded: its strategy, session, argv, cwd."""
    from dataclasses import replace

    recorded = status.fact("strategy")
    known = {strategy.value for strategy in Strategy}
    strategy = Strategy(recorded) if recorded in known else plan.strategy
    argv, cwd = status.fact("argv"), status.fact("cwd")
    return replace(
        plan,
        strategy=strategy,
        session_id=status.fact("session_id") or plan.run.session_id,
        argv=list(argv) if isinstance(argv, tuple) else plan.argv,
        cwd=cwd if isinstance(cwd, str) else plan.cwd,
    )


def relocated_plan(plan: Plan, strategy: Strategy, target_journal: str, session_id: str) -> Plan:
    """The same plan, moved to a new session (for the fallback)."""
    from dataclasses import replace

    argv = build_argv(strategy, plan.argv[0], session_id, plan.prompt, plan.extra_flags)
    return replace(
        plan, strategy=strategy, session_id=session_id, argv=argv, target_journal=target_journal
    )
