"""The parts of `bench/run_all.py`'s section on the TUI's screens: the journal and transcript
screens on large files (`bench/viewers.py`) and keys over 20,000 rows (`bench/tui_startup.py`)."""

from __future__ import annotations

from typing import Any

CASE_NAMES = {
    "10k": "10k lines, 5,000 calls",
    "30mb": "300 calls, 100 KB results",
    "100k": "100k lines, 50,000 calls",
    "1gb": "10,000 calls, 100 KB results",
}

KEY_LIMIT_MS = 50.0


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


class Pair:
    """A figure of the journal screen and the transcript screen, as ``journal / transcript``."""

    def __init__(self, journal: dict[str, float], transcript: dict[str, float]) -> None:
        self.journal, self.transcript = journal, transcript

    def __call__(self, key: str, scale: float = 1.0) -> str:
        return f"{self.journal[key] * scale:.0f} / {self.transcript[key] * scale:.0f}"


def viewers_section(found: dict[str, Any] | None) -> list[str]:
    """First lines, ``end``, ``pagedown``, search and memory on each large file."""
    if not found:
        return []
    lines = [
        "### The journal and transcript screens on large files",
        "",
        "One run (the `clean` test tree) whose journal and one agent's transcript are grown "
        "to each case's size (`bench/viewers.py`); each repeat a fresh process with the real "
        "app headless at 100×30 (follow off), keys posted as the terminal driver posts them. "
        "Wall time from the key (or the screen's push) until the screen shows what was asked "
        "and has drawn it. Medians; the journal screen first, the transcript screen after the "
        "slash.",
        "",
        "| case | journal | first lines | `end` | `pagedown` | `/` search (middle line) | "
        "RSS before / with the screen |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    worst = {"first": 0.0, "keys": 0.0, "search": 0.0, "grew": 0.0}
    for case, row in found.items():
        journal, transcript = row["journal"], row["transcript"]
        pair = Pair(journal, transcript)
        lines.append(
            f"| {CASE_NAMES.get(case, case)} | {row['journal_mb']:,.1f} MB | "
            f"{pair('first_s', 1000)} ms | {pair('end_ms')} ms | {pair('pagedown_ms')} ms | "
            f"{pair('search_ms')} ms | {journal['rss_before_mb']:.0f} / "
            f"{journal['rss_mb']:.0f} MB |"
        )
        for screen in (journal, transcript):
            worst["first"] = max(worst["first"], screen["first_s"])
            worst["keys"] = max(worst["keys"], screen["end_ms"], screen["pagedown_ms"])
            if case != "1gb":
                worst["search"] = max(worst["search"], screen["search_ms"])
            worst["grew"] = max(worst["grew"], screen["rss_mb"] - screen["rss_before_mb"])
    lines += [
        "",
        f"Targets: first lines ≤ 0.3 s {verdict(worst['first'] <= 0.3)} (slowest "
        f"{worst['first'] * 1000:.0f} ms); `end` and `pagedown` < 50 ms "
        f"{verdict(worst['keys'] < KEY_LIMIT_MS)} (slowest {worst['keys']:.0f} ms); search "
        f"< 50 ms up to 30 MB {verdict(worst['search'] < KEY_LIMIT_MS)} (slowest "
        f"{worst['search']:.0f} ms); memory independent of the file's size: a screen adds at "
        f"most {worst['grew']:.0f} MB.",
    ]
    big = found.get("1gb")
    if big:
        slowest = max(big["journal"]["search_ms"], big["transcript"]["search_ms"])
        lines.append(
            f"Search on the 1 GB file: {verdict(slowest < KEY_LIMIT_MS)} ({slowest:.0f} ms: "
            "the line is in the middle, and the bytes before it are read to find it)."
        )
    lines += ["", *run_screen_lines(found), ""]
    return lines


def run_screen_lines(found: dict[str, Any]) -> list[str]:
    """The run screen of each case, and its row in the list against parsing its journal."""
    lines = [
        "| case | run screen (`enter` to the call table filled) | the run's row listed | "
        "its journal read and parsed | row against parse |",
        "| --- | --- | --- | --- | --- |",
    ]
    for case, row in found.items():
        ratio = row["index_s"] / row["parse_floor_s"] if row["parse_floor_s"] else 0.0
        lines.append(
            f"| {CASE_NAMES.get(case, case)} | {row['run_screen_s']:.2f} s | "
            f"{row['index_s']:.2f} s | {row['parse_floor_s']:.3f} s | {ratio:.1f}× |"
        )
    calls = found.get("100k")
    if calls:
        ratio = calls["index_s"] / calls["parse_floor_s"]
        lines += [
            "",
            f"Targets: the 50,000-call run screen ≤ 0.5 s "
            f"{verdict(calls['run_screen_s'] <= 0.5)}; its row within 2× the parse "
            f"{verdict(ratio <= 2)} ({ratio:.1f}×; the row includes Textual's start-up, and "
            "folding 50,000 calls costs more than parsing them).",
        ]
    return lines


def keys_section(found: dict[str, Any] | None) -> list[str]:
    """The work each key costs over every run of the largest corpus."""
    if not found:
        return []
    lines = [
        f"### Keys over {found['runs']:,} rows",
        "",
        f"The real app (headless, follow off) over the {found['runs']:,}-run corpus "
        "(`bench/tui_startup.py`), once every run is listed: the CPU time each key costs, from "
        "posting it until the app is idle again with the screen refreshed, minus the same for "
        f"a key bound to nothing ({found['noop_cpu_ms']:.1f} ms). First rows "
        f"{found['first_paint_s']:.2f} s, every run listed {found['all_runs_s']:.2f} s.",
        "",
        "| key | median | max |",
        "| --- | --- | --- |",
    ]
    worst = 0.0
    for name, stats in found["keys"].items():
        worst = max(worst, stats["max_ms"])
        lines.append(f"| {name} | {stats['median_ms']:.1f} ms | {stats['max_ms']:.1f} ms |")
    lines += [
        "",
        f"Target: under 50 ms a key {verdict(worst < KEY_LIMIT_MS)} (slowest {worst:.0f} ms).",
        "",
    ]
    return lines
