"""The fold a list needs: what a row shows of a journal, without a call object per call.

`wftop.core.read.journal.JournalFold` keeps, per call, everything any view asks of it: every
attempt, its lines, its result, the CLI reader's sets. A run's row (`wftop.core.row.RunRow`)
shows the line counts, how many calls there are, the calls still open and failed, and the
agents that re-ran a call: `CountingFold` folds the same records into that alone. Per call it
keeps its place, its label, its latest agent and its last line; a call object is made only
for a call a row asks about (one open or failed). Folding a first run's journals this way
costs about a third of the full fold.

It is a `JournalFold` to what reads a row's facts of it (its counts, ``open_keys``,
``failed_keys``, ``calls[key]`` of an open or failed call, `calls_in` of those, the last
agent, the re-run agents), so a run read with it goes through every function a run read in
full does; what only a whole-call view asks (every call, a snapshot for another thread)
raises: such a run is read in full (`wftop.core.index.reader.RunReader`). A differential
test holds every row field equal to the full fold's on every tree under ``tests/data`` and on
fuzzed journals (``tests/core/test_counting_fold.py``; 100,000 of them: ``bench/fuzz.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from wftop.core.read.journal import Call, CallState, JournalFold

Entry = list[Any]
"""[place, label, latest agent (None before a ``started`` line), last line, returned]."""
_PLACE, _LABEL, _AGENT, _LAST, _RETURNED = range(5)

Attempts = tuple[list[tuple[str, str]], list[tuple[str, str]]]
"""Attempts begun and returned, by their call's key and agent (`CountingFold.take_attempts`)."""


class WholeCallsNotKept(LookupError):
    """A whole-call view asked a `CountingFold`: that run must be read in full."""


class Stubs(Mapping[str, Call]):
    """A counting fold's calls by key: a `Call` holding what a row asks of it (its place,
    label, latest agent, last line and state), made when asked."""

    __slots__ = ("_entries", "_open", "_failed")

    def __init__(self, fold: CountingFold) -> None:
        # The fold's own dicts, never the fold: a fold holding stubs that held it would be
        # a cycle, left to the collector (a first listing pauses it, so every run's fold
        # would be kept to the end, then walked and freed at exit). A counting fold never
        # replaces these dicts (it takes no snapshot, so never takes dicts of its own).
        self._entries, self._open, self._failed = fold.entries, fold.open_keys, fold.failed_keys

    def __getitem__(self, key: str) -> Call:
        entry = self._entries[key]
        if key in self._open:
            state = CallState.IN_FLIGHT
        elif key in self._failed:
            state = CallState.FAILED
        else:
            state = CallState.DONE
        agent = entry[_AGENT]
        return Call(
            key,
            entry[_PLACE],
            label=entry[_LABEL],
            agent_ids=() if agent is None else (agent,),
            state=state,
            last_line=entry[_LAST],
            has_result=state is CallState.DONE and entry[_RETURNED],
            failed=state is CallState.FAILED,
        )

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[str]:
        raise WholeCallsNotKept("a counting fold keeps no whole calls: read the run in full")


class CountingFold(JournalFold):
    """The records of a journal folded into what a row shows (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[str, Entry] = {}
        self.calls = Stubs(self)
        self._attempts: Attempts = ([], [])

    def feed(self, line: int, record: dict[str, Any]) -> None:
        self.feed_all([(line, record)])

    def feed_all(self, records: list[tuple[int, dict[str, Any]]]) -> CountingFold:
        entries, open_keys, failed_keys = self.entries, self.open_keys, self.failed_keys
        reruns = self.rerun_agent_ids
        begun, ended = self._attempts = ([], [])
        started = returned = failed = keyless = others = 0
        last_agent = self.last_agent_id
        for line, record in records:
            get = record.get
            kind = get("type")
            if kind != "started" and kind != "result" and kind != "failed":
                if kind == "restoring":
                    self.restore_state = "partial"
                elif kind == "restored":
                    self.restore_state = "restored"
                elif kind != "launched" and kind != "resumed":
                    continue
                others += 1
                continue
            key = get("key")
            if type(key) is not str or not key:
                keyless += 1
                key = f"agent:{get('agentId')}"
            agent = get("agentId")
            if type(agent) is not str:
                agent = None
            elif agent:
                last_agent = agent
            entry = entries.get(key)
            if entry is None:
                entry = entries[key] = [len(entries), "", None, line, False]
            else:
                entry[_LAST] = line
            if kind == "started":
                started += 1
                label = get("label")
                if type(label) is str and label:
                    entry[_LABEL] = label
                    self.unlabelled.pop(key, None)
                if entry[_RETURNED]:
                    reruns.append(agent or "")  # type: ignore[attr-defined]
                entry[_AGENT] = agent or ""
                begun.append((key, entry[_AGENT]))
                open_keys[key] = None
                failed_keys.pop(key, None)
            elif kind == "result":
                returned += 1
                if agent is not None:
                    ended.append((key, agent))
                entry[_RETURNED] = True
                open_keys.pop(key, None)
                failed_keys.pop(key, None)
            else:
                failed += 1
                open_keys.pop(key, None)
                failed_keys[key] = None
            if not entry[_LABEL]:
                entry[_LABEL] = agent or key
                self.unlabelled[key] = None
        self.started_lines += started
        self.result_lines += returned
        self.failed_lines += failed
        self.keyless_lines += keyless
        self.other_lines += others
        self.last_agent_id = last_agent
        return self

    def take_attempts(self) -> Attempts:
        """The attempts of the records the last `feed_all` folded (none once taken), by their
        call's key and agent: those their ``started`` lines began, and those their
        ``result`` lines that name an agent returned, as
        `wftop.core.cost.tally.SpendTally.lines` takes them of the same records (a reader
        that keeps what its run spent hands them to its tally: the records are walked once,
        not twice)."""
        attempts, self._attempts = self._attempts, ([], [])
        return attempts

    def name(self, names: Mapping[str, tuple[str, str | None]]) -> bool:
        """`JournalFold.name`: the calls no line labelled take the label ``names`` holds for
        their latest agent (a row shows no phase)."""
        named = False
        for key in list(self.unlabelled):
            entry = self.entries[key]
            found = names.get(entry[_AGENT] or "")
            if found is not None:
                entry[_LABEL] = found[0]
                del self.unlabelled[key]
                named = True
        return named

    def snapshot(self) -> JournalFold:
        raise WholeCallsNotKept("a counting fold is not handed to another thread")

    def ordered_calls(self) -> list[Call]:
        raise WholeCallsNotKept("a counting fold keeps no whole calls: read the run in full")

    def agent_ids(self) -> set[str]:
        raise WholeCallsNotKept("a counting fold keeps no whole calls: read the run in full")
