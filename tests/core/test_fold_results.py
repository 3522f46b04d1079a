"""What a fold keeps of each call's result: an object or array as compact text, read back
equal; what JSON cannot write back the same, as it was read."""

from __future__ import annotations

import math

import orjson

from tests.memory_kit import held
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonline import parse_lenient


def fed(results: list[object]) -> JournalFold:
    fold = JournalFold()
    for number, result in enumerate(results):
        key = f"v2:k{number}"
        fold.feed(2 * number + 1, {"type": "started", "key": key, "agentId": f"a{number}"})
        fold.feed(2 * number + 2, {"type": "result", "key": key, "result": result})
    return fold


def test_every_result_reads_back_as_it_was_read():
    results = [
        {"agent": "a1", "ok": True, "n": 1, "nested": [1, {"x": None}]},
        [1, "two", None],
        "a plain text result",
        42,
        None,
        {},
        parse_lenient(b'{"big": 1e999}'),  # an infinity, as JSON.parse reads it
        parse_lenient(b'{"text": "\\ud800 lone"}'),  # a lone surrogate
    ]
    fold = fed(results)
    back = [call.result for call in fold.calls.values()]
    assert back[:6] == results[:6]
    assert math.isinf(back[6]["big"])
    assert back[7] == results[7]


def test_a_fold_holds_small_object_results_as_their_text():
    """A run list holds the result of every call of every run, each parsed from its line."""

    def lines(result: str) -> list[bytes]:
        return [
            line
            for n in range(2000)
            for line in (
                b'{"type":"started","key":"v2:k%d","agentId":"a%d"}' % (n, n),
                b'{"type":"result","key":"v2:k%d","result":%s}' % (n, result.encode()),
            )
        ]

    def folded(raw: list[bytes]) -> tuple[JournalFold, int]:
        def fold() -> JournalFold:
            made = JournalFold()
            for number, line in enumerate(raw, 1):
                made.feed(number, orjson.loads(line))
            return made

        return held(fold)

    with_results, kept = folded(lines('{"agent":"a1","ok":true,"n":7}'))
    without, bare = folded(lines("null"))
    assert len(with_results.calls) == len(without.calls) == 2000
    per_result = (kept - bare) / 2000
    assert per_result < 100, per_result  # parsed: about 300 bytes each


def test_a_call_of_one_attempt_holds_its_attempt_in_a_few_bytes():
    """A run list holds every call of every run, nearly all of them of one attempt: its
    agent ids and line numbers are held as they are, not in lists with room to grow."""

    lines = []
    for number in range(2000):
        agent = f"a{number}"
        lines.append({"type": "started", "key": f"v2:k{number}", "agentId": agent})
        lines.append({"type": "result", "key": f"v2:k{number}", "agentId": agent})

    def fold() -> JournalFold:
        made = JournalFold()
        for number, record in enumerate(lines, 1):
            made.feed(number, record)
        return made

    folded, kept = held(fold)
    per_call = kept / len(folded.calls)
    # Its key and agent id strings, the call and the fold's dicts are most of it (about 465
    # bytes, counted with the free lists emptied: every tuple a block of its own); the three
    # lists the attempt was kept in took 120 more (about 585).
    assert per_call < 500, per_call
