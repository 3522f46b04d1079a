"""Remote hosts over SSH: append latency, and 20 hosts × 1,000 runs merged in one TUI.

    python bench/remote.py [--lines 100] [--hosts 20] [--runs 1000] [--json]

Needs the OpenSSH client and the test extra (asyncssh, for the SSH server on loopback; the
same throwaway servers the tests use, ``tests/ssh_kit.py``).

1. Append → row updated. One "host" (an asyncssh server on 127.0.0.1 serving a copy of the
   ``killed`` corpus tree plus one writer run) is followed by a `RemoteHub`, as the TUI
   follows it: the system ``ssh`` runs ``wftop ls --watch --json`` there. A line appended
   to the writer run's journal counts as arrived with the first change set whose
   ``started + returned`` for that run reaches it. The floor is the same link with the
   same remote command run here, without ssh (argv ``wftop ls --watch --json``): the ratio
   is what SSH adds.
2. Merge. ``--hosts`` ssh aliases of one server each stream the first line of a
   ``--runs``-run corpus's ``wftop ls --watch --json`` (recorded once; the remote command
   replays it, ``cat FILE``, and keeps the link open), so what is measured is this side:
   ssh, reading, the rows made runs, the TUI's merge. In a fresh process, the app
   (headless, 100×30) over an empty local root: time from start to the first remote rows
   painted and to every row listed, the process's RSS then, and the CPU cost of keys on
   the merged list (as ``bench/tui_startup.py`` measures them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from common import TOP, WFTOP, default_workdir, ensure_corpus, painted
from make_corpus import Plan

KEYS = [("j", 60), ("pagedown", 20), ("s", 10), ("o", 6), ("enter", 10), ("escape", 10)]


def writer_run(root: Path) -> Path:
    session = root / "projects" / "-bench-remote" / "s-bench"
    folder = session / "subagents" / "workflows" / "wf_bench-001"
    folder.mkdir(parents=True)
    journal = folder / "journal.jsonl"
    journal.write_bytes(b'{"type":"launched"}\n')
    return journal


def line_for(number: int) -> bytes:
    key = f"k{number // 2}"
    kind = "started" if number % 2 == 0 else "result"
    record: dict[str, Any] = {"type": kind, "key": key, "agentId": f"a{number // 2:08d}"}
    if kind == "started":
        record["label"] = key
    else:
        record["result"] = {"n": number}
    return json.dumps(record).encode() + b"\n"


def append_latency(argv: list[str], root: Path, lines: int, interval: float) -> list[float]:
    """Milliseconds from each line's ``write()`` to the change set that carries it."""
    from wftop.core.remote.link import RemoteHub

    journal = writer_run(root)
    hub = RemoteHub({"h": argv}, backoff=(0.2,))
    arrived: dict[int, float] = {}
    ready = threading.Event()

    async def follow() -> None:
        async for batch in hub.updates():
            for update in batch:
                for run in (*update.changes.added, *update.changes.changed):
                    if run.run_id == "wf_bench-001":
                        count = run.fold.started_lines + run.fold.result_lines
                        arrived.setdefault(count, time.time())
                        ready.set()
            if len(arrived) > lines:
                return

    def read() -> None:
        # the hub's own loop, in a thread of the bench's, as the TUI runs it
        asyncio.run(follow())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    ready.wait(120)
    written = []
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND)
    try:
        for number in range(lines):
            written.append(time.time())
            os.write(fd, line_for(number))
            time.sleep(interval)
    finally:
        os.close(fd)
    reader.join(timeout=30)
    hub.close()
    reader.join(timeout=30)
    shutil.rmtree(journal.parent.parent.parent.parent.parent)
    counts = sorted(arrived)
    latencies = []
    for number, at in enumerate(written):
        # Two lines written close together may arrive in one change set.
        first = next((count for count in counts if count >= number + 1), None)
        if first is not None:
            latencies.append((arrived[first] - at) * 1000)
    return latencies


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else float("nan")


def child(config: str, hosts: int, remote_command: str, local_root: str) -> None:
    """The measured TUI process: prints one JSON line."""
    import asyncio

    import psutil

    from wftop.cli.remote import hub_for
    from wftop.core.config import Config
    from wftop.tui.start import make_app
    from wftop.tui.widgets.run_table import RunTable

    names = [f"h{n:02d}" for n in range(hosts)]
    os.environ["WFTOP_SSH"] = f"ssh -F {config}"

    async def main() -> dict[str, Any]:
        started = time.time()
        remote = hub_for(names, remote_command, None)
        app_config = Config(bell=False, notify=False, default_root=False)
        app = make_app([local_root], config=app_config, live=False, remote=remote)
        result: dict[str, Any] = {}
        async with app.run_test(size=(100, 30)) as pilot:
            table = app.screen.query_one(RunTable)
            while not table.row_count:
                await asyncio.sleep(0.002)
            await painted(app)
            result["first_rows_s"] = time.time() - started
            want = hosts * int(os.environ["BENCH_RUNS"])
            while table.row_count < want:
                await asyncio.sleep(0.01)
            await painted(app)
            result["all_rows_s"] = time.time() - started
            result["rows"] = table.row_count
            result["rss_mb"] = psutil.Process().memory_info().rss / 2**20

            async def cost(*keys: str) -> float:
                begin = time.process_time()
                await pilot.press(*keys)
                return (time.process_time() - begin) * 1000

            noop = statistics.median([await cost("f12") for _ in range(20)])
            result["noop_ms"] = noop
            result["keys"] = {key: [await cost(key) - noop for _ in range(n)] for key, n in KEYS}
        return result

    print(json.dumps(asyncio.run(main())))


def connect_time(config: Path, hosts: int) -> float:
    """Seconds for ``hosts`` ssh connections at once to run a command that prints nothing."""
    started = time.time()
    argvs = [["ssh", "-F", str(config), "-T", f"h{n:02d}", "true"] for n in range(hosts)]
    for process in [subprocess.Popen(argv) for argv in argvs]:
        process.wait()
    return time.time() - started


def merge(ssh_hosts: Any, hosts: int, runs: int, work: Path) -> dict[str, Any]:
    corpus = ensure_corpus(work / f"c{runs}", Plan(runs=runs, thin_agents=True))
    stream = work / f"snapshot-{runs}.jsonl"
    if not stream.exists():
        process = subprocess.Popen(
            [*WFTOP, "ls", "--watch", "--json", "--no-default-root", "--root", str(corpus)],
            stdout=subprocess.PIPE,
            cwd=TOP,
        )
        assert process.stdout is not None
        stream.write_bytes(process.stdout.readline())
        process.terminate()
        process.wait()
    port = ssh_hosts.hosts["alpha"].port
    config = ssh_hosts.base / "bench_config"
    lines = []
    for n in range(hosts):
        lines += ssh_hosts.entry(f"h{n:02d}", port, "id_test")
    config.write_text("\n".join(lines) + "\n")
    # The rest of the line (wftop's own arguments) is a comment to the remote shell.
    remote_command = f"cat {stream}; exec sleep 100000 #"
    empty = work / "empty-root"
    (empty / "projects").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(TOP), BENCH_RUNS=str(runs))
    argv = [sys.executable, __file__, "--child", str(config), str(hosts), remote_command]
    done = subprocess.run(
        [*argv, str(empty)], capture_output=True, text=True, env=env, cwd=TOP, timeout=600
    )
    if done.returncode != 0:
        sys.exit(f"bench: the TUI child failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["connect_s"] = connect_time(config, hosts)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between lines")
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        config, hosts, remote_command, local_root = args.child
        child(config, int(hosts), remote_command, local_root)
        return 0
    sys.path.insert(0, str(TOP))
    from tests.ssh_kit import SshHosts
    from wftop.core.remote.link import WATCH_ARGS
    from wftop.core.remote.transport import remote_argv, ssh_prefix

    work = default_workdir()
    work.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="wftop-bench-remote-"))
    os.environ.setdefault("WFTOP_CACHE_DIR", str(base / "cache"))
    ssh_hosts = SshHosts(base / "ssh")
    try:
        alpha = ssh_hosts.add("alpha", "killed")
        prefix = ssh_prefix(None, ssh_hosts.env)
        over_ssh = remote_argv(prefix, "alpha", WATCH_ARGS)
        local_root = base / "local"
        shutil.copytree(alpha.root, local_root)
        here = [*WFTOP, *WATCH_ARGS, "--no-default-root", "--root", str(local_root)]
        floor = append_latency(here, local_root, args.lines, args.interval)
        remote = append_latency(over_ssh, alpha.root, args.lines, args.interval)
        merged = merge(ssh_hosts, args.hosts, args.runs, work)
    finally:
        ssh_hosts.close()
        shutil.rmtree(base, ignore_errors=True)
    keys = {
        key: {"median_ms": round(statistics.median(v), 1), "max_ms": round(max(v), 1)}
        for key, v in merged["keys"].items()
    }
    summary = {
        "append": {
            "lines": args.lines,
            "delivered": len(remote),
            "p50_ms": round(statistics.median(remote), 1),
            "p95_ms": round(p95(remote), 1),
            "floor_p50_ms": round(statistics.median(floor), 1),
            "floor_p95_ms": round(p95(floor), 1),
            "ratio_p95": round(p95(remote) / p95(floor), 2),
        },
        "merge": {
            "hosts": args.hosts,
            "runs_per_host": args.runs,
            "rows": merged["rows"],
            "connect_s": round(merged["connect_s"], 2),
            "first_rows_s": round(merged["first_rows_s"], 2),
            "first_rows_after_connect_s": round(merged["first_rows_s"] - merged["connect_s"], 2),
            "all_rows_s": round(merged["all_rows_s"], 2),
            "rss_mb": round(merged["rss_mb"]),
            "noop_ms": round(merged["noop_ms"], 1),
            "keys": keys,
        },
        "load": os.getloadavg(),
    }
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
