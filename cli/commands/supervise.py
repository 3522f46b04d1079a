"""``wftop supervise``: resume dead runs by themselves, under caps you set.

Opt-in and scoped: with no scope option it acts on the runs marked auto in the TUI (``m``);
``--run RUN``, ``--project NAME`` and ``--all`` add to them. It launches nothing without a
per-run cap (``--max-usd``, or the config's ``[supervise] max_usd``). ``--once`` makes one
pass and waits for what it launched; without a mode it runs until ``--off`` (or a signal).
``--dry-run`` says what it would do now and when; ``--status`` what is supervised and what
waits for what; ``--log`` the audit log. One supervisor per state dir.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from wftop.cli.commands.supervise_args import add_parser, remote_args, settings_of
from wftop.cli.options import EXIT_OK, EXIT_USAGE, roots_or_exit
from wftop.cli.output import fail, print_json
from wftop.core.cost.tokens import dollars
from wftop.core.model import iso_utc
from wftop.core.resume.errors import ResumeBusy
from wftop.core.supervise.audit import AuditError, AuditLine
from wftop.core.supervise.decide import Action
from wftop.core.supervise.notify import ChannelNotifier, Fanout, LogNotifier, Notifier
from wftop.core.supervise.scope import Scope
from wftop.core.supervise.seams import Seams
from wftop.core.supervise.state import SuperviseStore, holder_line, running
from wftop.core.supervise.supervisor import Supervisor
from wftop.core.system.procs import default_table
from wftop.core.text.gate import shown

if TYPE_CHECKING:
    from wftop.core.notify.notifier import Notifier as Channels

EXIT_FAILED = 1
"""``--once``: a resume it launched did not complete."""
EXIT_BUSY = 75
"""Another supervisor holds the state dir's lock: nothing was done (EX_TEMPFAIL)."""
PREFIX = "wftop supervise"
"""How its error lines begin."""

__all__ = ["add_parser", "run"]


def line_text(line: AuditLine) -> str:
    return shown(line.text())


def emit_line(args: argparse.Namespace, line: AuditLine) -> None:
    if args.json:
        print_json(line.to_json(), indent=False)
        sys.stdout.flush()
    else:
        print(line_text(line), flush=True)


def show_log(args: argparse.Namespace, store: SuperviseStore) -> int:
    for line in store.audit.read():
        emit_line(args, line)
    return EXIT_OK


def show_status(args: argparse.Namespace, store: SuperviseStore) -> int:
    state = store.read_state()
    last: dict[str, AuditLine] = {}
    for line in store.audit.read():
        last[line.run] = line
    found = running(store, default_table())
    if args.json:
        data = {
            "supervisor": {
                "running": found is not None,
                "pid": found[0] if found else None,
                "watches": found[1] if found else None,
            },
            "off_at": iso_utc(state.off_at),
            "marks": [{"run": mark.run, "root": mark.root} for mark in state.marks],
            "runs": [line.to_json() for line in last.values()],
        }
        print_json(data, indent=False)
        return EXIT_OK
    who = f"running (pid {found[0]}) watching {found[1]}" if found else "not running"
    off = f" · switched off at {iso_utc(state.off_at)}" if state.off_at else ""
    print(shown(f"supervisor  {who}{off}"))
    marks = ", ".join(mark.run for mark in state.marks) or "none"
    print(shown(f"marked auto  {marks}"))
    for line in last.values():
        print(line_text(line))
    return EXIT_OK


def switch_off(store: SuperviseStore) -> int:
    before = store.switch_off(time.time())
    found = running(store, default_table())
    stopped = ""
    if found is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(found[0], signal.SIGTERM)
            stopped = f"; stopped the supervisor (pid {found[0]})"
    marks = len(before.marks)
    print(f"supervision off: {marks} auto mark{'s' * (marks != 1)} taken off{stopped}")
    return EXIT_OK


def make_supervisor(
    args: argparse.Namespace,
    roots: list[str],
    config: Any,
    *,
    act: bool,
    store: SuperviseStore,
    channels: Notifier | None = None,
) -> Supervisor:
    from wftop.cli.exact import rehearse_plan, rehearser
    from wftop.core.resume.policy import ResumePolicy
    from wftop.core.resume.store import ResumeStore
    from wftop.core.supervise.price import ForecastPricer

    settings = settings_of(args, config)
    claude = args.claude or config.claude
    policy = ResumePolicy(
        processes=default_table(),
        clock=time.time,
        store=ResumeStore(),
        claude_bin=claude,
        extra_flags=config.resume_flags,
        max_usd=settings.max_usd,
    )
    scope = Scope(tuple(args.runs), tuple(args.projects), args.everything)
    notifier: Notifier = LogNotifier(lambda text: print(shown(text), file=sys.stderr, flush=True))
    if channels is not None:
        notifier = Fanout(notifier, channels)
    rehearse = rehearser(claude)
    seams = Seams(
        echo=lambda line: emit_line(args, line),
        rehearse=lambda plan: rehearse_plan(plan, rehearse).plan,
    )
    return Supervisor(
        roots=roots,
        scope=scope,
        settings=settings,
        store=store,
        policy=policy,
        pricer=ForecastPricer(),
        notifier=notifier,
        seams=seams,
        act=act,
    )


def dry_run(args: argparse.Namespace, supervisor: Supervisor) -> int:
    supervisor.step()
    for run, decision in supervisor.said:
        if decision.action is Action.NOTHING and not args.json:
            continue
        would = {"waiting": "wait", "refused": "refuse", "launched": "launch"}.get(
            decision.action.value, decision.action.value
        )
        if args.json:
            data = {
                "run": run.run_id,
                "would": would,
                "reason": decision.reason,
                "until": iso_utc(decision.until),
                "forecast_usd": None
                if decision.forecast is None
                else {"low": decision.forecast.low, "high": decision.forecast.high},
                "cap_usd": supervisor.settings.max_usd,
            }
            print_json(data, indent=False)
        else:
            until = f" · until {iso_utc(decision.until)}" if decision.until else ""
            print(shown(f"{run.run_id}  would {would}: {decision.reason}{until}"))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    if args.host:
        from wftop.cli.remote import argvs_or_exit
        from wftop.cli.supervise_hosts import on_hosts

        argvs = argvs_or_exit(args, remote_args(args))
        return EXIT_USAGE if argvs is None else on_hosts(argvs, as_json=args.json)
    store = SuperviseStore()
    try:
        if args.log:
            return show_log(args, store)
        if args.status:
            return show_status(args, store)
        if args.off:
            return switch_off(store)
        return decide_and_act(args, store)
    except AuditError as error:
        fail(str(error), prefix=PREFIX)
        return EXIT_USAGE


def decide_and_act(args: argparse.Namespace, store: SuperviseStore) -> int:
    """``--dry-run``, ``--once`` or the supervisor that runs on, over the roots read."""
    roots = roots_or_exit(args)
    if roots is None:
        return EXIT_USAGE
    from wftop.cli.commands.resume import search_roots
    from wftop.core.config import ConfigError, load_config

    try:
        config = load_config()
    except ConfigError as error:
        fail(str(error), prefix=PREFIX)
        return EXIT_USAGE
    if args.dry_run:
        supervisor = make_supervisor(
            args, search_roots(args, roots), config, act=False, store=store
        )
        return dry_run(args, supervisor)
    made = channels_of(config)
    if made is None:
        return EXIT_USAGE
    try:
        supervisor = make_supervisor(
            args, search_roots(args, roots), config, act=True, store=store, channels=made[1]
        )
        return supervise(args, store, supervisor)
    finally:
        made[0].close()


def channels_of(config: Any) -> tuple[Channels, ChannelNotifier] | None:
    """The notification channels the config and the environment choose (`wftop watch
    --notify`'s), with no cooldown; None when the settings cannot be used (said)."""
    from dataclasses import replace

    from wftop.cli.commands.watch import terminal_writer
    from wftop.core.notify.settings import SettingsError
    from wftop.core.notify.setup import make_notifier
    from wftop.core.resume.store import state_dir

    try:
        made = make_notifier(
            replace(config.notifications, cooldown=0.0),
            env=os.environ,
            write=terminal_writer(),
            state=state_dir(),
            report=lambda line: fail(line, prefix=PREFIX),
            bell=config.bell,
        )
    except SettingsError as error:
        fail(str(error), prefix=PREFIX)
        return None
    for note in made.notes:
        fail(note, prefix=PREFIX)
    return made.notifier, ChannelNotifier(made.notifier)


def watches(supervisor: Supervisor) -> str:
    """What a supervisor watches and under which caps, as ``--status`` says it."""
    settings = supervisor.settings
    caps = "no cap" if settings.max_usd is None else f"cap {dollars(settings.max_usd)} a run"
    if settings.daily_usd is not None:
        caps += f", {dollars(settings.daily_usd)} a day"
    return f"{supervisor.scope.words()} · {caps} · {settings.attempts} resumes a failure"


def supervise(args: argparse.Namespace, store: SuperviseStore, supervisor: Supervisor) -> int:
    """``--once`` (one pass, then follow what it launched) or run on until told to stop."""
    me = os.getpid()
    try:
        lock = store.lock(holder_line(me, default_table().start_time(me), watches(supervisor)))
    except ResumeBusy as busy:
        holder = busy.holder or "unknown"
        fail(f"another supervisor holds {store.lock_path} ({holder}): nothing done", prefix=PREFIX)
        return EXIT_BUSY
    with lock:
        if args.once:
            supervisor.step()
            supervisor.wait()
            return EXIT_FAILED if supervisor.failed else EXIT_OK
        return run_on(supervisor)


def run_on(supervisor: Supervisor) -> int:
    """Run on, watching the roots through the engine, until ``--off`` or a signal."""
    import asyncio

    from wftop.core.engine.link import open_link
    from wftop.core.supervise.watch import watch

    async def on() -> None:
        loop = asyncio.get_running_loop()
        stopping = asyncio.Event()
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            loop.add_signal_handler(signum, stopping.set)
        await watch(
            open_link(supervisor.roots),
            supervisor,
            stopping=stopping,
            clock=time.time,
            say=lambda text: print(shown(f"{PREFIX}: {text}"), file=sys.stderr, flush=True),
        )

    asyncio.run(on())
    print("wftop supervise: stopped; resumes it launched go on", file=sys.stderr)
    return EXIT_OK
