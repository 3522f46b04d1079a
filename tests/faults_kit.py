"""Helpers shared by the fault tests: wftop as a real process on a copy of the ``killed`` tree.

Rows that need a read to be refused run wftop without the capabilities that let root
bypass file modes (``setpriv``), so they hold when the suite runs as root too.

For resume, a ``World`` is a resumable copy of the tree with a fake ``claude``
(``--claude``) that records each launch in a file, prints the CLI's start marker, then
exits, hangs, or finishes the run (appends to the journal and writes a current
snapshot) once the test lets it. To kill wftop at an exact state, a small wrapper runs
the real command with a hook that SIGKILLs the process right after the transition
named by ``KILL_AFTER`` is appended to the resume log.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.corpus import copy_tree, only_journal, own_session_ids

TOP = Path(__file__).resolve().parent.parent
TIMEOUT = 60.0
"""Upper bound for one wftop process (they take well under a second)."""

SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"
RUN = "wf_c4e8dc39-03f"
OLD_CWD = b"/home/dev/work/kill-resume/proj"
WAIT = 60.0

STARTED = b'{"type":"started","key":"v2:zz","agentId":"azz","label":"late"}\n'


def unprivileged() -> list[str]:
    """A prefix that makes file modes bind even for root (empty when not root)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file modes cannot be enforced")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner", "--"]


def wftop(
    root: Path, *args: str, prefix: list[str] | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    argv = [*(prefix or []), sys.executable, "-m", "wftop.cli", *args]
    argv += ["--no-default-root", "--root", str(root)]
    return subprocess.run(
        argv,
        cwd=TOP,
        env=env if env is not None else os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        errors="replace",
    )


def run_folder(root: Path) -> Path:
    return only_journal(root).parent


def read_lines(stream: Any, into: queue.Queue[str]) -> None:
    for line in stream:
        into.put(line)


# -- resume ------------------------------------------------------------------------------------

FAKE_CLAUDE = textwrap.dedent(
    """\
    import json, os, sys, time
    if "--version" in sys.argv:
        print("2.1.332 (Claude Code)")
        sys.exit(0)
    with open(os.environ["FAKE_LAUNCHES"], "a") as handle:
        handle.write(f"{os.getpid()}\\n")
    mode = os.environ.get("FAKE_MODE", "complete")
    def forever():
        while True:
            time.sleep(0.05)
    if mode == "silent-hang":
        forever()
    print(json.dumps({"type": "system", "subtype": "task_started"}), flush=True)
    if mode.startswith("exit:"):
        sys.exit(int(mode[5:]))
    if mode == "hang":
        forever()
    go, deadline = os.environ["FAKE_GO"], time.monotonic() + 120
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.02)
    agent = "afake00000000000001"
    with open(os.environ["FAKE_JOURNAL"], "a") as handle:
        for kind in ("started", "result"):
            record = {"type": kind, "key": "v2:fake-a5", "agentId": agent, "label": "a5"}
            handle.write(json.dumps(record) + "\\n")
    with open(os.environ["FAKE_SNAPSHOT"], "w") as handle:
        json.dump({"runId": os.environ["FAKE_RUN"], "status": "completed",
                   "workflowProgress": [{"type": "workflow_agent", "agentId": agent,
                                         "label": "a5", "state": "done"}]},
                  handle)
    """
)

KILL_HOOK = textwrap.dedent(
    """\
    import os, signal, sys
    from wftop.core.resume import launcher, store
    target = os.environ["KILL_AFTER"]
    if target == "spawn":
        original_launch = launcher.SubprocessLauncher.launch
        def launch(self, *args, **kwargs):
            result = original_launch(self, *args, **kwargs)
            os.kill(os.getpid(), signal.SIGKILL)
            return result
        launcher.SubprocessLauncher.launch = launch
    else:
        original_append = store.ResumeStore._append
        def append(self, run_id, transition):
            original_append(self, run_id, transition)
            if transition.event is not None and transition.event.value == target:
                os.kill(os.getpid(), signal.SIGKILL)
        store.ResumeStore._append = append
    from wftop.cli.main import main
    sys.exit(main())
    """
)


class World:
    """A resumable copy of the ``killed`` tree, a fake claude and wftop's state dir.

    The copy's session has an id of its own (`session`), unless ``own_session`` is false
    (tests that launch nothing and keep `SESSION`): a claude this world launches resumes
    it, and the guard of any other copy would see that process.
    """

    def __init__(self, tmp_path: Path, *, own_session: bool = True) -> None:
        self.base = tmp_path
        self.cwd = tmp_path / "proj"
        self.cwd.mkdir()
        self.root = copy_tree("killed", tmp_path)
        self.session = own_session_ids(self.root)[SESSION] if own_session else SESSION
        for path in self.root.rglob("*.jsonl"):
            data = path.read_bytes()
            if OLD_CWD in data:
                path.write_bytes(data.replace(OLD_CWD, str(self.cwd).encode()))
        past = time.time() - 600
        for path in self.root.rglob("*"):
            os.utime(path, (past, past), follow_symlinks=False)
        self.journal = only_journal(self.root)
        self.snapshot = self.journal.parents[3] / "workflows" / f"{RUN}.json"
        self.state = tmp_path / "state"
        self.launches = tmp_path / "launches.txt"
        self.go = tmp_path / "go"
        self.claude = tmp_path / "bin" / "claude"
        self.claude.parent.mkdir()
        self.claude.write_text(f"#!{sys.executable}\n{FAKE_CLAUDE}")
        self.claude.chmod(0o755)
        self.hook = tmp_path / "hook.py"
        self.hook.write_text(KILL_HOOK)

    def env(self, mode: str = "complete", **extra: str) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(TOP),
            "WFTOP_STATE_DIR": str(self.state),
            "FAKE_LAUNCHES": str(self.launches),
            "FAKE_MODE": mode,
            "FAKE_GO": str(self.go),
            "FAKE_JOURNAL": str(self.journal),
            "FAKE_SNAPSHOT": str(self.snapshot),
            "FAKE_RUN": RUN,
            **extra,
        }

    def argv(self, *extra: str, hook: bool = False) -> list[str]:
        head = [sys.executable, str(self.hook)] if hook else [sys.executable, "-m", "wftop.cli"]
        return [
            *head, "resume", RUN, "--yes", "--json", "--no-default-root",
            "--root", str(self.root), "--claude", str(self.claude), *extra,
        ]  # fmt: skip

    def resume(self, *extra: str, mode: str = "complete", **env: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.argv(*extra, hook="KILL_AFTER" in env),
            cwd=TOP,
            env=self.env(mode, **env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def finish(self, process: subprocess.Popen[str]) -> tuple[int, list[dict[str, Any]], str]:
        out, err = process.communicate(timeout=WAIT)
        return process.returncode, [json.loads(line) for line in out.splitlines()], err

    def pids(self) -> list[int]:
        if not self.launches.exists():
            return []
        return [int(line) for line in self.launches.read_text().split()]

    def wait_for_launch(self, count: int = 1) -> int:
        deadline = time.monotonic() + WAIT
        while len(self.pids()) < count:
            assert time.monotonic() < deadline, "claude was never launched"
            time.sleep(0.02)
        return self.pids()[count - 1]

    def log(self) -> list[dict[str, Any]]:
        path = self.state / "resume" / f"{RUN}.jsonl"
        return (
            [orjson.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []
        )

    def last_state(self) -> str:
        return self.log()[-1]["to"]

    def stop_leftovers(self) -> None:
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)


def keep_lines(stream: Any, into: list[str]) -> None:
    for line in stream:
        into.append(line)


class Read:
    """A wftop process whose output is read as it comes (a thread a stream), so a test can
    wait for what it has said before the fake claude is let finish."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.out: list[str] = []
        self.err: list[str] = []
        self.readers = [
            threading.Thread(target=keep_lines, args=(stream, into), daemon=True)
            for stream, into in ((process.stdout, self.out), (process.stderr, self.err))
        ]
        for reader in self.readers:
            reader.start()

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in list(self.out) if line.endswith("\n")]

    def finish(self) -> tuple[int, list[dict[str, Any]], str]:
        code = self.process.wait(timeout=WAIT)
        for reader in self.readers:
            reader.join(timeout=WAIT)
        for stream in (self.process.stdout, self.process.stderr):
            assert stream is not None
            stream.close()
        return code, self.events(), "".join(self.err)


@contextlib.contextmanager
def world_at(tmp_path: Path) -> Iterator[World]:
    """A ``World`` whose claude processes are killed when the block ends."""
    made = World(tmp_path)
    try:
        yield made
    finally:
        made.stop_leftovers()
