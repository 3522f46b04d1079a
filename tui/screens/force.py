"""``f`` on a refused plan: the same override as ``wftop resume --force``, behind its own
confirmation. It names the refusal and what forcing risks; ``y`` forces, anything else keeps
the plan refused. ``enter`` on a plan over the config's ``max_usd``: the same kind of
question, whether to resume anyway."""

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


class Question(ModalScreen[bool]):
    """A yes-or-no question in a box; dismissed with True only on ``y``."""

    DEFAULT_CSS = """
    Question { align: center middle; }
    Question > Vertical {
        width: 90%; max-width: 90; height: auto;
        border: thick $error; background: $surface; padding: 0 1;
    }
    """

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class ForceScreen(Question):
    """Resume past the guard?"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "force it", id="force-yes"),
        Binding("n,escape,q", "answer(False)", "keep it refused", id="force-no"),
    ]
    SCREEN_NAME = "force"

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


class BudgetScreen(Question):
    """Resume although the forecast may cost more than the config's ``max_usd``
    (``wftop resume --max-usd`` refuses instead)?"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "resume anyway", id="budget-yes"),
        Binding("n,escape,q", "answer(False)", "keep the plan", id="budget-no"),
    ]
    SCREEN_NAME = "budget"
    DEFAULT_CSS = "BudgetScreen > Vertical { border: thick $warning; }"

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text.assemble(
                    ("Resume over the budget?", "bold"),
                    " (max_usd in the config)\n",
                    f"budget   {shown(self.reason)}\n\n",
                    "y resume anyway · n keep the plan",
                ),
                id="budget",
            )
