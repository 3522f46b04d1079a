"""The engine's stream's messages, a link's updates and a shared engine's place compare, hash
and say themselves as the data classes made with ``eq=True, repr=True`` did, with the methods
`wftop.core.compared` writes once: none compiled for each class as a view imports its link."""

from __future__ import annotations

import pytest

from wftop.core.engine import feed, link, place
from wftop.core.engine import protocol as wire

CLASSES = (
    wire.Hello,
    wire.Ask,
    wire.Progress,
    wire.Kept,
    wire.Rows,
    wire.Changed,
    wire.ProblemSeen,
    wire.Counts,
    wire.Bye,
    feed.Delta,
    link.EngineUp,
    link.EngineLost,
    place.Place,
)


@pytest.mark.parametrize("kind", CLASSES, ids=lambda kind: kind.__name__)
def test_each_message_s_methods_are_written_once(kind: type) -> None:
    for method in ("__eq__", "__hash__", "__repr__"):
        assert getattr(kind, method).__module__ == "wftop.core.compared", (kind, method)


def test_each_message_compares_hashes_and_says_itself_as_before() -> None:
    hello = wire.Hello(3, "9.9", 42, ("/a",), 600.0)
    assert (
        repr(hello) == "Hello(protocol=3, wftop='9.9', pid=42, roots=('/a',), stall_window=600.0)"
    )
    assert hello == wire.Hello(3, "9.9", 42, ("/a",), 600.0) != wire.Hello(3, "9.9", 43, (), 1.0)
    assert hash(hello) == hash(wire.Hello(3, "9.9", 42, ("/a",), 600.0))
    assert repr(wire.Kept()) == "Kept()" and wire.Kept() == wire.Kept()
    assert hash(wire.Kept()) == hash(wire.Kept())
    rows = wire.Rows(4, (), True)
    assert repr(rows) == "Rows(seq=4, rows=(), final=True, rejected=())"
    assert rows == wire.Rows(4, (), True) and rows != wire.Rows(4, (), False)
    assert rows != wire.Changed(4, (), ())  # another class
    counts = wire.Counts({"dead": 1}, True)
    assert counts == wire.Counts({"dead": 1}, True)
    with pytest.raises(TypeError):
        hash(counts)  # a dict in it, as the data class's hash met
    up = link.EngineUp(hello, shared=True, restarted=False)
    assert repr(up) == f"EngineUp(hello={hello!r}, shared=True, restarted=False)"
    assert repr(feed.Delta(1)) == "Delta(seq=1, added=(), changed=(), removed=(), complete=False)"
    assert repr(place.Place("s", "l", "g")) == "Place(socket='s', lock='l', log='g')"
