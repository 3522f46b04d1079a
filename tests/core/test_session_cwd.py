"""A session's working directory, read from the head of its transcript: the first complete
line that names a ``cwd`` at its top level gives it, and only lines holding ``"cwd"`` are
looked at (a list reads the head of every session's transcript)."""

from __future__ import annotations

import orjson

from wftop.core.read import sessions
from wftop.core.read.sessions import transcript_cwd

PAD = {"type": "progress", "data": "x" * 3000}
NESTED = {"type": "user", "message": {"cwd": "/not/top/level"}}
NUMBER = {"type": "user", "cwd": 7}
GOOD = {"type": "user", "cwd": "/home/dev/project"}
LATER = {"type": "user", "cwd": "/home/dev/later"}


def oracle(data: bytes) -> str | None:
    """The first complete line whose top level names a ``cwd`` string, every line parsed."""
    for raw in data.split(b"\n")[:-1]:
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("cwd"), str):
            return str(record["cwd"])
    return None


SHAPES = {
    "first line": [GOOD, LATER],
    "after lines that name none": [PAD, PAD, GOOD, LATER],
    "across the first block's end": [PAD, PAD, {**GOOD, "pad": "y" * 2500}, LATER],
    "after a nested one and a number": [NESTED, PAD, NUMBER, PAD, PAD, GOOD],
    "two on one line, the first nested": [{**NESTED, "cwd": "/both"}, LATER],
    "a last line without its newline": [PAD, NESTED, GOOD],
    "none": [PAD, NESTED, NUMBER],
}


def test_the_cwd_is_the_first_complete_lines_that_names_one(tmp_path, monkeypatch):
    looked: list[bytes] = []
    real = sessions._line_cwd

    def line_cwd(raw: bytes) -> str | None:
        looked.append(raw)
        return real(raw)

    monkeypatch.setattr(sessions, "_line_cwd", line_cwd)
    for name, records in SHAPES.items():
        lines = [orjson.dumps(record) for record in records]
        data = b"\n".join(lines) + (b"" if name == "a last line without its newline" else b"\n")
        path = tmp_path / "session.jsonl"
        path.write_bytes(data)
        looked.clear()
        assert transcript_cwd(str(path)) == oracle(data), name
        assert looked and all(b'"cwd"' in raw for raw in looked), name  # no other line cut
        assert set(looked) <= set(lines), name  # whole lines, each as written
