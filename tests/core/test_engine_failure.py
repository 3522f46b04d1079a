"""An engine whose first read fails says so to every view, in one line naming its log, and
stays (a view waiting for its first rows is not left scanning for ever): in this process,
with a clock that breaks, and as a process of its own, with a package missing."""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
from pathlib import Path

from tests.core.test_engine import View, running, until
from tests.corpus import copy_tree
from wftop.core.engine import protocol as wire

TOP = Path(__file__).parents[2]
WAIT = 30.0


def broken_clock() -> float:
    """A clock with a bug."""
    raise RuntimeError("the clock broke")


async def test_a_first_read_that_raises_is_one_fatal_problem_naming_the_log(tmp_path):
    root = copy_tree("killed", tmp_path)
    log = tmp_path / "state" / "engine" / "some.log"
    view = View()
    async with running([root], cache=None, now=broken_clock, log=str(log)) as engine:
        engine.subscribe(view)
        await until(lambda: bool(view.of(wire.ProblemSeen)))
        (problem,) = view.of(wire.ProblemSeen)
        assert problem.fatal
        assert problem.text == (f"engine failed: RuntimeError: the clock broke (log: {log})")
        await asyncio.sleep(0.05)
        assert not engine.complete and not engine.following  # it held, it did not end
        late = View()
        engine.subscribe(late)  # a view that joins later is told too
        assert [p.text for p in late.of(wire.ProblemSeen) if p.fatal] == [problem.text]
    trace = log.read_text()
    assert "Traceback (most recent call last)" in trace
    assert trace.rstrip().endswith("RuntimeError: the clock broke")


SHADOW = 'raise ModuleNotFoundError("No module named genai_prices", name="genai_prices")\n'


def _missing_package(tmp_path: Path) -> dict[str, str]:
    """The environment of a wftop whose price package cannot be imported."""
    shadow = tmp_path / "shadow" / "genai_prices"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(SHADOW)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "shadow"), str(TOP)])
    env["WFTOP_STATE_DIR"] = str(tmp_path / "state")
    env["WFTOP_ENGINE_LINGER"] = "1"
    return env


def _watch_until_failed(tmp_path: Path, env: dict[str, str]) -> tuple[dict[str, str], str]:
    root = copy_tree("clean", tmp_path)
    argv = [sys.executable, "-m", "wftop.cli", "watch", "--json", "--root", str(root)]
    watch = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert watch.stdout is not None
        ready, _, _ = select.select([watch.stdout], [], [], WAIT)
        first = watch.stdout.readline() if ready else b""
    finally:
        watch.terminate()
        _, err = watch.communicate(timeout=WAIT)
    assert first, f"wftop watch --json printed nothing; on stderr: {err.decode()}"
    return json.loads(first), err.decode()


def test_a_subprocess_engine_missing_a_package_is_told_by_watch_json(tmp_path):
    event, err = _watch_until_failed(tmp_path, _missing_package(tmp_path))
    assert event["event"] == "engine_failed" and event["severity"] == "error"
    text = event["text"]
    assert text.startswith("engine failed: ModuleNotFoundError: No module named genai_prices")
    (log,) = (tmp_path / "state" / "engine").glob("*.log")
    assert text.endswith(f"(log: {log})")
    assert "Traceback (most recent call last)" in log.read_text()
    assert f"wftop watch: {text}\n" in err  # said on stderr too, once
    assert err.count("engine failed") == 1


def test_an_engine_of_its_own_over_pipes_names_its_log_too(tmp_path):
    env = _missing_package(tmp_path)
    env["WFTOP_ENGINE"] = "pipe"
    event, _err = _watch_until_failed(tmp_path, env)
    (log,) = (tmp_path / "state" / "engine").glob("*.log")
    assert event["text"].endswith(f"(log: {log})")
    assert "ModuleNotFoundError" in log.read_text()
