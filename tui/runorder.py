"""The runs in their order: newest activity first (`activity_key`), kept in place as runs
change (`Order`: a bisection a run, not a sort of them all), and the other orders of the
runs screen (`order_key`)."""

from __future__ import annotations

import bisect
import operator
from collections.abc import Callable, Iterable

from wftop.core.row import RunRow
from wftop.tui.format import ATTENTION_ORDER, rows_cost_total
from wftop.tui.haystack import Texts

RERUN_TOKENS = operator.attrgetter("rerun_tokens")
IDENT = operator.attrgetter("ident")


def activity_key(run: RunRow) -> tuple[object, ...]:
    """Newest activity first, then by the run's identity (no two runs have the same key)."""
    return (-(run.last_activity or 0.0), run.run_id, run.session_id, run.root, run.host or "")


class Order:
    """Runs in the order of `activity_key`, with their keys, moved in place by bisection;
    and the tokens their re-runs spent and what they cost, summed when first asked."""

    def __init__(self) -> None:
        self.runs: list[RunRow] = []
        self._keys: list[tuple[object, ...]] = []
        self._key_of: dict[str, tuple[object, ...]] = {}
        self._source: dict[str, tuple[object, ...]] | None = None
        """Where the keys are taken from when first needed (`ordered`)."""
        self._spent: int | None = None
        self._cost: str | None = None
        self._same: Order | None = None
        """An order of the same runs whose sums these are (`ordered`), until either moves."""
        self._texts: Texts | None = None
        """The runs' fields, in their order, the sums are made of (`ordered`) until they move."""

    @classmethod
    def of(cls, runs: list[RunRow]) -> Order:
        """``runs`` in order, each key made once and the runs placed by their places in
        ``runs`` sorted by key (the list's first drawing: 20,000 runs once the first read
        ends), where each run was paired with its key in a tuple sorted by key."""
        keys = list(map(activity_key, runs))
        places = sorted(range(len(runs)), key=keys.__getitem__)
        order = cls()
        order._keys = list(map(keys.__getitem__, places))
        order.runs = list(map(runs.__getitem__, places))
        order._key_of = dict(zip(map(IDENT, order.runs), order._keys, strict=True))
        return order

    @classmethod
    def ordered(
        cls,
        runs: list[RunRow],
        keys_from: Order,
        among: Order | None = None,
        texts: Texts | None = None,
    ) -> Order:
        """``runs``, already in order, keyed as ``keys_from`` keys them now (the keys are
        taken when first needed: `keyed` before ``keys_from`` moves); ``among``: the runs
        they were chosen from, whose sums they take (summed there once) when they are every
        one of them; ``texts``: the runs' `Texts`, summed instead of the rows."""
        order = cls()
        order.runs = runs
        order._source = keys_from.key_of
        order._texts = texts
        if among is not None and len(among.runs) == len(runs):
            order._same = among
        return order

    def keyed(self) -> None:
        """Take the keys of the runs (`ordered`) if not taken yet."""
        source = self._source
        if source is not None:
            self._keys = [source[run.ident] for run in self.runs]
            self._key_of = {run.ident: source[run.ident] for run in self.runs}
            self._source = None

    @property
    def keys(self) -> list[tuple[object, ...]]:
        self.keyed()
        return self._keys

    @property
    def key_of(self) -> dict[str, tuple[object, ...]]:
        self.keyed()
        return self._key_of

    @property
    def spent(self) -> int:
        """Tokens spent on re-runs of calls that had returned, over the runs."""
        if self._spent is None:
            same, texts = self._same, self._texts
            if same is not None:
                self._spent = same.spent
            elif texts is not None:
                self._spent = texts.spent()
            else:
                self._spent = sum(filter(None, map(RERUN_TOKENS, self.runs)))
        return self._spent

    def cost(self) -> str:
        """`rows_cost_total` of the runs (in this order)."""
        if self._cost is None:
            same, texts = self._same, self._texts
            if same is not None:
                self._cost = same.cost()
            elif texts is not None:
                self._cost = texts.cost()
            else:
                self._cost = rows_cost_total(self.runs)
        return self._cost

    def drop(self, idents: Iterable[str]) -> list[int]:
        """Take the runs of ``idents`` out; where each was, as it was taken out."""
        keys, key_of, runs = self.keys, self.key_of, self.runs
        taken: list[int] = []
        self._same = self._texts = None  # moved: its runs are its own now
        for ident in idents:
            key = key_of.pop(ident, None)
            if key is None:
                continue
            at = bisect.bisect_left(keys, key)
            if self._spent is not None:
                self._spent -= runs[at].rerun_tokens or 0
            self._cost = None
            del keys[at], runs[at]
            taken.append(at)
        return taken

    def put(
        self,
        runs: Iterable[RunRow],
        key_by_ident: Callable[[str], tuple[object, ...]] | None = None,
    ) -> list[int]:
        """Put ``runs`` in place (``key_by_ident``: their keys, made already); where each
        went, as it was put."""
        keys, key_of = self.keys, self.key_of
        self._same = self._texts = None
        placed: list[int] = []
        for run in runs:
            key = activity_key(run) if key_by_ident is None else key_by_ident(run.ident)
            at = bisect.bisect_left(keys, key)
            keys.insert(at, key)
            self.runs.insert(at, run)
            key_of[run.ident] = key
            if self._spent is not None:
                self._spent += run.rerun_tokens or 0
            self._cost = None
            placed.append(at)
        return placed


FIRST_KEYS: dict[str, Callable[[RunRow], int | str]] = {
    "status": lambda run: ATTENTION_ORDER.get(run.shown_status, 9),
    "name": lambda run: (run.name or "~").lower(),
    "project": lambda run: run.project_name.lower(),
}
"""What each order other than activity sorts by first (status: attention first)."""


def order_key(run: RunRow, sort: str) -> tuple[object, ...]:
    """A run's sort key under one of `SORTS`: newest activity first, then by the run's
    identity; status (attention first), name or project before that. `RunListView` sorts
    the activity order again by the first key alone, which gives the same order."""
    first = FIRST_KEYS.get(sort)
    return activity_key(run) if first is None else (first(run), *activity_key(run))
