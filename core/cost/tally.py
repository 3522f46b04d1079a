"""What a run's attempts spent, kept as its journal grows and its transcripts change.

`wftop.core.cost.runs.run_spend` reads every attempt's transcript (a stat for each kept
one). A live index that asked it at every change read them all at every line: a run of
10,000 calls cost 44 ms of CPU a line. `SpendTally` reads an attempt's transcript when its
``started`` line comes and again when the transcript is said to have changed, and keeps the
sum as exact counts and an exact sum of dollars (`units`), taking back what a transcript
said before when it says something else: so its total is always `exact_total` of every
attempt, what `run_spend` gives read whole.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from wftop.core.cost.gone import elsewhere
from wftop.core.cost.shelf import Stamp
from wftop.core.cost.spendbook import FolderStamp, SpendBook
from wftop.core.cost.tokens import NOTHING, TOKEN_FIELDS, Spend, Tokens
from wftop.core.cost.usage import stamped_spend, unstamped_spend
from wftop.core.read.agent_transcript import transcript_path
from wftop.core.read.journal import call_key

UNIT_BITS = 1074
"""A float is a whole number of 2 ** -1074 (its smallest step): dollars are summed in that
unit, exactly, as a Python integer."""


def units(value: float) -> int:
    """``value`` in 2 ** -1074 steps, exactly."""
    numerator, denominator = value.as_integer_ratio()
    return numerator << (UNIT_BITS + 1 - denominator.bit_length())


class ExactSum:
    """A sum of spends that can be taken back: counts, and dollars summed exactly (`units`)."""

    def __init__(self) -> None:
        self.tokens = [0] * len(TOKEN_FIELDS)
        self.messages = 0
        self.dollars = 0
        """In `units`."""
        self.unknown = 0
        """How many of the spends had no dollar figure."""
        self.unpriced: dict[str, int] = {}
        """Models without a price → how many of the spends named them (a dict, not a
        `Counter`: made for every run a listing reads, a Counter cost 7,500 instructions)."""

    def add(self, spend: Spend | None, times: int) -> None:
        """Add ``spend`` ``times`` times (a negative ``times`` takes it back)."""
        if spend is None or not times or spend is NOTHING:
            return  # an agent that spent nothing spends the one NOTHING (another adds 0)
        tokens = self.tokens
        for place, count in enumerate(spend.tokens.counts()):
            tokens[place] += times * count
        self.messages += times * spend.messages
        if spend.cost_usd is None:
            self.unknown += times
        else:
            self.dollars += times * units(spend.cost_usd)
        unpriced = self.unpriced
        for model in spend.unpriced_models:
            unpriced[model] = unpriced.get(model, 0) + times

    def spend(self) -> Spend:
        """The sum; `NOTHING` itself where nothing was spent (what a run whose transcripts
        hold no usage yet sums to: no `Tokens` and `Spend` made, 25,000 instructions)."""
        unpriced = (
            tuple(sorted(model for model, n in self.unpriced.items() if n > 0))
            if self.unpriced
            else ()
        )
        if not (self.messages or self.dollars or self.unknown or unpriced or any(self.tokens)):
            return NOTHING
        cost = None if self.unknown or unpriced else self.dollars / (1 << UNIT_BITS)
        return Spend(Tokens(*self.tokens), cost, unpriced, self.messages)


class SpendTally:
    """Every attempt of one run and what its transcript spent (see the module)."""

    def __init__(self, book: SpendBook | None = None, *, once: bool = False) -> None:
        self.book = book
        """Where what transcripts spent is kept between processes (None: read each)."""
        self._stamped = book is not None or not once
        """Each transcript's stamp is taken as it is read, to tell later whether it changed:
        not for a tally read ``once`` (a cold pass's reader, let go after its row) without a
        book, whose transcripts are read again if they are said to have changed."""
        self._times: dict[str, int] = {}
        """Attempts per agent (one, save in a damaged journal)."""
        self._known: dict[str, tuple[Stamp | None, Spend | None]] = {}
        """Agent → its transcript's stamp and spend as last read, counted in the sum."""
        self._pending: set[str] = set()
        """Agents to read (again) at the next `total`, not counted in the sum."""
        self._sum = ExactSum()
        self._returned: dict[str, int] = {}
        """Agents the journal holds a result of under the call they started in → how many of
        their attempts returned so (each attempt started under a call that has its result:
        a damaged journal may start one agent twice under one key, and every attempt counts,
        as the run's spend counts them)."""
        self._starts: dict[tuple[str, str], int] = {}
        """(call key, agent) of every attempt started → how many times."""
        self._results: set[tuple[str, str]] = set()
        """(call key, agent) of every result line."""
        self._absent: dict[str, bool | None] = {}
        """Agents whose transcript could not be read at the last read → whether it is in
        another session's folder (`wftop.core.cost.gone.elsewhere`; None: not asked yet)."""
        self._unasked: set[str] = set()
        """Agents absent and returned, not asked `elsewhere` yet."""
        self._gone = 0
        """Agents absent and returned (a transcript is missing or elsewhere)."""
        self._missing = 0
        """Agents absent and returned and not elsewhere: what `total` says is missing (kept
        as agents come and go, so a total costs what changed, not every absent agent)."""
        self._folder: FolderStamp | None = None
        """The run folder's stamp, taken before the first transcript was looked up (with a
        book), while no transcript was said to have changed since (`vouch`)."""
        self._spoiled = False
        """A transcript was said to have changed, or the first read took no stamp."""
        self.seen: Callable[[str, bytes], None] | None = None
        """Told each transcript read (its path and bytes), where one is given."""

    def started(self, attempts: Iterable[tuple[str, str]]) -> None:
        """Attempts the journal gained, by their call's key and agent."""
        starts, results, times = self._starts, self._results, self._times
        known, pending = self._known, self._pending
        for attempt in attempts:
            starts[attempt] = starts.get(attempt, 0) + 1
            agent = attempt[1]
            if attempt in results:
                self._return(agent, 1)
            times[agent] = times.get(agent, 0) + 1
            kept = known.get(agent)
            if kept is not None and agent not in pending:
                self._sum.add(kept[1], 1)
            else:
                pending.add(agent)

    def lines(self, records: Iterable[tuple[int, dict[str, Any]]]) -> None:
        """`started` and `returned` of the journal's new records (line number, record), read
        in one pass: the attempts of its ``started`` lines, then its ``result`` lines that
        name an agent."""
        starts: list[tuple[str, str]] = []
        results: list[tuple[str, str]] = []
        for _line, record in records:
            kind = record.get("type")
            if kind == "started":
                agent = record.get("agentId")
                starts.append((call_key(record), agent if type(agent) is str else ""))
            elif kind == "result":
                agent = record.get("agentId")
                if type(agent) is str:
                    results.append((call_key(record), agent))
        self.started(starts)
        self.returned(results)

    def returned(self, attempts: Iterable[tuple[str, str]]) -> None:
        """Result lines, by their call's key and agent: an attempt that returned under the
        call it started in and has no transcript is missing (as the fold files them: a result
        naming no key is a call of its own, not a return of the attempt)."""
        for attempt in attempts:
            if attempt in self._results:
                continue  # a result line again: its attempts returned already
            self._results.add(attempt)
            started = self._starts.get(attempt)
            if started:
                self._return(attempt[1], started)

    def _return(self, agent: str, attempts: int) -> None:
        """``attempts`` more attempts of ``agent`` returned under the call they started in."""
        before = self._returned.get(agent, 0)
        self._returned[agent] = before + attempts
        if agent in self._absent:
            if before:
                if self._absent[agent] is False:
                    self._missing += attempts
            else:
                self._absent_returned(agent)

    def _absent_returned(self, agent: str) -> None:
        """``agent`` is absent and returned now (it was not both)."""
        self._gone += 1
        asked = self._absent[agent]
        if asked is None:
            self._unasked.add(agent)
        elif not asked:
            self._missing += self._returned[agent]

    def _not_absent(self, agent: str) -> None:
        if agent not in self._absent:
            return
        asked = self._absent.pop(agent)
        if agent in self._returned:
            self._gone -= 1
            self._unasked.discard(agent)
            if asked is False:
                self._missing -= self._returned[agent]

    def changed(self, agent_ids: Iterable[str] | None = None) -> None:
        """Transcripts that may have changed (None: every one): read again at the next
        `total`."""
        self._spoiled, self._folder = True, None
        for agent in self._times if agent_ids is None else agent_ids:
            times = self._times.get(agent)
            if times is None or agent in self._pending:
                continue
            self._sum.add(self._known[agent][1], -times)
            self._pending.add(agent)

    def total(self, folder: str) -> Spend:
        """What every attempt spent (their transcripts in run folder ``folder``)."""
        if self.book is not None and not self._spoiled and self._folder is None:
            self._folder = _folder_stamp(folder) if self._pending and not self._known else None
            self._spoiled = self._folder is None
        once = self.book is None and not self._stamped  # read as it is, no stamp kept
        seen, absent = self.seen, self._absent
        for agent in self._pending:
            path = transcript_path(folder, agent)
            known = self._known.get(agent)
            stamp: Stamp | None = None
            spent: Spend | None = None
            if path is not None and known is not None and known[0] is not None:
                stamp = _stamp(path)  # read before: read again only when it changed
                if stamp == known[0]:
                    spent = known[1]
                elif stamp is not None:
                    stamp, spent = self._read(path, stamp)
            elif path is not None:
                if once:
                    spent = unstamped_spend(path, seen)
                else:
                    stamp, spent = self._read(path, None)
            self._known[agent] = (stamp, spent)
            self._sum.add(spent, self._times[agent])
            if spent is None and path is not None:
                if agent not in absent:
                    absent[agent] = None
                    if agent in self._returned:
                        self._absent_returned(agent)
            elif agent in absent:
                self._not_absent(agent)
        self._pending.clear()
        spent = self._sum.spend()
        if not self._gone:
            return spent
        for agent in self._unasked:  # asked once each: the project's other sessions are listed
            there = self._absent[agent] = elsewhere(folder, agent)
            if not there:
                self._missing += self._returned[agent]
        self._unasked.clear()
        return replace(spent, missing=self._missing)

    def vouch(self, folder: str) -> None:
        """Vouch in the book for run folder ``folder`` (`SpendBook.vouch`) at its stamp taken
        before its transcripts were first looked up, every one of them checked against its
        own stamp since and none said to have changed. Only for a settled run
        (`wftop.core.index.cachefile.settled`): its transcripts change only with a file
        made, removed or replaced, which changes the folder's stamp (see
        `wftop.core.cost.usage.Spends.settle`). A listing that read the run leaves it so
        that the run's first plan need not ``stat`` each transcript again."""
        if self.book is not None and self._folder is not None and not self._spoiled:
            self.book.vouch(folder, self._folder)

    def _read(self, path: str, stamp: Stamp | None) -> tuple[Stamp | None, Spend | None]:
        """Transcript ``path``'s stamp and spend: the book's while the stamp it keeps holds,
        else read (its stamp the open file's: a transcript not read yet, that the book
        keeps nothing of, costs no ``stat`` first: a person's first listing of 5,000 runs
        read 32,165)."""
        if self.book is not None and (stamp is not None or self.book.holds(path)):
            stamp = stamp or _stamp(path)
            if stamp is None:
                return None, None
            kept = self.book.get(path, stamp)
            if kept is not None:
                return stamp, kept
        if not self._stamped:
            return None, unstamped_spend(path, self.seen)
        read = stamped_spend(path, self.seen)
        if read is None:
            return None, None
        if self.book is not None:
            self.book.put(path, *read)
        return read


def _folder_stamp(folder: str) -> FolderStamp | None:
    try:
        info = os.stat(folder)
    except (OSError, ValueError):
        return None
    return (info.st_ino, info.st_mtime_ns)


def _stamp(path: str) -> Stamp | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ino)
