"""What agents used, from their transcripts, read again only when a transcript changed; and
the tokens spent twice.

A run without a snapshot (a dead one) has no progress rows, so its calls' time, tokens and
tool calls come from the agents' transcripts (`wftop.core.read.agent_transcript.agent_usage`).

A ``started`` line for a call that has a ``result`` line before it is a re-run: a resume
ran again a call whose result the journal held (`JournalFold.rerun_agent_ids`; ``wftop
stats`` counts these calls). The re-run agents' tokens summed are the run's
``rerun_tokens``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set

from wftop.core.read.agent_transcript import AgentUsage, agent_usage, transcript_path
from wftop.core.read.memo import FileMemo


class AgentUsages:
    """Agents' usage by agent id, each transcript read again only when it changed."""

    def __init__(self) -> None:
        self._memo: FileMemo[AgentUsage | None] = FileMemo(agent_usage)

    def of(self, folder: str, agent_id: str) -> AgentUsage | None:
        """The usage of agent ``agent_id`` of run folder ``folder``; None when its transcript
        is missing or unreadable (or the id is not one the CLI writes)."""
        return self._memo.get(transcript_path(folder, agent_id))

    def all_of(self, folder: str, agent_ids: Iterable[str]) -> dict[str, AgentUsage]:
        """The usage of each of ``agent_ids`` whose transcript can be read."""
        found = {agent_id: self.of(folder, agent_id) for agent_id in agent_ids if agent_id}
        return {agent_id: usage for agent_id, usage in found.items() if usage is not None}

    def tokens(self, folder: str, agent_ids: list[str]) -> int | None:
        """Tokens of the agents ``agent_ids`` (a run's re-runs) of run folder ``folder``.

        0 when there is none; None when there are some but no transcript of one can be
        read; else the sum over the transcripts that can be (a lower bound when some are
        missing).
        """
        if not agent_ids:
            return 0
        known = [usage.tokens for usage in self.all_of(folder, agent_ids).values()]
        return sum(known) if known else None


class RerunTokens:
    """`AgentUsages.tokens` of a run's re-runs, kept as its journal grows.

    Asked at every change of the journal, it reads again only the re-run agents that are new
    or whose call may still be running (``running``: the latest agents of the calls in
    flight): the transcript of an agent whose call returned or failed is done, so its
    tokens are kept, not stat'ed again (a run that re-ran thousands of calls would stat
    them all at every line).
    """

    def __init__(self) -> None:
        self._usages = AgentUsages()
        self._seen = 0
        """How many re-run ids have been taken in."""
        self._counted: set[str] = set()
        """Agents taken in (each agent counts once, however often it is named)."""
        self._pending: list[str] = []
        """Agents whose call may still be running: read again at every ask."""
        self._done = 0
        self._done_known = 0
        """Tokens, and how many readable transcripts, of the agents that are done."""

    def tokens(self, folder: str, agent_ids: Sequence[str], running: Set[str]) -> int | None:
        """0 without re-runs; None when none of their transcripts can be read; else the sum
        over those that can (a lower bound when some are missing)."""
        for agent in agent_ids[self._seen :]:
            if agent and agent not in self._counted:
                self._counted.add(agent)
                self._pending.append(agent)
        self._seen = len(agent_ids)
        if not self._seen:
            return 0
        total, known, still = self._done, self._done_known, []
        for agent in self._pending:
            usage = self._usages.of(folder, agent)
            if agent in running:
                still.append(agent)
            elif usage is not None:
                self._done += usage.tokens
                self._done_known += 1
            if usage is not None:
                total += usage.tokens
                known += 1
        self._pending = still
        return total if known else None
