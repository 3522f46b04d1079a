"""Fuzz every command with mutated real journals, held to JavaScript's JSON.parse.

    python bench/fuzz_journals.py --seed 1 --count 100000 [--workers 2] [--out failures.json]

Each case takes the journal of one real run (every tree under ``tests/data/corpus`` and
``tests/data/versions``: journals the CLI wrote), mutates it one to three times (`mutate`:
bytes flipped, inserted, cut or repeated; lines dropped, repeated, swapped, joined, split,
ended with ``\\r``; values nested 2 to 100,000 levels, lone surrogates, ``1e999``, very long
integers, ``NaN``, invalid UTF-8 inside strings, labels, keys and types of another kind, a
BOM, garbage lines), writes it in place of that run's journal and runs every command on the
tree in this process (`COMMANDS`). Checked on every case (`check_case`):

* no command raises (a traceback), each exits with a code it documents;
* wftop's reader reads what ``JSON.parse`` reads (node, ``tests/json_oracle.js``): the same
  records (line, ``type``, ``key``) and the same unreadable lines;
* ``ls --json`` counts the started, returned and failed lines JSON.parse counts
  (``failed_lines``) and its unreadable lines (those JSON.parse cannot read, and the objects
  of a ``type`` the CLI does not write, which the CLI's reader skips); ``stats --json`` the
  started and returned ones.

Prints a summary (cases, lines, bytes, failures, time) and exits 1 on any failure, writing the
failing inputs next to ``--out``. The property test ``tests/core/test_oracle_props.py`` drives
the same checker from hypothesis.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOP = Path(__file__).resolve().parent.parent
if str(TOP) not in sys.path:
    sys.path.insert(0, str(TOP))

from tests.json_oracle import Oracle  # noqa: E402
from wftop.cli.main import main as wftop  # noqa: E402
from wftop.core.read.jsonl import read_all  # noqa: E402

DATA = TOP / "tests" / "data"
TREES = sorted(
    path.parent for base in ("corpus", "versions") for path in (DATA / base).glob("*/projects")
)
"""Every tree the real CLI wrote that the suite keeps: its journals are the seeds."""

DEPTHS = [2, 10, 64, 65, 253, 254, 255, 256, 1_023, 1_024, 1_025, 1_100, 5_000]
"""Levels a value is nested to (100,000 too, one mutation in `DEEPEST_ONE_IN`)."""
DEEPEST, DEEPEST_ONE_IN = 100_000, 400

GARBAGE = [
    b"{",
    b"}",
    b"[]",
    b"42",
    b"null",
    b'"s"',
    b"NaN",
    b'{"type":NaN}',
    b" ",
    b"\t",
    b"\r",
    b'{"a":1}{"b":2}',
    b"\x00\x00",
    b"\xef\xbb\xbf{}",
    b'{"type":"started","key":"v2:new","agentId":"anew","label":"new"}',
    b'{"type":"result","key":"v2:new","agentId":"anew","result":1e999}',
    b'{"type":"failed","key":"v2:new","agentId":"anew"}',
]
ODD_VALUES = [
    b'"\\ud800"',
    b'"cut \\ud83d"',
    b'"\\udc00 first"',
    b"1e999",
    b"-1e999",
    b"1" * 30,
    b"-" + b"9" * 5_000,
    b"1.5e-400",
    b"NaN",
    b"Infinity",
    b'"\xff\xfe bytes"',
    b'"\xed\xa0\x80"',
    b'"tab\there"',
    b'"\\u0000 \\u001b[2J \xc2\x9b"',
    b"{}",
    b"[]",
    b"true",
    b"null",
    b'{"nested":{"a":[1,{"b":null}]}}',
]
FIELDS = [b"result", b"label", b"phase", b"key", b"agentId", b"type"]


# -- mutations --------------------------------------------------------------------------------


def nested(rng: random.Random, depth: int) -> bytes:
    """A value nested ``depth`` levels: arrays, or objects, around one odd value."""
    inner = rng.choice(ODD_VALUES[:4] + [b'"x"', b"1"])
    if rng.random() < 0.5:
        return b"[" * depth + inner + b"]" * depth
    return b'{"a":' * depth + inner + b"}" * depth


def _span(rng: random.Random, data: bytes) -> tuple[int, int]:
    start = rng.randrange(len(data) + 1)
    return start, min(len(data), start + rng.randrange(1, 64))


def _value_at(data: bytes, start: int) -> int:
    """Where the JSON value opening at ``start`` ends (a best guess, no parse: it may be
    garbage after a mutation)."""
    first = data[start : start + 1]
    if first in (b"[", b"{"):
        depth, at, in_string = 0, start, False
        while at < len(data):
            char = data[at : at + 1]
            if in_string:
                if char == b"\\":
                    at += 1
                elif char == b'"':
                    in_string = False
            elif char == b'"':
                in_string = True
            elif char in (b"[", b"{"):
                depth += 1
            elif char in (b"]", b"}"):
                depth -= 1
                if depth == 0:
                    return at + 1
            elif char == b"\n":
                return at
            at += 1
        return at
    if first == b'"':
        at = start + 1
        while at < len(data) and data[at : at + 1] not in (b'"', b"\n"):
            at += 2 if data[at : at + 1] == b"\\" else 1
        return min(len(data), at + 1)
    at = start
    while at < len(data) and data[at : at + 1] not in (b",", b"}", b"]", b"\n"):
        at += 1
    return at


def replace_value(rng: random.Random, data: bytes, value: bytes) -> bytes:
    """``data`` with the value of one field (``"result":`` and the like) replaced."""
    field = rng.choice(FIELDS)
    marks = [at for at in _find_all(data, b'"' + field + b'":')]
    if not marks:
        return data
    mark = rng.choice(marks)
    start = mark + len(field) + 3
    return data[:start] + value + data[_value_at(data, start) :]


def _find_all(data: bytes, needle: bytes) -> Iterator[int]:
    at = data.find(needle)
    while at >= 0:
        yield at
        at = data.find(needle, at + 1)


def mutate_once(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    pick = rng.randrange(16)
    if pick == 0 and data:  # flip a byte
        at = rng.randrange(len(data))
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
    if pick == 1:  # insert bytes
        at = rng.randrange(len(data) + 1)
        return data[:at] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8))) + data[at:]
    if pick == 2:  # cut a span
        start, end = _span(rng, data)
        return data[:start] + data[end:]
    if pick == 3:  # repeat a span
        start, end = _span(rng, data)
        return data[:end] + data[start:end] + data[end:]
    if pick == 4:  # truncate
        return data[: rng.randrange(len(data) + 1)]
    if pick == 5 and len(lines) > 1:  # drop a line
        del lines[rng.randrange(len(lines))]
    elif pick == 6:  # repeat a line
        at = rng.randrange(len(lines))
        lines.insert(at, lines[at])
    elif pick == 7 and len(lines) > 1:  # swap two lines
        one, two = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[one], lines[two] = lines[two], lines[one]
    elif pick == 8:  # a garbage line
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(GARBAGE))
    elif pick == 9 and len(lines) > 1:  # join two lines
        at = rng.randrange(len(lines) - 1)
        lines[at : at + 2] = [lines[at] + lines[at + 1]]
    elif pick == 10:  # split a line
        at = rng.randrange(len(lines))
        cut = rng.randrange(len(lines[at]) + 1)
        lines[at : at + 1] = [lines[at][:cut], lines[at][cut:]]
    elif pick == 11:  # \r line ends
        lines = [line + b"\r" if line and rng.random() < 0.5 else line for line in lines]
    elif pick in (12, 13):  # a field nested deep
        depth = DEEPEST if rng.randrange(DEEPEST_ONE_IN) == 0 else rng.choice(DEPTHS)
        return replace_value(rng, data, nested(rng, depth))
    elif pick == 14:  # a field of another kind
        return replace_value(rng, data, rng.choice(ODD_VALUES))
    else:  # a BOM, or spaces around a line
        at = rng.randrange(len(lines))
        lines[at] = rng.choice([b"\xef\xbb\xbf", b" ", b"\t"]) + lines[at] + rng.choice([b"", b" "])
    return b"\n".join(lines)


def mutate(rng: random.Random, data: bytes) -> bytes:
    for _ in range(rng.randrange(1, 4)):
        data = mutate_once(rng, data)
    return data


# -- the commands and the checks --------------------------------------------------------------


class CaseFailure(AssertionError):
    """A check did not hold for one case."""


@dataclass(frozen=True)
class Tree:
    """A private copy of a real tree and what its one run is called."""

    root: Path
    journal: Path
    original: bytes
    run_id: str
    session: Path | None
    """The session transcript (``scan --session``), when the tree keeps one."""


def copy_trees(into: Path) -> list[Tree]:
    trees = []
    for source in TREES:
        root = into / source.name
        shutil.copytree(source, root, symlinks=True)
        for journal in sorted(root.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl")):
            session_id = journal.parents[3].name
            session = journal.parents[4] / f"{session_id}.jsonl"
            trees.append(
                Tree(
                    root,
                    journal,
                    journal.read_bytes(),
                    journal.parent.name,
                    session if session.is_file() else None,
                )
            )
    return trees


EXIT_CODES = {0, 1, 2, 3}
"""What the commands exit with here: 0, 1 (a failure they report), 2 (usage, no such run),
3 (the resume guard refuses)."""


def run(argv: list[str]) -> tuple[int, bytes, bytes]:
    """One command in this process: exit code, stdout, stderr; `CaseFailure` on a raise."""
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = wftop(argv)
    except SystemExit as leaving:
        code = leaving.code if isinstance(leaving.code, int) else 2
    except Exception as error:  # noqa: BLE001 - a traceback is what is looked for
        trace = traceback.format_exc(limit=-6)
        raise CaseFailure(f"wftop {' '.join(argv)} raised {error!r}\n{trace}") from None
    finally:
        stdout.detach(), stderr.detach()
    if code not in EXIT_CODES:
        raise CaseFailure(f"wftop {' '.join(argv)} exited {code}: {err.getvalue()[-500:]!r}")
    return code, out.getvalue(), err.getvalue()


def command_lines(tree: Tree) -> list[list[str]]:
    where = ["--no-default-root", "--root", str(tree.root)]
    made = [
        ["ls", "--json", "--no-cache", *where],
        ["ls", "--no-cache", *where],
        ["status", "--format", "json", "--no-cache", *where],
        ["stats", "--json", *where],
        ["stats", *where],
        ["export", tree.run_id, *where],
        ["export", tree.run_id, "--format", "json", *where],
        ["resume", tree.run_id, "--dry-run", *where],
        ["resume", tree.run_id, "--dry-run", "--json", *where],
    ]
    if tree.session is not None:
        made += [
            ["scan", "--session", str(tree.session), *where],
            ["scan", "--session", str(tree.session), "--json", *where],
        ]
    return made


COMMANDS = ["ls", "ls --json", "status", "stats", "stats --json", "scan", "scan --json"]
COMMANDS += ["export md", "export json", "resume --dry-run", "resume --dry-run --json"]
"""What every case goes through (`command_lines`)."""


def check_case(tree: Tree, content: bytes, oracle: Oracle, *, commands: bool = True) -> int:
    """Write one mutated journal into its tree and check the reader against JSON.parse, then
    (``commands``) every command; the lines read."""
    tree.journal.write_bytes(content)
    expected = oracle.read(tree.journal)
    batch = read_all(tree.journal)
    records = tuple(
        (line, _string(record.get("type")), _string(record.get("key")))
        for line, record in batch.records
    )
    if records != expected.records:
        raise CaseFailure(f"records differ from JSON.parse's: {_difference(records, expected)}")
    problems = tuple(problem.line for problem in batch.problems)
    if problems != expected.problems:
        raise CaseFailure(f"unreadable lines {problems} != JSON.parse's {expected.problems}")
    counts = (expected.started, expected.result, expected.failed)
    for argv in command_lines(tree) if commands else []:
        code, out, _err = run(argv)
        if argv[0] == "ls" and "--json" in argv:
            (row,) = json.loads(out)
            listed = (row["started"], row["returned"], row["failed_lines"])
            unreadable = len(expected.problems) + expected.unknown
            if listed != counts or row["unreadable_lines"] != unreadable:
                said = row["unreadable_lines"]
                raise CaseFailure(
                    f"ls --json counts {listed}, {said} unreadable != {counts}, {unreadable}"
                )
        elif argv[0] == "stats" and "--json" in argv:
            (row,) = json.loads(out)["per_run"]
            if (row["started"], row["returned"]) != counts[:2]:
                raise CaseFailure(f"stats --json counts {row} != {counts}")
        elif argv[0] == "export" and code != 0:
            raise CaseFailure(f"export exited {code}")
    return len(batch.records) + len(batch.problems)


def _string(value: Any) -> str | None:
    return value if type(value) is str else None


def _difference(records: tuple[Any, ...], expected: Any) -> str:
    ours, theirs = set(records), set(expected.records)
    return f"only wftop: {sorted(ours - theirs)[:3]}; only JSON.parse: {sorted(theirs - ours)[:3]}"


@contextlib.contextmanager
def environment(folder: Path) -> Iterator[None]:
    """Every file wftop keeps for itself in ``folder``; no config file, no claude."""
    saved = dict(os.environ)
    os.environ.update(
        {
            "WFTOP_STATE_DIR": str(folder / "state"),
            "WFTOP_CACHE_DIR": str(folder / "cache"),
            "WFTOP_CONFIG": str(folder / "no-config.toml"),
            "WFTOP_CLAUDE": str(folder / "no-claude"),
        }
    )
    os.environ.pop("CLAUDE_CONFIG_DIR", None)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


# -- the run ---------------------------------------------------------------------------------


def fuzz_range(seed: int, first: int, stop: int, every: int = 0) -> dict[str, Any]:
    """Cases ``first`` to ``stop - 1``; case N is made by ``Random(f"{seed}:{N}")`` alone, so
    any case runs again by its number, in any process."""
    failures: list[dict[str, Any]] = []
    lines = total_bytes = 0
    slowest = 0.0
    with tempfile.TemporaryDirectory(prefix="wftop-fuzz-journals-") as name, Oracle() as oracle:
        folder = Path(name)
        trees = copy_trees(folder / "trees")
        with environment(folder):
            for number in range(first, stop):
                rng = random.Random(f"{seed}:{number}")
                tree = rng.choice(trees)
                content = mutate(rng, tree.original)
                begin = time.monotonic()
                try:
                    lines += check_case(tree, content, oracle)
                except Exception as error:  # noqa: BLE001 - every failure is recorded
                    failures.append(
                        {
                            "case": number,
                            "tree": tree.root.name,
                            "error": f"{type(error).__name__}: {error}"[:4000],
                            "content": content.hex() if len(content) < 1_000_000 else None,
                        }
                    )
                slowest = max(slowest, time.monotonic() - begin)
                total_bytes += len(content)
                if every and (number - first) % every == 0:
                    print(f"... {number - first} of {stop - first}, {len(failures)} failures",
                          file=sys.stderr, flush=True)  # fmt: skip
    return {"lines": lines, "bytes": total_bytes, "slowest": slowest, "failures": failures}


def fuzz(
    seed: int, count: int, out: Path | None = None, workers: int = 1, every: int = 1000
) -> dict[str, Any]:
    """``count`` cases shared among ``workers`` processes."""
    started = time.monotonic()
    bounds = [count * part // workers for part in range(workers + 1)]
    if workers == 1:
        parts = [fuzz_range(seed, 0, count, every)]
    else:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            futures = [
                pool.submit(fuzz_range, seed, bounds[part], bounds[part + 1], every)
                for part in range(workers)
            ]
            parts = [future.result() for future in futures]
    failures = [failure for part in parts for failure in part["failures"]]
    summary: dict[str, Any] = {
        "seed": seed,
        "cases": count,
        "workers": workers,
        "trees": len(TREES),
        "commands_per_case": len(COMMANDS),
        "lines": sum(part["lines"] for part in parts),
        "bytes": sum(part["bytes"] for part in parts),
        "failures": len(failures),
        "slowest_case_s": round(max(part["slowest"] for part in parts), 3),
        "seconds": round(time.monotonic() - started, 1),
    }
    if failures and out is not None:
        out.write_text(json.dumps(failures[:50], indent=1))
        summary["failures_file"] = str(out)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=Path("fuzz-journals-failures.json"))
    parser.add_argument("--workers", type=int, default=1, help="processes sharing the cases")
    args = parser.parse_args(argv)
    summary = fuzz(args.seed, args.count, args.out, args.workers)
    print(json.dumps(summary))
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
