"""Views of a growing fold that later lines leave as they were, at a cost that does not grow
with the fold.

A `wftop.core.read.journal.JournalFold.snapshot` hands the fold as it is now to whoever reads
it (another thread, a change set) while the fold goes on taking lines. Copying its tables
for that cost what the run had made (a run of 50,000 calls: half a millisecond a line, and
a live index snapshots at every change); these views share them instead:

* `FrozenTable`: the calls by key. The fold keeps its calls in their order in chunks of
  `CHUNK_BITS` (`Chunks`) and copies one chunk, not the table, the first time a line changes one
  of its calls after a snapshot. A snapshot keeps the list of chunks as it was (a pointer a
  chunk) and finds a call by its order, which never changes, through the fold's own key
  table: that table is looked up, never walked, so the fold may add keys to it meanwhile
  (a dict's get and set are each one step under the interpreter lock).
* `Prefix`: a list the fold only ever appends to, as long as it was.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from typing import Any, Generic, Protocol, TypeVar, overload

CHUNK_BITS = 8
"""A chunk holds 2 ** CHUNK_BITS calls: a change after a snapshot copies that many pointers,
and a snapshot holds one pointer per that many calls."""


class Ordered(Protocol):
    """What a table holds: an item with a key and a place that never change."""

    @property
    def key(self) -> str: ...

    @property
    def order(self) -> int: ...


Item = TypeVar("Item", bound=Ordered)
Value = TypeVar("Value")


class Chunks(Generic[Item]):
    """A fold's calls in their order, cut in chunks, and which chunks no snapshot shares."""

    __slots__ = ("_chunks", "_own")

    def __init__(self, items: Iterable[Item]) -> None:
        every, size = list(items), 1 << CHUNK_BITS
        self._chunks = [every[at : at + size] for at in range(0, len(every), size)]
        self._own: set[int] = set()

    def freeze(self) -> list[list[Item]]:
        """The chunks as they are now, kept so: later `put`s copy a chunk before changing it."""
        self._own = set()
        return list(self._chunks)

    def put(self, item: Item) -> None:
        """Place an item at its order: a new one (the next order), or one that replaces an
        item of that order."""
        order = item.order
        at = order >> CHUNK_BITS
        chunks = self._chunks
        if at == len(chunks):
            chunks.append([item])
            self._own.add(at)
            return
        chunk = chunks[at]
        if at not in self._own:
            chunk = chunks[at] = chunk.copy()
            self._own.add(at)
        slot = order & ((1 << CHUNK_BITS) - 1)
        if slot == len(chunk):
            chunk.append(item)
        else:
            chunk[slot] = item


class FrozenTable(Mapping[str, Item]):
    """The first ``count`` items of a table as `Chunks.freeze` kept them, by key."""

    __slots__ = ("_index", "_chunks", "_count")

    def __init__(self, index: Mapping[str, Item], chunks: list[list[Item]], count: int) -> None:
        self._index = index
        """The live table by key (only its items' orders are read)."""
        self._chunks = chunks
        self._count = count

    def __getitem__(self, key: str) -> Item:
        live = self._index.get(key)
        if live is None or live.order >= self._count:
            raise KeyError(key)
        order = live.order
        return self._chunks[order >> CHUNK_BITS][order & ((1 << CHUNK_BITS) - 1)]

    def __contains__(self, key: object) -> bool:
        live = self._index.get(key) if isinstance(key, str) else None
        return live is not None and live.order < self._count

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return (item.key for item in self.ordered())

    def ordered(self) -> Iterator[Item]:
        for chunk in self._chunks:
            yield from chunk

    def values(self) -> ValuesView[Item]:
        return _Values(self)

    def items(self) -> ItemsView[str, Item]:
        return _Items(self)


class _Values(ValuesView[Item]):
    _mapping: FrozenTable[Item]

    def __iter__(self) -> Iterator[Item]:
        return self._mapping.ordered()


class _Items(ItemsView[str, Item]):
    _mapping: FrozenTable[Item]

    def __iter__(self) -> Iterator[tuple[str, Item]]:
        return ((item.key, item) for item in self._mapping.ordered())


class Prefix(Sequence[Value]):
    """The first ``length`` items of a list that is only ever appended to."""

    __slots__ = ("_items", "_length")

    def __init__(self, items: list[Value], length: int) -> None:
        self._items = items
        self._length = length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Value: ...

    @overload
    def __getitem__(self, index: slice) -> list[Value]: ...

    def __getitem__(self, index: int | slice) -> Value | list[Value]:
        if isinstance(index, slice):
            return self._items[: self._length][index]
        return self._items[range(self._length)[index]]

    def __iter__(self) -> Iterator[Value]:
        items = self._items
        return (items[at] for at in range(self._length))

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))
