"""Only agent ids the CLI writes name a transcript file."""

from __future__ import annotations

import os

import pytest

from wftop.core.read.agent_transcript import agent_id_problem, transcript_path


def test_an_id_the_cli_writes_names_its_transcript(tmp_path):
    assert transcript_path(str(tmp_path), "a08e490b8127484d2") == os.path.join(
        tmp_path, "agent-a08e490b8127484d2.jsonl"
    )
    assert agent_id_problem("alabel-0_9") is None


@pytest.mark.parametrize(
    ("agent_id", "why"),
    [
        ("a1\x00x", "is not one the CLI writes"),
        ("../../etc/passwd", "is not one the CLI writes"),
        ("a1/b", "is not one the CLI writes"),
        ("ä1", "is not one the CLI writes"),
        ("", "no agent id"),
        (None, "no agent id"),
        (7, "no agent id"),
    ],
)
def test_any_other_value_names_no_file_and_says_why(tmp_path, agent_id, why):
    assert transcript_path(str(tmp_path), agent_id) is None
    assert why in str(agent_id_problem(agent_id))
