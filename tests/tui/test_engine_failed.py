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


async def test_a_failed_first_read_is_shown_in_the_header_not_scanned_for_ever(tui_root):
    engine = InProcessConnector([str(tui_root)], processes=FakeProcessTable(), now=broken_clock)
    app = build(tui_root, FakeProcessTable(), connector=engine)
    async with app.run_test(size=(200, 30)) as pilot:
        header = app.screen.query_one("#runs-header")
        await until(pilot, lambda: "engine failed" in str(header.render()), "the header told")
        # the count of the runs read may be applied a frame after the failure is said
        await pilot.pause(0.2)
        text = str(header.render())
        said = "engine failed: RuntimeError: the clock broke␛[2J (log: the engine's stderr)"
        # how far the read came (the clock may break before the runs are counted), then why
        assert text in (f"0 of 9 runs read · {said}", f"0 runs read · {said}")
        (toast,) = [toast for toast in app.toasts if toast.title == "Engine failed"]
        assert toast.severity == "error"
        await pilot.pause(0.2)
        assert str(header.render()) == text  # it stays said
