"""``wftop ls`` whose rows cache holds no row (``--no-cache``, or a first listing) reads
every run: it imports what reads them while its forked walkers walk (`kept_rows`'s
``meanwhile``), not after the walk, on one CPU; a listing the cache answers, and a tree too
small for a walker, import nothing of it by the walk's end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.test_walkers import many_sessions
from wftop.cli.commands.ls import READING

ASKED = sorted(name for name in READING if name != "wftop.core.index.fanout")
"""The modules of `READING` looked for (the probe imports the fan-out itself)."""

PROBE = """
import json, sys
from wftop.core.index import fanout, keptrows, walkers
walkers.MIN_SESSIONS_PER_WALKER = int(sys.argv[1])
fanout.usable_cpus = lambda: 2
reading = json.loads(sys.argv[2])
seen = []
walked = keptrows.run_folders_of

def noted(*args, **kwargs):
    found = walked(*args, **kwargs)
    seen.append(sorted(name for name in reading if name in sys.modules))
    return found

keptrows.run_folders_of = noted
from wftop.cli.main import main
code = main(["ls", "--json", "--no-default-root", *sys.argv[3:]])
print(json.dumps(seen), file=sys.stderr)
sys.exit(code)
"""


def imported_at_walk_end(least: int, roots: list[str], cache: Path, *extra: str) -> list[str]:
    """Which of `ASKED` a ``wftop ls --json`` process had imported when its walk ended
    (``least``: sessions a walker must have at least)."""
    argv = [arg for root in roots for arg in ("--root", root)]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(least), json.dumps(ASKED), *argv, *extra],
        capture_output=True,
        env={**os.environ, "WFTOP_CACHE_DIR": str(cache), "WFTOP_NOW": "1800000000"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    (seen,) = json.loads(done.stderr.splitlines()[-1])
    assert isinstance(seen, list)
    return seen


@pytest.mark.parametrize("no_cache", [True, False])
def test_a_listing_that_reads_every_run_imports_its_reading_while_the_walkers_walk(
    tmp_path: Path, no_cache: bool
) -> None:
    roots, _sessions = many_sessions(tmp_path)
    cache = tmp_path / "cache"
    extra = ("--no-cache",) if no_cache else ()
    assert imported_at_walk_end(2, roots, cache, *extra) == ASKED
    if not no_cache:  # the next listing is answered by the cache: nothing of it imported
        assert imported_at_walk_end(2, roots, cache) == []
    # too few sessions for a walker: imported after the walk, as before
    assert imported_at_walk_end(1000, roots, tmp_path / "other", *extra) == []
