"""The app's own messages (a screen's request to the navigator, a job's result, a row
chosen): each is one request, so none is given a generated ``__eq__`` (code made for each
class as the app is imported, on the way to the first frame), and each hashes by identity as
Textual's own messages do."""

from __future__ import annotations

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
