"""Attempts whose transcript is gone: which of them make a run's cost a lower bound.

An agent that returned a result made its requests and wrote them down; if its transcript
cannot be read now (deleted, cleaned up with its session), what it spent is unknown, and the
run's figures are a lower bound (`wftop.core.cost.tokens.Spend.missing`). An agent killed
before it wrote its first line never had a transcript, and spent nothing it could tell. A run
copied into another session by a resume (relocate, surgical) has only the journal there: its
earlier attempts' transcripts stay in the folder of the session it was copied from, and count
there (`elsewhere`).
"""

from __future__ import annotations

import os
from collections.abc import Container


def elsewhere(folder: str, agent_id: str) -> bool:
    """The agent's transcript is in the folder of the same run id in another session of the
    project (the run was copied from there, where its earlier attempts count)."""
    workflows, run_id = os.path.split(folder)
    session_dir = os.path.dirname(os.path.dirname(workflows))
    project_dir, session = os.path.split(session_dir)
    try:
        sessions = os.listdir(project_dir)
    except OSError:
        return False
    name = f"agent-{agent_id}.jsonl"
    return any(
        os.path.isfile(os.path.join(project_dir, other, "subagents", "workflows", run_id, name))
        for other in sessions
        if other != session
    )


def missing(folder: str, agent_id: str, returned: Container[str]) -> bool:
    """Whether an agent of run folder ``folder`` whose transcript cannot be read counts as
    missing: it returned (``returned``) and its transcript is not another session's."""
    return agent_id in returned and not elsewhere(folder, agent_id)
