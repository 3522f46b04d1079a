"""The quick secret test of a JSON-like value over its distinct strings, each tested once.

A resume plan's JSON lists each of its calls' labels five times (100,000 calls: 18.6 MB of
text, 0.6 MB of distinct strings): the quick test over the encoded text reads every byte of
it, this one reads each distinct key and string value once. Its answer is the one the
masking acts on: a string is masked only where `may_hold_secret` finds something in it
(or, for a value under a key naming a secret, in ``key: value``, where no literal can
straddle the ``: ``), and none of the literals holds a character JSON escapes, so what it
finds in a string it finds in the encoded text too.
"""

from __future__ import annotations

from collections.abc import Collection
from itertools import chain, compress, repeat
from operator import is_, itemgetter
from typing import Any

from wftop.core.read.deepjson import DeepJson
from wftop.core.text.prefilter import may_hold_secret

_PLAIN = frozenset((int, float, bool, type(None)))
"""Values with no string in them."""

_KNOWN = _PLAIN | {str, DeepJson}
"""Values this test answers for."""

_STR, _DICT = frozenset((str,)), frozenset((dict,))

HEAD = 64
"""A list of strings whose first so many differ is read as one text, not put in the set of
distinct strings (`_joined`)."""


def strings_may_hold_secret(value: Any) -> bool | None:
    """Whether `may_hold_secret` finds anything in a key or string of ``value`` (or in the
    text of a `DeepJson` in it), each distinct one tested once, the same list or dict
    walked once however often it appears. None: ``value`` holds something other than
    dicts, lists, strings, numbers, booleans, None and `DeepJson` (a tuple, an enum, a
    subclass of one of them), so this does not answer."""
    seen: set[Any] = set()
    runs: list[str] = []  # lists of strings that differ, each joined whole in C
    walked: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is not dict and kind is not list:
            try:
                seen.add(item)
            except TypeError:  # unhashable, and not a dict or a list
                return None
            continue
        if id(item) in walked:
            continue
        walked.add(id(item))
        if kind is dict:
            seen.update(item)  # its keys
            values: Collection[Any] = item.values()
        elif _joined(item, runs):
            continue
        else:
            values = item
        try:
            seen.update(values)  # no dict or list among them: in C
        except TypeError:
            if not _dicts_of_plain_values(values, seen, runs):
                stack.extend(values)
    kinds = list(map(type, seen))
    if not _KNOWN.issuperset(kinds):
        return None
    texts = list(compress(seen, map(is_, kinds, repeat(str))))  # in C, in the set's order
    if DeepJson in kinds:
        texts += [item.text for item in seen if type(item) is DeepJson]
    # No literal of the quick test holds a line break, nor does what must follow one.
    return may_hold_secret("\n".join([*runs, *texts]))


def _joined(strings: list[Any], runs: list[str]) -> bool:
    """Added ``strings`` to ``runs`` as one text when it is a list of strings whose first
    `HEAD` differ (a plan's 100,000 labels): put in the set of distinct strings, each is
    hashed and kept for a test that reads it once where the text reads it once too; False:
    it is not such a list (the set takes it)."""
    head = strings[:HEAD]
    if set(map(type, head)) != _STR or len(set(head)) < len(head):
        return False
    try:
        text = "\n".join(strings)
    except TypeError:  # not all strings
        return False
    if set(map(type, strings)) != _STR:  # no subclass (after the join: its strings in cache)
        return False
    runs.append(text)
    return True


def _dicts_of_plain_values(values: Collection[Any], seen: set[Any], runs: list[str]) -> bool:
    """Added the keys and values of ``values`` to ``seen`` when it is a list of dicts whose
    values hold no dict or list (a plan's 100,000 calls), in C; False: it is not. Dicts of
    the same keys (each holds every key of the first, and they hold as many keys as it
    times their number) give their values a key at a time: no view or iterator made of
    each (a plan's calls 0.043 -> 0.028 s), and a key's values that differ go to ``runs``
    whole (`_joined`: the calls' labels)."""
    if set(map(type, values)) != _DICT:
        return False
    keys = list(next(iter(values), ()))
    try:
        seen.update(keys)
        if sum(map(len, values)) == len(keys) * len(values):
            try:
                for key in keys:
                    column = list(map(itemgetter(key), values))
                    if not _joined(column, runs):
                        seen.update(column)
                return True
            except KeyError:  # as many keys, not the same ones
                pass
        seen.update(chain.from_iterable(values))
        seen.update(chain.from_iterable(map(dict.values, values)))
    except TypeError:
        return False
    return True
