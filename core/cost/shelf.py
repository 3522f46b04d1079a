"""One directory's entries in the spend book (`wftop.core.cost.spendbook`): what each of
its transcripts spent by file name and stamp, each spend kept once, and the directory's own
stamp when they were last vouched for; and how a spend is written in the book's file.

The file writes a directory's entries as columns (`COLUMNS`), not as an object of 100,000
small arrays: the names, the agents' transcripts (``agent-<id>.jsonl``) first and by their
id alone (`AGENTS` of them), the spend of each, and their stamps as one text (`STAMPS`:
each entry's size, modification time and inode as little-endian unsigned 64-bit numbers, in
base 64). A plan prices a folder vouched for by agent id from the names and spends alone
(`Shelf.agents`, in C): it parses no stamp as a number and makes no file name per call
(the stamps were half of the numbers orjson read). The entries by name (`Shelf.files`) are
made from the columns when first asked for (a stamp compared, an entry added or dropped).
"""

from __future__ import annotations

import base64
import binascii
import sys
from array import array
from typing import Any, cast

from wftop.core.cost.tokens import Spend, Tokens

Stamp = tuple[int, int, int]
"""A transcript's size, modification time (ns) and inode."""

Entry = list[int]
"""A transcript's ``[size, mtime_ns, inode, spend]``: ``spend`` indexes its directory's
list of spends (``[input, output, cache_read, cache_write_5m, cache_write_1h, cost_usd |
null, [unpriced models], messages]``), each spend written once however many transcripts
spent it."""

COLUMNS = ("names", "at", "stamps", "agents")
"""A directory's entries in the file: its names and the spend of each (lists of one
length), their stamps (`STAMPS`) and how many of the names are agents' ids (`AGENTS`)."""

STAMP_TEXT = 32
"""The characters of one entry's stamp in `STAMPS` (24 bytes in base 64)."""

AGENT_PREFIX, AGENT_SUFFIX = "agent-", ".jsonl"
"""An agent's transcript is named ``agent-<id>.jsonl``."""

Columns = tuple[list[str], list[Any], str, int]
"""`COLUMNS` as read: the names, the spends' places as the file holds them, the stamps'
text and the count of agents."""


def columns_of(entries: dict[str, Any]) -> Columns | None:
    """A directory's `COLUMNS` in its file's ``entries``; None when the names and spends
    are not lists of one length, a name is not a string, the stamps' text is not one stamp
    a name long or the count of agents is not one of the names."""
    names, at, stamps, agents = (entries.get(name) for name in COLUMNS)
    if type(names) is not list or type(at) is not list or len(at) != len(names):
        return None
    if type(stamps) is not str or len(stamps) != STAMP_TEXT * len(names):
        return None
    if type(agents) is not int or not 0 <= agents <= len(names):
        return None
    if not set(map(type, names)) <= {str}:
        return None
    return names, at, stamps, agents


def agent_of(name: str) -> str | None:
    """The agent id of transcript file ``name`` (``agent-<id>.jsonl``); None for another."""
    if name.startswith(AGENT_PREFIX) and name.endswith(AGENT_SUFFIX) and len(name) >= 12:
        return name[6:-6]
    return None


def stamps_text(stamps: list[int]) -> str | None:
    """Stamps' numbers as `STAMPS` writes them; None when one is not an unsigned 64-bit
    number (a file modified before 1970)."""
    try:
        numbers = array("Q", stamps)
    except (OverflowError, TypeError):
        return None
    if sys.byteorder != "little":
        numbers.byteswap()
    return base64.b64encode(numbers.tobytes()).decode("ascii")


def text_stamps(text: str) -> list[int] | None:
    """The numbers of `stamps_text`'s ``text``; None when it is not such a text."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    numbers = array("Q")
    if len(raw) % numbers.itemsize:
        return None
    numbers.frombytes(raw)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers.tolist()


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
        """By file name, its `Entry` (none when the stamps' text is not one: every file of
        the directory is then read again)."""
        if self._files is None:
            names, at, text, agents = self._columns or ([], [], "", 0)
            numbers = text_stamps(text)
            self._files = {}
            if numbers is not None and len(numbers) == 3 * len(names):
                full = [AGENT_PREFIX + agent + AGENT_SUFFIX for agent in names[:agents]]
                full += names[agents:]
                rows = zip(numbers[0::3], numbers[1::3], numbers[2::3], at, strict=True)
                self._files = dict(zip(full, map(list, rows), strict=True))
            self._columns = None
        return self._files

    def kept(self, name: str) -> Spend | None:
        """The spend kept for file ``name``, whatever its stamp now."""
        entry = self.files.get(name)
        if type(entry) is not list or len(entry) != 4:
            return None
        at = entry[3]
        return self.spends[at] if type(at) is int and 0 <= at < len(self.spends) else None

    def agents(self) -> dict[str, Spend]:
        """The spend kept for each agent's transcript, by agent id, whatever its stamp now
        (`kept` of each)."""
        spends, count = self.spends, len(self.spends)
        whole = self._columns
        if whole is not None:  # as read: in C where every agent's spend is a valid one
            names, spent, _text, agents = whole
            spent = spent[:agents]
            if not spent or (
                set(map(type, spent)) == {int}
                and min(spent) >= 0
                and max(spent) < count
                and all(spend is not None for spend in spends)
            ):
                valid = cast(list[Spend], spends)  # none is None
                return dict(zip(names[:agents], map(valid.__getitem__, spent), strict=True))
        found: dict[str, Spend] = {}
        for name, entry in self.files.items():
            agent = agent_of(name)
            if agent is not None and type(entry) is list and len(entry) == 4:
                at = entry[3]
                if type(at) is int and 0 <= at < count:
                    spend = spends[at]
                    if spend is not None:
                        found[agent] = spend
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

    def _written(self, spends: list[list[Any]], files: dict[str, Entry]) -> dict[str, Any]:
        """The file's entries of this directory: its spends, its `COLUMNS`, its stamp. An
        entry whose stamp `STAMPS` cannot write is left out (its file is read again)."""
        agents: list[tuple[str, Entry]] = []
        others: list[tuple[str, Entry]] = []
        for name, entry in files.items():
            agent = agent_of(name)
            if agent is None:
                others.append((name, entry))
            else:
                agents.append((agent, entry))
        rows = agents + others
        text = stamps_text([number for _name, entry in rows for number in entry[:3]])
        if text is None:  # some stamp cannot be written: the others are
            rows = [row for row in rows if stamps_text(row[1][:3]) is not None]
            agents = [row for row in agents if stamps_text(row[1][:3]) is not None]
            text = stamps_text([number for _name, entry in rows for number in entry[:3]]) or ""
        kept: dict[str, Any] = {
            "spends": spends,
            "names": [name for name, _entry in rows],
            "at": [entry[3] for _name, entry in rows],
            "stamps": text,
            "agents": len(agents),
        }
        if self.folder is not None:
            kept["folder"] = self.folder
        return kept
