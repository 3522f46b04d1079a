"""The run screen's summary on a narrow screen keeps a path's end, where the script's file and
the project are named, and masks a secret in a path before it cuts it."""

from __future__ import annotations

import re

from tests.corpus import copy_tree
from tests.tui_kit import build, settle, until
from wftop.core.text.redact import Redactor
from wftop.tui.screens.run_summary import path_line

LONG = "/home/a-person-with-a-rather-long-login-name/clients/acme-corporation/backend/api"


def test_a_path_is_masked_before_its_start_is_cut():
    token = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"
    line = path_line("cwd      ", f"/home/me/work/{token}/proj", Redactor(), 40)
    assert line == "cwd      …/[masked:github_token]/proj"  # no end of the token shown
    assert path_line("cwd      ", LONG, Redactor(), 0) == f"cwd      {LONG}"  # 0: whole


def summary_lines(app) -> dict[str, str]:  # type: ignore[no-untyped-def]
    text = str(app.screen.query_one("#run-summary").render())
    return {line.split(" ", 1)[0]: line for line in text.splitlines()}


async def test_at_60_columns_the_run_screen_keeps_the_end_of_its_cwd_and_script(
    tmp_path, tui_processes
):
    root = copy_tree("killed", tmp_path)
    for transcript in (root / "projects").glob("*/*.jsonl"):
        transcript.write_text(re.sub(r'"cwd":"[^"]*"', f'"cwd":"{LONG}"', transcript.read_text()))
    app = build(root, tui_processes)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: getattr(app.screen, "run", None) is not None, "the run read")
        await pilot.pause()
        lines = summary_lines(app)
        assert lines["cwd"] == "cwd      …/clients/acme-corporation/backend/api"
        assert lines["script"].startswith("script   …/") and lines["script"].endswith(".js")
        assert max(len(line) for line in (lines["cwd"], lines["script"])) <= 58
        await pilot.resize_terminal(200, 20)
        await until(pilot, lambda: summary_lines(app)["cwd"] == f"cwd      {LONG}", "a whole cwd")
