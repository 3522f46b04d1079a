"""``wftop watch --notify`` as a user runs it: a process of its own over its engine, a run's
real owner killed, the death printed and sent on the command channel once, though two
watches saw it; a run already dead when they started is never told."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from tests.corpus import copy_tree
from wftop.core.system.procs import default_table

WAIT = 60.0


def settle(root: Path, moment: float) -> Path:
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (moment, moment))
    return root


def own(root: Path, owner: subprocess.Popen[bytes]) -> None:
    """``owner`` registered as the tree's session owner, as Claude Code registers itself."""
    journals = root.glob("projects/*/*/subagents/workflows/*/journal.jsonl")
    (session,) = {journal.parents[3].name for journal in journals}
    (root / "sessions").mkdir(exist_ok=True)
    start = default_table().start_time(owner.pid)
    entry = {"pid": owner.pid, "sessionId": session, "procStart": start}
    (root / "sessions" / f"{owner.pid}.json").write_text(json.dumps(entry))


class Lines:
    """A stream's lines, read in a thread, waited for with a deadline."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.lines.put(line.decode("utf-8", "replace").rstrip("\n"))

    def until(self, wanted: str) -> str:
        deadline = time.monotonic() + WAIT
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no line with {wanted!r}: {self.seen}"
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                raise AssertionError(f"no line with {wanted!r}: {self.seen}") from None
            self.seen.append(line)
            if wanted in line:
                return line

    def rest(self) -> list[str]:
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return self.seen


def test_watch_notify_tells_an_owners_death_once_on_the_command_channel(tmp_path):
    now = time.time()
    live = settle(copy_tree("killed", tmp_path), now)
    old = settle(copy_tree("killed-in-parallel", tmp_path), now - 3 * 3600)
    told = tmp_path / "told.jsonl"
    config = tmp_path / "config.toml"
    keep = f"import sys; open({str(told)!r}, 'ab').write(sys.stdin.buffer.read())"
    config.write_text(f"[notifications]\ncommand = {json.dumps([sys.executable, '-c', keep])}\n")
    env = {
        **os.environ,
        "WFTOP_CONFIG": str(config),
        "WFTOP_NOTIFY": "command",
        "WFTOP_ENGINE": "pipe",
        "WFTOP_STATE_DIR": str(tmp_path / "state"),
    }
    owner = subprocess.Popen(["sleep", "600"])
    own(live, owner)
    argv = [sys.executable, "-m", "wftop.cli", "watch", "--notify", "--json"]
    argv += ["--no-default-root", "--root", str(live), "--root", str(old)]
    watches = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        for _ in range(2)
    ]
    try:
        outs = [Lines(watch.stdout) for watch in watches]  # type: ignore[arg-type]
        errs = [Lines(watch.stderr) for watch in watches]  # type: ignore[arg-type]
        for err in errs:
            assert err.until("notifying on") == "wftop watch: notifying on command"
            assert err.until("watching") == "wftop watch: watching 2 runs"
        owner.kill()
        owner.wait()
        for out in outs:
            event = json.loads(out.until('"event"'))
            assert (event["event"], event["before"], event["after"]) == ("died", "running", "dead")
            assert event["text"] == "mock-six (wf_c4e8dc39-03f) died with 1 worker in flight"
    finally:
        owner.kill()
        for watch in watches:
            watch.send_signal(signal.SIGTERM)
        codes = [watch.wait(WAIT) for watch in watches]
    assert codes == [0, 0]
    assert [out.rest() for out in outs] == [[out.seen[0]] for out in outs]
    (sent,) = told.read_text().splitlines()
    assert json.loads(sent)["text"] == "mock-six (wf_c4e8dc39-03f) died with 1 worker in flight"
