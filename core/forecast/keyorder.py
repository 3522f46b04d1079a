"""The order in which a resume keys a run's calls, as far as the damaged run can tell.

`keying_order` is the damaged run's own order (the snapshot's call index, else the journal's).
A resume serves cache hits without waiting, so it keys calls in an order of its own: a later
stage of one pipeline item can come before an earlier stage of another. `Timeline` knows the
orderings that survive that (`Timeline.before`):

* calls keyed in one burst keep their order: before any call ended, or after a call that ran
  alone and before the next call ended. (A result reaches the script a little after its call
  ends, so after concurrent calls the keyings of one gap may follow different results.)
* a call that ran alone (every call keyed before it had ended, every call keyed after it came
  after its end) comes before every later call;
* a call keyed before any call the resume may run live had ended waited on hits alone, so it
  comes before a call that waits on a live call's result.

`Timeline.after` is looser, for re-runs only: a call keyed after a miss (or its burst-mates)
ended counts as keyed after it. The times are the spans' (`wftop.core.forecast.spans`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Collection, Iterable, Mapping, Sequence

from wftop.core.forecast.launchinfo import chain_family
from wftop.core.forecast.spans import Orderings as Orderings
from wftop.core.forecast.spans import Span as Span
from wftop.core.forecast.spans import journal_spans as journal_spans
from wftop.core.forecast.spans import snapshot_spans as snapshot_spans
from wftop.core.model import Run
from wftop.core.read.journal import Call


def keying_order(run: Run) -> tuple[list[Call], str]:
    """Calls in the order the resumed script will key them.

    The snapshot's ``index`` is the call number in invocation order; without one the
    order of first appearance in the journal stands in. Either is the damaged run's order,
    not the resume's: `predict` doubts what it cannot settle.
    """
    calls = run.fold.ordered_calls()
    if run.snapshot is None or not run.snapshot.rows:
        return calls, "journal"
    index_of = {row.agent_id: row.index for row in run.snapshot.rows if row.agent_id}
    positions = {}
    for call in calls:
        known = [index_of[agent] for agent in call.agent_ids if agent in index_of]
        if call.result_agent_id in index_of:
            known.append(index_of[call.result_agent_id])
        if not known:  # a call the snapshot does not place: no call is looked at after it
            return calls, "journal"
        positions[call.key] = min(known)
    return sorted(calls, key=lambda call: (positions[call.key], call.order)), "snapshot"


def chain_differs(writer: tuple[int, int, int] | None, runner: tuple[int, int, int] | None) -> bool:
    """Whether the resuming CLI keys parallel calls differently from the journal's writer."""
    if writer is None or runner is None or writer == runner:
        return False
    families = {chain_family(writer), chain_family(runner)}
    return families != {"linear"} and families != {"slots"}


class Timeline:
    """Orderings of a resume's keying that the damaged run's spans make sure (`before`), or
    likely enough to count a call as re-run (`after`)."""

    def __init__(
        self,
        spans: Mapping[str, Span],
        maybe_live: Collection[str] = (),
        late: Collection[str] = (),
        *,
        like: Timeline | None = None,
    ) -> None:
        """``maybe_live``: the calls the resume may run live; ``late``: calls keyed only once
        a live call returns (a prompt that embeds a re-run result); ``like``: a timeline of
        the same spans, whose orderings of them are taken, not worked out again."""
        self.orderings: Orderings = like.orderings if like is not None else Orderings.of(spans)
        self.spans: dict[str, Span] = self.orderings.spans
        self.cuts: set[str] = self.orderings.cuts
        self._ends = self.orderings.ends
        self._unsure_ends = self.orderings.unsure_ends
        self._cut_ends = self.orderings.cut_ends
        ends = [self.spans[key].earliest_end for key in maybe_live if key in self.spans]
        self._instant_until = min((end for end in ends if end is not None), default=math.inf)
        """A call keyed before then waited on nothing the resume runs live."""
        self._late = set(late)
        self._settled_at = self.orderings.settled_at

    def same_burst(self, a: str, b: str, *, sure: bool = True) -> bool:
        """No call ended between the keying of ``a`` and of ``b``; when ``sure``, also no
        result but one could reach the script then: they came before any call ended, or just
        after a call that ran alone. (A result reaches the script a little after its call
        ends, so after concurrent calls the keyings of one gap may follow different results.)
        """
        low, high = sorted((self.spans[a].keyed, self.spans[b].keyed))
        count = bisect.bisect_left(self._ends, low)
        if count != bisect.bisect_right(self._ends, high):
            return False
        if any(first <= high and last >= low for first, last in self._unsure_ends):
            return False
        return not sure or count == 0 or self._ends[count - 1] in self._cut_ends

    def before(self, a: str, b: str) -> bool:
        """Whether the resume surely keys ``a`` before ``b``: in one burst, ``a`` first; ``a``
        ran alone and ``b`` came later; or ``a`` waited on hits alone and ``b`` is late."""
        if a not in self.spans or b not in self.spans or a == b:
            return False
        earlier = self.spans[a].rank < self.spans[b].rank
        if earlier and (a in self.cuts or self.same_burst(a, b)):
            return True
        return b in self._late and self.spans[a].keyed < self._instant_until

    def not_before(
        self, keys: Iterable[str], b: str, unordered: list[str] | None = None
    ) -> list[str]:
        """The keys ``a`` of ``keys`` that the resume may not key before ``b`` (``not
        before(a, b)``), in their order: what `before` asks of ``b`` asked once, not once
        for each of them (a failed run's forecast asks it of 100,000 cached calls for each
        miss). ``unordered``: `not_first` of ``keys`` and ``b``, when a timeline of the same
        orderings asked it already (its questions are of the orderings alone)."""
        found = self.not_first(keys, b) if unordered is None else unordered
        spans = self.spans
        if b not in spans or b not in self._late:
            return list(found)
        until = self._instant_until
        kept = []
        for a in found:  # `before`'s last test: ``a`` waited on hits alone, ``b`` is late
            span = spans.get(a)
            if span is not None and a != b and span.keyed < until:
                continue
            kept.append(a)
        return kept

    def not_first(self, keys: Iterable[str], b: str) -> list[str]:
        """The keys ``a`` of ``keys`` (in their order) that the orderings do not put surely
        before ``b``: ranked first, and ran alone or keyed in one burst with ``b`` (what
        `before` asks before whether ``b`` is late). What it asks of ``b`` (its span, the
        ends around its keying) is asked once."""
        spans = self.spans
        span_b = spans.get(b)
        if span_b is None:
            return list(keys)
        rank_b, keyed_b = span_b.rank, span_b.keyed
        ends, cuts, bisect_left = self._ends, self.cuts, bisect.bisect_left
        # `same_burst(a, b)` of an ``a`` ranked first (so keyed no later): no end between
        # the two keyings, none only known to lie around them, and the end before them is
        # that of a call that ran alone (or there is none).
        edge = bisect.bisect_right(ends, keyed_b)
        burst = edge == 0 or ends[edge - 1] in self._cut_ends
        lasts = [last for first, last in self._unsure_ends if first <= keyed_b]
        found = []
        for a in keys:
            span = spans.get(a)
            if span is None or a == b:
                found.append(a)
                continue
            keyed = span.keyed
            if (keyed, span.seq) < rank_b and (
                a in cuts
                or (
                    burst
                    and bisect_left(ends, keyed) == edge
                    and not any(last >= keyed for last in lasts)
                )
            ):
                continue
            found.append(a)
        return found

    def after(self, a: str, b: str) -> bool:
        """Whether ``b`` is keyed after ``a``, near enough to count it as a re-run: surely, or
        keyed after ``a`` (or a call keyed after it in its burst) had ended."""
        if self.before(a, b):
            return True
        if a not in self.spans or b not in self.spans:
            return False
        return self._settled(a) < self.spans[b].keyed

    def _loose(self, a: str, b: str) -> bool:
        return self.same_burst(a, b, sure=False)

    def _settled(self, a: str) -> float:
        """The first end of ``a`` or of a call keyed after it in its burst (each call asked
        once for every span, what `same_burst` asks of ``a`` asked once: a failed run's
        forecasts ask it of each miss over 100,000 spans)."""
        found = self._settled_at.get(a)
        if found is None:
            found = self._settled_at[a] = self._first_end_after(a)
        return found

    def _first_end_after(self, a: str) -> float:
        """`_settled` made: the least end among ``a``'s own and those of the calls ranked
        after it that `same_burst` (not ``sure``) puts in its burst. Of a call ranked after
        ``a`` (so keyed no earlier), that asks: no end between the two keyings, and none
        only known to lie around them."""
        spans, ends = self.spans, self._ends
        span_a = spans[a]
        rank_a, keyed_a = span_a.rank, span_a.keyed
        edge = bisect.bisect_left(ends, keyed_a)
        firsts = [first for first, last in self._unsure_ends if last >= keyed_a]
        bisect_right = bisect.bisect_right
        least: float | None = None  # as `min` takes them: an end replaces a greater one
        for key, span in spans.items():
            ended = span.ended
            if ended is None or (least is not None and not ended < least):
                continue  # it would not be the least: not asked whether it counts
            if key == a:
                least = ended
                continue
            keyed = span.keyed
            if (
                (keyed, span.seq) > rank_a
                and bisect_right(ends, keyed) == edge
                and not any(first <= keyed for first in firsts)
            ):
                least = ended
        return math.inf if least is None else least


def doubts(
    spans: Mapping[str, Span],
    labels: Mapping[str, str],
    *,
    cached: Sequence[str],
    rerun: Sequence[str],
    misses: Sequence[str],
    late: Collection[str],
    quiet: Collection[str],
    live: Collection[str],
    timeline: Timeline | None = None,
) -> dict[str, str]:
    """Why the timeline cannot back each walked fate it cannot back (call key → reason).

    Args:
        cached: calls the walk serves from cache; rerun: calls with a result it re-runs
            after the first miss; misses: calls that end reuse themselves; late: misses
            keyed only once a live call returns; quiet: failures the resume re-runs without
            ending reuse; live: every call the walk runs live.
        timeline: ``Timeline(spans)``, when one was made (a plan's forecasts share it).
    """
    failures = sorted((_end_of(spans.get(key)), labels[key]) for key in quiet)
    if not failures and not misses:
        return {}  # nothing ends reuse, so nothing re-runs after it either

    unordered: dict[str, list[str]] = {}  # by miss: `Timeline.not_first` of the cached calls
    # (of the orderings alone: the two judges' timelines share them)

    def judge(timeline: Timeline) -> dict[str, str]:
        found = {}
        first_unsure: dict[str, str] = {}  # a cached call → the first miss not surely after it
        for miss in reversed(misses):
            if miss not in unordered:
                unordered[miss] = timeline.not_first(cached, miss)
            for key in timeline.not_before(cached, miss, unordered[miss]):
                first_unsure[key] = miss
        for key in cached:
            failed = None
            if failures:
                span = spans.get(key)
                for end, n in failures:
                    if span is None or span.keyed >= end:
                        failed = n
                        break
            unsure = first_unsure.get(key)
            if failed:
                found[key] = (
                    f"keyed after {failed} failed: its prompt may embed {failed}'s new result, "
                    "or a call the failure skipped may end reuse before it"
                )
            elif unsure:
                found[key] = f"the resume may key it after {labels[unsure]}, which ends reuse"
        for key in rerun:
            if not any(timeline.after(miss, key) for miss in misses):
                found[key] = f"the resume may key it before {labels[misses[0]]}, which ends reuse"
        return found

    # A call at risk may run live too: only then is it known which calls waited on hits alone.
    timeline = Timeline(spans) if timeline is None else timeline
    spans = timeline.spans  # the same spans, every one made: no lazy look-up for each call
    first = judge(timeline)
    return judge(Timeline(spans, [*live, *first], late, like=timeline))


def _end_of(span: Span | None) -> float:
    """When a failure ended (its keying when the timeline has no end for it)."""
    if span is None:
        return -math.inf
    end = span.earliest_end
    return span.keyed if end is None else end
