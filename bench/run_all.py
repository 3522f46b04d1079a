"""Every goal of issue 29 in one command; writes its table into ``docs/performance.md``.

    python3 bench/run_all.py [--sizes 5000 20000] [--no-tui] [goals options: --help]
    python3 bench/run_all.py details [--runs 5000] [--repeat 5] [--skip-peers]

The first form runs `goals` (each goal with its threshold, the floor measured in the same
run, met or missed), keeps the raw numbers in ``bench/out/goals.json`` and replaces the
table between the goals markers of ``docs/performance.md``. The second runs the older
per-bench section (``cold_index``, ``live_latency``, ``idle_cpu``, the TUI's loop, growth,
keys, viewers and ``peers`` one after the other), keeps its raw numbers in
``bench/out/results.json`` and replaces the part between its own markers. Both build the
corpora under ``bench/out/`` (ignored by git) the first time; the rest of that file belongs
to other benchmarks and is kept as it is.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import cold_index
import goals
import growth
import idle_cpu
import live_latency
import loop_cost
import peers
import tui_idle
import tui_startup
import viewers
from common import TOP, default_workdir, machine
from idle_cpu import corpus_of
from report_tui import keys_section, viewers_section

DOC = TOP / "docs" / "performance.md"
BEGIN = "<!-- bench/run_all.py: begin (generated; edit bench/run_all.py instead) -->"
END = "<!-- bench/run_all.py: end -->"
GOALS_BEGIN = "<!-- bench/run_all.py goals: begin (generated; edit bench/goals.py instead) -->"
GOALS_END = "<!-- bench/run_all.py goals: end -->"


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def section(results: dict[str, Any]) -> str:
    info = results["machine"]
    cold = results["cold"]["base"]
    big = results["cold"].get("big")
    live = results["live"]
    idle = results["idle"]
    runs = results["runs"]
    counts = results["cold"].get("counts", {})
    lines = [
        BEGIN,
        "## Live index: cold start, live latency, idle cost",
        "",
        f"Reproduce with one command: `python3 bench/run_all.py details` (it took "
        f"{results['minutes']:.0f} min here{', most of it the peers' if 'peers' in results else ''}"
        "; corpora and large files are built once under `bench/out/`). "
        f"Measured {results['when']} on {info['cpus']} CPUs ({info['cpu']}), {info['memory']}, "
        f"Python {info['python']}, Linux {info['kernel']}; load average before the run "
        f"{results['load_before']}, after {info['load']} (the machine is shared with other "
        "work, so single runs vary by tens of percent; medians are what count).",
        "",
        f"Corpus: `bench/make_corpus.py --runs {runs} --thin-agents` — {runs:,} runs made from "
        f"the real trees of `tests/data/corpus` with fresh ids, spread over "
        f"{counts.get('sessions', 0):,} sessions in {counts.get('projects', 0)} projects, "
        f"{counts.get('agent_files', 0):,} `agent-*` files (transcripts thinned to one line; "
        f"wftop never reads them), {cold['journal_lines']:,} journal lines. Statuses found: "
        + ", ".join(f"{count:,} {name}" for name, count in cold["statuses"].items())
        + ".",
        "",
        "### Cold index: `wftop ls --json` against the floor",
        "",
        "The floor (`bench/floor.py`) is the least work that can answer the question: walk "
        "the folders to every `journal.jsonl` and orjson-parse every line. Three commands run "
        f"as fresh processes, in turns, {len(cold['ours']['all_s'])} times after one warm-up "
        "each (page cache warm): the floor; `ls --json --no-cache`, which reads every run as "
        "a first run ever does; and `ls --json` with its rows cache kept from the run before, "
        "as every later run finds it (both print the same bytes, checked). Wall time, CPU "
        "(wftop's forked workers included) and peak RSS come from `wait4`; wftop's modules "
        "are byte-compiled first, as `pip install` leaves them.",
        "",
        "| | median wall | min – max | median CPU | peak RSS | against the floor | target |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        cold_row("`wftop ls --json`, cache kept (every later run)", cold["ours"], cold["ratio"]),
        cold_row("`wftop ls --json --no-cache` (a first run)", cold["first"], cold["first_ratio"]),
        f"| floor | {cold['floor']['median_s']:.2f} s | "
        f"{cold['floor']['min_s']:.2f} – {cold['floor']['max_s']:.2f} s | "
        f"{cold['floor']['median_cpu_s']:.2f} s | "
        f"{cold['floor']['peak_rss_mb']:.0f} MB | 1× | |",
    ]
    if big:
        lines.append(
            f"| `wftop ls --json --no-cache`, same corpus with a 1 MB `result` in "
            f"{results['cold']['big_results']} runs | {big['first']['median_s']:.2f} s | "
            f"{big['first']['min_s']:.2f} – {big['first']['max_s']:.2f} s | "
            f"{big['first']['median_cpu_s']:.2f} s | "
            f"{big['first']['peak_rss_mb']:.0f} MB | {big['first_ratio']:.2f}× | "
            "RSS independent of result size: "
            f"{verdict(big['first']['peak_rss_mb'] < cold['first']['peak_rss_mb'] * 1.15)} |"
        )
    lines += peer_rows(results.get("peers"), cold, "peers_reused_from" in results)
    lines += [
        "",
        "### Live latency: `write()` to change set on `wftop ls --watch --json`",
        "",
        f"{live['writers']} writers append to {live['writers']} journals at a combined "
        f"{live['rate_lines_per_s']:.0f} lines/s for {live['seconds']:.0f} s while the watcher "
        f"follows the {runs:,}-run corpus (plus the writers' runs). Each line carries a unique "
        "marker; a line is delivered by the first change set whose `started + returned` for "
        "its run reaches it.",
        "",
        "| lines written | change sets | p50 | p95 | p99 | max | lost | duplicated | "
        "inconsistent | exit |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        f"| {live['lines_written']:,} | {live['change_sets']} | {live['p50_ms']} ms | "
        f"{live['p95_ms']} ms | {live['p99_ms']} ms | {live['max_ms']} ms | {live['lost']} | "
        f"{live['duplicated']} | {live['inconsistent_sets']} | {live['exit_code']} |",
        "",
        f"Targets: p95 < 50 ms {verdict(live['p95_ms'] < 50)}, p99 < 150 ms "
        f"{verdict(live['p99_ms'] < 150)}, nothing lost or duplicated "
        f"{verdict(live['lost'] == 0 and live['duplicated'] == 0)}.",
        "",
        "### Steady state: an idle watcher",
        "",
        f"`wftop ls --watch --json` on the {runs:,}-run corpus, after its cold start and first "
        f"sweep, over {idle['seconds']:.0f} s of quiet (two stat sweeps and a dozen owner "
        "checks fall in that window): user + system CPU of the process, all threads.",
        "",
        "| CPU (% of one core) | change sets while idle | RSS | target |",
        "| --- | --- | --- | --- |",
        f"| {idle['cpu_percent_of_one_core']:.2f} % | {idle['change_sets_while_idle']} | "
        f"{idle['rss_mb']:.0f} MB | < 1 %: {verdict(idle['cpu_percent_of_one_core'] < 1)} |",
        "",
        *loop_section(results.get("loop"), results.get("writers")),
        *tui_idle_section(results.get("tui_idle")),
        *growth_section(results.get("growth")),
        *keys_section(results.get("keys")),
        *viewers_section(results.get("viewers")),
        METHOD,
        END,
    ]
    return "\n".join(lines) + "\n"


def loop_section(loop: dict[str, Any] | None, writers: dict[str, Any] | None = None) -> list[str]:
    """The TUI's event loop while one 100k-line journal grows, and keys meanwhile and under
    many writers (`bench/loop_cost.py`)."""
    if loop is None:
        return []
    lines = [
        f"### The TUI's event loop while a {loop['journal_lines']:,}-line journal grows",
        "",
        f"The real app (headless, live) on one run whose journal holds "
        f"{loop['journal_lines']:,} lines, {loop['rate']} lines/s appended for "
        f"{loop['seconds']:.0f} s (`bench/loop_cost.py`). The follow worker (a thread with an "
        "event loop of its own) re-reads, folds and classifies; the app's loop only applies "
        "the change set it posts. Time per change set:",
        "",
        "| | change sets | median | p99 | max |",
        "| --- | --- | --- | --- | --- |",
        f"| on the app's loop (`apply_changes`) | {loop['change_sets']} | "
        f"{loop['loop_ms_median']:.2f} ms | {loop['loop_ms_p99']:.2f} ms | "
        f"{loop['loop_ms_max']:.2f} ms |",
        f"| in the follow worker (`LiveIndex.apply`; on the loop before) | | "
        f"{loop['worker_ms_median']:.1f} ms | {loop['worker_ms_p99']:.1f} ms | "
        f"{loop['worker_ms_max']:.1f} ms |",
        "",
    ]
    if "keys_writing" not in loop:
        return lines
    lines += [
        "Keys meanwhile: `j` and `k` on the runs screen every 40 ms, sent as the terminal driver "
        "sends them; wall time from the key to the screen refreshed after its action. First "
        "with nothing written (the floor), then while the journal grows"
        + (
            f", and in a second run while {writers['writers']} writers append to "
            f"{writers['writers']} runs at {writers['rate']} lines/s together"
            if writers
            else ""
        )
        + ":",
        "",
        "| | presses | p50 | p99 | max | target |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    cases = [("nothing written", loop["keys_idle"]), ("one journal growing", loop["keys_writing"])]
    if writers:
        cases.append((f"{writers['writers']} writers", writers["keys_writing"]))
    for name, keys in cases:
        goal = (
            ""
            if name == "nothing written"
            else ("p99 < 50 ms: " + ("met" if keys["p99_ms"] < 50 else "**missed**"))
        )
        lines.append(
            f"| {name} | {keys['presses']} | {keys['p50_ms']:.1f} ms | {keys['p99_ms']:.1f} ms "
            f"| {keys['max_ms']:.1f} ms | {goal} |"
        )
    return [*lines, ""]


def tui_idle_section(idle: dict[str, Any] | None) -> list[str]:
    """The TUI, idle, following the corpus (`bench/tui_idle.py`)."""
    if idle is None:
        return []
    percent = idle["cpu_percent_of_one_core"]
    return [
        "### Steady state: the TUI, idle",
        "",
        f"The real app (headless, live) over the {idle['corpus_runs']:,}-run corpus, after it "
        f"listed every run and its first sweep ({idle['ready_after_s']:.1f} s from its start, "
        f"the watch included), over {idle['seconds']:.0f} s of quiet (`bench/tui_idle.py`): "
        "user + system CPU of the process and its watch helper, all threads.",
        "",
        "| CPU (% of one core) | RSS (app and helper) | target |",
        "| --- | --- | --- |",
        f"| {percent:.2f} % | {idle['rss_mb']:.0f} MB | < 1 %: {verdict(percent < 1)} |",
        "",
    ]


def growth_section(found: dict[str, Any] | None) -> list[str]:
    """Cached ``ls``, a first run and the TUI at several sizes (`bench/growth.py`)."""
    if found is None:
        return []
    lines = [
        "### Growth: 1,000 to 20,000 runs",
        "",
        "Each size a corpus of its own (`bench/make_corpus.py --thin-agents`), measured as the "
        "cold index above (medians of 3, in turns with the floor), then the TUI started over it "
        "in a fresh process (`bench/loop_lag.py`: live follow off; seconds from the process's "
        "start, interpreter and imports included; its loop's p99 lateness while it indexes).",
        "",
        "| runs | floor | first run (CPU) | cached `ls` | `ls` RSS first / cached | TUI first "
        "rows | TUI every run | TUI loop p99 | TUI peak RSS |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in found["sizes"]:
        floor = row["floor_s"]
        lines.append(
            f"| {row['runs']:,} | {floor:.2f} s | {row['first_s']:.2f} s "
            f"({row['first_s'] / floor:.1f}×; CPU {row['first_cpu_s']:.2f} s, "
            f"{row['first_cpu_s'] / row['floor_cpu_s']:.1f}×) | {row['cached_s']:.2f} s "
            f"({row['cached_s'] / floor:.1f}×) | {row['first_rss_mb']:.0f} / "
            f"{row['cached_rss_mb']:.0f} MB | {row['tui_first_rows_s']:.2f} s | "
            f"{row['tui_listed_s']:.2f} s ({row['tui_listed_s'] / floor:.1f}×) | "
            f"{row['tui_late_p99_ms']:.0f} ms | {row['tui_rss_mb']:.0f} MB |"
        )
    per = found.get("per_run", {})
    if per:
        lines += [
            "",
            f"Per extra run (slope from the smallest to the largest size): floor "
            f"{per['floor_ms_per_run']:.3f} ms; first run {per['first_ms_per_run']:.3f} ms and "
            f"{per['first_rss_kb_per_run']:.1f} KB; cached `ls` {per['cached_ms_per_run']:.3f} ms "
            f"and {per['cached_rss_kb_per_run']:.1f} KB; the TUI "
            f"{per['tui_listed_ms_per_run']:.3f} ms and {per['tui_rss_kb_per_run']:.1f} KB.",
        ]
    return [*lines, ""]


def cold_row(what: str, measured: dict[str, Any], ratio: float) -> str:
    return (
        f"| {what} | {measured['median_s']:.2f} s | "
        f"{measured['min_s']:.2f} – {measured['max_s']:.2f} s | "
        f"{measured['median_cpu_s']:.2f} s | {measured['peak_rss_mb']:.0f} MB | {ratio:.2f}× | "
        f"< 2 s: {verdict(measured['median_s'] < 2)}; ≤ 1.5× floor: {verdict(ratio <= 1.5)}; "
        f"RSS < 200 MB: {verdict(measured['peak_rss_mb'] < 200)} |"
    )


def peer_rows(found: dict[str, Any] | None, cold: dict[str, Any], reused: bool) -> list[str]:
    if not found:
        return ["", "Peers were not run (`--skip-peers`)."]
    rows = [
        "",
        "### Peers on the same corpus",
        "",
        "Installed from PyPI into a throwaway venv and run once each (they are minutes, not "
        "seconds, so no repeats), HOME pointed at a scratch folder whose `.claude` is the corpus:",
        "",
        "| tool | time | runs it lists | what it gets wrong |",
        "| --- | --- | --- | --- |",
        f"| wftop `ls --json --no-cache` / `ls --json` (medians above) | "
        f"{cold['first']['median_s']:.2f} s / {cold['ours']['median_s']:.2f} s | "
        f"{cold['runs_listed']:,} | — |",
    ]
    notes = [
        "",
        "The peers take minutes, so this run reused their numbers from an earlier run of "
        "the same command on the same corpus and machine (`--peers-from`).",
    ]
    studio = found.get("workflow-studio")
    version = found["installed"]["workflow-studio"]
    if studio is None:
        rows.append(f"| workflow-studio | not run | | could not be installed: {version} |")
    else:
        wrong = "; ".join(f"{n:,} {what}" for what, n in studio["status_disagreements"].items())
        took = (
            f"{studio['seconds']:.0f} s"
            if studio.get("seconds")
            else f"> {studio['timed_out_after_s']:.0f} s"
        )
        rows.append(
            f"| workflow-studio {version.get('version', '')} (`serve.discover()`, its run list) "
            f"| {took} | {studio.get('runs_listed', '—')} | status: {wrong or 'none'}; "
            f"returned count differs on {studio.get('returned_count_disagreements', '—')} runs; "
            "no owner liveness (a run is 'live' if its journal changed in the last 120 s), "
            "no stalled/failed/killed/superseded, ignores `failed` lines and snapshots"
            + (f"; wrote {', '.join(studio['wrote'])}" if studio.get("wrote") else "")
            + " |"
        )
    log = found.get("claude-code-log")
    version = found["installed"]["claude-code-log"]
    if log is None:
        rows.append(f"| claude-code-log | not run | | could not be installed: {version} |")
    else:
        took = (
            f"{log['seconds']:.0f} s"
            if log.get("seconds")
            else (f"did not finish in {log['timed_out_after_s']:.0f} s")
        )
        rows.append(
            f"| claude-code-log {version.get('version', '')} (`--all-projects` to HTML) | {took} "
            f"| none ({log['run_ids_mentioned']:,} run ids appear in its "
            f"{log['html_pages']:,} pages, as text) | renders session transcripts; no run "
            "list, no parity, no status"
            + (f"; wrote {', '.join(log['wrote'])} into the config dir" if log.get("wrote") else "")
            + " |"
        )
    return rows + (notes if reused else [])


METHOD = """### How wftop gets there

* **A first run** (`wftop.core.index.coldpass.scan_rows`; `scan_roots` is the same pass giving `Run`
  objects, as `LiveIndex.cold_start` uses it): one `scandir` per folder level, no
  `realpath` unless a folder is a link, one `open`/`fstat`/`pread`/`close` per journal
  parsed in a tight loop, the snapshot opened directly (no `stat` first) with only its
  status, name and script path taken out (its script and result texts are dropped), the
  session cwd read 8 KiB at a time, one listing of each session's scripts folder, and the
  cyclic GC paused while objects are built. Agent transcripts are only `stat`ed (never
  read), and only for runs that have not ended and whose owner may be alive. The run
  folders are cut into one slice per CPU (a session's runs stay together), each read by
  a forked worker process (`wftop.core.index.fanout`; Linux, at least 250 runs per extra worker),
  which sends back its rows as printed bytes; the parent sorts them (the CPU column
  counts the workers too).
* **Every later run** (`wftop.core.index.rowcache`): a run that has ended or whose owner is not
  alive cannot change unless its files do, so `ls` keeps its printed row in the user cache
  dir under a key of the journal's inode, size and mtime, the owner and the superseding
  session, and its session's stamp: the session transcript's inode, size and mtime and the
  snapshots and scripts folders' inode and mtime (a snapshot is written again in place only
  by a resume, which writes the session transcript first). Such a run costs one `stat`
  instead of a read, and its session three, once for all its runs (5,000 runs in 2,001
  sessions: 11,003 `stat`s, 17,853 before); running and stalled runs are always read.
* **Where a first run's gap to the floor is**: per run it does what the floor does and
  then opens and parses the snapshot (one per ended run), finds the session's working
  directory and the script, folds the lines by call key, classifies, and prints a masked
  row. In one process that extra work is about four fifths of its CPU; it is Python work
  spread over many small steps, not one hot spot, and the forked workers share it out
  but, on two shared CPUs, do not halve it (compare the wall and CPU columns).
* **Memory**: journal lines over 256 KiB are not parsed whole for the run list (their
  leading fields are kept and `result` reads `<elided>`), so a 1 MB result costs nothing
  to hold; a view that needs it reads the journal.
* **Live**: one `watchfiles.awatch` over each root's `projects/` and `sessions/`
  (folders, not files) plus the real folders of linked runs elsewhere, run in a helper
  process (`python -m wftop.core.index.watcher`):
  watchfiles registers its ~15,000 inotify watches for
  5,000 runs holding the interpreter lock for about 5 s, which in-process would freeze
  the app. `ls --watch` uses `debounce=15 ms, step=15 ms` (a 5 ms step measured
  p95 35 ms but 1.9 % idle CPU here; the index's defaults are 50/20 for the TUI). A batch of
  paths re-reads only what it names: appended journal bytes from the last offset, a
  snapshot whose size/mtime/inode changed, a run's agent transcript sizes, one session's
  run folders, one root's registry. Owners are re-checked against the process table
  every 5 s; a running run turns stalled on a timer, not on a poll.
* **Sweep**: every 30 s a stat-only sweep (in a worker thread) lists run folders and
  stats journals and snapshots of the runs that may be live or were active in the last
  hour, plus a rotating tenth of the others, and re-reads only what differs. It is what
  survives missed events and file systems without inotify.
"""


def write_doc(text: str, doc: Path = DOC, begin: str = BEGIN, end: str = END) -> None:
    """``text`` (its markers included) in place of the part of ``doc`` between ``begin`` and
    ``end``; under the title when there is none yet."""
    current = doc.read_text() if doc.exists() else "# Performance\n"
    if begin in current and end in current:
        head, rest = current.split(begin, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        updated = head + text + ("\n" + tail if tail else "")
    else:
        title, _, body = current.partition("\n")
        updated = title + "\n\n" + text + ("\n" + body.lstrip("\n") if body.strip() else "")
    doc.write_text(updated)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["details"]:
        return details(argv[1:])
    parser = goals.parser()
    parser.description = __doc__.splitlines()[0]
    parser.add_argument("--doc", type=Path, default=DOC, help="the file to write its table into")
    args = parser.parse_args(argv)
    result = goals.run(args)
    text = "\n".join([GOALS_BEGIN, *goals.section(result), GOALS_END]) + "\n"
    args.workdir.mkdir(parents=True, exist_ok=True)
    (args.workdir / "goals.json").write_text(json.dumps(result, indent=2))
    write_doc(text, args.doc, GOALS_BEGIN, GOALS_END)
    print(text)
    print(f"wrote {args.doc} and {args.workdir / 'goals.json'}")
    return result


def details(argv: list[str]) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description="the per-bench section")
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-peers", action="store_true")
    parser.add_argument("--peer-timeout", type=float, default=900.0)
    parser.add_argument(
        "--peers-from",
        type=Path,
        default=None,
        metavar="RESULTS",
        help="take the peers' numbers from an earlier results.json instead of running them",
    )
    parser.add_argument("--live-seconds", type=float, default=20.0)
    parser.add_argument("--idle-seconds", type=float, default=60.0)
    parser.add_argument(
        "--viewer-cases",
        default=",".join(viewers.CASES),
        help="the large-file cases of bench/viewers.py (1gb writes 2 GB once); '' for none",
    )
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    parser.add_argument("--doc", type=Path, default=DOC, help="the file to write its section into")
    args = parser.parse_args(argv)
    started = time.monotonic()
    common = ["--runs", str(args.runs), "--workdir", str(args.workdir)]
    results: dict[str, Any] = {
        "runs": args.runs,
        "when": time.strftime("%Y-%m-%d"),
        "load_before": machine()["load"],
    }
    results["cold"] = cold_index.main([*common, "--repeat", str(args.repeat)])
    results["live"] = live_latency.main([*common, "--seconds", str(args.live_seconds)])
    results["idle"] = idle_cpu.main([*common, "--seconds", str(args.idle_seconds)])
    results["loop"] = loop_cost.main([])
    results["writers"] = loop_cost.main(["--writers", "16", "--lines", "1000"])
    results["growth"] = growth.main(["--workdir", str(args.workdir), "--repeat", "3"])
    results["tui_idle"] = tui_idle.main([*common, "--seconds", str(args.idle_seconds)])
    largest = max(row["runs"] for row in results["growth"]["sizes"])
    results["keys"] = tui_startup.run(corpus_of(args.workdir, largest), 3)
    if args.viewer_cases:
        results["viewers"] = viewers.run(args.viewer_cases.split(","), 5)
    if args.peers_from is not None:
        results["peers"] = json.loads(args.peers_from.read_text())["peers"]
        results["peers_reused_from"] = str(args.peers_from)
    elif not args.skip_peers:
        results["peers"] = peers.main([*common, "--timeout", str(args.peer_timeout)])
    results["machine"] = machine()
    results["minutes"] = (time.monotonic() - started) / 60
    args.workdir.mkdir(parents=True, exist_ok=True)
    (args.workdir / "results.json").write_text(json.dumps(results, indent=2))
    write_doc(section(results), args.doc)
    print(f"wrote {args.doc} and {args.workdir / 'results.json'}")
    return results


if __name__ == "__main__":
    main()
