"""``wftop drill``: check that the installed ``claude`` still keeps the contract wftop relies on.

Against the built-in loopback mock, in a temporary config dir: launch a real Workflow, kill
its process group with SIGKILL while a5 is in flight, resume it with ``--resume`` (the
prompt wftop sends), then replay a copy of the killed journal in a new session
(``--session-id``). Each step is checked against what wftop's reader, forecast and resume
assume. No Textual; nothing leaves 127.0.0.1; the temporary dir is removed at the end.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wftop.mockapi import load_script
from wftop.mockapi.cliproc import CliHome, RealCliError, cli_version
from wftop.mockapi.scenario import (
    RUN_PROMPT,
    SIX_AGENTS,
    CliRun,
    agents_config,
    journal_counts,
    read_journal,
    resume_prompt,
    run_step,
)
from wftop.mockapi.server import MockAPI

RUN_ID = re.compile(r"^wf_[a-z0-9-]{6,}$")
LINE_TYPES = {"launched", "started", "result", "failed"}


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


@dataclass
class Report:
    cli: str
    version: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(check.ok for check in self.checks)

    def add(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append(Check(name, ok, detail))

    def to_json(self) -> dict[str, Any]:
        return {
            "cli": self.cli,
            "cli_version": self.version,
            "ok": self.ok,
            "checks": [check.to_json() for check in self.checks],
        }


def drill(claude: str, note: Callable[[str], None] = lambda _text: None) -> Report:
    """Run every check; a CLI step that fails outright fails the checks that needed it."""
    report = Report(claude, cli_version(claude))
    with tempfile.TemporaryDirectory(prefix="wftop-drill-") as temp_name:
        temp = Path(temp_name)
        home = CliHome.create(temp / "cli")
        agents = agents_config(SIX_AGENTS, delay_s=0.05, a5={"hang_attempts": [1]})
        with MockAPI({"script": load_script("six.js"), "agents": agents}) as mock:
            try:
                steps(report, mock, home, temp, note)
            except RealCliError as error:
                report.add("cli step", False, str(error).splitlines()[0])
    return report


def steps(
    report: Report, mock: MockAPI, home: CliHome, temp: Path, note: Callable[[str], None]
) -> None:
    claude = report.cli
    note("launch, then SIGKILL of the process group while a5 is in flight")
    killed = run_step(claude, mock, home, RUN_PROMPT, kill_when_agent=("a5", 1))
    check_layout(report, killed)
    journal = killed.journal_path
    if journal is None or not journal.is_file() or killed.run_id is None:
        return
    counts = journal_counts(journal)
    types = {str(line.get("type")) for line in read_journal(journal)}
    shape = (counts["launched"], counts["started"], counts["result"])
    report.add(
        "journal line types",
        types <= LINE_TYPES and shape == (1, 5, 4),
        f"types {sorted(types)}; launched/started/result = "
        f"{counts['launched']}/{counts['started']}/{counts['result']} (want 1/5/4)",
    )
    snapshot = killed.snapshot_path
    report.add(
        "no snapshot after the kill",
        snapshot is not None and not snapshot.exists(),
        "workflows/<runId>.json is written only when a run ends",
    )
    saved = temp / "killed-journal.jsonl"
    shutil.copyfile(journal, saved)
    script = killed.script_path or ""
    prompt = resume_prompt(killed.run_id, script)

    note("resume with --resume <session>")
    resumed = run_step(claude, mock, home, prompt, resume=killed.session_id)
    report.add(
        "--resume keeps the session id",
        resumed.session_id == killed.session_id and resumed.rc == 0,
        f"exit {resumed.rc}; session {resumed.session_id} (was {killed.session_id})",
    )
    report.add(
        "cache replays the completed prefix",
        resumed.live == ["a5", "a6"],
        f"live during the resume: {', '.join(resumed.live) or '-'} (want a5, a6; "
        "a1-a4 from the journal)",
    )
    done = resumed.snapshot_path
    report.add(
        "snapshot written at the end",
        done is not None and done.is_file() and '"completed"' in done.read_text(),
        f"{done.name if done else '-'} after the resume completed",
    )

    note("copy the killed journal into a new session, run it with --session-id")
    new_session = str(uuid.uuid4())
    assert killed.session_dir is not None
    target = killed.session_dir.parent / new_session / "subagents" / "workflows" / killed.run_id
    target.mkdir(parents=True)
    shutil.copyfile(saved, target / "journal.jsonl")
    moved = run_step(claude, mock, home, prompt, extra_args=["--session-id", new_session])
    report.add(
        "a copied journal replays in another session",
        moved.session_id == new_session and moved.rc == 0 and moved.live == ["a5", "a6"],
        f"exit {moved.rc}; session {moved.session_id[:8]}…; "
        f"live: {', '.join(moved.live) or '-'} (want a5, a6)",
    )


def check_layout(report: Report, killed: CliRun) -> None:
    journal = killed.journal_path
    ok = (
        killed.killed
        and journal is not None
        and journal.is_file()
        and killed.run_id is not None
        and RUN_ID.match(killed.run_id) is not None
        and journal.parts[-5:-1] == (killed.session_id, "subagents", "workflows", killed.run_id)
        and journal.parts[-7] == "projects"
    )
    shown = "/".join(journal.parts[-7:]) if journal else "no journal found"
    report.add("journal layout", ok, shown)
