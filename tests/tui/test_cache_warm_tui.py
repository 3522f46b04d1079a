"""When to resume, in the TUI: the run screen (and the plan) say how long the owner's prompt
cache stays warm, on the app's clock."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import TUI_NOW
from tests.core.test_cachewarm import responses, with_usage
from tests.tui_kit import SIZE, build, finished, ident_of, settle, table
from wftop.core.model import iso_utc
from wftop.tui.screens.run import RunScreen

PARALLEL = "wf_cd4c7489-d27"
"""killed-in-parallel: dead, owner session cb526ab9-…"""


def warm_owner(root: Path, session: str, sent: float, hour: int = 0, five: int = 0) -> None:
    """The owner transcript's last response wrote the cache, its request sent at ``sent``."""
    (transcript,) = root.glob(f"projects/*/{session}*.jsonl")
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    last = responses(lines)[-1]
    with_usage(lines, last, read=20_000, hour=hour, five=five)
    for line in lines:
        if line.get("type") == "api-request" and line.get("id") == lines[last]["requestRef"]:
            line["timestamp"] = iso_utc(sent)
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))


def summary_text(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#run-summary").render())


async def test_the_run_screen_says_how_long_the_owner_cache_stays_warm(tui_root, tui_processes):
    warm_owner(tui_root, "cb526ab9", sent=TUI_NOW - 19 * 60, hour=3_000)
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(app).move_to_key(ident_of(app, PARALLEL))
        await pilot.press("enter")
        assert isinstance(app.screen, RunScreen)
        await finished(app)
        await pilot.pause()
        lines = summary_text(app).split("\n")
        session = next(n for n, line in enumerate(lines) if line.startswith("session  cb526ab9-"))
        assert lines[session + 1] == "         cache warm for 41 min"
        await pilot.press("escape")
        table(app).move_to_key(ident_of(app, "wf_6bc9feb7-808"))  # clean: the mock cached nothing
        await pilot.press("enter")
        await finished(app)
        await pilot.pause()
        assert "         cache cold" in summary_text(app).split("\n")
