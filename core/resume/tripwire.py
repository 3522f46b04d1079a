"""Follow a relaunched run: its journal, and the CLI's stream-json output.

The journal says which calls started live; the stream's ``task_progress`` events
say, per call, whether the CLI served it from cache (``cached: true``). Either one
seeing a call the forecast served from cache run live trips the alarm. The forecast's
calls are held by their labels as they may be written down (secrets masked: the resume
log records them), and a call is matched by its label masked the same way.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from wftop.core.compared import compared
from wftop.core.read.jsonl import JsonlTail
from wftop.core.text.redact import redact


@compared
@dataclass(eq=False, repr=False)
class Progress:
    """What the relaunched run has done so far."""

    started: list[str] = field(default_factory=list)
    """Calls that started live, from the journal (one entry per attempt)."""
    returned: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    """Calls the CLI reports as served from cache, from its stream."""
    states: dict[str, str] = field(default_factory=dict)
    """Latest state per call label in the stream (``start``, ``progress``, ``done``, ``error``)."""
    misses: list[str] = field(default_factory=list)
    """Calls the forecast served from cache that ran live anyway (tripwire)."""
    run_id: str | None = None
    """The run the relaunch writes to (found late for a fresh relaunch)."""


class JournalWatch:
    """Follows the journal a relaunch appends to, from where it stood at launch.

    ``journal`` may be None when the path is not known yet (a fresh relaunch mints
    a new run id): ``find`` is asked for it on every poll until it appears.
    ``skip_lines``: how many lines the journal held at launch (what the launch wrote
    follows them); None at the launch itself, where it is whatever the journal holds now.
    """

    def __init__(
        self,
        journal: str | None,
        cached_labels: set[str],
        *,
        find: Callable[[], str | None] | None = None,
        progress: Progress | None = None,
        skip_lines: int | None = None,
    ):
        self.cached = masked(cached_labels)
        self.progress = progress or Progress()
        self.labels: dict[str, str] = {}
        self.find = find
        self.tail: JsonlTail | None = None
        self.skip_lines = 0
        if journal is not None:
            self.tail = JsonlTail(journal)
            if skip_lines is None:
                for _, record in self.tail.read().records:  # there before the launch
                    self._learn_label(record)
                self.skip_lines = self.tail.line_no
            else:
                self.skip_lines = skip_lines

    @property
    def journal(self) -> str | None:
        return self.tail.path if self.tail else None

    def poll(self) -> list[str]:
        """Read new lines; returns labels of new tripwire misses."""
        if self.tail is None and self.find is not None:
            found = self.find()
            if found is None:
                return []
            self.tail = JsonlTail(found)
            self.progress.run_id = os.path.basename(os.path.dirname(found))
        if self.tail is None:
            return []
        fresh: list[str] = []
        for line, record in self.tail.read().records:
            if line <= self.skip_lines:
                self._learn_label(record)
                continue
            kind, key = record.get("type"), self._learn_label(record)
            name = self.labels.get(key, str(record.get("agentId")))
            if kind == "started":
                self.progress.started.append(name)
                fresh.extend(_miss(self, name))
            elif kind == "result":
                self.progress.returned.append(name)
            elif kind == "failed":
                self.progress.failed.append(name)
        return fresh

    def _learn_label(self, record: dict[str, object]) -> str:
        """The record's call key, remembering the label a line gives it."""
        key = str(record.get("key") or record.get("agentId"))
        label = record.get("label")
        if isinstance(label, str) and label:
            self.labels[key] = label
        return key


def _miss(watch: JournalWatch | StreamWatch, label: str) -> list[str]:
    if redact(label) in watch.cached and label not in watch.progress.misses:
        watch.progress.misses.append(label)
        return [label]
    return []


class StreamWatch:
    """Reads ``task_progress`` events from the relaunched CLI's stream-json log."""

    def __init__(self, log_path: str, cached_labels: set[str], progress: Progress):
        self.tail = JsonlTail(log_path)
        self.cached = masked(cached_labels)
        self.progress = progress
        self.text_seen = False
        """The stream shows the workflow was launched or resumed."""

    def poll(self) -> list[str]:
        fresh: list[str] = []
        for _, event in self.tail.read().records:
            subtype = event.get("subtype")
            if subtype == "task_started" or (
                event.get("type") == "user" and "Workflow launched" in str(event)[:4000]
            ):
                self.text_seen = True
            if subtype != "task_progress":
                continue
            self.text_seen = True
            rows = event.get("workflow_progress")
            for row in rows if isinstance(rows, list) else []:
                if not isinstance(row, dict) or row.get("type") != "workflow_agent":
                    continue
                label = str(row.get("label") or row.get("agentId") or "")
                state = str(row.get("state") or "")
                self.progress.states[label] = state
                if row.get("cached") is True:
                    if label not in self.progress.cached:
                        self.progress.cached.append(label)
                elif state in ("start", "progress"):
                    fresh.extend(_miss(self, label))
        return fresh


def masked(labels: set[str]) -> frozenset[str]:
    """Call labels as the resume log may hold them: secrets masked (masking is idempotent)."""
    return frozenset(redact(label) for label in labels)


def newest_journal(session_dir: str) -> Callable[[], str | None]:
    """A finder for the journal of the run a fresh relaunch starts in a new session."""

    def find() -> str | None:
        pattern = os.path.join(glob.escape(session_dir), "subagents", "workflows", "wf_*")
        found = sorted(glob.glob(os.path.join(pattern, "journal.jsonl")))
        return found[-1] if found else None

    return find
