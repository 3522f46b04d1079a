"""Background work, one discipline for every screen and widget: `Jobs`.

Whatever reads the disk, runs a process or asks the CLI runs off the event loop, in a thread
worker started by `Jobs.start`, and comes back as a message to the node that asked:

* the result is a `JobDone` message, handled on the loop by the node (`Working`), which calls
  the ``then`` it was given; a job of the same kind started since makes it superseded, and a
  superseded result is dropped (``then`` is never called for it);
* a failure is a `JobFailed` message posted to the app, which says it in a toast and
  writes it, with its traceback, to the log (`wftop.tui.app`): no worker takes the app down
  (every worker is started with ``exit_on_error=False``, and the work's exceptions are caught
  around it, since Textual's ``Worker.StateChanged`` does not bubble);
* what crosses from the thread is what the work returns: it must not be changed afterwards
  by the thread (return new immutable values, not an object the thread keeps using).

A job that reports more than once (a file indexed a piece at a time) gets a ``report``
callable (`Jobs.stream`): each value it reports comes back the same way.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from textual.dom import DOMNode
from textual.message import Message

from wftop.tui.messages import Request

T = TypeVar("T")


@dataclass(eq=False)
class JobDone(Message, Generic[T]):
    """A job's result (or one of its reports), for the node that started it (a data class
    still: the one message of the app with more than four fields)."""

    kind: str
    number: int
    result: T
    then: Callable[[T], object] = field(repr=False)
    jobs: Jobs = field(repr=False)
    """Whose job it is (it says whether the result is current)."""
    last: bool = True
    """The job ended with this (a streaming job's reports before it are not last)."""
    keep: bool = False
    """Applied even when a job of its kind started since."""


class JobFailed(Request):
    """A job raised: the app says so (toast) and logs it."""

    SAID = ("what", "error")

    def __init__(self, what: str, error: BaseException, trace: str = "") -> None:
        self.what = what
        """What the job was doing, as a toast's title says it (``Couldn't read the journal``)."""
        self.error = error
        self.trace = trace
        """The traceback, for the log."""
        super().__init__()


class Jobs:
    """The background work of one node (a screen, a widget, the app)."""

    def __init__(self, node: DOMNode) -> None:
        self.node = node
        self.started: dict[str, int] = {}
        """Per kind, the number of the newest job (its results are the current ones)."""
        self.running: dict[str, int] = {}
        """Per kind, jobs started whose last result has not come back yet."""

    def start(
        self,
        kind: str,
        work: Callable[[], T],
        then: Callable[[T], object],
        *,
        what: str,
        superseded: bool = True,
    ) -> int:
        """Run ``work()`` in a thread; ``then(result)`` on the loop unless superseded
        (``superseded=False``: every result is applied, a later one after it; for work
        whose results add up, such as rows of a file read)."""

        def streamed(report: Callable[[T], None]) -> T:
            return work()

        return self._run(kind, streamed, then, what=what, final=True, keep=not superseded)

    def stream(
        self,
        kind: str,
        work: Callable[[Callable[[T], None]], object],
        then: Callable[[T], object],
        *,
        what: str,
    ) -> int:
        """Run ``work(report)`` in a thread; ``then(value)`` on the loop for each value
        reported, unless a job of this kind started since."""
        return self._run(kind, work, then, what=what, final=False)

    def _run(
        self,
        kind: str,
        work: Callable[[Callable[[Any], None]], Any],
        then: Callable[[Any], object],
        *,
        what: str,
        final: bool,
        keep: bool = False,
    ) -> int:
        number = self.started.get(kind, 0) + 1
        self.started[kind] = number
        self.running[kind] = self.running.get(kind, 0) + 1
        node = self.node
        app = node.app  # told of a failure even if the node has gone meanwhile

        def report(value: Any) -> None:
            node.post_message(JobDone(kind, number, value, then, self, last=False))

        def run() -> None:
            try:
                result = work(report)
            except Exception as error:  # noqa: BLE001 - every failure reaches the user
                app.post_message(JobFailed(what, error, traceback.format_exc()))
                node.post_message(JobDone(kind, number, None, _nothing, self, last=True))
                return
            if final:
                node.post_message(JobDone(kind, number, result, then, self, keep=keep))
            else:
                node.post_message(JobDone(kind, number, None, _nothing, self, last=True))

        node.run_worker(run, name=kind, group=kind, thread=True, exit_on_error=False)
        return number

    def drop(self, kind: str) -> None:
        """Results of the jobs of ``kind`` running now are dropped when they come."""
        self.started[kind] = self.started.get(kind, 0) + 1

    def busy(self, kind: str) -> bool:
        """A job of ``kind`` has not finished yet."""
        return self.running.get(kind, 0) > 0

    def take(self, message: JobDone[Any]) -> None:
        """Apply a job's result if it is current (`Working` calls this for each `JobDone`
        that reaches it)."""
        if message.last:
            self.running[message.kind] = max(0, self.running.get(message.kind, 0) - 1)
        if message.keep or self.started.get(message.kind) == message.number:
            message.then(message.result)


def _nothing(_value: object) -> None:
    return None


class Working:
    """A node with `Jobs`: mixed into screens and widgets before their Textual class."""

    _jobs: Jobs | None = None

    @property
    def jobs(self) -> Jobs:
        if self._jobs is None:
            assert isinstance(self, DOMNode)
            self._jobs = Jobs(self)
        return self._jobs

    def on_job_done(self, message: JobDone[Any]) -> None:
        message.stop()
        message.jobs.take(message)
