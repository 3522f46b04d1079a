"""What a run list keeps of a run it reads: how much of its journal's results, and what a
reader holds once it let go of what it read (`wftop.core.index.reader.RunReader.doze`)."""

from __future__ import annotations

from wftop.core.read.failures import LastReplies
from wftop.core.read.journal import JournalFold
from wftop.core.read.usage import RerunTokens

LIST_KEEP_BYTES = 256 * 1024
"""Journal lines longer than this keep no ``result`` in the run list.

Such a line is still read (up to the reader's one line limit, `wftop.core.read.jsonl`), so the
run list folds exactly the records every other view folds; only its ``result`` reads
``<elided>``, so the memory of an index does not grow with the size of the results. A
view that needs a whole result reads the journal itself (``wftop.core.read.jsonl.read_all``).
"""


LIST_KEEP_TOTAL = 16 * 1024 * 1024
"""What one run's journal may keep of results in the run list: once its lines over 4 KB
kept whole add up to more, later ones keep no ``result`` either (a 1 GB journal of 100 KB
results would hold a gigabyte otherwise). Their calls fold the same; previews say the
result was not kept."""


class Dozing:
    """What every dozing reader holds in place of what it let go: one fold, one re-run
    tally and one reply memo for all (a dozing reader reads nothing until `RunReader.wake`
    makes its own again), where each made new ones of its own, 2 KB a run."""

    fold = JournalFold()
    reruns = RerunTokens()
    replies = LastReplies()
