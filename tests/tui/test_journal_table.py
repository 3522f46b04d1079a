"""The journal as a table (``v`` the raw lines, ``enter`` one line whole, ``&`` a filter as
in less), on the real ``killed-in-parallel-resumed`` tree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.widgets import Static

from tests.corpus import copy_tree, only_journal, tree
from tests.tui.test_tui_snapshots import viewer_ready
from tests.tui_kit import build, finished, settle
from wftop.core.system.procs import FakeProcessTable
from wftop.tui.screens.journal import JournalScreen

RUN = "wf_cd4c7489-d27"
TREE = "killed-in-parallel-resumed"


def shown_rows(screen: JournalScreen) -> list[str]:
    """The rows the table holds, as the pane draws them (before it cuts them)."""
    view = screen.view
    texts = [view.text(row) for row in range(view.count)]
    return [text.plain.strip() for text in texts if text is not None]


def static_text(screen: Any, selector: str) -> str:
    content = screen.query_one(selector, Static).content
    return (content.plain if isinstance(content, Text) else str(content)).strip()


async def ready(pilot: Any, screen: JournalScreen) -> None:
    """Indexed, the run's calls read (the labels of result lines), every row drawn."""
    await viewer_ready(pilot, screen)
    for _ in range(2000):
        view = screen.view
        if screen.facts.calls and all(view.text(row) is not None for row in range(view.count)):
            break
        await pilot.pause(0.01)
    await finished(pilot.app)
    await pilot.pause()


async def open_journal(pilot: Any) -> JournalScreen:
    await settle(pilot)
    await pilot.press("J")  # on the only run of the tree
    screen = pilot.app.screen
    assert isinstance(screen, JournalScreen)
    await ready(pilot, screen)
    return screen


async def test_the_journal_is_a_table_of_what_each_line_says():
    app = build(tree(TREE), FakeProcessTable())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_journal(pilot)
        columns = static_text(screen, "#journal-columns")
        assert columns.startswith("LINE TIME     EVENT    LABEL      PHASE    AGENT     #  KEY")
        assert columns.endswith("RESULT OR ERROR")
        lines = shown_rows(screen)
        assert len(lines) == 14
        assert lines[0].split() == ["1", "launched"]
        # a result line names no label: its call's, by key; the time is its transcript's last
        assert lines[2].split()[:7] == ["3", "09:58:20", "result", "a1", "Plan", "a1c9d8ef…", "1"]
        assert lines[2].endswith('{"agent":"a1","ok":true,"n":1}')
        # a3's first attempt never returned: its process died, and the resume started it again
        assert lines[4].split()[:3] == ["5", "09:58:20", "started"]
        assert lines[4].endswith("no result: started again (attempt 2)")
        assert lines[8].split()[:3] == ["9", "09:58:23", "started"] and " 2 " in lines[8]


async def test_the_columns_leave_from_the_right_as_the_pane_narrows():
    app = build(tree(TREE), FakeProcessTable())
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_journal(pilot)
        assert static_text(screen, "#journal-columns") == (
            "LINE TIME     EVENT    LABEL    #  RESULT OR ERROR"
        )
        assert shown_rows(screen)[2].split()[:5] == ["3", "09:58:20", "result", "a1", "1"]


async def test_a_narrow_pane_s_header_still_names_the_run():
    """The journal's path, which ends with the run's folder, is cut at 60 columns: the
    header names the run before it."""
    app = build(tree(TREE), FakeProcessTable())
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_journal(pilot)
        header = static_text(screen, "#viewer-header")
        assert header.startswith(f"journal  ·  run {RUN}  ·  14 lines  ·  ")  # 41 of 58 cells


async def test_v_switches_to_the_raw_lines_and_back():
    app = build(tree(TREE), FakeProcessTable())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_journal(pilot)
        await pilot.press("v")
        await ready(pilot, screen)
        assert static_text(screen, "#viewer-header").startswith("journal (raw)")
        assert not screen.query_one("#journal-columns").display
        assert '{"label":"a1","phase":"Plan","agentId":"a1c9d8ef54774bbf4"' in shown_rows(screen)[1]
        await pilot.press("v")
        await ready(pilot, screen)
        assert screen.query_one("#journal-columns").display
        assert shown_rows(screen)[1].split()[:4] == ["2", "09:58:20", "started", "a1"]


async def test_enter_shows_the_line_under_the_cursor_pretty_printed():
    app = build(tree(TREE), FakeProcessTable())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_journal(pilot)
        await pilot.press("down", "down", "enter")
        await finished(app)
        await pilot.pause()
        whole = static_text(screen, "#viewer-detail-text")
        assert whole.splitlines()[0].split() == ["3", "result"]
        assert '"agentId": "a1c9d8ef54774bbf4"' in whole


async def test_ampersand_keeps_the_lines_of_a_label_a_phase_or_an_event():
    app = build(tree(TREE), FakeProcessTable())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_journal(pilot)
        for text, numbers in (
            ("a3", ["5", "9", "10"]),  # its result line too, by its key
            ("fin", ["11", "12", "13", "14"]),  # the phase Finish, in any case
            ("result", ["3", "6", "8", "10", "12", "14"]),
        ):
            await pilot.press("ampersand", *text, "enter")
            await ready(pilot, screen)
            assert [line.split()[0] for line in shown_rows(screen)] == numbers, text
            assert f"{len(numbers)} of 14 lines" in static_text(screen, "#viewer-header")
            await pilot.press("ampersand", *["backspace"] * len(text))
            await pilot.press("escape")  # the box closes; the filter stays until changed
            assert isinstance(app.screen, JournalScreen)
        await pilot.press("ampersand", *["backspace"] * 6, "enter")
        await ready(pilot, screen)
        assert len(shown_rows(screen)) == 14
        await pilot.press("slash")  # / still searches
        assert screen.query_one("#viewer-search").display


async def test_an_unreadable_line_is_marked_in_the_table(tmp_path: Path):
    root = copy_tree(TREE, tmp_path)
    journal = only_journal(root)
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join([*lines[:3], b"{not json\n", *lines[3:]]))
    app = build(root, FakeProcessTable())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_journal(pilot)
        (marked,) = [line for line in shown_rows(screen) if line.startswith("4 ")]
        assert "✗ unreadable: not valid JSON" in marked
        assert "1 unreadable (line 4)" in static_text(screen, "#viewer-header")


async def test_a_result_nested_too_deep_reads_as_compact_text_with_a_note(tmp_path: Path):
    root = copy_tree(TREE, tmp_path)
    journal = only_journal(root)
    deep = b"[" * 20_000 + b"]" * 20_000  # under 64 KB: a longer line is shown without it
    with journal.open("ab") as handle:
        handle.write(
            b'{"type":"result","key":"v2:deep","agentId":"adeep","result":' + deep + b"}\n"
        )
    app = build(root, FakeProcessTable())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_journal(pilot)
        last = shown_rows(screen)[-1]
        assert last.split()[:2] == ["15", "result"] and last.endswith("[[[[[[[[…")
        await pilot.press("G", "enter")
        for _ in range(500):
            if "too deep" in static_text(screen, "#viewer-detail-text"):
                break
            await pilot.pause(0.01)
        whole = static_text(screen, "#viewer-detail-text")
        assert "(nested 20,001 levels deep: too deep to lay out, shown as compact JSON)" in whole


def test_the_filter_reads_a_line_written_with_spaces_as_one_written_without():
    from wftop.tui.screens.journal_table import line_filter

    pattern = line_filter("A3", {})
    assert pattern is not None
    for line in (b'{"type":"started","label":"a3"}', b'{"type": "started", "label" : "xa3"}'):
        assert pattern.search(line), line
    assert not pattern.search(b'{"type":"started","label":"a4","agentId":"a3"}')


def test_the_keys_a_filter_names_match_as_a_trie_exactly_those_keys():
    import re

    from wftop.tui.screens.journal_table import alternation

    words = [b"v2:ab", b"v2:abc", b"v2:b1", b"v2:a.", b"x"]
    pattern = re.compile(b"^(?:" + alternation(words) + b")$")
    for word in words:
        assert pattern.match(word), word
    for other in (b"v2:a", b"v2:abd", b"v2:ax", b"v2:b", b"y", b"v2:abcd"):
        assert not pattern.match(other), other


async def test_an_attempt_that_failed_says_its_error_where_its_call_later_returned():
    """mid-failure-resumed: a3's first attempt failed on 429 (its failed line), the resume ran
    it again to a result; api-errors-429-resumed: a6's first attempt ended on 429 with no
    failed line (the CLI writes none), and the resume ran it again. Each line says the 429,
    not "no error recorded" nor "started again"."""
    for name, number, event in (
        ("mid-failure-resumed", 10, "failed"),
        ("api-errors-429-resumed", 12, "started"),
    ):
        app = build(tree(name), FakeProcessTable())
        async with app.run_test(size=(200, 50)) as pilot:
            screen = await open_journal(pilot)
            (line,) = [row for row in shown_rows(screen) if row.split()[0] == str(number)]
            assert line.split()[2] == event, line
            assert "rate limited · API Error" in line and "429" in line, line
