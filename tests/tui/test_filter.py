"""What ``/`` understands: fields (``status:dead``) and free words that never match a hex id
by accident."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from tests.tui_kit import build, finished, ident_of, settle, table, until
from wftop.tui import runlist
from wftop.tui.query import Hay, matches, parse
from wftop.tui.screens.runs import RunsScreen

DEAD_RUN = "wf_cd4c7489-d27"


def a_hay(**fields: str) -> Hay:
    base = dict(
        status="completed",
        project="proj -home-dev-proj",
        session="cb526ab9-dead-4e65",
        run="wf_deadbe01-d27",
        name="mock-six",
        labels="a1 a2",
    )
    base.update(fields)
    words = " ".join((base["name"], base["project"], base["labels"], base["status"]))
    return Hay(words=words, **base)


def test_a_free_word_does_not_match_a_hex_id_that_spells_it():
    assert not matches(parse("dead"), a_hay())
    assert matches(parse("dead"), a_hay(status="dead"))
    assert matches(parse("d27"), a_hay())  # id-shaped: searches the ids too


def test_field_terms_match_only_their_field():
    hay = a_hay(status="dead")
    assert matches(parse("status:dead project:proj"), hay)
    assert matches(parse("status:de session:cb52"), hay)
    assert not matches(parse("status:completed"), hay)
    assert not matches(parse("project:mock"), hay)
    assert matches(parse("run:d27 label:a2"), hay)
    assert parse("colour:red Status:Dead") == (("", "colour:red"), ("status", "dead"))


async def test_slash_status_dead_keeps_the_dead_run_only(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"status:dead")
        assert isinstance(app.screen, RunsScreen)
        assert table(app).item_keys == [ident_of(app, DEAD_RUN)]


async def test_what_the_filter_searches_is_made_before_the_box_opens(
    tui_root, tui_processes, monkeypatch
):
    """Each run's words and ids, lowercased, one string a run (`Texts`): made once, in a job
    once the list is drawn, and kept while the runs move, so ``/`` makes none (at 20,000
    runs that was 15-22 ms of the key), nor do the letters typed, which make no run's hay;
    the box closed and opened again makes none either."""
    made: list[int] = []
    real = runlist.Texts.of
    monkeypatch.setattr(runlist.Texts, "of", lambda runs: made.append(len(runs)) or real(runs))
    monkeypatch.setattr(runlist, "hay", lambda run: (_ for _ in ()).throw(AssertionError(run)))
    app = build(tui_root, tui_processes)
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await until(pilot, lambda: screen.view.searchable, "the filter's texts")
        assert made == [len(app.store.rows)]
        await pilot.press("slash")
        await pilot.press(*"killed")
        await pilot.pause()
        shown = {app.store.rows[ident].shown_status for ident in table(app).item_keys}
        assert shown == {"killed"} and made == [len(app.store.rows)]
        await pilot.press("escape", "escape", "slash")
        assert made == [len(app.store.rows)]


def test_a_hay_holds_the_rows_own_text_where_it_is_lower_case_already():
    """One hay is held per run while ``/`` is used (20,000): its ids and name are the row's
    own strings when they are lower case already, and it has no instance dict."""
    from dataclasses import replace

    from tests.tui.test_tui_units import only_row
    from wftop.tui.query import hay

    row = only_row("killed")
    found = hay(row)
    assert found.run is row.run_id and found.session is row.session_id
    assert not hasattr(found, "__dict__")
    shouting = hay(replace(row, name="Mock-SIX"))
    assert shouting.name == "mock-six" and matches(parse("SIX"), shouting)


async def test_a_letter_typed_redraws_the_header_in_place(tui_root, tui_processes, monkeypatch):
    """The header is one line whatever it says and the line under an empty list is set only
    when it says something else: a letter typed lays the screen out again nowhere (at
    20,000 rows that was some 10 ms of every key)."""
    from textual.widgets import Static

    laid: list[str | None] = []
    real = Static.update

    def update(self, content="", *, layout=True):  # type: ignore[no-untyped-def]
        if layout:
            laid.append(self.id)
        real(self, content, layout=layout)

    app = build(tui_root, tui_processes)
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await finished(pilot.app)
        monkeypatch.setattr(Static, "update", update)
        await pilot.press(*"mock")
        await pilot.pause()
        assert laid == [] and app.screen.query_one("#runs-header", Static).visual is not None
        await pilot.press(*"zzz")  # no run matches: the line under the list says so, once
        await pilot.pause()
        assert laid == ["runs-empty"]
        assert "No run matches" in str(app.screen.query_one("#runs-empty", Static).visual)


async def test_letters_typed_with_the_slash_go_to_the_filter(tui_root, tui_processes):
    """``/`` and the letters after it in one burst (a paste, ``tmux send-keys / p 0``) are the
    filter's text: ``p`` is not the list's project filter key once ``/`` has been pressed, and
    a ``/`` typed in the box is text."""
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        for key, character in (("slash", "/"), ("p", "p"), ("r", "r"), ("o", "o")):
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await pilot.pause()
        box = screen.query_one("#runs-filter", Input)
        assert box.value == "pro"
        assert screen.view.project is None
        await pilot.press("slash", "x")  # a / typed in the box is text
        assert box.value == "pro/x"
