"""The journal and transcript screens on large files: first lines, End, PageDown, search, RSS.

    python bench/viewers.py [--cases 10k,30mb,100k,1gb] [--repeat 3] [--json]

Each case is one run (the ``clean`` test tree, copied under ``bench/out/viewers/``) whose
journal and one agent's transcript are grown to the case's size:

* ``10k``: 10,000 journal lines, 5,000 calls (1.7 MB);
* ``30mb``: 600 lines, 300 calls with 100 KB results (30 MB);
* ``100k``: 100,000 lines, 50,000 calls (12 MB);
* ``1gb``: 10,000 calls with 100 KB results (1 GB).

Each repeat is a fresh Python process that starts the real app headless at 100x30
(`wftop.tui.start.make_app`, follow off) over that run, and reports, in wall time from the
key (or the push of the screen) until the screen shows what the key asked for, refreshed:

* ``index_s``: the cold start of the index (the run's row: its journal parsed and folded);
* ``run_screen_s``: ``enter`` on the row until the run screen's call table is filled;
* per screen (``journal``, ``transcript``): ``first_s`` (pushed until the first lines show),
  ``end_ms`` (``end`` until the last line shows), ``pagedown_ms``, ``search_ms`` (``/`` and a
  text found only on the middle line, until the cursor is on it and it shows), and the
  process's RSS with the screen open (``rss_mb``, and before it was pushed).

Keys are posted to the app as the terminal driver posts them. ``noop_key_ms`` is the same
measure for a key bound to nothing (the harness's own cost, a refresh included); it is
reported, not subtracted.

The goal (issue "fast at any size"): first lines within 0.3 s, keys within 50 ms, memory
independent of the file's size, the run screen of a 50,000-call run within 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

import orjson
from common import child_json, painted

TOP = Path(__file__).resolve().parent.parent
TREE = TOP / "tests" / "data" / "corpus" / "clean"
RUN_ID = "wf_6bc9feb7-808"
AGENT = "aed6443ddeefad2fe"
NEEDLE = "NEEDLE-in-the-middle"
CASES: dict[str, tuple[int, int]] = {
    "10k": (5_000, 0),
    "30mb": (300, 100_000),
    "100k": (50_000, 0),
    "1gb": (10_000, 100_000),
}
"""Case → (calls, bytes of each result's text)."""


def run_folder(root: Path) -> Path:
    return next(root.glob(f"projects/*/*/subagents/workflows/{RUN_ID}"))


def build_case(root: Path, calls: int, result_bytes: int) -> None:
    """The clean tree with its journal and one transcript grown: ``calls`` calls (a started
    and a result line each), the middle one's label ``NEEDLE``."""
    marker = root / ".case.json"
    wanted = {"calls": calls, "result_bytes": result_bytes}
    if marker.is_file() and json.loads(marker.read_text()) == wanted:
        return
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(TREE, root)
    folder = run_folder(root)
    filler = "x" * result_bytes
    middle = calls // 2
    with open(folder / "journal.jsonl", "wb") as journal:
        journal.write(b'{"type":"launched"}\n')
        for number in range(calls):
            label = NEEDLE if number == middle else f"c{number}"
            key = f"v2:{number:064x}"
            agent = f"b{number:016x}"
            started = {"type": "started", "key": key, "agentId": agent, "label": label}
            result = {"agent": label, "ok": True, "n": number, "text": filler}
            done = {"type": "result", "key": key, "agentId": agent, "result": result}
            journal.write(orjson.dumps(started) + b"\n" + orjson.dumps(done) + b"\n")
    with open(folder / f"agent-{AGENT}.jsonl", "wb") as transcript:
        for number in range(calls):
            role = "user" if number % 2 == 0 else "assistant"
            text = NEEDLE if number == middle else f"turn {number} {filler}"
            line = {
                "type": role,
                "agentId": AGENT,
                "isSidechain": True,
                "message": {"role": role, "content": [{"type": "text", "text": text}]},
            }
            transcript.write(orjson.dumps(line) + b"\n")
    marker.write_text(json.dumps(wanted))


def rss_mb() -> float:
    import psutil

    return float(psutil.Process().memory_info().rss) / 2**20


def child(root: str) -> None:
    """Runs in the measured process; prints one JSON line."""
    import asyncio

    from textual import events

    from wftop.core.config import Config
    from wftop.tui.screens.agent import AgentScreen
    from wftop.tui.screens.journal import JournalScreen
    from wftop.tui.screens.run import RunScreen
    from wftop.tui.screens.viewer import FileViewer
    from wftop.tui.start import make_app
    from wftop.tui.widgets.call_table import CallTable
    from wftop.tui.widgets.run_table import RunTable

    async def main() -> dict[str, Any]:
        config = Config(bell=False, notify=False, default_root=False)
        began = time.monotonic()
        app = make_app([root], config=config, live=False)
        result: dict[str, Any] = {}

        async with app.run_test(size=(100, 30)) as pilot:

            async def key(name: str, character: str | None = None) -> None:
                """Post the key as the terminal driver does (the pilot's press also waits
                for every widget of the screen, which costs more than most keys)."""
                app.post_message(events.Key(name, character))
                await asyncio.sleep(0)

            async def until(condition) -> float:  # type: ignore[no-untyped-def]
                start = time.monotonic()
                while not condition():
                    if time.monotonic() - start > 300:
                        raise SystemExit("not reached in 300 s")
                    await asyncio.sleep(0.001)
                await painted(app)
                return time.monotonic() - start

            await until(lambda: app.store.progress.loaded)
            result["index_s"] = time.monotonic() - began
            noop = []
            for _ in range(10):
                start = time.monotonic()
                await key("f12")
                await painted(app)
                noop.append((time.monotonic() - start) * 1000)
            result["noop_key_ms"] = statistics.median(noop)
            table = app.screen.query_one(RunTable)
            await until(lambda: table.row_count > 0)
            start = time.monotonic()
            await key("enter")
            await until(
                lambda: (
                    isinstance(app.screen, RunScreen)
                    and app.screen.query_one(CallTable).row_count > 0
                )
            )
            result["run_screen_s"] = time.monotonic() - start
            run = next(run for run in app.store.rows.values() if run.run_id == RUN_ID)
            await pilot.press("escape")
            await pilot.pause()

            screens = {
                "journal": lambda: JournalScreen(app.services, run, run.journal),
                "transcript": lambda: AgentScreen(app.services, run, AGENT, "a1", run_folder(run)),
            }

            async def viewer(screen: FileViewer) -> dict[str, float]:
                found: dict[str, float] = {"rss_before_mb": rss_mb()}
                start = time.monotonic()
                await app.push_screen(screen)
                view = screen.view
                await until(lambda: view.count > 0 and view.text(view.cursor) is not None)
                found["first_s"] = time.monotonic() - start
                await until(lambda: screen.indexed)
                found["indexed_s"] = time.monotonic() - start
                found["lines"] = view.count
                await pilot.press("home")
                await until(lambda: view.text(0) is not None)
                start = time.monotonic()
                await key("end")
                await until(lambda: view.text(view.count - 1) is not None)
                found["end_ms"] = (time.monotonic() - start) * 1000
                await pilot.press("home")
                await until(lambda: view.text(0) is not None)
                start = time.monotonic()
                await key("pagedown")
                await until(lambda: view.cursor > 0 and view.text(view.cursor) is not None)
                found["pagedown_ms"] = (time.monotonic() - start) * 1000
                await pilot.press("slash", *NEEDLE.lower())
                start = time.monotonic()
                await key("enter")

                def on_needle() -> bool:
                    text = view.text(view.cursor)
                    return view.cursor > 0 and text is not None and NEEDLE in text.plain

                await until(on_needle)
                found["search_ms"] = (time.monotonic() - start) * 1000
                found["rss_mb"] = rss_mb()
                app.pop_screen()
                await pilot.pause()
                return found

            for name, make in screens.items():
                result[name] = await viewer(make())
        return result

    print(json.dumps(asyncio.run(main())))


def measure(root: Path) -> dict[str, Any]:
    return child_json(__file__, str(root))


def parse_floor(journal: Path) -> float:
    """Seconds to read the journal and parse each of its lines with orjson: the floor of
    listing its run."""
    start = time.perf_counter()
    with open(journal, "rb") as handle:
        for line in handle:
            orjson.loads(line)
    return time.perf_counter() - start


def summarise(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    def med(values: list[float]) -> float:
        return round(statistics.median(values), 3)

    out: dict[str, Any] = {
        key: med([float(r[key]) for r in rounds])
        for key in ("index_s", "run_screen_s", "noop_key_ms")
    }
    for name in ("journal", "transcript"):
        rows = [r[name] for r in rounds]
        out[name] = {key: med([float(row[key]) for row in rows]) for key in rows[0]}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return 0
    results = run(args.cases.split(","), args.repeat, say=not args.json)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


def run(cases: list[str], repeat: int, *, say: bool = False) -> dict[str, Any]:
    """Each case built (once) and measured ``repeat`` times after a warm-up: medians."""
    results: dict[str, Any] = {}
    for case in cases:
        calls, result_bytes = CASES[case]
        root = TOP / "bench" / "out" / "viewers" / case
        build_case(root, calls, result_bytes)
        journal = run_folder(root) / "journal.jsonl"
        measure(root)  # warm the page cache, as a file read during the day would be
        summary = summarise([measure(root) for _ in range(repeat)])
        summary["journal_mb"] = round(journal.stat().st_size / 2**20, 1)
        floor = statistics.median(parse_floor(journal) for _ in range(3))
        summary["parse_floor_s"] = round(floor, 3)
        results[case] = summary
        if say:
            print(f"{case}: {json.dumps(summary)}", flush=True)
    return results


if __name__ == "__main__":
    raise SystemExit(main())
