"""A first listing imports the price data ahead, while its walkers walk and before its
readers are forked (`wftop.core.cost.ahead`), where its runs' transcripts will need it: once,
where each reading process imported it when it first priced a message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.corpus import copy_tree
from wftop.core.cost.ahead import first_transcript

CODE = (
    "import sys; from wftop.cli.commands.ls import import_reading; "
    "import_reading(sys.argv[1:]); print('genai_prices' in sys.modules)"
)


def ahead(root: Path, state: Path) -> bool:
    """Whether the listing's reading imports, once done, hold the price package."""
    env = dict(os.environ, WFTOP_STATE_DIR=str(state))
    done = subprocess.run(
        [sys.executable, "-c", CODE, str(root)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip() == "True"


def test_the_first_transcript_is_of_the_first_run_folder(tmp_path: Path) -> None:
    root = copy_tree("clean", tmp_path)
    found = first_transcript([str(tmp_path / "none"), str(root)])
    assert found is not None
    assert Path(found).name.startswith("agent-") and found.endswith(".jsonl")
    assert Path(found).parent.parent.name == "workflows"
    assert first_transcript([str(tmp_path / "none")]) is None


def test_the_price_data_is_imported_ahead_where_a_transcript_needs_it(tmp_path: Path) -> None:
    root = copy_tree("clean", tmp_path)
    assert ahead(root, tmp_path / "state")


def test_nothing_is_imported_ahead_where_the_transcripts_carry_no_usage(tmp_path: Path) -> None:
    root = copy_tree("clean", tmp_path)
    for path in root.rglob("agent-*.jsonl"):
        lines = path.read_bytes().splitlines(keepends=True)
        path.write_bytes(b"".join(line for line in lines if b'"usage":{' not in line))
    assert not ahead(root, tmp_path / "state")


def test_nothing_is_imported_ahead_where_the_rate_book_holds_the_model(tmp_path: Path) -> None:
    root = copy_tree("clean", tmp_path)
    env = dict(os.environ, WFTOP_STATE_DIR=str(tmp_path / "state"))
    env["WFTOP_CACHE_DIR"] = str(tmp_path / "cache")
    listing = ["ls", "--json", "--no-cache", "--no-default-root", "--root", str(root)]
    subprocess.run([sys.executable, "-m", "wftop.cli", *listing], env=env, check=True)
    assert (tmp_path / "state" / "spends" / "rates.json").exists()
    assert not ahead(root, tmp_path / "state")
