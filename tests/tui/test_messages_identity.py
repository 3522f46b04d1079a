"""The app's own messages (a screen's request to the navigator, a job's result, a row
chosen): each is one request, so none is given a generated ``__eq__`` and each hashes by
identity as Textual's own messages do; none is a data class (code made for each class as the
app is imported, on the way to the first frame), and each says its fields as one did."""

from __future__ import annotations

import dataclasses
import inspect

from textual.message import Message

from wftop.tui import messages, work
from wftop.tui.widgets.table import FittedTable


def the_apps_messages() -> list[type[Message]]:
    found = [
        value
        for module in (messages, work)
        for _name, value in inspect.getmembers(module, inspect.isclass)
        if issubclass(value, Message) and value.__module__ == module.__name__
    ]
    return [*found, FittedTable.Chosen]


def test_two_alike_requests_are_two_and_each_hashes_by_identity():
    made = the_apps_messages()
    assert len(made) >= 20
    for kind in made:
        assert "__eq__" not in vars(kind), kind
        assert kind.__hash__ is not None, kind
    first, second = messages.OpenRun("wf_1"), messages.OpenRun("wf_1")
    assert first != second and len({first, second}) == 2
    assert repr(first) == "OpenRun(ident='wf_1')"  # what the log says of it is kept


def test_no_message_is_a_data_class_and_each_says_its_fields_as_one_did():
    """None of them is made as a data class (its methods compiled for each class as the app
    is imported: about 1 M instructions a message); each is made from the same arguments,
    by place or by name, and its repr says the same."""
    made = the_apps_messages()
    assert [kind for kind in made if dataclasses.is_dataclass(kind)] == [work.JobDone]
    table = FittedTable()
    said = {
        messages.OpenRun("wf_1"): "OpenRun(ident='wf_1')",
        messages.OpenPlan(ident="wf_1", fresh=True): "OpenPlan(ident='wf_1', fresh=True)",
        messages.OpenRunAt("/r", "p", "s", run_id="wf_2"): (
            "OpenRunAt(root='/r', project='p', session_id='s', run_id='wf_2')"
        ),
        messages.OpenAgent("wf_1", "a1", "label"): (
            "OpenAgent(ident='wf_1', agent_id='a1', label='label', folder='')"
        ),
        messages.OpenCopy("wf_1"): "OpenCopy(ident='wf_1', agent_id=None)",
        messages.OpenSessionReport(transcript="t.jsonl"): "OpenSessionReport(transcript='t.jsonl')",
        messages.OpenSessions(): "OpenSessions()",
        messages.GoBack(): "GoBack()",
        messages.AskBudget("over"): "AskBudget(reason='over')",
        messages.MarkSeen(every=True): "MarkSeen(idents=(), every=True)",
        work.JobFailed("Couldn't", ValueError("x"), trace="t"): (
            "JobFailed(what=\"Couldn't\", error=ValueError('x'))"
        ),
        FittedTable.Chosen(table, "k", 3): f"FittedTable.Chosen(table={table!r}, key='k', item=3)",
    }
    for message, text in said.items():
        assert repr(message) == text
    assert messages.AskBudget("over").answered(True) is None
    done = work.JobDone("kind", 1, [2], print, work.Jobs(table), keep=True)
    assert (done.result, done.last, done.keep, done.then) == ([2], True, True, print)
    assert repr(done) == "JobDone(kind='kind', number=1, result=[2], last=True, keep=True)"
