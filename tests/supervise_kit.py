"""A supervisor over copies of real trees, with nothing real behind it: the night's kit.

Three runs the real CLI left, each under a root of its own, their files made older than
the clock and their working directories made to exist:

* ``storm``: ``api-errors-429``, partial: a6 was refused with 429 until the CLI gave up;
* ``usage``: ``killed``, with the usage-limit reply the CLI writes appended to its session
  transcript (``You've hit your 5-hour limit``, its reset time in ``resetsAt``);
* ``stubborn``: ``mid-failure``, partial: a3 was refused with 429.

The clock is a number the test moves; the launcher is `tests.policy_kit.FakeLauncher` (a
launch is a pid in a fake process table); `Night.answer` plays the CLI ending a launch:
the failed call returns, or fails again with the same 429 (its transcript copied to the new
agent). Prices and the TCP probe are fakes; notifications are recorded.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tests.corpus import copy_tree
from tests.policy_kit import FakeLauncher, end
from wftop.core.resume.plan import Plan
from wftop.core.resume.policy import ResumePolicy
from wftop.core.resume.store import ResumeStore
from wftop.core.supervise.decide import Settings, UsdRange
from wftop.core.supervise.notify import Note
from wftop.core.supervise.rules import Jitter, seeded_jitter
from wftop.core.supervise.scope import Scope
from wftop.core.supervise.seams import Seams
from wftop.core.supervise.state import SuperviseStore
from wftop.core.supervise.supervisor import Supervisor
from wftop.core.system.procs import FakeProcessTable

NIGHT = 1_800_050_400.0
"""22:00 UTC on 2027-01-15, the supervisor's first pass."""
DIED = {
    "storm": NIGHT - 40,
    "usage": NIGHT - 150,
    "stubborn": NIGHT - 20,
    "outage": NIGHT - 300,
    "crashed": NIGHT - 600,
    "dear": NIGHT - 90,
}
"""When each run's last record was written."""
RESETS_AT = NIGHT + 3 * 3600 + 1200
"""The usage limit's reset (01:20)."""
TREES = {"storm": "api-errors-429", "usage": "killed", "stubborn": "mid-failure"}
LONG_NIGHT = {
    **TREES,
    "outage": "2.1.265-killed",
    "crashed": "killed-in-parallel",
    "dear": "2.1.246-mid-failure",
}
"""The three runs, and three more: ``outage`` (a killed run whose session's last word is a
dropped connection), ``crashed`` (a killed run, no error recorded: ``clean_or_unknown``) and
``dear`` (partial, a 429, its forecast above the per-run cap)."""
FORECAST = UsdRange(0.0125, 0.0375)
SPENT = 0.0211


def usage_limit_reply(session_id: str, when: float, resets_at: float) -> dict[str, object]:
    """The assistant record the CLI writes when a usage limit refuses a request."""
    from wftop.core.model import iso_utc

    return {
        "type": "assistant", "isSidechain": False, "sessionId": session_id,
        "timestamp": iso_utc(when), "uuid": "5e9b1d6e-0000-4000-8000-00000000u5ag",
        "message": {"model": "<synthetic>", "role": "assistant", "type": "message",
                    "content": [{"type": "text",
                                 "text": "You've hit your 5-hour limit · resets 1:20am (UTC)"}]},
        "apiError": "usage_limit_reached",
        "apiErrorParams": {"rate_limit_info": {"status": "rejected", "resetsAt": int(resets_at),
                                               "rateLimitType": "five_hour"}},
        "error": "rate_limit", "isApiErrorMessage": True, "apiErrorStatus": 429,
        "apiErrorType": "rate_limit_error",
    }  # fmt: skip


def network_retry(session_id: str, when: float, retry_in_ms: int) -> dict[str, object]:
    """The record the CLI writes when a connection drops and it will try again."""
    from wftop.core.model import iso_utc

    return {
        "type": "system", "subtype": "api_error", "level": "error", "isSidechain": False,
        "sessionId": session_id, "timestamp": iso_utc(when),
        "error": {"message": "Connection error.", "formatted": "Connection dropped (ECONNRESET)",
                  "connection": {"code": "ECONNRESET", "isSSLError": False}},
        "retryInMs": retry_in_ms, "retryAttempt": 1, "maxRetries": 1, "source": "request_retry",
    }  # fmt: skip


def make_resumable(root: Path, cwd: Path) -> None:
    """Point the tree's records at ``cwd`` (which exists), as the guard asks."""
    (transcript,) = root.glob("projects/*/*.jsonl")
    old = next(
        json.loads(line)["cwd"]
        for line in transcript.read_text().splitlines()
        if '"cwd"' in line and json.loads(line).get("cwd")
    )
    for path in root.rglob("*.jsonl"):
        data = path.read_bytes()
        if old.encode() in data:
            path.write_bytes(data.replace(old.encode(), str(cwd).encode()))


def _shift_times(root: Path, ends_at: float) -> None:
    """Move every record's ``timestamp`` so that the tree's last one is ``ends_at``."""
    from wftop.core.model import iso_utc

    files = {path: [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
             for path in root.rglob("*.jsonl")}  # fmt: skip
    stamps = [datetime.fromisoformat(record["timestamp"]).timestamp()
              for records in files.values() for record in records
              if isinstance(record.get("timestamp"), str)]  # fmt: skip
    delta = ends_at - max(stamps)
    for path, records in files.items():
        for record in records:
            if isinstance(record.get("timestamp"), str):
                moved = datetime.fromisoformat(record["timestamp"]).timestamp() + delta
                record["timestamp"] = iso_utc(moved)
        path.write_text("".join(json.dumps(record) + "\n" for record in records))


@dataclass
class Clock:
    now: float = NIGHT

    def __call__(self) -> float:
        return self.now


class FakePricer:
    def __init__(
        self, forecast: UsdRange | None = FORECAST, runs: dict[str, UsdRange] | None = None
    ) -> None:
        self.range = forecast
        self.runs = runs or {}
        """Other forecasts, by run id."""

    def forecast(self, plan: Plan) -> UsdRange | None:
        return self.runs.get(plan.run.run_id, self.range)

    def over_cap(self, plan: Plan, max_usd: float | None) -> str | None:
        found = self.forecast(plan)
        if max_usd is None or found is None:
            return None
        if found.high is None or found.high > max_usd:
            return f"forecast {found.text()} above the budget of ${max_usd:.2f}"
        return None

    def spent(self, folder: str, agent_ids: list[str]) -> float | None:
        return SPENT if agent_ids else 0.0


@dataclass
class Notes:
    notes: list[Note] = field(default_factory=list)

    def notify(self, note: Note) -> None:
        self.notes.append(note)


class Night:
    """The three runs, a supervisor over them, and the fakes it runs on."""

    def __init__(
        self,
        base: Path,
        *,
        settings: Settings | None = None,
        jitter: Jitter | None = None,
        scope: Scope | None = None,
        usage_limit: bool = True,
        pricer: FakePricer | None = None,
        trees: dict[str, str] = TREES,
    ) -> None:
        self.base = base
        self.clock = Clock()
        self.trees = trees
        self.roots: dict[str, Path] = {}
        for name, tree in trees.items():
            cwd = base / "work" / name
            cwd.mkdir(parents=True)
            root = copy_tree(tree, base / name)
            make_resumable(root, cwd)
            _shift_times(root, DIED[name])
            self.roots[name] = root
        if usage_limit:
            (transcript,) = self.roots["usage"].glob("projects/*/*.jsonl")
            reply = usage_limit_reply(transcript.stem, DIED["usage"], RESETS_AT)
            with open(transcript, "a") as handle:
                handle.write(json.dumps(reply) + "\n")
        if "outage" in self.roots:
            (transcript,) = self.roots["outage"].glob("projects/*/*.jsonl")
            with open(transcript, "a") as handle:
                dropped = network_retry(transcript.stem, DIED["outage"], 603)
                handle.write(json.dumps(dropped) + "\n")
        past = NIGHT - 120
        for root in self.roots.values():
            for path in root.rglob("*"):
                os.utime(path, (past, past), follow_symlinks=False)
        self.claude = base / "bin" / "claude"
        self.claude.parent.mkdir()
        self.claude.write_text("#!/bin/sh\nexit 0\n")
        self.claude.chmod(0o755)
        self.reachable = True
        self.probed: list[tuple[str, int]] = []
        self.table = FakeProcessTable()
        self.launcher = FakeLauncher(self.table)
        self.state = base / "state"
        self.notes = Notes()
        self.policy = ResumePolicy(
            processes=self.table,
            clock=self.clock,
            store=ResumeStore(
                self.state, clock=lambda: datetime.fromtimestamp(self.clock.now, UTC)
            ),
            claude_bin=str(self.claude),
            launcher=self.launcher,
            version_of=lambda _binary: (2, 1, 332),
            environ={"PATH": os.environ.get("PATH", "")},
            sleep=lambda _seconds: None,
        )
        self.store = SuperviseStore(self.state)
        self.supervisor = Supervisor(
            roots=[str(root) for root in self.roots.values()],
            scope=scope or Scope(everything=True),
            settings=settings or Settings(max_usd=1.0),
            store=self.store,
            policy=self.policy,
            pricer=pricer or FakePricer(),
            notifier=self.notes,
            seams=Seams(
                clock=self.clock,
                jitter=jitter or seeded_jitter("night"),
                probe=self.probe,
                environ={},
            ),
        )

    def probe(self, host: str, port: int) -> bool:
        self.probed.append((host, port))
        return self.reachable

    def session_transcript(self, name: str) -> Path:
        (transcript,) = self.roots[name].glob("projects/*/*.jsonl")
        return transcript

    def replace_last_error(self, name: str, record: dict[str, object]) -> None:
        """Make ``record`` the session's last word (its files kept as old as they were)."""
        transcript = self.session_transcript(name)
        stamp = transcript.stat().st_mtime
        with open(transcript, "a") as handle:
            handle.write(json.dumps(record) + "\n")
        os.utime(transcript, (stamp, stamp))

    def run_id(self, name: str) -> str:
        journals = self.roots[name].glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl")
        return next(journals).parent.name

    def answer(self, name: str, *, fail: bool) -> None:
        """Play the CLI ending the launch followed for run ``name``: the failed call (and the
        calls after it the forecast runs live) return, or the failed call fails again."""
        run_id = self.run_id(name)
        followed = self.supervisor.following[run_id]
        attempt = followed.request.attempt
        assert attempt is not None and attempt.journal is not None
        journal = Path(attempt.journal)
        live = followed.request.plan.forecast.live
        failed = list(followed.run.failed_labels) or live[:1]
        folder = journal.parent
        lines, rows = [], []
        for number, label in enumerate(live):
            agent = f"a{run_id[3:11]}n{len(self.launcher.launches):03d}x{number:02d}"
            key = next(
                (json.loads(line)["key"] for line in journal.read_text().splitlines()
                 if json.loads(line).get("label") == label),
                f"v2:{label}",
            )  # fmt: skip
            lines.append({"type": "started", "key": key, "agentId": agent, "label": label})
            if fail and label in failed:
                self._copy_failed_transcript(followed.run.folder.path, label, folder, agent)
                rows.append({"type": "workflow_agent", "agentId": agent, "label": label,
                             "state": "error"})  # fmt: skip
                break
            lines.append({"type": "result", "key": key, "agentId": agent, "label": label,
                          "result": {"ok": True}})  # fmt: skip
            rows.append({"type": "workflow_agent", "agentId": agent, "label": label,
                         "state": "done"})  # fmt: skip
        with open(journal, "a") as handle:
            handle.writelines(json.dumps(line) + "\n" for line in lines)
        snapshot = journal.parents[3] / "workflows" / f"{run_id}.json"
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(json.dumps({"runId": run_id, "status": "completed",
                                        "scriptPath": followed.request.plan.script_path,
                                        "workflowProgress": rows}))  # fmt: skip
        stamp = self.clock.now - 30
        for path in (journal, snapshot, *folder.glob("agent-*.jsonl")):
            os.utime(path, (stamp, stamp))
        (launch,) = [item for item in self.launcher.launches if item.pid == attempt.launch.pid]
        end(launch, exit_code=0)

    def _copy_failed_transcript(self, source: str, label: str, folder: Path, agent: str) -> None:
        journal = Path(source) / "journal.jsonl"
        agent_ids = [
            json.loads(line)["agentId"]
            for line in journal.read_text().splitlines()
            if json.loads(line).get("label") == label and json.loads(line)["type"] == "started"
        ]
        shutil.copy(Path(source) / f"agent-{agent_ids[-1]}.jsonl", folder / f"agent-{agent}.jsonl")


LEAP = 10 * 60.0
"""The longest the night's clock leaps between two passes (a supervisor that runs on looks
at a waiting run again when anything it waits on moves)."""


def live_through(
    night: Night,
    hours: float,
    answers: dict[str, list[bool]],
    *,
    outage_ends: float | None = None,
    step: float = 30.0,
) -> None:
    """The night from `NIGHT` for ``hours``: a pass every ``step`` seconds while something
    is due, else on to the end of the soonest wait. Each launch ends as ``answers`` say, in
    turn (True: the failed call fails again); the API host answers from ``outage_ends`` on."""
    left = {name: list(outcomes) for name, outcomes in answers.items()}
    while night.clock.now < NIGHT + hours * 3600:
        if outage_ends is not None:
            night.reachable = night.clock.now >= outage_ends
        supervisor = night.supervisor
        followed = set(supervisor.following)
        supervisor.step()
        for name in night.trees:
            if night.run_id(name) in supervisor.following:
                night.answer(name, fail=left[name].pop(0))
        followed |= set(supervisor.following)
        supervisor.poll()
        due = supervisor.next_until()
        busy = bool(followed) or any(
            decision.action.value in ("launched", "follow") for _r, decision in supervisor.said
        )
        later = night.clock.now + step
        night.clock.now = later if busy or due is None else max(later, min(due, later + LEAP))
        if due is None and not busy:
            night.clock.now = max(later, night.clock.now + 3600)


OUTAGE_ENDS = NIGHT + 20 * 60
"""The API host answers again at 22:20."""
DEAR = UsdRange(1.20, 3.40)
"""The forecast of ``dear``: above the per-run cap of $1.00."""
LONG_ANSWERS = {"storm": [True, False], "usage": [False], "stubborn": [True, True],
                "outage": [False]}  # fmt: skip
"""The storm clears at its second resume, the stubborn run fails twice, the others return."""


def long_night(base: Path) -> Night:
    """Six runs from 22:00 to 02:00 under a cap of $1.00 a run and $0.10 a day: a 429 storm
    that clears, a run that keeps failing, a usage limit that resets at 01:20, a network
    outage until 22:20, a run killed with no error recorded, a forecast above the cap."""
    pricer = FakePricer()
    night = Night(
        base, trees=LONG_NIGHT, settings=Settings(max_usd=1.0, daily_usd=0.10), pricer=pricer
    )
    pricer.runs[night.run_id("dear")] = DEAR
    live_through(night, 4, LONG_ANSWERS, outage_ends=OUTAGE_ENDS)
    return night
