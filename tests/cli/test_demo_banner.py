"""The demo without ``claude``: the TUI says why it is read-only, and the plan ``r`` opens
says it too."""

from __future__ import annotations

import argparse
import sys

import pytest
from textual.widgets import Static

from tests.tui_kit import SIZE, build, settle, until
from wftop.cli.commands import demo
from wftop.tui.screens.plan import ResumePlanScreen
from wftop.tui.toasts import TOAST_FRAME, TOAST_RACK, TOAST_WIDTH, calm


def verdict(app):  # type: ignore[no-untyped-def]
    return app.screen.query_one("#verdict", Static).render()


def demo_args(**flags: bool) -> argparse.Namespace:
    values = {"bundled": False, "read_only": False, "no_tui": False, "no_mouse": False}
    values.update(flags)
    return argparse.Namespace(**values)


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        ({}, "no claude CLI to resume with"),
        ({"bundled": True}, "--bundled only browses"),
        ({"read_only": True}, "started with --read-only"),
    ],
)
def test_the_bundled_demo_opens_the_tui_with_a_banner_and_a_reason(monkeypatch, flags, words):
    import wftop.tui.start

    seen: dict[str, object] = {}

    class FakeApp:
        return_code = 0

        def run(self, **_kwargs: object) -> None:
            pass

    def fake_make_app(roots: list[str], **kwargs: object) -> FakeApp:
        seen.update(kwargs, roots=roots)
        return FakeApp()

    monkeypatch.setattr(demo, "find_cli", lambda: None)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(wftop.tui.start, "make_app", fake_make_app)
    assert demo.run(demo_args(**flags)) == 0
    assert seen["read_only"] is True
    title, text = seen["banner"]  # type: ignore[misc]
    assert title == "wftop demo: read-only" and "bundled with wftop" in text
    assert words in str(seen["read_only_reason"])
    if not flags:
        assert "npm install -g @anthropic-ai/claude-code" in text


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        ({}, "no claude CLI to resume with. Full demo: npm install -g @anthropic-ai/claude-code"),
        ({"bundled": True}, "Read-only (--bundled only browses them)"),
        ({"read_only": True}, "Read-only (--read-only)"),
    ],
)
def test_the_two_lines_the_banner_shows_at_60_columns_say_why_it_is_read_only(flags, words):
    text, _ = demo.why_read_only(demo_args(**flags))
    width = min(TOAST_WIDTH, 60 - TOAST_RACK) - TOAST_FRAME  # as the app's toast is drawn
    assert words in calm(text, width).replace("\n", " ")


async def test_the_banner_shows_and_the_plan_says_the_reason(tui_root, tui_processes):
    reason = "The demo has no claude CLI to resume with."
    app = build(
        tui_root,
        tui_processes,
        read_only=True,
        banner=("wftop demo: read-only", "Real runs bundled with wftop."),
        read_only_reason=reason,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [note.title for note in app.toasts] == ["wftop demo: read-only"]
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ResumePlanScreen)
        await until(pilot, lambda: reason in str(verdict(app)), "the plan's verdict")
        await pilot.press("enter")
        await pilot.pause()
        messages = [note.message for note in app.toasts]
        assert messages[-1] == reason and not any("--read-only" in m for m in messages)
        assert app.screen.launches == 0
