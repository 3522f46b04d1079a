"""What a resume will cost: each forecast's calls priced as a range of dollars and tokens.

A call that will run live is estimated at its own last attempt's cost when that attempt
returned a result, otherwise at no less than the run's median call cost (a call a 429
rejected cost nothing, and will not cost nothing when it runs). A call at risk may be served
from cache or run: nothing at the low end, its last attempt at the high end. Calls the script
has not reached yet are counted from the exact rehearsal (it runs the whole script: so many
calls at the median), or before it is in, from the last completed run of the same script
(what its calls the journal does not know cost there); otherwise the high end is open and
says so (``≥ $0.42, calls after a5 unknown``).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping
from dataclasses import dataclass

from wftop.core.compared import compared
from wftop.core.cost.prices import price
from wftop.core.cost.runs import agents_spend, calls_spend
from wftop.core.cost.tokens import NOTHING, Spend, Tokens, total
from wftop.core.cost.usage import Spends
from wftop.core.forecast.cachewarm import TTL_1H, last_response
from wftop.core.forecast.costrange import CostRange
from wftop.core.forecast.fates import LIVE_FATES, Fate, Forecast, uncached
from wftop.core.forecast.median import median_of, weight
from wftop.core.index.cachefile import settled
from wftop.core.model import Run
from wftop.core.read.foldcall import Call
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import read_all
from wftop.core.read.snapshot import parse_iso_time, read_snapshot


def scaled(spend: Spend, times: int) -> Spend:
    """``times`` calls that each spend ``spend``."""
    tokens = spend.tokens
    return Spend(
        Tokens(
            tokens.input * times,
            tokens.output * times,
            tokens.cache_read * times,
            tokens.cache_write_5m * times,
            tokens.cache_write_1h * times,
        ),
        None if spend.cost_usd is None else spend.cost_usd * times,
        spend.unpriced_models,
        spend.messages * times,
    )


@compared
@dataclass(frozen=True, eq=False, repr=False)
class CallCosts:
    """What a run's calls cost when they last ran: the facts every forecast is priced from.

    A call whose transcript's spend the book holds is priced when first asked for
    (`last_of`, a look-up in ``book``): a forecast prices its live and at-risk calls one
    by one, and the median only the calls that returned, so a plan of 100,000 cached calls
    makes no table of them all. Any other call was priced as they were made (``found``):
    no look-up after it reads a file."""

    calls: Mapping[str, Call]
    """The run's calls by key."""
    book: Mapping[str, Spend]
    """The spend of each agent's transcript of the run's folder by agent id
    (`book_spend`)."""
    found: dict[str, tuple[Spend, bool]]
    """By key, the calls the book does not price, priced (`last_of`); the others are added
    as they are asked for."""
    median: Spend | None
    """The median over the last attempts of the calls that returned (`last_of`), by
    dollars, then tokens; None: none returned."""
    last_label: str | None
    """The last call the journal knows (where an open range says its knowledge ends)."""
    unreached: Spend | None = None
    """What the calls this journal never saw cost in the last completed run of the same
    script (None: no such run)."""
    unreached_from: str | None = None
    """That run's id."""

    def last_of(self, key: str) -> tuple[Spend, bool]:
        """What call ``key``'s last attempt spent (nothing for no call), and whether it
        returned a result whose transcript says what it cost (a result whose transcript is
        gone says nothing of its cost)."""
        found = self.found.get(key)
        if found is None:
            call = self.calls.get(key)
            spent = None if call is None else book_spend(call, self.book)
            found = (NOTHING, False)  # no such call (any other the book does not price: found)
            if call is not None and spent is not None:
                found = (spent, returned(call, spent))
            self.found[key] = found
        return found

    def of(self, key: str) -> Spend:
        """A call that runs live: its last attempt, if it returned; else no less than the
        median (None: nothing to go by)."""
        own, whole = self.last_of(key)
        if whole or self.median is None:
            return own
        return max(own, self.median, key=weight)


def estimate(forecast: Forecast, costs: CallCosts) -> CostRange:
    """The dollars and tokens of ``forecast``'s calls (`CallCosts.of`), plus those of the calls
    not reached yet where the rehearsal or an earlier run says how many or what they cost."""
    low: list[Spend] = []
    high: list[Spend] = []
    for call in uncached(forecast.calls):  # a call from cache costs nothing
        if call.fate in LIVE_FATES:
            spent = costs.of(call.key)
            low.append(spent)
            high.append(spent)
        elif call.fate is Fate.AT_RISK:
            high.append(costs.last_of(call.key)[0])
    basis = ""
    if forecast.more_live:
        if forecast.unreached_calls is not None and costs.median is not None:
            more = scaled(costs.median, forecast.unreached_calls)
            basis = "rehearsal"
        elif costs.unreached is not None:
            more = costs.unreached
            basis = f"run {costs.unreached_from}"
        else:
            return CostRange(total(low), None, "", costs.last_label)
        low.append(more)
        high.append(more)
    return CostRange(total(low), total(high), basis)


def returned(call: Call, spent: Spend) -> bool:
    """The call's last attempt returned its result, and ``spent``, what it cost, is not a
    lower bound (a transcript of it is gone)."""
    agents = call.agent_ids
    return (
        call.has_result
        and bool(agents)
        and call.result_agent_id == agents[-1]
        and not spent.missing
    )


def book_spend(call: Call, book: Mapping[str, Spend]) -> Spend | None:
    """What ``call``'s last attempt spent by ``book`` (a settled folder's agents' transcripts'
    spends by agent id); None when it does not say."""
    agents = call.agent_ids
    agent = agents[-1] if agents else None
    if type(agent) is not str:
        return None
    # As `agents_spend` adds it up: an id that is not one the CLI writes names no kept
    # transcript (no valid id's file name is that of another id).
    spent = book.get(agent)
    if spent is None or not spent.unpriced_models:
        return spent
    return NOTHING + spent


def call_costs(run: Run, spends: Spends | None = None) -> CallCosts:
    """What each call's last attempt spent, the median, and the last completed run of the
    same script (`previous_completed`) for the calls not reached yet: one pass over the
    calls, which reads the transcripts the book does not price."""
    spends = spends or Spends()
    calls = run.fold.ordered_calls()
    folder = run.folder.path
    book = (spends.settle(folder) if settled(run) else None) or {}
    found: dict[str, tuple[Spend, bool]] = {}
    done: list[Spend] = []  # the last attempts that returned, for their median
    get = book.get
    for call in calls:  # `book_spend` and `returned` of each call, with no call of either
        agents = call.agent_ids
        agent = agents[-1] if agents else None
        spent = get(agent) if type(agent) is str else None
        if spent is None:
            spent = agents_spend(folder, agents[-1:], spends, call.returned_agent_ids)
            found[call.key] = (spent, returned(call, spent))
        elif spent.unpriced_models:
            spent = NOTHING + spent
        if call.has_result and agents and call.result_agent_id == agent and not spent.missing:
            done.append(spent)
    median = median_of(done)
    unreached = unreached_from = None
    previous = previous_completed(run)
    if previous is not None:
        folder, fold = previous
        known = {call.label for call in calls}
        others = [call for call in fold.ordered_calls() if call.label not in known]
        unreached = calls_spend(folder, others, spends).total
        unreached_from = os.path.basename(folder)
    label = calls[-1].label if calls else None
    return CallCosts(run.fold.calls, book, found, median, label, unreached, unreached_from)


def previous_completed(run: Run) -> tuple[str, JournalFold] | None:
    """The run folder and journal fold of the newest other run of the same project with the
    same name whose snapshot says it completed (its script ran to its end)."""
    if not run.name:
        return None
    pattern = os.path.join(glob.escape(run.folder.project_dir), "*", "subagents", "workflows")
    candidates = []
    for workflows in glob.glob(pattern):
        for run_id in os.listdir(workflows) if os.path.isdir(workflows) else ():
            folder = os.path.join(workflows, run_id)
            if folder == run.folder.path or not run_id.startswith("wf_"):
                continue
            session_dir = os.path.dirname(os.path.dirname(workflows))
            snapshot, _ = read_snapshot(os.path.join(session_dir, "workflows", f"{run_id}.json"))
            if snapshot is None or snapshot.status != "completed" or snapshot.name != run.name:
                continue
            journal = os.path.join(folder, "journal.jsonl")
            try:
                moment = os.stat(journal).st_mtime
            except OSError:
                continue
            candidates.append((moment, folder, journal))
    if not candidates:
        return None
    _moment, folder, journal = max(candidates)
    return folder, JournalFold().feed_all(read_all(journal).records)


def cold_cache_cost(transcript: str) -> Spend | None:
    """What resending the owner session's conversation adds when its prompt cache is cold:
    its context (the last response's input, cache read and cache written tokens) written to
    the cache again instead of read from it, with the TTL the session used. None when the
    transcript holds no response."""
    found = last_response(transcript)
    if found is None:
        return None
    record, ttl = found
    message = record["message"]
    used = Tokens.of_usage(message["usage"])
    context = used.input + used.cache_read + used.cache_write_5m + used.cache_write_1h
    written = Tokens(cache_write_1h=context) if ttl == TTL_1H else Tokens(cache_write_5m=context)
    model = message.get("model")
    model = model if isinstance(model, str) else None
    when = parse_iso_time(record.get("timestamp"))
    cold, warm = price(model, written, when), price(model, Tokens(cache_read=context), when)
    if cold.cost_usd is None or warm.cost_usd is None:
        return Spend(written, None, cold.unpriced_models, 1)
    return Spend(written, cold.cost_usd - warm.cost_usd, (), 1)
