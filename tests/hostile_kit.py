"""A real corpus tree with every hostile value planted at once, and what to look for after.

`hostile_tree` copies the real ``killed`` tree (a run killed with one call in flight) and
plants the same hostile text in every place a person's screen can show: call labels,
phases, results, agent ids, agent prompts and descriptions, the last words of the call that
died, the run's name (its script's ``meta.name``), the script's file name, the session's
working directory (which is made, so a resume plan finds it) and the project folder's name
(its slug), and the session transcript (its prompt, its text, its ``cwd``). Depth is planted
too: call ``a4`` returned a value nested `DEEP` levels (the hostile text at its bottom), in
the journal and in its transcript, and a call started with a label that is an object nested
`DEEP` levels (``JSON.parse`` reads both; the label reads as its agent id, `DEEP_AGENT`).

The values come from `PLANTED`: one list per class of hostile value. Each value carries a
token (``HOSTILE…``) next to its control characters, so what the app writes itself (its own
escape sequences, its own OSC 52 when ``y`` copies) is told apart from what came from the
data: `raw_leaks` finds a planted sequence written raw. To plant another class, add a list
to `PLANTED` (and, when its values are not text, a step to `plant`).
"""

from __future__ import annotations

import base64
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from tests.corpus import copy_tree

MARK = "wftop-hostile-clipboard"
"""What the planted OSC 52 sequences would put in the clipboard."""
MARK64 = base64.b64encode(MARK.encode()).decode()

PLANTED: dict[str, list[str]] = {
    "escape": [
        f"\x1b]52;c;{MARK64}\x07",  # OSC 52: set the clipboard (BEL ends it)
        f"\x1b]52;c;{MARK64}\x1b\\",  # the same, ended by ST
        "\x1b]0;HOSTILE-title\x07",  # OSC 0: the window title
        "\x1b]8;;https://hostile.example/HOSTILE-link\x1b\\HOSTILE-click\x1b]8;;\x1b\\",  # OSC 8
        "\x1b[2JHOSTILE-clear",  # CSI 2J: clear the screen
        "\x1b[7;77HHOSTILE-move\x1b[77A",  # cursor moves
    ],
    "c1": [
        "\x9b2JHOSTILE-csi8",  # 8-bit CSI
        f"\x9d52;c;{MARK64}\x9c",  # 8-bit OSC 52, ended by 8-bit ST
    ],
    "bel": ["\x07HOSTILE-bel"],
    "bidi": ["\u202eHOSTILE-rlo\u202c", "\u2066HOSTILE-isolate\u2069", "\u200fHOSTILE-rlm"],
    "newline": ["HOSTILE-line\nforged line", "HOSTILE-cr\rover"],
    "del": ["HOSTILE-del\x7f"],
}
"""Every hostile value planted, by class."""

IN_A_NAME: dict[str, list[str]] = {
    "escape": [f"\x1b]52;c;{MARK64}\x07", "\x1b[2JHOSTILE-clear"],
    "c1": ["\x9b2JHOSTILE-csi8"],
    "bel": ["\x07HOSTILE-bel"],
    "bidi": ["\u202eHOSTILE-rlo\u202c"],
    "newline": ["HOSTILE-line\nforged line"],
}
"""The values a file or folder name holds (no ``/``, and within 255 bytes)."""


def hostile_text(values: dict[str, list[str]] = PLANTED) -> str:
    return " ".join(value for kind in values.values() for value in kind)


TEXT = hostile_text()
NAME = hostile_text(IN_A_NAME)
assert len(NAME.encode()) < 200 and "/" not in NAME

STOPPED = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def signatures(values: dict[str, list[str]] = PLANTED) -> list[str]:
    """Each control character of the planted values with the text beside it up to the next
    one, on the side that holds a token or the clipboard's payload: written raw, it can only
    have come from the data."""
    found = []
    for value in (value for kind in values.values() for value in kind):
        cuts = [match.start() for match in STOPPED.finditer(value)]
        for number, at in enumerate(cuts):
            before = value[(cuts[number - 1] + 1 if number else 0) : at]
            after = value[at + 1 : cuts[number + 1] if number + 1 < len(cuts) else None]
            marked = [side for side in (after, before) if "HOSTILE" in side or MARK64 in side]
            if marked and marked[0] is after:
                found.append(value[at] + after)
            elif marked:
                found.append(before + value[at])
    return sorted(set(found))


SIGNATURES = signatures()


APP_SEQUENCES = re.compile(
    "\x1b\\[[0-9;]*m"  # colours and styles (SGR)
    "|\x1b\\[[0-9]+;[0-9]+H"  # where to draw (CUP)
    "|\x1b\\](?:2|22);[^\x00-\x1f\x7f-\x9f]*\x07"  # the window title, the pointer's shape
)
"""What a Textual app writes itself (its screens' own sequences, no others seen): `strays`
takes these out and looks for any control left; `raw_leaks` takes out those not followed by
a token (a planted cursor move has their shape) and looks for the planted sequences."""


def raw_leaks(output: str | bytes) -> list[str]:
    """The planted sequences ``output`` holds raw (none, when the gate did its work)."""
    text = output.decode("utf-8", "surrogateescape") if isinstance(output, bytes) else output
    text = re.sub(f"(?:{APP_SEQUENCES.pattern})(?!HOSTILE)", "", text)
    return [piece for piece in SIGNATURES if piece in text]


def strays(output: str) -> list[str]:
    """The control characters (newlines aside) left in what an app wrote to the terminal once
    its own sequences are taken out, each with what follows it."""
    rest = APP_SEQUENCES.sub("", output)
    return [rest[m.start() : m.start() + 12] for m in STOPPED.finditer(rest) if m.group() != "\n"]


SHOWN = ["mock-six ␛", "␛]52;c;", "␛[2JHOSTILE", "\\x9b2JHOSTILE", "HOSTILE-line↵"]
"""How the planted values begin once gated (one of them shows that a value was drawn, be it
cut to a column's width)."""


def drawn(output: str) -> bool:
    """``output`` shows a planted value, gated."""
    return any(sign in output for sign in SHOWN)


# -- the tree ---------------------------------------------------------------------------------

RUN = "wf_c4e8dc39-03f"
SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"
DEAD_AGENT = "abb884cc08bd3d085"
"""The agent of ``a5``, in flight when the run was killed."""
HOSTILE_AGENT = f"ahostile{NAME}"
"""An agent id from the journal that is hostile too (its call started, never returned)."""
A4_AGENT = "a26ff414a181a3a7a"
"""The agent of ``a4``, whose result is planted `DEEP` levels deep."""
DEEP_AGENT = "adeeplabel0000001"
"""The agent of the call whose label is an object nested `DEEP` levels (never returned)."""
DEEP = 100_000
"""Levels of the deep values: ``JSON.parse`` reads them, orjson stops at 1,024."""
DEEP_NOTE = f"nested {DEEP + 1:,} levels deep: too deep to lay out, shown as compact JSON"
"""What an output says of ``a4``'s result (the deep value sits in the result's object)."""


@dataclass(frozen=True)
class HostileTree:
    root: Path
    """The Claude config dir (``projects/`` in it)."""
    cwd: Path
    """The session's working directory: hostile, and made."""
    journal: Path
    script: Path


def _json(text: str) -> str:
    """``text`` as the inside of a JSON string (C1 and bidi raw, as the CLI writes them)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


H = _json(TEXT)


def _rewrite(path: Path, change: object) -> None:
    """Rewrite a file with ``change`` (text → text), keeping its times."""
    info = path.stat()
    text = path.read_text()
    new = change(text)  # type: ignore[operator]
    if new != text:
        path.write_text(new)
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def hostile_calls(text: str) -> str:
    """A journal's text with every label, phase and result hostile (`plant_journal`)."""
    text = re.sub(r'"label":"(a\d)"', lambda m: f'"label":"{m.group(1)} {H}"', text)
    text = re.sub(r'"phase":"(\w+)"', lambda m: f'"phase":"{m.group(1)} {H}"', text)
    return re.sub(
        r'"result":\{"agent":"(a\d)"',
        lambda m: f'"result":{{"note":"{H}","agent":"{m.group(1)}"',
        text,
    )


def plant_journal(journal: Path) -> None:
    """Labels, phases and results hostile in a real journal, its file times kept."""
    _rewrite(journal, hostile_calls)


def deep_value(depth: int = DEEP) -> str:
    """Compact JSON: ``depth - 1`` arrays around an object holding the hostile text."""
    return "[" * (depth - 1) + f'{{"hostile":"{H}"}}' + "]" * (depth - 1)


def deep_object(depth: int = DEEP) -> str:
    """Compact JSON: ``depth`` objects, one in the other, the hostile text at the bottom."""
    return '{"label":' * depth + f'"{H}"' + "}" * depth


A4_RESULT = '{"agent":"a4",'


def _deep_result(text: str) -> str:
    """``a4``'s result (in a journal or a transcript) holding `deep_value` first."""
    assert A4_RESULT in text
    return text.replace(A4_RESULT, f'{A4_RESULT[:-1]},"deep":{deep_value()},')


def _journal(text: str) -> str:
    text = hostile_calls(_deep_result(text))
    record = {"type": "started", "key": "v2:hostile", "agentId": HOSTILE_AGENT}
    record |= {"label": f"a7 {TEXT}", "phase": f"Finish {TEXT}"}
    text += json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    deep = f'{{"type":"started","key":"v2:deep-label","agentId":"{DEEP_AGENT}","label":'
    launched, rest = text.split("\n", 1)  # the deep call first: a5 and a7 stay the last two
    return f'{launched}\n{deep}{deep_object()},"phase":"Plan"}}\n{rest}'


def _transcript(text: str) -> str:
    text = re.sub(r"(Part \w+\.|Plan the work\.)", lambda m: f"{m.group(1)} {H}", text)
    text = re.sub(r'"description":"(a\d)"', lambda m: f'"description":"{m.group(1)} {H}"', text)
    return re.sub(r'"workflowPhase":"(\w+)"', lambda m: f'"workflowPhase":"{m.group(1)} {H}"', text)


def _last_words(text: str) -> str:
    """The dead call's transcript ends with a line of assistant text (its last words)."""
    record = {
        "parentUuid": None,
        "isSidechain": True,
        "agentId": DEAD_AGENT,
        "type": "assistant",
        "message": {
            "id": "msg_hostile",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-5-5",
            "content": [{"type": "text", "text": f"last words {TEXT}"}],
        },
        "uuid": "00000000-0000-4000-8000-00000000beef",
        "timestamp": "2026-12-02T09:58:15.000Z",
        "sessionId": SESSION,
    }
    return text + json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def hostile_tree(base: Path) -> HostileTree:
    """A copy of the ``killed`` tree under ``base`` with every value of `PLANTED` planted."""
    root = copy_tree("killed", base)
    (project,) = (root / "projects").iterdir()
    session = project / SESSION
    folder = session / "subagents" / "workflows" / RUN
    for path in folder.glob("agent-*"):
        _rewrite(path, _transcript)
    _rewrite(folder / f"agent-{DEAD_AGENT}.jsonl", _last_words)
    _rewrite(folder / f"agent-{A4_AGENT}.jsonl", _deep_result)
    _rewrite(folder / "journal.jsonl", _journal)
    (script,) = (session / "workflows" / "scripts").glob(f"*-{RUN}.js")
    plain_name = NAME.replace("\n", " ")  # the script reads ``name: '…'`` on one line
    _rewrite(
        script, lambda text: text.replace("name: 'mock-six'", f"name: 'mock-six {plain_name}'")
    )
    info = script.stat()
    script = script.rename(script.with_name(f"{NAME}-{RUN}.js"))
    os.utime(script, ns=(info.st_atime_ns, info.st_mtime_ns))
    cwd = base / "work" / f"proj {NAME}"
    cwd.mkdir(parents=True)
    cwd_json = _json(str(cwd))

    def session_text(text: str) -> str:
        text = re.sub(
            r'"(cwd|workingDirectory)":"[^"]*"', lambda m: f'"{m.group(1)}":"{cwd_json}"', text
        )
        text = text.replace("run the six mock agents.", f"run the six mock agents. {H}")
        return text.replace("Starting the workflow.", f"Starting the workflow. {H}")

    _rewrite(project / f"{SESSION}.jsonl", session_text)
    slug = project.with_name(f"-hostile-{NAME}")
    info = project.stat()
    project.rename(slug)
    os.utime(slug, ns=(info.st_atime_ns, info.st_mtime_ns))
    session = slug / SESSION
    folder = session / "subagents" / "workflows" / RUN
    return HostileTree(
        root, cwd, folder / "journal.jsonl", session / "workflows" / "scripts" / script.name
    )
