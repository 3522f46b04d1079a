"""``y``: pick what to copy (run id, paths, resume command).

The screen copies with Textual's own ``copy_to_clipboard`` (OSC 52), and, from a thread,
to the tmux buffer and the system clipboard where there are some (`wftop.tui.clipboard`);
a toast says what it copied and where to. It copies the real value (the choices show it
masked and gated), unless the value holds a control character or a line break: that is
refused with a toast saying why, since a shell it is pasted into would act on it. The
resume command is quoted for a shell. It needs nothing of the wftop app.
"""

from __future__ import annotations

import os
import shlex
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from wftop.core.row import RunRow
from wftop.core.text.gate import not_copyable, shown
from wftop.tui import clipboard
from wftop.tui.format import display_path
from wftop.tui.keys import binding
from wftop.tui.work import Jobs


def resume_command(run: RunRow) -> str:
    """The wftop command that plans and resumes this run, quoted for a shell."""
    return shlex.join(["wftop", "resume", run.run_id])


def run_folder(run: RunRow) -> str:
    """The run's folder (where its journal and agent transcripts are)."""
    if run.journal:
        return os.path.dirname(run.journal)
    parts = ("projects", run.project, run.session_id, "subagents", "workflows", run.run_id)
    return os.path.join(run.root, *parts)


def run_choices(run: RunRow, agent_id: str | None = None) -> list[tuple[str, str]]:
    """(label, value) pairs offered by the copy menu, most wanted first."""
    folder = run_folder(run)
    choices = [
        ("run id", run.run_id),
        ("run folder", folder),
        ("resume command", resume_command(run)),
        ("session id", run.session_id),
        ("journal path", run.journal or os.path.join(folder, "journal.jsonl")),
    ]
    if agent_id:
        choices.insert(1, ("agent id", agent_id))
        choices.insert(2, ("transcript path", os.path.join(folder, f"agent-{agent_id}.jsonl")))
    return choices


def copied_where(value: str) -> str:
    """Copy ``value`` to the tmux buffer and the system clipboard where there are some (run in
    a job: they are processes); where it went, in words."""
    return clipboard.copied_via(clipboard.copy_elsewhere(value, os.environ))


def tail(text: str, width: int) -> str:
    """``text`` cut to its last ``width`` cells behind an ellipsis."""
    return text if len(text) <= width else "…" + text[len(text) - width + 1 :]


class CopyScreen(ModalScreen[None]):
    SCREEN_NAME = "copy"
    BINDINGS: ClassVar[list[BindingType]] = [
        binding("copy-close"),
    ]
    DEFAULT_CSS = """
    CopyScreen { align: center middle; }
    CopyScreen > Vertical {
        width: auto; max-width: 90%; height: auto;
        border: round $primary; background: $surface; padding: 0 1;
    }
    CopyScreen OptionList { height: auto; max-height: 12; border: none; }
    """

    def __init__(self, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.choices = choices

    def compose(self) -> ComposeResult:
        # The window takes at most 90% of the pane; a value longer than its room keeps its
        # end (where a path names the run) after an ellipsis.
        room = max(12, int(self.app.size.width * 0.9) - 4 - 6 - 17)
        with Vertical():
            yield Static("Copy to the clipboard")
            yield OptionList(
                *(
                    Option(
                        Text(f"{label:<16} {tail(shown(display_path(value)), room)}"), id=str(at)
                    )
                    for at, (label, value) in enumerate(self.choices)
                )
            )

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        label, value = self.choices[int(event.option_id or 0)]
        app = self.app
        self.dismiss()
        why = not_copyable(value)
        if why is not None:  # pasted in a shell, it would act there
            app.notify(
                f"The {label} was not copied: {why}, which a terminal or a shell would act on "
                "when it is pasted.",
                title="Not copied",
                severity="warning",
            )
            return
        app.copy_to_clipboard(value)
        shown_value = value if len(value) < 80 else value[:79] + "…"

        def say(where: str) -> None:
            app.notify(shown_value, title=f"Copied {label} ({where})")

        # tmux and the system clipboard are processes: fed from a job, never the loop (the
        # app hears back: this window is gone by then)
        Jobs(app).start("copy", lambda: copied_where(value), say, what="Couldn't copy")

    def action_dismiss_copy(self) -> None:
        self.dismiss()
