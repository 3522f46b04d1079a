"""An engine whose first read fails under a running TUI: the header says so in one line (how
far the read came, and the engine's one line naming its log) instead of scanning for ever,
and a toast tells it once."""

from __future__ import annotations

from tests.tui_kit import build, until
from wftop.core.engine.inprocess import InProcessConnector
from wftop.core.system.procs import FakeProcessTable


def broken_clock() -> float:
    """The engine's clock, with a bug."""
    raise RuntimeError("the clock broke\x1b[2J")


def failed_toasts(app):  # type: ignore[no-untyped-def]
    return [toast for toast in app.toasts if toast.title == "Engine failed"]


async def test_a_failed_first_read_is_shown_in_the_header_not_scanned_for_ever(tui_root):
    engine = InProcessConnector([str(tui_root)], processes=FakeProcessTable(), now=broken_clock)
    app = build(tui_root, FakeProcessTable(), connector=engine)
    async with app.run_test(size=(200, 30)) as pilot:
        header = app.screen.query_one("#runs-header")
        said = "engine failed: RuntimeError: the clock broke␛[2J (log: the engine's stderr)"
        # how far the read came (the clock may break before the runs are counted), then why;
        # the count of the runs read may be applied a frame or more after the failure is said
        told = (f"0 of 9 runs read · {said}", f"0 runs read · {said}")
        await until(pilot, lambda: str(header.render()) in told, "the header told")
        await until(pilot, lambda: failed_toasts(app), "the toast")
        (toast,) = failed_toasts(app)
        assert toast.severity == "error"
        await pilot.pause(0.2)
        assert str(header.render()) in told  # it stays said (the count may have come since)
