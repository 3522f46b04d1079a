"""What an engine makes once as it starts (its hello, a view's ask, what its first rows did)
is a `wftop.core.compared.record`: no method of theirs is compiled as the engine's modules
are imported, on its way to its kept rows."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace

import pytest

from wftop.core import compared
from wftop.core.engine import lines
from wftop.core.engine.coldstart import FirstRows


def test_the_engine_s_hello_ask_and_first_rows_are_records() -> None:
    for kind in (lines.Hello, lines.Ask, FirstRows):
        for method in ("__init__", "__setattr__", "__delattr__", "__eq__", "__hash__"):
            assert getattr(kind, method).__module__ == compared.__name__, (kind, method)


def test_they_are_made_compared_and_refused_as_before() -> None:
    hello = lines.Hello(3, "1.0", 7, ("/r",), 60.0)
    assert hello == lines.Hello(protocol=3, wftop="1.0", pid=7, roots=("/r",), stall_window=60.0)
    assert hash(hello) == hash(lines.Hello(3, "1.0", 7, ("/r",), 60.0))
    assert replace(hello, pid=8) != hello and replace(hello, pid=8).pid == 8
    asked = lines.decode_ask(lines.ask_line("rows", "1.0"))
    assert asked == lines.Ask("rows", "1.0", lines.PROTOCOL) and asked.want == "rows"
    with pytest.raises(FrozenInstanceError):
        hello.pid = 8  # type: ignore[misc]
    firsts = FirstRows(2, {})
    assert (firsts.gone, firsts.folders, firsts.superseded) == ((), [], {})
    assert firsts.folders is not FirstRows(2, {}).folders  # a list of its own each
    assert repr(firsts).startswith("FirstRows(count=2, unpriced={}, gone=()")
    with pytest.raises(TypeError):
        FirstRows(2)  # type: ignore[call-arg]


def test_a_kept_row_and_the_rows_cache_take_compared_s_methods() -> None:
    """Not compiled as the rows cache's modules are imported (a kept row is made for each
    row that holds, by the ``__init__`` the data class compiles, the fastest made so)."""
    from wftop.core.index.rowcache import RowCache
    from wftop.core.index.rowfile import Kept

    for kind in (Kept, RowCache):
        for method in ("__eq__", "__repr__"):
            assert getattr(kind, method).__module__ == compared.__name__, (kind, method)
        assert kind.__hash__ is None  # not frozen: unhashable, as the data class was
    kept = Kept(1.0, b"{}", naming=("/c", "-p", "p"))
    assert kept == Kept(1.0, b"{}", False, ("/c", "-p", "p"), None) and kept != Kept(1.0, b"[]")
    assert repr(kept) == "Kept(last_activity=1.0, row=b'{}', ended=False, " + (
        "naming=('/c', '-p', 'p'), wire=None)"
    )
