"""The TUI's pure parts: config, keys, formatting, transcript framing, calls, journal lines."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.corpus import copy_tree, only_journal, tree
from wftop.core.config import Config, ConfigError, config_path, load_config, parse_config
from wftop.core.index.coldpass import scan_roots
from wftop.core.model import Status
from wftop.core.read.failures import Failure
from wftop.core.read.lineindex import LineIndex
from wftop.core.row import RunRow, Tally
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import Redactor
from wftop.tui.alerts import alert_for
from wftop.tui.calls import call_rows, parity_lines, partial_line
from wftop.tui.conversation import (
    KIND_API_ERROR,
    KIND_PROMPT,
    KIND_STRUCTURED,
    conversation,
    strip_framing,
)
from wftop.tui.format import age, counts_line, parity_text, status_counts, tally
from wftop.tui.keys import check_keymap
from wftop.tui.runlist import GroupRow, RunListView
from wftop.tui.screens.journal import render_line
from wftop.tui.styles import Palette

FRAMED = (
    "[Workflow harness — computed task] The task text below was computed at runtime by a "
    "workflow script. … The computed task text follows:\n  First line.\n    indented more\n\n  last"
)


def only_run(name: str):  # type: ignore[no-untyped-def]
    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    return run


def only_row(name: str) -> RunRow:
    """The run of tree ``name`` as the TUI holds it."""
    return RunRow.of(only_run(name))


# -- config --------------------------------------------------------------------------------


def test_missing_config_file_gives_the_defaults(tmp_path: Path):
    config = load_config(str(tmp_path / "absent.toml"))
    assert config.path is None
    assert config.stall_window == 600.0
    assert config.bell and config.mouse and not config.keys


def test_config_path_honours_the_environment(tmp_path: Path):
    assert config_path({"WFTOP_CONFIG": str(tmp_path / "c.toml")}) == str(tmp_path / "c.toml")
    assert config_path({}).endswith("config.toml")


def test_every_key_is_read(tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text(
        'roots = ["~/other"]\ndefault_root = false\nstall_window = 120\ntheme = "nord"\n'
        "bell = false\nnotify = false\nmouse = false\nattention_window = 3600\n"
        '[keys]\nresume = "ctrl+r"\njournal = ["l", "J"]\n'
    )
    config = load_config(str(path))
    assert config.roots[0].endswith("/other") and not config.roots[0].startswith("~")
    assert (config.default_root, config.stall_window, config.theme) == (False, 120.0, "nord")
    assert (config.bell, config.notify, config.mouse) == (False, False, False)
    assert dict(config.keys) == {"resume": "ctrl+r", "journal": "l,J"}


def test_a_retired_key_is_one_warning_line_not_an_error(tmp_path: Path, capsys):
    path = tmp_path / "config.toml"
    path.write_text("poll_interval = 5\nbell = false\n")
    config = load_config(str(path))
    assert config.path == str(path) and not config.bell
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"{path}: poll_interval is no longer used")


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"stall": 3}, "unknown key 'stall'"),
        ({"bell": "yes"}, "bell must be true or false"),
        ({"stall_window": True}, "stall_window must be a number of seconds"),
        ({"stall_window": -1}, "a number of seconds above 0"),
        ({"keys": {"resume": 3}}, "[keys] resume must be a key or a list of keys, got 3"),
        ({"keys": {"resume": " , "}}, "[keys] resume must be a key or a list of keys"),
    ],
)
def test_bad_config_is_refused_with_a_clear_message(data, words):
    with pytest.raises(ConfigError, match="config.toml") as caught:
        parse_config(data, "config.toml")
    assert words in str(caught.value)


def test_the_config_reads_keys_as_binding_ids_it_does_not_judge(tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text('bell = false\n\n[keys]\nno-such-action = "x"\njournal = [" l", "J"]\n')
    config = load_config(str(path))  # what every command reads: no binding is known here
    assert dict(config.keys) == {"no-such-action": "x", "journal": "l,J"}
    assert dict(config.key_lines) == {"no-such-action": 4, "journal": 5}


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ('no-such-action = "x"', ":4: [keys] has an unknown binding id 'no-such-action'"),
        ('resume = "y"', ":4: [keys] 'y' would be bound to both 'resume' and 'copy'"),
        ('filter = "s"', ":4: [keys] 's' would be bound to both 'filter' and 'filter-status'"),
        ('follow = "q"', ":4: [keys] 'q' would be bound to both 'quit' and 'follow'"),
    ],
)
def test_the_tui_refuses_a_keymap_naming_the_file_line_and_key(tmp_path: Path, table, says):
    path = tmp_path / "config.toml"
    path.write_text(f"bell = false\n\n[keys]\n{table}\n")
    with pytest.raises(ConfigError) as caught:
        check_keymap(load_config(str(path)))
    assert str(caught.value).startswith(f"{path}{says}")
    assert "\n" not in str(caught.value)


def test_a_key_may_be_reused_on_screens_that_do_not_meet():
    config = Config(keys={"follow": "s", "help": "?"})  # agent screen vs runs screen
    assert check_keymap(config) == {"follow": "s", "help": "question_mark"}


def test_the_default_keys_do_not_collide():
    assert check_keymap(Config()) == {}


def test_unreadable_toml_is_a_config_error(tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text("bell = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(str(path))


# -- formatting ----------------------------------------------------------------------------


def test_parity_bar_has_one_width_and_shows_failed_and_in_flight():
    assert parity_text(7, 6, Tally(done=6)) == "7/6   ▕██████▏"
    assert parity_text(5, 4, Tally(done=4, running=1)) == "5/4   ▕█████░▏"
    assert parity_text(5, 4, Tally(done=4, dead=1)) == "5/4   ▕█████·▏"
    assert parity_text(6, 5, Tally(done=5, failed=1)) == "6/5   ▕█████✗▏"
    assert parity_text(7, 6, Tally(done=2, cached=4)) == "7/6   ▕██████▏"
    many = parity_text(40, 20, Tally(done=20, failed=1, running=19))
    assert many.startswith("40/20 ▕") and "✗" in many and "░" in many and len(many) == 14


def test_tally_of_real_runs():
    assert tally(only_run("killed")) == Tally(done=4, dead=1)
    assert tally(only_run("resumed")) == Tally(done=2, cached=4)
    assert tally(only_run("api-errors-429")) == Tally(done=5, failed=1)


def walked_tally(run) -> Tally:  # type: ignore[no-untyped-def]
    """Every call looked at: how many stand in each state of `wftop.core.calls.call_states`."""
    from collections import Counter

    from wftop.core.calls import call_states

    counts = Counter(view.state.value for view in call_states(run))
    return Tally(**{name: counts[name] for name in Tally._fields})


@pytest.mark.parametrize("name", sorted(path.name for path in tree("clean").parent.iterdir()))
def test_the_tally_counts_as_a_walk_of_every_call_would(name):
    for run in scan_roots([str(tree(name))], processes=FakeProcessTable()).runs:
        failed = {failure.key for failure in run.failures}
        # the last call that has not failed: returned live, or open (never a cached call)
        last = next(c for c in reversed(run.fold.ordered_calls()) if c.key not in failed)
        for variant in (
            run,
            replace(run, failures=(*run.failures, Failure(last.key, "", "network", None, "x"))),
            replace(run, status=Status.RUNNING),
            replace(run, status=Status.DEAD),
        ):
            assert tally(variant) == walked_tally(variant), (name, variant.status)


def test_ages_and_counts():
    assert [age(100 - d, 100) for d in (5, 90, 7200, 3 * 86400)] == ["5s", "1m", "2h", "3d"]
    assert age(None, 0) == "-"
    counts = {"running": 2, "stalled": 1, "dead": 3, "completed": 5, "failed": 1, "killed": 0}
    assert counts_line(counts) == "2 running · 1 stalled · 3 dead · 5 completed · 1 failed"
    assert counts_line(counts, 30) == "▶2 ‖1 ✖3 ✔5 !1"
    counts.update(running=0, stalled=0, partial=2)
    # Narrow: the zero counts go first, the words stay the words the rows show.
    assert counts_line(counts) == (
        "0 running · 0 stalled · 3 dead · 5 completed · 1 failed · 2 partial"
    )
    assert counts_line(counts, 45) == "3 dead · 5 completed · 1 failed · 2 partial"
    assert counts_line(counts, 40) == "3 dead · ✔5 · 1 failed · 2 partial"
    assert counts_line(counts, 30) == "▶0 ‖0 ✖3 ✔5 !1 ⚠2"


def test_a_run_completed_with_failed_calls_is_partial_not_completed():
    partial, clean = only_row("mid-failure"), only_row("clean")
    assert (partial.status.value, partial.failed_calls) == ("completed", ("a3",))
    assert (partial.shown_status, clean.shown_status) == ("partial", "completed")
    counts = status_counts([partial, clean])
    assert (counts["partial"], counts["completed"]) == (1, 1)
    view = RunListView(status="attention")
    assert [view.matches(run) for run in (partial, clean)] == [True, False]
    assert [RunListView(status="completed").matches(run) for run in (partial, clean)] == [
        False,
        True,
    ]
    assert partial_line(only_run("mid-failure")) == [
        "partial  completed with 1 failed call: a3 · r: the plan forecasts what each strategy "
        "runs again"
    ]  # surgical's forecast runs a3, a5 and a6: no strategy re-runs only the failed calls
    assert partial_line(only_run("clean")) == []
    ended = alert_for(replace(partial, status=Status.RUNNING), partial)
    assert ended is not None and (ended.after, ended.severity) == ("partial", "warning")
    assert ended.message.endswith(
        "finished: ⚠ partial, 1 failed: r forecasts what a resume runs again"
    )


def test_an_alert_names_the_run_id_once():
    """A run that nothing names yet (as ``R`` launches one, before its snapshot) is named by
    its id alone: the toast said ``wf_… (wf_…) died``."""
    row = only_row("killed")
    for name, said in ((None, f"{row.run_id} died"), ("mock-six", f"mock-six ({row.run_id}) died")):
        running = replace(row, status=Status.RUNNING, name=name)
        died = alert_for(running, replace(row, status=Status.DEAD, name=name))
        assert died is not None and died.message.startswith(said)
        assert died.message.count(row.run_id) == 1


# -- transcripts -----------------------------------------------------------------------------


def test_framing_is_removed_and_the_indent_undone():
    assert strip_framing(FRAMED) == ("First line.\n  indented more\n\nlast", True)
    trigger = "[Workflow harness — automated trigger] scheduled.\n" + FRAMED
    assert strip_framing(trigger)[0].startswith("First line.")
    assert strip_framing("plain prompt\n  kept") == ("plain prompt\n  kept", False)


def test_conversation_masks_secrets_and_marks_api_errors():
    records = [
        (1, {"type": "user", "message": {"content": FRAMED + " key sk-ant-api03-ABCDEFGHIJKL"}}),
        (2, {"type": "attachment"}),
        (
            3,
            {
                "type": "assistant",
                "isApiErrorMessage": True,
                "apiErrorStatus": 429,
                "apiErrorType": "rate_limit_error",
                "message": {"content": [{"type": "text", "text": "API Error: 429"}]},
            },
        ),
        (
            4,
            {
                "type": "assistant",
                "message": {
                    "content": [
                        {"type": "tool_use", "name": "StructuredOutput", "input": {"ok": 1}}
                    ]
                },
            },
        ),
    ]
    mask = Redactor()
    items, seen = conversation(records, mask)
    assert seen
    assert [item.kind for item in items] == [KIND_PROMPT, KIND_API_ERROR, KIND_STRUCTURED]
    assert "[masked:anthropic_key]" in items[0].text and "sk-ant" not in items[0].text
    assert items[1].title == "API error 429 · rate_limit_error" and items[1].is_error
    assert mask.summary() == "1 masked (anthropic_key ×1)"


def test_a_long_transcript_text_is_masked_only_as_far_as_it_shows():
    from wftop.tui.conversation import MAX_TEXT

    secret = "sk-ant-" + "s" * 40
    head = "h" * (MAX_TEXT - 10) + secret  # the secret straddles the shown edge
    text = head + " " + "x" * 500_000 + " " + secret  # and one far past it, never shown
    record = {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}
    seen: list[int] = []
    tally = Redactor()

    def mask(value: str) -> str:
        seen.append(len(value))
        return tally(value)

    (item,), _ = conversation([(7, record)], mask, first_prompt_seen=True)
    assert max(seen) <= 10_000
    assert len(item.text) == MAX_TEXT and "sss" not in item.text
    assert item.text.endswith("[masked:anthropic_key]"[:10])
    masked_length = len(text) - len(secret) + len("[masked:anthropic_key]")
    assert item.cut == masked_length - MAX_TEXT  # the far secret counted as it is
    assert tally.summary() == "1 masked (anthropic_key ×1)"


# -- calls and parity --------------------------------------------------------------------


def test_respawned_call_shows_its_orphan_attempt():
    run = only_run("resumed")
    rows = call_rows(run)
    orphans = [row for row in rows if getattr(row, "state", "") == "orphan"]
    assert len(orphans) == 1 and orphans[0].label == "try 1"
    assert any("1 orphan started line" in line for line in parity_lines(run))


def test_dead_worker_is_named_in_the_parity_explanation():
    lines = parity_lines(only_run("killed-in-parallel"))
    assert lines[0].startswith("parity   4 started · 3 returned · 0 failed lines")
    assert lines[1] == "gap      dead worker: a3"


def test_run_list_filters_by_label_and_status():
    runs = [only_row("killed"), only_row("clean"), only_row("api-errors-429")]
    view = RunListView(text="A6")
    # A row names its calls in flight and its failed ones: api-errors-429's a6 failed (the
    # killed run died before it reached a6; clean's a6 returned)
    assert [run.run_id for run in view.rows(runs)] == ["wf_44b36b23-fcc"]
    view = RunListView(status="attention")
    # api-errors-429 completed with a6 failed (no failed line): partial needs attention too
    assert [run.shown_status for run in view.rows(runs)] == ["dead", "partial"]
    view = RunListView(group="status")
    titles = [row.title for row in view.rows(runs) if isinstance(row, GroupRow)]
    assert titles == ["dead", "partial", "completed"]


def some_runs() -> list:  # type: ignore[type-arg]
    """Runs with ties in every first key: twins of each tree, a second later or another root."""
    runs = [only_row(name) for name in ("killed", "clean", "api-errors-429", "mid-failure")]
    twins = [
        replace(
            run, run_id=run.run_id + "-twin", last_activity=(run.last_activity or 0) + 1, name=None
        )
        for run in runs[:2]
    ]
    elsewhere = [replace(run, root="/elsewhere") for run in runs[2:]]
    return [*runs, *twins, *elsewhere]


def test_every_order_and_filter_is_the_order_key_order():
    import wftop.tui.runlist as runlist
    import wftop.tui.runorder as runorder

    runs = some_runs()
    view = RunListView()
    for status in (None, "attention", "completed"):
        for sort in runlist.SORTS:
            view.sort, view.status = sort, status
            passing = [run for run in runs if view.matches(run)]
            expected = sorted(passing, key=lambda run: runorder.order_key(run, sort))
            assert [run.ident for run in view.rows(runs)] == [run.ident for run in expected]
            assert view.rerun_tokens(runs) == sum(run.rerun_tokens or 0 for run in passing)


def test_a_new_order_of_the_same_runs_makes_no_key_again(monkeypatch):
    import wftop.tui.runlist as runlist
    import wftop.tui.runorder as runorder

    runs = some_runs()
    assert len({run.ident for run in runs}) == len(runs)

    made: list[str] = []
    real = runorder.activity_key
    monkeypatch.setattr(runorder, "activity_key", lambda run: made.append(run.ident) or real(run))
    view = RunListView()
    orders = {}
    for sort in (*runlist.SORTS, *runlist.SORTS):  # every order, then each again
        view.sort = sort
        for status in (None, "dead", None):
            view.status = status
            orders.setdefault((sort, status), []).append([row.ident for row in view.rows(runs)])
    assert sorted(made) == sorted(run.ident for run in runs)  # once each, for the first list
    assert all(len({tuple(order) for order in seen}) == 1 for seen in orders.values())
    changed = replace(runs[0], last_activity=(runs[0].last_activity or 0) + 5)
    view.shift((), [changed], ())  # one run changed: its key alone is made again
    assert made[len(runs) :] == [changed.ident]
    assert view.rows()[0] is changed


def test_the_run_table_keys_its_rows_as_row_key_does():
    from wftop.tui.runlist import row_key
    from wftop.tui.widgets.run_table import RunTable

    rows = RunListView(group="status").rows([only_row("killed"), only_row("clean")])
    assert RunTable(Palette(), lambda: 0.0).keys_of(list(rows)) == [row_key(row) for row in rows]


# -- journal lines ---------------------------------------------------------------------------


def test_journal_rows_are_one_line_each_long_results_left_out_and_a_torn_tail_flagged(
    tmp_path: Path,
):
    path = tmp_path / "journal.jsonl"
    big = b'{"type":"result","key":"k","result":"' + b"x" * 100_000 + b'"}'
    path.write_bytes(b'{"type":"launched"}\n\n' + big + b"\n{not json\n" + b'{"type":"sta')
    index = LineIndex(path)
    index.update()
    rows = [render_line(line, Redactor(), Palette()).plain for line in index.read(1, 9)]
    assert rows == [
        "    1 launched  {}",
        "    2 (empty line)",
        '    3 result    (line of 100.0 kB, its result not shown) {"key":"k","result":"<elided>"}',
        "    4 ✗ unreadable: not valid JSON  {not json",
        "    5 … partial line (no newline yet; the writer may be mid-line)",
    ]


def test_a_re_run_call_marks_its_returned_attempt_not_an_orphan():
    """mid-failure-resumed: a4 returned, then the resume ran it again (same key)."""
    run = only_run("mid-failure-resumed")
    rows = call_rows(run)
    (first_a4,) = [row for row in rows if getattr(row, "agent_id", "") == "a9f8962f0b278a833"]
    assert (first_a4.state, first_a4.label) == ("done", "try 1")
    assert first_a4.preview.startswith("returned; a resume ran the call again")
    lines = parity_lines(run)
    assert not any("orphan" in line or "repeated result" in line for line in lines), lines


def test_a_large_result_is_masked_for_its_preview_only_as_far_as_it_shows(
    tmp_path: Path, monkeypatch
):
    import orjson

    import wftop.tui.calls as calls_module

    root = copy_tree("clean", tmp_path / "clean")
    journal = only_journal(root)
    secret = "sk-ant-" + "s" * 40
    big = {"agent": "a1", "text": f"token {secret} " + "x" * 200_000}  # kept: under 256 KB
    lines = [orjson.loads(line) for line in journal.read_bytes().splitlines()]
    for line in lines:
        if line.get("type") == "result" and line["result"].get("agent") == "a1":
            line["result"] = big
    journal.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    (run,) = scan_roots([str(root)], processes=FakeProcessTable()).runs
    masked: list[int] = []
    real = calls_module.redact
    monkeypatch.setattr(calls_module, "redact", lambda text: masked.append(len(text)) or real(text))
    (a1,) = [row for row in call_rows(run) if getattr(row, "label", "") == "a1"]
    assert secret not in a1.preview and "[masked:anthropic_key]" in a1.preview
    assert a1.preview.endswith("…") and len(a1.preview) <= 200
    assert max(masked) <= 10_000


def test_the_call_rows_show_object_results_without_parsing_them(monkeypatch):
    import wftop.core.read.foldcall as foldcall  # where a call's packed result is parsed

    run = only_run("clean")
    expected = {row.key: row.preview for row in call_rows(run) if hasattr(row, "preview")}
    parsed: list[bytes] = []
    real = foldcall.orjson.loads
    monkeypatch.setattr(foldcall.orjson, "loads", lambda raw: parsed.append(raw) or real(raw))
    rows = call_rows(run)
    assert {row.key: row.preview for row in rows if hasattr(row, "preview")} == expected
    assert any('"' in preview for preview in expected.values())  # objects, shown as JSON
    assert parsed == []


def test_a_runs_repr_is_short_whatever_its_journal_holds():
    run = only_run("mid-failure")
    assert repr(run) == f"Run({run.ident!r}, {run.status.value})"


def test_a_filter_of_plain_words_lets_through_what_every_term_matches():
    """Free words (none shaped like an id) take a quicker pass over the runs: it lets through
    the runs the term-by-term match does, for every text."""
    names = ("killed", "clean", "api-errors-429", "mid-failure", "killed-in-parallel", "resumed")
    runs = [only_row(name) for name in names]
    texts = ["a", "completed", "dead", "mock", "zzz", "proj", "DEAD", "dead mock", "e k"]
    texts += ["A6", "d27", "a_1", "dead a3", "wf_4", "-4e", "mock 1"]  # ids searched too
    for text in texts:
        view = RunListView(text=text)
        assert view.plain()
        assert view.chosen(runs) == [run for run in view.by_activity(runs) if view.matches(run)]
    for text in ("status:dead", "run:wf", "dead label:a3"):
        assert not RunListView(text=text).plain()


def test_a_letter_typed_at_the_end_tries_only_the_runs_the_text_before_let_through():
    """Typing narrows: each key tries the runs the text before it let through, not every
    run; a term that does not imply the one before tries them all, and a letter taken off
    gives back the runs that text chose before (the runs the same), trying none. Each time
    the runs chosen are those the term-by-term match lets through."""
    names = ("killed", "clean", "api-errors-429", "mid-failure", "killed-in-parallel", "resumed")
    runs = [only_row(name) for name in names]
    view = RunListView()
    view.chosen(runs)
    typed = [  # the text, and whether it narrows the text before it
        ("m", True),  # from no text
        ("mi", True),
        ("mid", True),
        ("mi", None),  # a letter taken off: chosen before
        ("mi k", True),
        ("d", False),
        ("d2", False),  # shaped like an id: may match an id where 'd' must match the words
        ("d27", True),
        ("status:d", False),
        ("status:dead", True),
        ("status:dead a", True),
    ]
    fewer = 0
    for text, narrows in typed:
        before, shown = view.passes, len(view.chosen())
        view.text = text
        chosen = view.chosen()
        assert chosen == [run for run in view.by_activity() if view.matches(run)], text
        tried = 0 if narrows is None else shown if narrows else len(runs)
        assert view.passes - before == tried, text
        fewer += bool(narrows) and shown < len(runs)
    assert fewer >= 3


def test_the_run_screen_says_what_a_script_threw_and_that_the_journal_is_not_on_disk():
    from tests.corpus import DATA
    from wftop.tui.calls import call_facts

    (run,) = scan_roots([str(DATA / "shapes" / "snapshot-only")], processes=FakeProcessTable()).runs
    facts = call_facts(run)
    assert "parity   no journal lines → 0 calls: 0 done" in facts
    assert "journal  not on disk: the calls are the snapshot's rows; nothing to resume" in facts
    assert "threw    TypeError: undefined is not an object (evaluating 'args.batches')" in facts


def counted_sums(monkeypatch) -> list[int]:  # type: ignore[no-untyped-def]
    """How many runs each sum of what runs spent (`rows_cost_total`) summed, from now on."""
    import wftop.tui.runorder as runorder
    from wftop.tui.format import rows_cost_total

    sums: list[int] = []
    monkeypatch.setattr(
        runorder, "rows_cost_total", lambda rows: sums.append(len(rows)) or rows_cost_total(rows)
    )
    return sums


def test_what_the_runs_listed_spent_is_summed_once_while_they_stay(monkeypatch):
    """The header's dollars: summed when the runs chosen change (a filter, a change set),
    not on every key that draws the same runs again."""
    from wftop.tui.format import rows_cost_total

    sums = counted_sums(monkeypatch)
    runs = some_runs()
    view = RunListView()
    view.chosen(runs)
    assert [view.cost_total() for _ in range(3)] == [rows_cost_total(runs)] * 3
    assert sums == [len(runs)]
    dearer = replace(runs[0], cost_usd=(runs[0].cost_usd or 0) + 1.5)
    view.shift((), [dearer], ())
    assert view.cost_total() == rows_cost_total([dearer, *runs[1:]])
    view.status = "dead"
    dead = [run for run in view.by_activity() if run.shown_status == "dead"]
    assert view.cost_total() == rows_cost_total(dead)
    assert sums == [len(runs), len(runs), len(dead)]
