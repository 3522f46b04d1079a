"""What screens ask of the app: navigation and actions, as messages to one navigator.

A screen never pushes another screen and never imports the app: it posts one of these, it
bubbles up to the App, and the app hands every `Navigate` to its `wftop.tui.navigator.Navigator`,
the one place that knows which screen shows what and what to say when it cannot (a
read-only wftop, a run on another host, a run gone from disk). Runs are named by ident
(`wftop.core.read.runfolder.run_ident`); the navigator finds the row in the store.

Each message is one request: nothing compares two of them, and each hashes by identity as
Textual's own messages do. They are plain classes, not data classes: a data class's methods
are code compiled for each class as the app is imported (about 1 M instructions a message,
on the way to the first list); each says its fields in its repr as a data class would
(`Request`), which the log prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual.message import Message

if TYPE_CHECKING:  # the resume guard: imported with the plan screen, not before the list
    from wftop.core.resume.guard import Verdict


class Request(Message):
    """A message whose repr names the fields of `SAID` as a data class's does:
    ``OpenRun(ident='wf_1')``."""

    SAID: ClassVar[tuple[str, ...]] = ()

    def __repr__(self) -> str:
        said = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.SAID)
        return f"{type(self).__qualname__}({said})"


def _never(_answer: bool | None) -> None:
    """An answer nobody waits for."""


class Navigate(Request):
    """Something for the navigator to show (the base of every message here)."""


class OpenRun(Navigate):
    """``enter`` on a run: its calls (the run screen, made once and reused)."""

    SAID = ("ident",)

    def __init__(self, ident: str) -> None:
        self.ident = ident
        """The run, `wftop.core.read.runfolder.run_ident`."""
        super().__init__()


class OpenPlan(Navigate):
    """``r`` (resume) or ``R`` (``fresh``: relaunch): the resume plan of a run."""

    SAID = ("ident", "fresh")

    def __init__(self, ident: str, fresh: bool = False) -> None:
        self.ident = ident
        self.fresh = fresh
        super().__init__()


class OpenRunAt(Navigate):
    """``r`` on a dead workflow of a session's report: the plan of the run the session's
    folder holds (it may not be listed: it is then read from disk, off the loop)."""

    SAID = ("root", "project", "session_id", "run_id")

    def __init__(self, root: str, project: str, session_id: str, run_id: str) -> None:
        self.root = root
        self.project = project
        self.session_id = session_id
        self.run_id = run_id
        super().__init__()


class OpenJournal(Navigate):
    """``J``: the journal of a run as a table (fetched from its host first for a remote run)."""

    SAID = ("ident",)

    def __init__(self, ident: str) -> None:
        self.ident = ident
        super().__init__()


class OpenTimeline(Navigate):
    """``t`` on the run screen: the run's timeline (this machine's runs: it reads their
    transcripts)."""

    SAID = ("ident",)

    def __init__(self, ident: str) -> None:
        self.ident = ident
        super().__init__()


class OpenAgent(Navigate):
    """``enter`` on a call: one agent's transcript."""

    SAID = ("ident", "agent_id", "label", "folder")

    def __init__(self, ident: str, agent_id: str, label: str, folder: str = "") -> None:
        self.ident = ident
        self.agent_id = agent_id
        self.label = label
        self.folder = folder
        """Where the transcript is when it is not the run's own folder (a remote run's copy)."""
        super().__init__()


class OpenCopy(Navigate):
    """``y``: what of a run can be copied (the agent's id and transcript too when given)."""

    SAID = ("ident", "agent_id")

    def __init__(self, ident: str, agent_id: str | None = None) -> None:
        self.ident = ident
        self.agent_id = agent_id
        super().__init__()


class OpenSessions(Navigate):
    """``S``: the recent sessions (closes them when they are shown)."""


class OpenSessionReport(Navigate):
    """``enter`` on a session: its forensic report."""

    SAID = ("transcript",)

    def __init__(self, transcript: str) -> None:
        self.transcript = transcript
        super().__init__()


class OpenAttempts(Navigate):
    """``p``: the attempts of every run, plotted."""


class OpenSupervisor(Navigate):
    """``M``: what ``wftop supervise`` decided."""


class OpenHelp(Navigate):
    """``?``: the keys of the screen shown (closes help when it is shown)."""


class AskBudget(Navigate):
    """``enter`` on a plan whose forecast may cost more than the config's ``max_usd``: resume
    anyway? ``answered`` gets the answer (True: resume); ``reason`` names the forecast and the
    budget."""

    SAID = ("reason",)

    def __init__(self, reason: str, answered: Callable[[bool | None], None] = _never) -> None:
        self.reason = reason
        self.answered = answered
        super().__init__()


class AskForce(Navigate):
    """``f`` on a refused plan: confirm forcing past the guard; ``answered`` gets the answer
    (True: force it)."""

    SAID = ("verdict",)

    def __init__(self, verdict: Verdict, answered: Callable[[bool | None], None] = _never) -> None:
        self.verdict = verdict
        self.answered = answered
        super().__init__()


class GoBack(Navigate):
    """``esc``: the screen under this one."""


class MarkSeen(Request):
    """``a``: the runs named marked seen; ``A`` (``every``): every run that needs you."""

    SAID = ("idents", "every")

    def __init__(self, idents: tuple[str, ...] = (), every: bool = False) -> None:
        self.idents = idents
        self.every = every
        super().__init__()
