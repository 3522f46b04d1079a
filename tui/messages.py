"""What screens ask of the app: navigation and actions, as messages to one navigator.

A screen never pushes another screen and never imports the app: it posts one of these, it
bubbles up to the App, and the app hands every `Navigate` to its `wftop.tui.navigator.Navigator`,
the one place that knows which screen shows what and what to say when it cannot (a
read-only wftop, a run on another host, a run gone from disk). Runs are named by ident
(`wftop.core.read.runfolder.run_ident`); the navigator finds the row in the store.

Each message is one request: nothing compares two of them, so none is given a generated
``__eq__`` (made for each class as the app is imported), and each hashes by identity as
Textual's own messages do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the resume guard: imported with the plan screen, not before the list
    from wftop.core.resume.guard import Verdict


@dataclass(eq=False)
class Navigate(Message):
    """Something for the navigator to show (the base of every message here)."""


@dataclass(eq=False)
class OpenRun(Navigate):
    """``enter`` on a run: its calls (the run screen, made once and reused)."""

    ident: str
    """The run, `wftop.core.read.runfolder.run_ident`."""


@dataclass(eq=False)
class OpenPlan(Navigate):
    """``r`` (resume) or ``R`` (``fresh``: relaunch): the resume plan of a run."""

    ident: str
    fresh: bool = False


@dataclass(eq=False)
class OpenRunAt(Navigate):
    """``r`` on a dead workflow of a session's report: the plan of the run the session's
    folder holds (it may not be listed: it is then read from disk, off the loop)."""

    root: str
    project: str
    session_id: str
    run_id: str


@dataclass(eq=False)
class OpenJournal(Navigate):
    """``J``: the journal of a run as a table (fetched from its host first for a remote run)."""

    ident: str


@dataclass(eq=False)
class OpenTimeline(Navigate):
    """``t`` on the run screen: the run's timeline (this machine's runs: it reads their
    transcripts)."""

    ident: str


@dataclass(eq=False)
class OpenAgent(Navigate):
    """``enter`` on a call: one agent's transcript."""

    ident: str
    agent_id: str
    label: str
    folder: str = ""
    """Where the transcript is when it is not the run's own folder (a remote run's copy)."""


@dataclass(eq=False)
class OpenCopy(Navigate):
    """``y``: what of a run can be copied (the agent's id and transcript too when given)."""

    ident: str
    agent_id: str | None = None


@dataclass(eq=False)
class OpenSessions(Navigate):
    """``S``: the recent sessions (closes them when they are shown)."""


@dataclass(eq=False)
class OpenSessionReport(Navigate):
    """``enter`` on a session: its forensic report."""

    transcript: str


@dataclass(eq=False)
class OpenAttempts(Navigate):
    """``p``: the attempts of every run, plotted."""


@dataclass(eq=False)
class OpenSupervisor(Navigate):
    """``M``: what ``wftop supervise`` decided."""


@dataclass(eq=False)
class OpenHelp(Navigate):
    """``?``: the keys of the screen shown (closes help when it is shown)."""


@dataclass(eq=False)
class AskBudget(Navigate):
    """``enter`` on a plan whose forecast may cost more than the config's ``max_usd``: resume
    anyway? ``answered`` gets the answer (True: resume); ``reason`` names the forecast and the
    budget."""

    reason: str
    answered: Callable[[bool | None], None] = field(repr=False, default=lambda _answer: None)


@dataclass(eq=False)
class AskForce(Navigate):
    """``f`` on a refused plan: confirm forcing past the guard; ``answered`` gets the answer
    (True: force it)."""

    verdict: Verdict
    answered: Callable[[bool | None], None] = field(repr=False, default=lambda _answer: None)


@dataclass(eq=False)
class GoBack(Navigate):
    """``esc``: the screen under this one."""


@dataclass(eq=False)
class MarkSeen(Message):
    """``a``: the runs named marked seen; ``A`` (``every``): every run that needs you."""

    idents: tuple[str, ...] = ()
    every: bool = False
