"""``f`` on a refused plan: the same override as ``wftop resume --force``, behind its own
confirmation. It names the refusal and what forcing risks; ``y`` forces, anything else keeps
the plan refused."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from wftop.core.resume.guard import Verdict
from wftop.core.text.gate import shown


class ForceScreen(ModalScreen[bool]):
    """Resume past the guard? Dismissed with True only on ``y``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "force it", id="force-yes"),
        Binding("n,escape,q", "answer(False)", "keep it refused", id="force-no"),
    ]
    SCREEN_NAME = "force"
    DEFAULT_CSS = """
    ForceScreen { align: center middle; }
    ForceScreen > Vertical {
        width: 90%; max-width: 90; height: auto;
        border: thick $error; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, verdict: Verdict) -> None:
        super().__init__()
        self.verdict = verdict

    def compose(self) -> ComposeResult:
        verdict = self.verdict
        with Vertical():
            yield Static(
                Text.assemble(
                    ("Resume past the guard?", "bold"),
                    " (as wftop resume --force)\n",
                    f"refused  {shown(verdict.reason)}\n",
                    f"risk     {shown(verdict.risk or 'the check that refused is skipped')}\n\n",
                    "y force it · n keep it refused",
                ),
                id="force",
            )

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
