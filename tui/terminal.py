"""The terminal's title, written through Textual's driver by public means only.

Textual writes to the terminal through its driver; an app may choose the driver's class
(``App.get_driver_class``, public). `titled` makes a subclass of the class Textual chose that
hands itself to a `TitleSink` when it is made, and the sink writes the title with the
driver's public ``write`` (so the sequence goes out in order with Textual's own frames). Under
``run_test`` Textual uses its headless driver: no sink is filled and nothing is written.
"""

from __future__ import annotations

from typing import Any

from textual.driver import Driver

from wftop.core.text.gate import shown


class TitleSink:
    """Where the title goes: the running driver, once there is one."""

    def __init__(self) -> None:
        self.driver: Driver | None = None
        self.title = ""
        """What the title was last set to."""

    def write(self, title: str) -> None:
        """Set the terminal's title (masked and gated: `wftop.core.text.gate.shown`)."""
        if title == self.title:
            return
        self.title = title
        if self.driver is not None:
            self.driver.write(f"\x1b]2;{shown(title)}\x07")


def titled(base: type[Driver], sink: TitleSink) -> type[Driver]:
    """``base`` (Textual's driver for this platform), handing itself to ``sink``."""

    class TitledDriver(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **options: Any) -> None:
            super().__init__(*args, **options)
            sink.driver = self

    TitledDriver.__name__ = TitledDriver.__qualname__ = f"Titled{base.__name__}"
    return TitledDriver
