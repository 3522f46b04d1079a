"""What a run's attempts spent, as a `wftop.core.index.reader.RunReader` keeps it: `SpendKeeping`.

A reader whose run becomes a row (``count_spend``) keeps a `SpendTally` as its journal's
lines and agent transcripts change; a listing that read a settled run's spend vouches for
its transcripts folder in the spend book, so the run's first plan checks them by one stat.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from wftop.core.cost.spendbook import SpendBook
from wftop.core.cost.tally import SpendTally
from wftop.core.cost.tokens import Spend
from wftop.core.read.agent_transcript import transcript_path
from wftop.core.read.countfold import CountingFold
from wftop.core.read.failures import LastReplies
from wftop.core.read.journal import JournalFold
from wftop.core.read.runfolder import RunFolder


class SpendKeeping:
    """The spend part of a run reader: its tally, made at the first need."""

    __slots__ = ("_spent", "once")

    folder: RunFolder
    spend_book: SpendBook | None
    count_spend: bool
    _spent: SpendTally | None
    once: bool
    """The reader is let go after one read (a cold pass's): its tally is read ``once``."""

    def spend(self) -> Spend:
        """What every attempt spent, each transcript read once more after it changed."""
        return self._tally().total(self.folder.path)

    def _tally(self) -> SpendTally:
        if self._spent is None:
            self._spent = SpendTally(self.spend_book, once=self.once)
        return self._spent

    def vouch_spends(self) -> None:
        """Vouch for the run folder in the spend book (`SpendTally.vouch`): only for a
        settled run whose spend was read."""
        if self._spent is not None:
            self._spent.vouch(self.folder.path)

    def refresh_spend(self, names: Collection[str] | None) -> bool:
        """The agent transcripts ``names`` changed (None: any may have): read again those
        that are an attempt's; True when what the run spent changed."""
        if not self.count_spend:
            return False
        before = self.spend()
        agents = None if names is None else [name[6:-6] for name in names]
        self._tally().changed(agents)
        return self.spend() != before


def replies_told(
    fold: JournalFold | CountingFold, head: str, replies: LastReplies
) -> Callable[[str, bytes], None] | None:
    """What a reader for rows gives its tally to be told each transcript it reads
    (`SpendTally.seen`): ``replies`` told what the latest attempts of the open and failed
    calls of ``fold`` end on (the transcripts under run folder ``head``), so the failures
    that look at them next do not open them again. None: no call may have failed."""
    if not (fold.failed_keys or fold.open_keys):
        return None
    calls = fold.calls
    latest = (calls[key].agent_ids for key in (*fold.failed_keys, *fold.open_keys))
    wanted = {transcript_path(head, ids[-1]) for ids in latest if ids}

    def seen(path: str, data: bytes) -> None:
        if path in wanted:
            replies.tell(path, data)

    return seen
