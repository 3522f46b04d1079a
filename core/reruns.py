"""Tokens spent twice: what the re-runs of calls that had already returned used.

A ``started`` line for a call that has a ``result`` line before it is a re-run: a resume
ran again a call whose result the journal held (`JournalFold.rerun_agent_ids`; ``wftop
stats`` counts these calls). Each re-run agent's transcript says what it used
(`wftop.core.agent_transcript.agent_usage`); their sum is the run's ``rerun_tokens``.
"""

from __future__ import annotations

import os

from wftop.core.agent_transcript import agent_usage, transcript_path


class RerunTokens:
    """The tokens of a run's re-run agents, each transcript read again only when it changed."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[tuple[int, float], int | None]] = {}

    def total(self, folder: str, agent_ids: list[str]) -> int | None:
        """Tokens of the re-runs ``agent_ids`` in run folder ``folder``.

        0 when there is no re-run; None when there are re-runs but no transcript of one
        can be read; else the sum over the transcripts that can be (a lower bound when
        some are missing).
        """
        if not agent_ids:
            return 0
        known = []
        for agent_id in agent_ids:
            path = transcript_path(folder, agent_id)
            if path is None:
                continue
            try:
                info = os.stat(path)
            except (OSError, ValueError):
                continue
            stamp = (info.st_size, info.st_mtime)
            kept = self._seen.get(agent_id)
            if kept is None or kept[0] != stamp:
                usage = agent_usage(path)
                kept = (stamp, usage.tokens if usage is not None else None)
                self._seen[agent_id] = kept
            if kept[1] is not None:
                known.append(kept[1])
        return sum(known) if known else None
