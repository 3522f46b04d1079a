"""A resume policy over a resumable copy of the ``killed`` tree, with nothing real behind it.

The launcher starts no process: a launch is a pid in a `FakeProcessTable`, a status file
and a log the test writes to; `FakeLauncher.complete` plays the CLI finishing the run (the
calls it ran appended to the journal, a current snapshot) and `FakeLauncher.no_conversation`
the CLI refusing an owner session it cannot find. The clock is fixed and the version of
``claude`` is given, so nothing here reads the machine's processes or runs a binary.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.faults_kit import RUN, SESSION, World
from wftop.core.resume.launcher import Launch, LaunchPoll
from wftop.core.resume.policy import ResumePolicy
from wftop.core.resume.store import ResumeStore
from wftop.core.system.procs import FakeProcess, FakeProcessTable

NOW = 4_000_000_000.0
"""The policy's clock: the tree's files are ten minutes older."""

STARTED_LINE = b'{"type":"system","subtype":"task_started"}\n'
AGENT = "afake00000000000001"

__all__ = ["NOW", "RUN", "SESSION", "FakeLaunch", "FakeLauncher", "make_world", "policy_for"]


class FakeLaunch(Launch):
    """A launch whose stop ends it in the status file (no signal is sent to anything)."""

    table: FakeProcessTable

    def stop(self, table: object, *, grace: float = 5.0, kill_grace: float = 2.0) -> LaunchPoll:
        end(self, signal=15)
        return LaunchPoll("exited", signal=15)


def end(launch: Launch, *, exit_code: int | None = None, signal: int | None = None) -> None:
    status = json.loads(launch.status_path.read_text())
    status.update(exit_code=exit_code, signal=signal)
    launch.status_path.write_text(json.dumps(status))
    assert isinstance(launch, FakeLaunch)
    launch.table.processes.pop(launch.pid or 0, None)


class FakeLauncher:
    """Records every launch; the test decides how each one ends."""

    def __init__(self, table: FakeProcessTable) -> None:
        self.table = table
        self.launches: list[FakeLaunch] = []
        self.argvs: list[list[str]] = []

    def launch(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        log_path: Path,
        status_path: Path,
        env: Mapping[str, str] | None = None,
    ) -> Launch:
        pid = 990_000 + len(self.launches)
        self.table.processes[pid] = FakeProcess("100")
        status_path.write_text(json.dumps({"runner_pid": pid, "runner_start": "100"}))
        log_path.write_bytes(b"")
        launch = FakeLaunch(pid=pid, proc_start="100", log_path=log_path, status_path=status_path)
        launch.table = self.table
        self.launches.append(launch)
        self.argvs.append(list(argv))
        return launch

    @property
    def last(self) -> FakeLaunch:
        return self.launches[-1]

    def started(self) -> None:
        """The CLI says the workflow relaunched (its stream's start marker)."""
        with open(self.last.log_path, "ab") as handle:
            handle.write(STARTED_LINE)

    def no_conversation(self, session: str) -> None:
        """The CLI cannot find the session to resume, and exits 1."""
        message = f"No conversation found with session ID: {session}\n"
        self.last.log_path.write_bytes(message.encode())
        end(self.last, exit_code=1)

    def complete(self, journal: str, labels: Sequence[str] = ("a5", "a6")) -> None:
        """The CLI runs ``labels`` live (its journal and its stream say so), writes a current
        snapshot, and exits 0."""
        rows = []
        keys = {}
        for line in Path(journal).read_text().splitlines():
            record = json.loads(line)
            keys.setdefault(record.get("label"), record.get("key"))
        with open(journal, "a") as handle:
            for number, label in enumerate(labels):
                agent = f"{AGENT[:-2]}{number:02d}"
                for kind in ("started", "result"):
                    record = {
                        "type": kind,
                        "key": keys.get(label, f"v2:{label}"),
                        "agentId": agent,
                        "label": label,
                        **({"result": "ok"} if kind == "result" else {}),
                    }
                    handle.write(json.dumps(record) + "\n")
                rows.append({"type": "workflow_agent", "agentId": agent, "label": label,
                             "state": "done"})  # fmt: skip
        with open(self.last.log_path, "ab") as log:  # the CLI's stream: each call, live
            for row in rows:
                event = {"type": "system", "subtype": "task_progress",
                         "workflow_progress": [{**row, "state": "start"}]}  # fmt: skip
                log.write(json.dumps(event).encode() + b"\n")
        snapshot = Path(journal).parents[3] / "workflows" / f"{RUN}.json"
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(json.dumps({"runId": RUN, "status": "completed",
                                        "workflowProgress": rows}))  # fmt: skip
        end(self.last, exit_code=0)


def make_world(tmp_path: Path) -> World:
    """The ``killed`` tree made resumable, its files ten minutes older than `NOW`."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    world = World(tmp_path, own_session=False)  # its launcher and process table are fakes
    for path in world.root.rglob("*"):
        os.utime(path, (NOW - 600, NOW - 600), follow_symlinks=False)
    return world


def policy_for(
    world: World, table: FakeProcessTable | None = None
) -> tuple[ResumePolicy, FakeLauncher, list[str]]:
    """The policy over ``world`` with a fake launcher; the list collects version questions."""
    table = table if table is not None else FakeProcessTable()
    launcher = FakeLauncher(table)
    asked: list[str] = []

    def version_of(binary: str) -> tuple[int, int, int]:
        asked.append(binary)
        return (2, 1, 332)

    policy = ResumePolicy(
        processes=table,
        clock=lambda: NOW,
        store=ResumeStore(world.state),
        claude_bin=str(world.claude),
        launcher=launcher,
        version_of=version_of,
        environ={"PATH": os.environ.get("PATH", "")},
        sleep=lambda _seconds: None,
    )
    return policy, launcher, asked
