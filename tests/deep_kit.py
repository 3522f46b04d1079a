"""A copy of the real ``killed`` tree whose call ``a4`` returned a value nested very deep.

``JSON.parse`` reads any nesting, so the CLI reads (and resumes from) a journal line whose
result opens 100,000 arrays; orjson stops at 1,024 levels. The planted value holds a secret
at its bottom, so masking is checked where the value is kept as text. It goes where the CLI
writes a result: the journal's ``result`` line, the agent's ``StructuredOutput`` input in its
transcript, and (as the main session would see a tool's input) a line of the session
transcript.
"""

from __future__ import annotations

from pathlib import Path

from tests.core.test_redact import SAMPLES
from tests.corpus import copy_tree, only_journal

DEEP = 100_000
SECRET = SAMPLES["anthropic_key"]
A4_RESULT = b'{"agent":"a4","ok":true,"n":4}'
A4_AGENT = "a26ff414a181a3a7a"
RUN_ID = "wf_c4e8dc39-03f"
SESSION_ID = "e5c99c64-96da-45a1-841d-2b381f965487"


def nested(depth: int) -> bytes:
    """Compact JSON: ``depth - 1`` arrays around an object holding the secret."""
    inner = b'{"deep":"' + SECRET.encode() + b'"}'
    return b"[" * (depth - 1) + inner + b"]" * (depth - 1)


def deep_tree(tmp_path: Path, depth: int = DEEP) -> Path:
    """The ``killed`` tree (five calls started, a1-a4 returned, a5 died) with a4's result
    nested ``depth`` levels, in its journal, its transcript and its session's transcript."""
    root = copy_tree("killed", tmp_path)
    value = nested(depth)
    journal = only_journal(root)
    text = journal.read_bytes()
    assert text.count(A4_RESULT) == 1
    journal.write_bytes(text.replace(A4_RESULT, value))
    transcript = journal.parent / f"agent-{A4_AGENT}.jsonl"
    text = transcript.read_bytes()
    assert A4_RESULT in text
    transcript.write_bytes(text.replace(A4_RESULT, value))
    (session,) = root.glob(f"projects/*/{SESSION_ID}.jsonl")
    with open(session, "ab") as handle:
        handle.write(
            b'{"type":"assistant","sessionId":"' + SESSION_ID.encode() + b'","message":'
            b'{"role":"assistant","content":[{"type":"tool_use","id":"toolu_deep",'
            b'"name":"Deep","input":' + value + b"}]}}\n"
        )
    return root
