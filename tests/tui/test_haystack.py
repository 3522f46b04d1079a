"""A filter of free words searches every run's text at once (`wftop.tui.haystack.Texts`): it
lets through exactly the runs the term-by-term match (`wftop.tui.query.matches`) does, for
rows of any text, typed a letter at a time or not."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tui.test_tui_units import only_row
from wftop.core.model import Status
from wftop.core.row import RunRow
from wftop.tui import haystack, runlist
from wftop.tui.haystack import Texts
from wftop.tui.query import hay, matches, parse
from wftop.tui.runlist import MISSED_MOST, RunListView
from wftop.tui.runorder import activity_key

TREES = ("killed", "clean", "api-errors-429", "mid-failure", "killed-in-parallel", "resumed")
# Letters whose lower case is longer, or depends on what follows (a final sigma), the
# whitespace `str.split` cuts words at, and the characters of ids and slugs.
ALPHABET = st.sampled_from(
    [*"aAbB0_-./:", "Σ", "ς", "σ", "İ", "ß", "ﬃ", " ", "\n", "\x1c", "\u0345"]
)
TEXT = st.text(ALPHABET, max_size=8)
LABELS = st.lists(TEXT, max_size=3).map(tuple)


tree_row = cache(only_row)


@st.composite
def rows(draw: st.DrawFn) -> RunRow:
    base = tree_row(draw(st.sampled_from(TREES)))
    return replace(
        base,
        run_id=draw(TEXT),
        session_id=draw(TEXT),
        project=draw(TEXT),
        project_name=draw(TEXT),
        name=draw(st.none() | TEXT),
        host=draw(st.none() | TEXT),
        status=draw(st.sampled_from(list(Status))),
        in_flight=draw(LABELS),
        failed_calls=draw(LABELS),
        last_activity=draw(st.floats(0, 100)),
    )


def by_terms(view: RunListView, runs: list[RunRow]) -> list[RunRow]:
    return [run for run in view.by_activity(runs) if view.matches(run)]


@settings(max_examples=300, deadline=None)
@given(st.lists(rows(), max_size=8), st.lists(TEXT, min_size=1, max_size=3))
def test_the_texts_let_through_what_every_term_matches(runs, words):
    """Word by word over rows of any text: the same runs as `matches`, in the same order."""
    texts = Texts.of(runs)
    for word in (word for word in " ".join(words).lower().split()):
        passing, after = texts.passing(runs, word)
        assert passing == [run for run in runs if matches(parse(word), hay(run))], word
        assert after == Texts.of(passing)


@settings(max_examples=200, deadline=None)
@given(st.lists(rows(), min_size=1, max_size=8, unique_by=lambda run: run.ident), TEXT, TEXT)
def test_typing_a_letter_at_a_time_chooses_what_every_term_matches(runs, first, then):
    """The view typed into a letter at a time (narrowing from the runs let through before,
    with their texts), then the text taken back and typed again."""
    view = RunListView()
    view.chosen(runs)
    view.ready()
    typed = f"{first} {then}"
    for text in [typed[:end] for end in range(1, len(typed) + 1)] + [then, typed]:
        view.text = text.strip()
        assert view.chosen() == by_terms(view, runs), text


@settings(max_examples=200, deadline=None)
@given(
    st.lists(rows(), min_size=1, max_size=8, unique_by=lambda run: run.ident),
    st.lists(st.tuples(st.integers(0, 7), rows()), max_size=4),
    st.lists(TEXT, min_size=1, max_size=4),
)
def test_runs_that_change_while_the_box_is_open_are_searched_as_they_are_now(runs, changes, texts):
    """Runs changed, added and removed between letters: the texts move with the runs'
    order, and each letter lets through what every term matches of the runs as they are."""
    view = RunListView()
    view.chosen(runs)
    view.ready()
    now = {run.ident: run for run in runs}

    def expected() -> list[RunRow]:
        return [run for run in sorted(now.values(), key=activity_key) if view.matches(run)]

    for (at, row), text in zip(changes + [(0, runs[0])] * len(texts), texts, strict=False):
        view.text = text.strip()
        assert view.chosen() == expected(), text
        change_one(view, now, at, row)
        view.text = f"{text} {text[:1]}".strip()
        assert view.chosen() == expected(), text


def change_one(view: RunListView, now: dict[str, RunRow], at: int, row: RunRow) -> None:
    """The run at ``at`` (of those ``now`` holds) changed to ``row``'s fields, the last run
    removed (with more than two), moved into place in the view and in ``now``."""
    held = list(now.values())
    old = held[at % len(held)]
    changed = replace(
        row, run_id=old.run_id, session_id=old.session_id, root=old.root, host=old.host
    )
    gone = [held[-1].ident] if len(held) > 2 and held[-1] is not old else []
    view.shift((), [changed], gone)
    now[changed.ident] = changed
    for ident in gone:
        del now[ident]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(rows(), min_size=1, max_size=8, unique_by=lambda run: run.ident),
    st.lists(st.tuples(st.integers(0, 7), rows()), max_size=4),
    st.booleans(),
    st.sampled_from([0, haystack.MOVED_ONE_BY_ONE]),
)
def test_texts_made_off_the_loop_follow_the_runs_that_moved_meanwhile(
    runs, changes, reordered, one_by_one
):
    """The texts made of the runs `texts_wanted` gave (in a job, while the list goes on
    changing) are taken moved as the runs' order moved since: they are every run's as it is
    now; runs ordered anew meanwhile (`load`) leave them unused, to be made again. Moved a
    run at a time, or (``one_by_one`` 0: as a change of many runs is) each list made again."""
    with patch.object(haystack, "MOVED_ONE_BY_ONE", one_by_one):
        moved_meanwhile(runs, changes, reordered)


def moved_meanwhile(runs: list[RunRow], changes: list[tuple[int, RunRow]], reordered: bool) -> None:
    view = RunListView()
    view.chosen(runs)
    wanted = view.texts_wanted()
    assert wanted is not None and not view.texts_due and view.texts_wanted() is None
    loads, order = wanted
    made = Texts.of(order)
    now = {run.ident: run for run in runs}
    for at, row in changes:
        change_one(view, now, at, row)
    if reordered:
        view.load(now.values())
    view.texts_made(loads, made)
    assert view.searchable is not reordered and view.texts_due is reordered
    if not reordered:
        assert made == Texts.of(view.by_activity())


def test_texts_never_made_are_not_waited_for_past_a_bound_of_changes():
    """A job that makes the texts and never comes back (it failed: its failure is a toast)
    does not keep every change since for good: past `MISSED_MOST` changes the view asks
    for them again, and texts then made of the older order are not taken."""
    runs = [only_row(name) for name in TREES]
    view = RunListView()
    view.chosen(runs)
    wanted = view.texts_wanted()
    assert wanted is not None
    now = {run.ident: run for run in runs}
    for at in range(MISSED_MOST):
        change_one(view, now, at, runs[at % len(runs)])
    assert not view.texts_due
    change_one(view, now, 0, runs[0])
    assert view.texts_due
    view.texts_made(wanted[0], Texts.of(wanted[1]))
    assert not view.searchable


def test_the_texts_of_the_test_trees_are_their_hays_words():
    runs = [only_row(name) for name in TREES]
    texts = Texts.of(runs)
    assert texts.words == [hay(run).words for run in runs]
    assert texts.ids == [f"{hay(run).run}\n{hay(run).session}" for run in runs]


def test_a_filter_of_free_words_makes_no_hay_and_its_texts_once(monkeypatch):
    """No key typed makes a run's hay (a call a run: 20,000 a key); the texts are made once
    for the list's order and narrowed with the runs as letters are typed."""
    made: list[int] = []
    real = Texts.of
    monkeypatch.setattr(runlist, "hay", lambda run: (_ for _ in ()).throw(AssertionError(run)))
    monkeypatch.setattr(runlist.Texts, "of", lambda runs: made.append(len(runs)) or real(runs))
    runs = [only_row(name) for name in TREES]
    view = RunListView()
    view.chosen(runs)
    view.ready()
    for text in ("m", "mo", "moc", "mock", "mock a", "d27", "dead"):
        view.text = text
        view.chosen()
    assert made == [len(runs)]
    monkeypatch.setattr(runlist, "hay", hay)  # a run a change brings is matched alone
    moved = replace(runs[0], last_activity=(runs[0].last_activity or 0) + 9)
    view.shift((), [moved], ())  # the order moved: the texts with it, the moved run's made
    view.text = "deadl"
    assert view.chosen() == by_terms(view, [moved, *runs[1:]])
    assert made == [len(runs), 1]


def test_a_filter_that_lets_every_run_through_sums_nothing_again(monkeypatch):
    """What the runs listed spent and their re-run tokens are summed when the runs chosen
    change: a text that lets every run through shares the sums of every run (``local``:
    every run of this machine's), one that lets fewer through sums them."""
    import wftop.tui.runorder as runorder
    from wftop.tui.format import rows_cost_total

    sums: list[int] = []
    monkeypatch.setattr(
        runorder, "rows_cost_total", lambda rows: sums.append(len(rows)) or rows_cost_total(rows)
    )
    texts_cost = Texts.cost  # summed off the texts of the runs chosen, when they are made
    monkeypatch.setattr(
        Texts, "cost", lambda self: sums.append(len(self.costs)) or texts_cost(self)
    )
    runs = [tree_row(name) for name in TREES]
    view = RunListView()
    view.chosen(runs)
    every = (view.cost_total(), view.rerun_tokens())
    for text in ("l", "lo", "local", "_", "_ l"):  # "_": shaped like an id, in every run's
        view.text = text
        assert (view.cost_total(), view.rerun_tokens()) == every
    assert sums == [len(runs)]
    view.text = "local dead"
    dead = [run for run in view.by_activity() if run.shown_status == "dead"]
    assert 0 < len(dead) < len(runs) and view.chosen() == dead
    assert view.cost_total() == rows_cost_total(dead)
    assert sums == [len(runs), len(dead)]
    view.text = "_"  # every run again, then one of them dearer: summed anew
    assert view.cost_total() == every[0]
    dearer = replace(runs[0], cost_usd=(runs[0].cost_usd or 0) + 1.5, rerun_tokens=7)
    view.shift((), [dearer], ())
    now = [dearer, *runs[1:]]
    assert view.cost_total() == rows_cost_total(now) != every[0]
    assert view.rerun_tokens() == sum(run.rerun_tokens or 0 for run in now)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(rows(), max_size=8, unique_by=lambda run: run.ident),
    st.sampled_from(runlist.STATUS_FILTERS),
)
def test_a_status_chosen_off_the_texts_is_what_the_rows_say(runs, status):
    """Runs chosen by status once the texts are made: the same runs in the same order, and
    their texts, from which the list's keys, widths and sums are read, are theirs."""
    from wftop.tui.format import rows_cost_total
    from wftop.tui.styles import Palette
    from wftop.tui.widgets.run_table import RunTable, widest_in

    view = RunListView()
    view.chosen(runs)
    view.ready()
    view.status = status
    chosen = view.chosen()
    allowed = view.allowed()
    assert chosen == [run for run in view.by_activity() if view.matches(run, allowed)]
    texts = view.shown_texts()
    assert texts == Texts.of(chosen)
    assert texts.idents == [run.ident for run in chosen]
    assert view.cost_total() == rows_cost_total(chosen)
    assert view.rerun_tokens() == sum(run.rerun_tokens or 0 for run in chosen)
    measured = RunTable(Palette(), lambda: 0.0).wants(chosen, ["name", "project"])
    assert widest_in(texts, ["name", "project"]) == measured
