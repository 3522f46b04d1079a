"""One directory's entries in the spend book (`wftop.core.cost.spendbook`): what each of
its transcripts spent by file name and stamp, each spend kept once, and the directory's own
stamp when they were last vouched for; and how a spend is written in the book's file.

The file writes a directory's entries as columns (`COLUMNS`: the names, then each part of
the stamps and the spend of each), not as an object of 100,000 small arrays: orjson reads
a run folder of 100,000 transcripts' columns in a third of the time (0.024 s, where the
arrays took 0.074 s), and a folder vouched for is priced from them without a list per file
(`Shelf.table`). The entries by name (`Shelf.files`) are made from them when first asked
for (a stamp compared, an entry added or dropped).
"""

from __future__ import annotations

from typing import Any

from wftop.core.cost.tokens import Spend, Tokens

Stamp = tuple[int, int, int]
"""A transcript's size, modification time (ns) and inode."""

Entry = list[int]
"""A transcript's ``[size, mtime_ns, inode, spend]``: ``spend`` indexes its directory's
list of spends (``[input, output, cache_read, cache_write_5m, cache_write_1h, cost_usd |
null, [unpriced models], messages]``), each spend written once however many transcripts
spent it."""

COLUMNS = ("names", "sizes", "mtimes", "inodes", "at")
"""A directory's entries in the file: lists of the same length, an `Entry` a row (by name)."""

Columns = tuple[list[Any], ...]
"""`COLUMNS` as read: the names are strings, the rest as the file holds them."""


def columns_of(entries: dict[str, Any]) -> Columns | None:
    """A directory's `COLUMNS` in its file's ``entries``; None when they are not lists of
    one length, or a name is not a string."""
    found: list[list[Any]] = []
    for name in COLUMNS:
        column = entries.get(name)
        if type(column) is not list:
            return None
        found.append(column)
    names = found[0]
    if any(len(column) != len(names) for column in found) or not set(map(type, names)) <= {str}:
        return None
    return tuple(found)


def spend_payload(spend: Spend) -> list[Any]:
    """How the book's file writes a spend (`payload_spend` reads it back)."""
    tokens = spend.tokens
    return [
        tokens.input,
        tokens.output,
        tokens.cache_read,
        tokens.cache_write_5m,
        tokens.cache_write_1h,
        spend.cost_usd,
        list(spend.unpriced_models),
        spend.messages,
    ]


def payload_spend(payload: object) -> Spend | None:
    """The spend a payload says; None when it is not one."""
    if not isinstance(payload, list) or len(payload) != 8:
        return None
    counts = payload[:5] + payload[7:]
    if not all(type(value) is int and value >= 0 for value in counts):
        return None
    cost, unpriced = payload[5], payload[6]
    if cost is not None and type(cost) is not float:
        return None
    if not isinstance(unpriced, list) or not all(isinstance(name, str) for name in unpriced):
        return None
    return Spend(Tokens(*counts[:5]), cost, tuple(unpriced), counts[5])


class Shelf:
    """One directory's entries: by file name, and the spends they index; and the directory's
    own stamp when its entries were last vouched for (`SpendBook.vouch`). Made from the
    file's columns (`read`), its entries by name are made when first asked for."""

    def __init__(
        self, files: dict[str, Entry], spends: list[Spend | None], folder: object = None
    ) -> None:
        self._files: dict[str, Entry] | None = files
        self._columns: Columns | None = None
        self.spends = spends
        self.folder = folder
        self.index = {spend: at for at, spend in enumerate(spends) if spend is not None}

    @classmethod
    def read(cls, columns: Columns, spends: list[Spend | None], folder: object) -> Shelf:
        """The entries of a file's `COLUMNS` (`columns_of`)."""
        shelf = cls({}, spends, folder)
        shelf._files, shelf._columns = None, columns
        return shelf

    @property
    def files(self) -> dict[str, Entry]:
        """By file name, its `Entry`."""
        if self._files is None:
            names, *stamps = self._columns or ([],)
            self._files = dict(zip(names, map(list, zip(*stamps, strict=True)), strict=True))
            self._columns = None
        return self._files

    def kept(self, name: str) -> Spend | None:
        """The spend kept for file ``name``, whatever its stamp now."""
        entry = self.files.get(name)
        if type(entry) is not list or len(entry) != 4:
            return None
        at = entry[3]
        return self.spends[at] if type(at) is int and 0 <= at < len(self.spends) else None

    def table(self) -> dict[str, Spend]:
        """The spend kept for each file, by name, whatever its stamp now (`kept` of each)."""
        spends, count = self.spends, len(self.spends)
        whole = self._columns
        if whole is not None:  # as read: in C where every file's spend is a valid one
            names, spent = whole[0], whole[-1]
            if not spent or (
                set(map(type, spent)) == {int}
                and min(spent) >= 0
                and max(spent) < count
                and all(spend is not None for spend in spends)
            ):
                return dict(zip(names, map(spends.__getitem__, spent), strict=True))
        found: dict[str, Spend] = {}
        for name, entry in self.files.items():
            if type(entry) is list and len(entry) == 4:
                at = entry[3]
                if type(at) is int and 0 <= at < count:
                    spend = spends[at]
                    if spend is not None:
                        found[name] = spend
        return found

    def get(self, name: str, stamp: Stamp) -> Spend | None:
        entry = self.files.get(name)
        if (
            type(entry) is not list
            or len(entry) != 4
            or entry[0] != stamp[0]
            or entry[1] != stamp[1]
            or entry[2] != stamp[2]
        ):
            return None
        return self.kept(name)

    def put(self, name: str, stamp: Stamp, spend: Spend) -> bool:
        """Keep the entry; False when it was kept already."""
        at = self.index.get(spend)
        if at is None:
            at = self.index[spend] = len(self.spends)
            self.spends.append(spend)
        entry = [*stamp, at]
        files = self.files
        if files.get(name) == entry:
            return False
        files[name] = entry
        return True

    def payload(self) -> dict[str, Any]:
        """What its file holds: every entry whose spend is valid, their spends once each."""
        whole = self._as_it_is()
        if whole is not None:
            return whole
        used: dict[int, int] = {}
        spends: list[list[Any]] = []
        files: dict[str, Entry] = {}
        for name, entry in self.files.items():
            at = entry[3] if type(entry) is list and len(entry) == 4 else None
            spend = self.spends[at] if type(at) is int and 0 <= at < len(self.spends) else None
            if spend is None or type(at) is not int:
                continue
            if at not in used:
                used[at] = len(spends)
                spends.append(spend_payload(spend))
            files[name] = [*entry[:3], used[at]]
        return self._written(spends, files)

    def _as_it_is(self) -> dict[str, Any] | None:
        """`payload` when every entry is valid and every spend used by one (as a book read
        and then added to holds them): the entries as they are, not made again one by one
        (a folder of 100,000 transcripts); None otherwise."""
        spends, count = self.spends, len(self.spends)
        entries = self.files.values()
        if not all(
            type(entry) is list
            and len(entry) == 4
            and type(entry[3]) is int
            and 0 <= entry[3] < count
            and spends[entry[3]] is not None
            for entry in entries
        ):
            return None
        if len({entry[3] for entry in entries}) != count:
            return None
        payloads = [spend_payload(spend) for spend in spends if spend is not None]
        return self._written(payloads, self.files)

    def _written(self, spends: list[list[Any]], files: dict[str, Entry]) -> dict[str, Any]:
        """The file's entries of this directory: its spends, its `COLUMNS`, its stamp."""
        stamps = zip(*files.values(), strict=True) if files else ((), (), (), ())
        kept: dict[str, Any] = {"spends": spends, "names": list(files)}
        kept.update(zip(COLUMNS[1:], map(list, stamps), strict=True))
        if self.folder is not None:
            kept["folder"] = self.folder
        return kept
