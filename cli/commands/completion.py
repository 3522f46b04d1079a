"""``wftop completion bash|zsh|fish``: print a shell completion script.

The script is generated from wftop's own argparse parser (commands, their options, the
choices of options such as ``--format``), which ``wftop.cli.main`` hands to `run`, so it
never drifts from the CLI. No dependency. Run ids come from the hidden ``wftop
__complete-runs``, which reads only the rows cache (`wftop.core.index.rowcache.cached_journals`).
Install: ``wftop completion bash > ~/.local/share/bash-completion/completions/wftop``,
``wftop completion zsh > "${fpath[1]}/_wftop"``,
``wftop completion fish > ~/.config/fish/completions/wftop.fish``.
"""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path
from typing import Any

SHELLS = ("bash", "zsh", "fish")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("completion", help="print a shell completion script")
    parser.add_argument("shell", choices=SHELLS)
    parser.set_defaults(command="completion")


def options(parser: argparse.ArgumentParser) -> list[tuple[str, list[str], str]]:
    """(flag, choices, help) of every long option of ``parser``."""
    found = []
    for action in parser._actions:
        for flag in action.option_strings:
            if flag.startswith("--"):
                choices = [str(c) for c in action.choices] if action.choices else []
                found.append((flag, choices, (action.help or "").replace("%%", "%")))
    return found


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {choice.dest: choice.help or "" for choice in action._choices_actions}
    return {}


COMPLETE_RUNS = "__complete-runs"
"""The hidden command the scripts call for run ids: ``wftop __complete-runs [WORD...]``, with
the words typed so far (their ``--root`` and ``--no-default-root`` pick the roots)."""


def valued(parser: argparse.ArgumentParser) -> list[str]:
    """Long options of ``parser`` and its commands that take a value (``--root DIR``)."""
    found: dict[str, None] = {}
    for sub in [parser, *commands(parser).values()]:
        for action in sub._actions:
            if action.option_strings and action.nargs != 0:
                found.update(dict.fromkeys(f for f in action.option_strings if f.startswith("--")))
    return list(found)


def with_metavar(parser: argparse.ArgumentParser, *names: str) -> list[str]:
    """Long options of ``parser`` and its commands whose value is shown as one of ``names``."""
    found: dict[str, None] = {}
    for sub in [parser, *commands(parser).values()]:
        for action in sub._actions:
            if action.metavar in names:
                found.update(dict.fromkeys(f for f in action.option_strings if f.startswith("--")))
    return list(found)


def takes_run_id(sub: argparse.ArgumentParser) -> bool:
    return any(not a.option_strings and a.dest == "run_id" for a in sub._actions)


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
    from wftop.core.read.discovery import RUN_FOLDER, resolve_roots

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


def bash(parser: argparse.ArgumentParser) -> str:
    subs = commands(parser)
    top = " ".join(flag for flag, _, _ in options(parser))
    cases = []
    for name, sub in subs.items():
        flags = " ".join(flag for flag, _, _ in options(sub))
        positional = [
            " ".join(map(str, a.choices))
            for a in sub._actions
            if not a.option_strings and a.choices and not isinstance(a, argparse._SubParsersAction)
        ]
        words = " ".join([flags, *positional]).strip()
        runs = " runs=1" if takes_run_id(sub) else ""
        cases.append(f"        {name}) words={shlex.quote(words)}{runs} ;;")
    union: dict[str, dict[str, None]] = {}
    for sub in [parser, *subs.values()]:
        for flag, choices, _ in options(sub):
            if choices:
                union.setdefault(flag, {}).update(dict.fromkeys(choices))
    choice_cases = [
        f'        {flag}) COMPREPLY=($(compgen -W {shlex.quote(" ".join(values))} -- "$cur"));'
        " return ;;"
        for flag, values in union.items()
    ]
    takes_value = "|".join(valued(parser))
    typed = '"${COMP_WORDS[@]:1:COMP_CWORD-1}"'
    dirs, files = with_metavar(parser, "DIR"), with_metavar(parser, "PATH")
    free = [flag for flag in valued(parser) if flag not in union and flag not in dirs + files]
    return "\n".join(
        [
            "# bash completion for wftop (generated by `wftop completion bash`)",
            "_wftop() {",
            '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
            '    local cmd="" w words="" runs="" skip="" given="" id',
            '    for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do',
            '        if [ -n "$skip" ]; then skip=""; continue; fi',
            '        case "$w" in',
            f"            {takes_value}) skip=1 ;;",
            "            -*) ;;",
            '            *) if [ -z "$cmd" ]; then cmd="$w"; else given=1; fi ;;',
            "        esac",
            "    done",
            "    COMPREPLY=()",
            '    case "$prev" in',
            *[f'        {"|".join(dirs)}) COMPREPLY=($(compgen -d -- "$cur")); return ;;']
            * bool(dirs),
            *[f'        {"|".join(files)}) COMPREPLY=($(compgen -f -- "$cur")); return ;;']
            * bool(files),
            *choice_cases,
            *[f"        {'|'.join(free)}) return ;;"] * bool(free),
            "    esac",
            '    case "$cmd" in',
            f'        "") words={shlex.quote(top + " " + " ".join(subs))} ;;',
            *cases,
            "    esac",
            '    if [ -z "$runs" ] || [ -n "$given" ] || [[ "$cur" == -* ]]; then',
            '        COMPREPLY=($(compgen -W "$words" -- "$cur"))',
            "    else  # the run id: ids are added as read, never expanded by the shell",
            "        while IFS= read -r id; do",
            '            [[ "$id" == "$cur"* ]] && COMPREPLY+=("$id")',
            f"        done < <(wftop {COMPLETE_RUNS} {typed} 2>/dev/null)",
            "    fi",
            "}",
            "complete -F _wftop wftop",
            "",
        ]
    )


def _zsh_quote(text: str) -> str:
    return text.replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def _zsh_spec(action: argparse.Action, flag: str) -> str:
    """One ``_arguments`` spec: the flag, its help, and what its value completes to."""
    text = _zsh_quote((action.help or "").replace("%%", "%"))
    value = ""
    if action.nargs != 0:
        if action.choices:
            value = f":value:({' '.join(map(str, action.choices))})"
        elif action.metavar in ("DIR", "PATH"):
            value = f":{str(action.metavar).lower()}:_files" + (
                " -/" if action.metavar == "DIR" else ""
            )
        else:
            value = ":value: "
    return f"'{flag}[{text}]{value}'"


def _zsh_specs(parser: argparse.ArgumentParser, *, skip: frozenset[str] = frozenset()) -> str:
    specs = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        for flag in action.option_strings:
            if flag.startswith("--") and flag not in skip:
                specs.append(_zsh_spec(action, flag))
        if not action.option_strings and action.dest == "run_id":
            specs.append("'1:run id:_wftop_runs'")
        elif not action.option_strings and action.choices:
            specs.append(f"'1:{action.dest}:({' '.join(map(str, action.choices))})'")
    return " ".join(specs)


def zsh(parser: argparse.ArgumentParser) -> str:
    subs = commands(parser)
    about = helps(parser)
    lines = [
        "#compdef wftop",
        "# zsh completion for wftop (generated by `wftop completion zsh`)",
        "_wftop_runs() {",
        "  local -a ids",
        f'  ids=(${{(f)"$(wftop {COMPLETE_RUNS} ${{_wftop_typed[@]}} 2>/dev/null)"}})',
        "  compadd -a ids",
        "}",
        "_wftop() {",
        "  local -a cmds _wftop_typed",
        "  local i=2 cmd='' state",
        "  cmds=(",
        *[f"    '{name}:{_zsh_quote(about.get(name, ''))}'" for name in subs],
        "  )",
        "  _wftop_typed=(${words[2,CURRENT-1]})",
        "  # The command is the first word that is neither an option nor an option's value.",
        "  while (( i < CURRENT )); do",
        "    case ${words[i]} in",
        f"      ({'|'.join(valued(parser))}) (( i++ )) ;;",
        "      (-*) ;;",
        "      (*) cmd=${words[i]}; break ;;",
        "    esac",
        "    (( i++ ))",
        "  done",
        "  if [[ -z $cmd ]]; then",
        f"    _arguments {_zsh_specs(parser)} '1:command:->command'",
        "    [[ $state == command ]] && _describe 'command' cmds",
        "    return",
        "  fi",
        "  shift $(( i - 1 )) words",
        "  (( CURRENT -= i - 1 ))",
        "  case $cmd in",
    ]
    for name, sub in subs.items():
        lines.append(f"    ({name}) _arguments {_zsh_specs(sub)} ;;")
    lines += ["  esac", "}", "compdef _wftop wftop", ""]
    return "\n".join(lines)


def fish(parser: argparse.ArgumentParser) -> str:
    subs = commands(parser)
    about = helps(parser)
    names = " ".join(subs)
    lines = ["# fish completion for wftop (generated by `wftop completion fish`)"]
    lines.append("complete -c wftop -f")
    for name in subs:
        lines.append(
            f"complete -c wftop -n 'not __fish_seen_subcommand_from {names}' -a {name} "
            f"-d {shlex.quote(about.get(name, ''))}"
        )
    takes_value = set(valued(parser))
    paths = set(with_metavar(parser, "DIR", "PATH"))
    top = options(parser)
    for flag, _, text in top:  # global options: before or after any command
        extra = " -r -F" if flag == "--root" else (" -x" if flag in takes_value else "")
        lines.append(f"complete -c wftop -l {flag[2:]}{extra} -d {shlex.quote(text)}")
    shared = {flag for flag, _, _ in top}
    for name, sub in subs.items():
        for flag, choices, text in options(sub):
            if flag in shared:
                continue
            extra = f" -x -a {shlex.quote(' '.join(choices))}" if choices else ""
            if not choices and flag in takes_value:
                extra = " -r -F" if flag in paths else " -x"
            lines.append(
                f"complete -c wftop -n '__fish_seen_subcommand_from {name}' -l {flag[2:]}"
                f"{extra} -d {shlex.quote(text)}"
            )
        for action in sub._actions:
            if not action.option_strings and action.choices:
                lines.append(
                    f"complete -c wftop -n '__fish_seen_subcommand_from {name}' "
                    f"-a {shlex.quote(' '.join(map(str, action.choices)))}"
                )
        if takes_run_id(sub):
            lines.append(
                f"complete -c wftop -n '__fish_seen_subcommand_from {name}' "
                f"-a '(wftop {COMPLETE_RUNS} (commandline -opc)[2..-1])' -d 'run id'"
            )
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Print the script for ``args.shell``, made from ``parser``: wftop's whole parser."""
    print({"bash": bash, "zsh": zsh, "fish": fish}[args.shell](parser), end="")
    return 0
