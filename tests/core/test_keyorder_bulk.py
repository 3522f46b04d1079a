"""A failed run's forecast asks its timeline about every cached call for each miss: what
`Timeline.before` asks of the miss is asked once (`Timeline.not_before`), what the orderings
alone say once for both judges (`Timeline.not_first`), and a miss's settling end once for
every timeline of the same spans; the timeline's spans are made in one
loop and its calls that ran alone found from columns. Each answers as asking call by call
did (the oracles below are the definitions as they were written one by one)."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_plan_cost import grown, the_run
from wftop.core.forecast.inputs import gather
from wftop.core.forecast.instant import predict
from wftop.core.forecast.keyorder import Span, Timeline
from wftop.core.forecast.spans import JournalSpans, Orderings, find_cuts
from wftop.core.read.journal import JournalFold


def random_timeline(seed: int) -> tuple[Timeline, list[str]]:
    """Spans of overlapping calls, some in flight, some failed (their end only known to lie
    after their keying), ties of keying broken by ``seq`` or not, a few calls late or maybe
    live; and the keys asked about, one with no span among them."""
    rng = random.Random(seed)
    spans = {}
    for n in range(rng.randrange(2, 30)):
        keyed = rng.randrange(0, 40) + rng.choice([0, 0, 0.5])
        ended = None if rng.random() < 0.15 else keyed + rng.randrange(0, 12)
        ends_from = keyed + 0.25 if ended is not None and rng.random() < 0.2 else None
        spans[f"k{n}"] = Span(keyed, ended, rng.choice([0, 0, n]), ends_from)
    keys = list(spans)
    maybe_live = rng.sample(keys, rng.randrange(0, min(4, len(keys)) + 1))
    late = rng.sample(keys, rng.randrange(0, min(3, len(keys)) + 1))
    return Timeline(spans, maybe_live, late), [*keys, "nowhere"]


def settled_by_every_span(timeline: Timeline, a: str) -> float:
    """The first end of ``a`` or of a call keyed after it in its burst, each span asked."""
    spans = timeline.spans
    return min(
        (
            span.ended
            for key, span in spans.items()
            if span.ended is not None
            and (
                key == a or (span.rank > spans[a].rank and timeline.same_burst(a, key, sure=False))
            )
        ),
        default=math.inf,
    )


def after_by_every_span(timeline: Timeline, a: str, b: str) -> bool:
    if timeline.before(a, b):
        return True
    if a not in timeline.spans or b not in timeline.spans:
        return False
    return settled_by_every_span(timeline, a) < timeline.spans[b].keyed


@pytest.mark.parametrize("seed", range(200))
def test_the_bulk_questions_answer_as_asking_each_pair_did(seed: int) -> None:
    timeline, keys = random_timeline(seed)
    plain = Timeline(timeline.spans, like=timeline)  # the same orderings, nothing late
    for b in keys:
        assert timeline.not_before(keys, b) == [a for a in keys if not timeline.before(a, b)]
        unordered = plain.not_first(keys, b)
        assert unordered == plain.not_before(keys, b) == [a for a in keys if not plain.before(a, b)]
        assert timeline.not_before(keys, b, unordered) == timeline.not_before(keys, b)
    for a in keys:
        for b in keys:
            assert timeline.after(a, b) == after_by_every_span(timeline, a, b), (a, b)


def test_a_failed_runs_forecast_asks_its_timeline_once_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """300 cached calls before a failure: the judges ask `before` of no cached call one by
    one (they asked it of each, for each miss, twice), and a miss's settling end is worked
    out once for both of its timelines."""
    run = the_run(grown(tmp_path, "mid-failure", 300))
    asked: list[tuple[str, str]] = []
    settled: list[str] = []
    unordered: list[str] = []
    real_before, real_first_end = Timeline.before, Timeline._first_end_after
    real_not_first = Timeline.not_first

    def not_first(self: Timeline, keys: Any, b: str) -> list[str]:
        unordered.append(b)
        return real_not_first(self, keys, b)

    def before(self: Timeline, a: str, b: str) -> bool:
        asked.append((a, b))
        return real_before(self, a, b)

    def first_end(self: Timeline, a: str) -> float:
        settled.append(a)
        return real_first_end(self, a)

    monkeypatch.setattr(Timeline, "before", before)
    monkeypatch.setattr(Timeline, "_first_end_after", first_end)
    monkeypatch.setattr(Timeline, "not_first", not_first)
    forecast = predict(gather(run, cli_version=(2, 1, 332)), "resume-owner")
    assert len(forecast.calls) > 300 and forecast.rerun
    assert len(asked) < 20
    assert settled and len(settled) == len(set(settled))
    assert unordered and len(unordered) == len(set(unordered))  # once a miss, both judges


def test_the_forecast_of_a_failed_run_is_the_pairwise_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The failed run grown, forecast with the timeline's bulk questions and with each pair
    asked as before: the same fates and reasons."""
    run = the_run(grown(tmp_path, "mid-failure", 50))
    quick = predict(gather(run, cli_version=(2, 1, 332)), "resume-owner")

    def not_before(self: Timeline, keys: Any, b: str, unordered: Any = None) -> list[str]:
        return [a for a in keys if not self.before(a, b)]

    monkeypatch.setattr(Timeline, "not_before", not_before)
    monkeypatch.setattr(Timeline, "_settled", settled_by_every_span)
    assert quick.at_risk and quick.rerun
    assert predict(gather(run, cli_version=(2, 1, 332)), "resume-owner") == quick


def cuts_one_by_one(spans: dict[str, Span]) -> set[str]:
    """Calls that ran alone, each asked against every other call."""
    found = set()
    for key, span in spans.items():
        end = math.inf if span.ended is None else span.ended
        rank = (span.keyed, span.seq, list(spans).index(key))
        ranks = {other: (s.keyed, s.seq, at) for at, (other, s) in enumerate(spans.items())}
        earlier = [other for other in spans if ranks[other] < rank]
        later = [other for other in spans if ranks[other] > rank]
        ended_before = all(
            spans[other].ended is not None and spans[other].ended < span.keyed for other in earlier
        )
        # An end before the next keying (none after it: infinitely far): one in flight never.
        if ended_before and end < min((spans[other].keyed for other in later), default=math.inf):
            found.add(key)
    return found


def random_fold(seed: int) -> JournalFold:
    """Calls started, some returned or failed (a few twice), lines interleaved."""
    rng = random.Random(seed)
    fold = JournalFold()
    lines = []
    for n in range(rng.randrange(1, 25)):
        key = f"k{rng.randrange(0, 20)}"
        lines.append({"type": "started", "key": key, "agentId": f"a{n}"})
        if rng.random() < 0.8:
            kind = rng.choice(["result", "result", "failed"])
            lines.append({"type": kind, "key": key, "agentId": f"a{n}", "result": n})
    rng.shuffle(lines)
    for line, record in enumerate(lines, 1):
        fold.feed(line, record)
    return fold


@pytest.mark.parametrize("seed", range(200))
def test_a_timelines_spans_and_cuts_are_those_made_one_by_one(seed: int) -> None:
    timeline, _keys = random_timeline(seed)
    spans = dict(timeline.spans)
    assert find_cuts(spans) == cuts_one_by_one(spans)
    fold = random_fold(seed)
    lazy = JournalSpans(fold)
    lazy.get(next(iter(fold.calls), ""))  # one made already, as a walk makes them
    every = lazy.every()
    assert every == {key: lazy[key] for key in fold.calls}
    assert list(every) == list(fold.calls)
    assert all(type(span) is Span for span in every.values())
    assert Orderings.of(JournalSpans(fold)) == Orderings.of(dict(JournalSpans(fold)))
