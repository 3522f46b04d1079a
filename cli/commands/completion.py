"""``wftop completion bash|zsh``: print a shell completion script.

The script is made by shtab from wftop's own argparse parser (commands, their options, the
choices of options such as ``--format``, directories for ``--root``, files for ``--claude``),
which ``wftop.cli.main`` hands to `run`, so it never drifts from the CLI. Run ids come from
the hidden ``wftop __complete-runs``, which reads only the rows cache
(`wftop.core.index.rowcache.cached_journals`): the run id arguments carry
`wftop.cli.options.RUN_ID_VALUES`, the shell functions of `PREAMBLE` that ask it. fish is not
offered: shtab writes no fish script.
Install: ``wftop completion bash > ~/.local/share/bash-completion/completions/wftop``,
``wftop completion zsh > "${fpath[1]}/_wftop"``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from wftop.cli.options import RUN_ID_VALUES

SHELLS = ("bash", "zsh")

COMPLETE_RUNS = "__complete-runs"
"""The hidden command the scripts call for run ids: ``wftop __complete-runs [WORD...]``, with
the words typed so far (their ``--root`` and ``--no-default-root`` pick the roots)."""

PREAMBLE = {
    "bash": f"""\
# The run ids of the roots the line names, from wftop's rows cache; read as lines, never
# expanded by the shell. $1: the word being completed.
{RUN_ID_VALUES["bash"]}() {{
  local id
  while IFS= read -r id; do
    [[ "$id" == "$1"* ]] && printf '%s\\n' "$id"
  done < <(wftop {COMPLETE_RUNS} "${{COMP_WORDS[@]:1:COMP_CWORD-1}}" 2>/dev/null)
}}
""",
    "zsh": f"""\
# The run ids of the roots the line names (its words left of the cursor, the ones before the
# command included), from wftop's rows cache.
{RUN_ID_VALUES["zsh"]}() {{
  local -a typed ids
  typed=(${{(Q)${{(z)LBUFFER}}}})
  ids=(${{(f)"$(wftop {COMPLETE_RUNS} ${{typed[2,-1]}} 2>/dev/null)"}})
  compadd -a ids
}}
""",
}
"""The shell functions that complete a run id (`RUN_ID_VALUES` names them)."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("completion", help="print a shell completion script")
    parser.add_argument("shell", choices=SHELLS)
    parser.set_defaults(command="completion")


def roots_in(words: list[str]) -> tuple[list[str], bool]:
    """The ``--root`` dirs among the words typed, and whether the default root counts."""
    roots, default, take = [], True, False
    for word in words:
        if take:
            roots.append(word)
            take = False
        elif word == "--root":
            take = True
        elif word.startswith("--root="):
            roots.append(word.removeprefix("--root="))
        elif word == "--no-default-root":
            default = False
    return roots, default


def run_ids(words: list[str], cache: Path | None = None) -> list[str]:
    """Run ids of the roots the words name, newest activity first, from the rows cache only
    (``wftop ls`` fills it); ids not shaped as the CLI writes them are left out."""
    from wftop.core.index.rowcache import cached_journals
    from wftop.core.read.roots import resolve_roots
    from wftop.core.read.runfolder import RUN_FOLDER

    extra, default = roots_in(words)
    kept = cached_journals(resolve_roots(extra, include_default=default), cache)
    kept.sort(key=lambda pair: -(pair[1] or 0.0))
    ids: dict[str, None] = {}
    for journal, _activity in kept:  # <root>/projects/<slug>/<session>/…/<runId>/journal.jsonl
        run_id = journal.rsplit(os.sep, 2)[-2]
        if RUN_FOLDER.match(run_id):
            ids[run_id] = None
    return list(ids)


def complete_runs(words: list[str]) -> int:
    """``wftop __complete-runs``: one run id a line."""
    ids = run_ids(words)
    if ids:
        print("\n".join(ids))
    return 0


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``shell`` for ``parser``: wftop's whole parser."""
    import shtab

    text: str = shtab.complete(parser, shell, preamble=PREAMBLE[shell])
    return text if text.endswith("\n") else text + "\n"


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Print the script for ``args.shell``, made from ``parser``."""
    print(script(parser, args.shell), end="")
    return 0
