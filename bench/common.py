"""Shared helpers of the benchmarks: corpora, timed child processes, the machine."""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOP = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
if str(TOP) not in sys.path:
    sys.path.insert(0, str(TOP))
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from make_corpus import Plan, generate, plan_facts  # noqa: E402

WFTOP = [sys.executable, "-m", "wftop.cli"]
"""How the benchmarks start wftop: the checkout's own code, as ``python -m wftop.cli``."""


def child_json(script: str, *args: str) -> dict[str, Any]:
    """Run ``script --child ARGS`` in a fresh interpreter on the checkout's code; the JSON
    object its last output line holds."""
    done = subprocess.run(
        [sys.executable, script, "--child", *args],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=str(TOP)),
        cwd=TOP,
    )
    data: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return data


async def painted(app: Any) -> None:
    """Wait for the app's next screen refresh. Not for idleness, which the pilot's ``pause``
    waits for (up to 1 s): it asks the whole process to be idle, and a cold start or the
    links of other hosts keep threads busy while the screen already shows rows."""
    import asyncio

    for _ in range(3):  # let the widgets that changed tell their screen first
        await asyncio.sleep(0)
    done = asyncio.get_running_loop().create_future()
    app.screen.call_after_refresh(lambda: done.done() or done.set_result(None))
    await done


def compile_sources() -> None:
    """Byte-compile wftop's modules once, as ``pip install`` does. A checkout run with
    ``PYTHONDONTWRITEBYTECODE`` set would otherwise compile every module at every start."""
    sources = [str(TOP / room) for room in ("core", "tui", "cli", "mockapi")]
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *sources], stdout=subprocess.DEVNULL, check=False
    )


def default_workdir() -> Path:
    """``bench/out/`` (ignored by git), or ``$WFTOP_BENCH_DIR``."""
    return Path(os.environ.get("WFTOP_BENCH_DIR", BENCH / "out"))


def ensure_corpus(path: Path, plan: Plan) -> Path:
    """A generated corpus for this plan, made once and reused while the plan is the same."""
    wanted = plan_facts(plan)
    if corpus_facts(path).get("plan") == wanted:
        return path
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    started = time.perf_counter()
    counts = generate(path, plan)
    print(
        f"  made {path.name}: {counts['runs']} runs, {counts['sessions']} sessions, "
        f"{counts['projects']} projects, {counts['agent_files']} agent files "
        f"in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    (path / MARKER).write_text(json.dumps({"plan": wanted, "counts": counts}))
    return path


MARKER = ".corpus.json"
"""Beside ``projects/`` in a generated corpus: the plan it was made from and its counts."""


def corpus_facts(path: Path) -> dict[str, Any]:
    try:
        facts: dict[str, Any] = json.loads((path / MARKER).read_text())
    except (OSError, ValueError):
        return {}
    return facts


@dataclass
class Measured:
    seconds: float
    """Wall time."""
    cpu_seconds: float
    """User plus system time of the child (less sensitive to a busy machine than wall time)."""
    max_rss_kb: int
    returncode: int
    stdout: bytes


def measure(argv: list[str], *, env: dict[str, str] | None = None, cwd: Path = TOP) -> Measured:
    """Run a command to its end: wall time, CPU and peak RSS of the command (its waited-for
    children included), exit code. It is started by ``bench/launch.py``, a process of a few
    MB, so the benchmark's own memory does not count in the command's peak RSS."""
    read_end, write_end = os.pipe()
    launcher = [sys.executable, str(BENCH / "launch.py"), str(write_end), "--", *argv]
    process = subprocess.Popen(
        launcher,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
        pass_fds=(write_end,),
    )
    os.close(write_end)
    out, _ = process.communicate()
    with os.fdopen(read_end, "rb") as report_file:
        report = json.loads(report_file.read() or b"{}")
    if not report:
        sys.exit(f"bench: the launcher reported nothing for {argv[:3]}")
    return Measured(
        report["seconds"],
        report["cpu_seconds"],
        int(report["max_rss_kb"]),
        int(report["returncode"]),
        out,
    )


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def machine() -> dict[str, str]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "unknown"
    try:
        total_kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{total_kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return {
        "cpus": str(os.cpu_count()),
        "cpu": model,
        "memory": memory,
        "python": platform.python_version(),
        "kernel": platform.release(),
        "load": " ".join(f"{value:.2f}" for value in os.getloadavg()),
    }
