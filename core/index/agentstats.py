"""A run folder's agent transcripts as a run's status needs them: stat'ed, never read.

Only a run that has not ended and whose owner may be alive needs them (they tell running
from stalled): `wftop.core.index.reader.RunReader` stats them then, and again only those a
file event names (`restat`).
"""

from __future__ import annotations

import os
from collections.abc import Collection

from wftop.core.model import TranscriptStats

AgentStamps = dict[str, tuple[int, float]]
"""Agent id → (size, mtime) of its ``agent-<id>.jsonl``."""


def agent_stamps(folder: str) -> AgentStamps:
    """Size and time of every ``agent-<id>.jsonl`` of a run folder (content not read)."""
    stamps: AgentStamps = {}
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if not (name.startswith("agent-") and name.endswith(".jsonl")):
                    continue
                try:
                    info = entry.stat()
                except OSError:
                    continue
                stamps[name[6:-6]] = (info.st_size, info.st_mtime)
    except OSError:
        pass
    return stamps


def transcript_stats(folder: str) -> TranscriptStats:
    """Size and time facts of every ``agent-<id>.jsonl`` of a run folder."""
    return stats_of(agent_stamps(folder))


def stats_of(stamps: AgentStamps) -> TranscriptStats:
    return TranscriptStats(
        count=len(stamps),
        total_bytes=sum(size for size, _ in stamps.values()),
        newest_mtime=max((mtime for _, mtime in stamps.values()), default=None),
    )


NO_TRANSCRIPTS = TranscriptStats()
"""The stats of a run whose transcripts are not looked at."""


def restat(
    base: str, stamps: AgentStamps, stats: TranscriptStats, names: Collection[str]
) -> TranscriptStats:
    """Stat the named transcripts (``agent-<id>.jsonl`` in run folder ``base``) again,
    updating ``stamps`` in place; the stats follow from ``stats`` without a walk of the
    others."""
    count, total = len(stamps), stats.total_bytes
    newest = was_newest = stats.newest_mtime
    lost_newest = False
    fresh: float | None = None  # the newest stamp taken now
    for name in names:
        agent = name[6:-6]
        try:
            info = os.stat(os.path.join(base, name))
        except (OSError, ValueError):
            now = None
        else:
            now = (info.st_size, info.st_mtime)
        was = stamps.get(agent)
        if now == was:
            continue
        if was is not None:
            count, total = count - 1, total - was[0]
            lost_newest = lost_newest or was[1] == newest
            del stamps[agent]
        if now is not None:
            stamps[agent] = now
            count, total = count + 1, total + now[0]
            newest = now[1] if newest is None else max(newest, now[1])
            fresh = now[1] if fresh is None else max(fresh, now[1])
    if lost_newest and (fresh is None or was_newest is None or fresh < was_newest):
        # The newest one went back in time or went, and none came as new: look at them all
        # (the newest written again, a live run's at each of its lines, needs no look).
        newest = max((mtime for _, mtime in stamps.values()), default=None)
    return TranscriptStats(count, total, newest)
