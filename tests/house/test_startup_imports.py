"""What the TUI imports before its first rows: not what only a later key needs (the run
screen, help, the links to other hosts, the rehearsal, what tells a run's change on the
notification channels). Every module is time the user waits for the first paint."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from wftop.core.version import VERSION, package_version

TOP = Path(__file__).parents[2]

LATER = (
    "wftop.tui.screens.run",
    "wftop.tui.screens.help",
    "wftop.core.remote.link",
    "wftop.core.remote.feed",
    "wftop.core.forecast.exact",
    "wftop.core.index.reader",
    "wftop.core.index.coldpass",
    "genai_prices",
    "wftop.core.notify.events",
    "wftop.core.notify.notifier",
    "wftop.core.notify.setup",
)


def test_the_app_starts_without_what_only_a_later_key_needs():
    script = (
        "import sys; import wftop.tui.app; "
        f"print(' '.join(name for name in {LATER!r} if name in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == []


def test_what_a_run_opened_first_needs_is_readied_with_its_screen():
    """The first ``enter`` reads its run: what reads it is imported with the run screen,
    in the background once the list is drawn (`wftop.tui.navigator.ready`), not on the
    key (9 ms of its CPU at 20,000 rows)."""
    script = (
        "import sys; import wftop.tui.app; from wftop.tui.navigator import ready; ready(); "
        f"print(' '.join(name for name in {LATER!r} if name in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert "wftop.core.index.reader" in done.stdout.split()
    assert "wftop.core.index.coldpass" in done.stdout.split()


def test_the_version_is_the_one_pyproject_declares_and_the_install_has():
    declared = tomllib.loads((TOP / "pyproject.toml").read_text())["project"]["version"]
    assert VERSION == declared == metadata.version("wftop") == package_version()


def test_the_plan_command_imports_no_event_loop():
    """``wftop resume`` reads one run and prints its plan: asyncio (20 ms of its start) is
    imported by the fan-out's stream alone, when a stream is read."""
    script = (
        "import sys; import wftop.cli.main, wftop.cli.commands.resume; "
        "print('asyncio' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["False"]


def test_the_plan_imports_no_module_only_other_commands_use():
    """A plan reads its run's stop cause from the session's report, and a config with no
    hosts: the salvage of runs and the listing of sessions (``export``, ``scan``), the
    links to other hosts and the config file's scan are imported by what uses them."""
    later = (
        "wftop.core.forensics.salvage",
        "wftop.core.forensics.sessionlist",
        "wftop.core.remote.transport",
        "wftop.core.tomlscan",
    )
    script = (
        "import sys; import wftop.cli.main, wftop.cli.commands.resume, wftop.core.config; "
        "import wftop.core.resume.stopcause, wftop.core.forensics.report; "
        "from wftop.core.config import parse_config; parse_config({}, 'config.toml'); "
        f"print(' '.join(name for name in {later!r} if name in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == []


def imported_of(setup: str, names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` a fresh interpreter holds after running ``setup``."""
    script = f"import sys; {setup}; print(' '.join(n for n in {names!r} if n in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def test_the_plan_imports_nothing_only_a_listing_row_needs():
    """A plan reads one run and makes no row of it: the row and the counting read that
    makes a listing's rows (4 ms of its start, a data class made) come with the first
    row a listing makes."""
    later = ("wftop.core.row", "wftop.core.index.countrow")
    assert imported_of("import wftop.cli.main, wftop.cli.commands.resume", later) == []
