"""``wftop ls --json`` from its rows cache: a kept row is the bytes the listing printed, so
what it masked and escaped stays masked and escaped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.corpus import copy_tree

SECRET = "sk-ant-api03-" + "Q" * 24
NAME = f"deploy {SECRET} \u009b31m \u202egnp.exe"
"""A run name with an Anthropic key, a C1 control (CSI) and a right-to-left override."""


def ls(root: Path, cache: Path, *extra: str) -> bytes:
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", "ls", "--json", "--no-default-root"]
        + ["--root", str(root), *extra],
        capture_output=True,
        env={**os.environ, "WFTOP_CACHE_DIR": str(cache), "WFTOP_NOW": "1800000000"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_kept_row_is_printed_as_kept_masked_and_escaped(tmp_path: Path) -> None:
    root = copy_tree("clean", tmp_path)
    (snapshot,) = root.glob("projects/*/*/workflows/wf_*.json")
    data = json.loads(snapshot.read_text())
    data["workflowName"] = NAME
    snapshot.write_text(json.dumps(data))
    cache = tmp_path / "cache"
    uncached = ls(root, cache, "--no-cache")
    assert not cache.exists()
    first, kept = ls(root, cache), ls(root, cache)
    assert first == kept == uncached
    assert SECRET.encode() not in kept and b"[masked:anthropic_key]" in kept
    assert b"\\u009b31m \\u202egnp.exe" in kept
    assert "\u009b".encode() not in kept and "\u202e".encode() not in kept
    (held,) = (cache / "ls-rows").iterdir()
    (row,) = json.loads(kept)
    assert row["name"] == "deploy [masked:anthropic_key] \u009b31m \u202egnp.exe"
    item = kept[len(b"[\n") : -len(b"\n]\n")]  # the one row, as the array prints it
    assert item in held.read_bytes()  # kept as those bytes, not as a string of JSON
    assert SECRET.encode() not in held.read_bytes()


READING = {"wftop.core.model", "wftop.core.index.reader", "wftop.core.cost.prices"}
"""Modules a listing needs only to read a run: the fold's model, the reader and the price
data (``importlib.metadata``)."""


def imported(root: Path, cache: Path, *extra: str) -> set[str]:
    """The modules ``wftop ls --json`` imported, run in a fresh interpreter."""
    argv = ["ls", "--json", "--no-default-root", "--root", str(root), *extra]
    code = (
        "import sys\nfrom wftop.cli.main import main\n"
        f"code = main({argv!r})\nsys.stderr.write(' '.join(sys.modules))\nsys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        env={**os.environ, "WFTOP_CACHE_DIR": str(cache)},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return set(done.stderr.decode().split())


def test_a_listing_whose_every_row_is_kept_imports_nothing_that_reads_a_run(
    tmp_path: Path,
) -> None:
    """Imports were 0.10 s of a cached ``ls --json`` at 5,000 runs, most of them for reading
    runs that the rows cache answered for."""
    root = copy_tree("clean", tmp_path)
    cache = tmp_path / "cache"
    assert not (root / "sessions").exists()
    assert imported(root, cache) >= READING  # the run was read: its row is kept now
    kept = imported(root, cache)
    assert not READING & kept
    assert "psutil" not in kept  # no registry names a session: no process to ask about
    assert imported(root, cache, "--no-cache") >= READING


def test_a_listing_whose_every_row_is_kept_starts_no_process_and_imports_none_of_that(
    tmp_path: Path,
) -> None:
    """The process table's module was imported for the owners of sessions no registry
    names, and imported ``subprocess`` (with ``threading``, ``signal`` and ``selectors``)
    for the one function that stops a child: 4-5 ms of every cached ``ls``."""
    root = copy_tree("clean", tmp_path)
    cache = tmp_path / "cache"
    imported(root, cache)
    kept = imported(root, cache)
    assert not {"wftop.core.system.procs", "subprocess", "threading", "selectors"} & kept


def test_a_listing_whose_every_row_is_kept_imports_no_reader_and_no_shutil(
    tmp_path: Path,
) -> None:
    """The walk imported the journal reader for its `Problem` type (1.5 ms with the line
    verdicts), and argparse's formatter imported `shutil` for the terminal's width, which
    brings bz2, lzma and zlib (2 ms): neither reads anything a kept listing prints."""
    root = copy_tree("clean", tmp_path)
    cache = tmp_path / "cache"
    imported(root, cache)
    kept = imported(root, cache)
    assert not {"wftop.core.read.jsonl", "shutil", "bz2", "lzma"} & kept


def test_a_listing_whose_every_row_is_kept_loads_no_openssl(tmp_path: Path) -> None:
    """`hashlib` loads OpenSSL (2.5 ms): the rows file was named by SHA-256 of its root, and
    the check of runs continued in another session imported BLAKE2 for a listing that has
    none."""
    root = copy_tree("clean", tmp_path)
    cache = tmp_path / "cache"
    imported(root, cache)
    assert not {"hashlib", "_hashlib"} & imported(root, cache)


def test_a_listing_whose_every_row_is_kept_loads_the_masking_only_for_a_name_that_needs_it(
    tmp_path: Path,
) -> None:
    """The masking's patterns (and the JSON encoder beside them) were imported by every
    listing, 3 ms, to mask project names that the quick test finds nothing in; a working
    directory whose name holds a key is masked in a kept listing as in a first one."""
    root = copy_tree("clean", tmp_path)
    cache = tmp_path / "cache"
    imported(root, cache)
    assert not {"wftop.core.text.redact", "wftop.core.text.jsonout"} & imported(root, cache)
    (transcript,) = root.glob("projects/*/*.jsonl")
    cwd = next(
        line["cwd"]
        for line in map(json.loads, transcript.read_text().splitlines())
        if "cwd" in line
    )
    transcript.write_text(transcript.read_text().replace(cwd, f"/home/dev/{SECRET}"))
    uncached = ls(root, cache, "--no-cache")
    first, kept = ls(root, cache), ls(root, cache)
    assert first == kept == uncached
    (row,) = json.loads(kept)
    assert row["project_name"] == "[masked:anthropic_key]"  # its cwd is a path, kept real
    assert "wftop.core.text.redact" in imported(root, cache)
