"""The version of an installed distribution, as ``importlib.metadata.version`` says it,
without importing ``importlib.metadata`` where the install is plain (`installed_version`).

Importing it (with ``email``, ``zipfile``, ``csv`` and friends) and parsing the METADATA
file with the ``email`` package took 20 ms of CPU of each command that reads the price
data's version (a plan, a first listing, the engine); the version is one header line of a
file in a ``.dist-info`` folder found on ``sys.path``. Anything but that plain case (a zip
or an egg on the path, two folders of the name, a header folded or not where it is
expected, a finder of distributions other than the path's) is left to
``importlib.metadata`` itself.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence

_SPECIAL = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
"""Characters that end a line for ``email``'s parser or ``str.splitlines`` but not ``\\n``:
text holding one is read by ``importlib.metadata``."""

_HEADER = re.compile(r"[!-9;-~]+:")
"""A header line's name and colon, as ``email``'s parser knows one."""


class Unplain(Exception):
    """The install is not the plain case: ``importlib.metadata`` answers."""


def _normalized(name: str) -> str:
    """A distribution's name as ``importlib.metadata`` compares it (``Prepared.normalize``)."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _finders_are_plain() -> bool:
    """Only the path finder of ``sys.meta_path`` finds distributions."""
    from importlib.machinery import PathFinder

    return all(
        finder is PathFinder or not hasattr(finder, "find_distributions")
        for finder in sys.meta_path
    )


def _folder(name: str, entries: Sequence[str]) -> str | None:
    """The ``.dist-info`` folder of distribution ``name`` ``importlib.metadata`` finds first
    on ``entries`` (None: none)."""
    wanted = _normalized(name)
    for entry in entries:
        root = entry or "."
        if os.path.basename(root).lower().endswith(".egg"):
            raise Unplain(root)
        try:
            children = os.listdir(root)
        except FileNotFoundError:
            continue
        except OSError as error:  # a zip on the path, or a folder not to be listed
            raise Unplain(root) from error
        found = [
            child
            for child in children
            if child.lower().endswith((".dist-info", ".egg-info"))
            and _normalized(child.lower().rpartition(".")[0].partition("-")[0]) == wanted
        ]
        if len(found) > 1 or (found and not found[0].lower().endswith(".dist-info")):
            raise Unplain(root)
        if found:
            return os.path.join(root, found[0])
    return None


def _header_version(text: str) -> str:
    """The first ``Version`` header of METADATA ``text``, as ``email``'s parser reads it."""
    lines = text.split("\n")
    for at, line in enumerate(lines[:-1]):
        if not line or _SPECIAL.search(line) or line.startswith("From "):
            raise Unplain("no version among the headers, or a line email reads otherwise")
        if line[0] in " \t" or not _HEADER.match(line):
            raise Unplain("a folded header, or not a header")
        field, value = line.split(":", 1)
        if field.lower() == "version":
            if lines[at + 1][:1] in (" ", "\t"):
                raise Unplain("the version folded")
            return value.lstrip(" \t")
    raise Unplain("no version")


def installed_version(name: str, entries: Sequence[str] | None = None) -> str | None:
    """``importlib.metadata.version(name)`` (None: not installed) over ``entries``
    (``sys.path``), read from its ``.dist-info`` folder's METADATA where the install is
    plain."""
    path = sys.path if entries is None else entries
    try:
        if not _finders_are_plain():
            raise Unplain("finders")
        folder = _folder(name, path)
        if folder is not None:
            with open(os.path.join(folder, "METADATA"), encoding="utf-8") as handle:
                text = handle.read()
            return _header_version(text.partition("\n\n")[0] + "\n")
    except (Unplain, OSError, UnicodeDecodeError):
        return _metadata_version(name, path)
    return None


def _metadata_version(name: str, entries: Sequence[str]) -> str | None:
    from importlib.metadata import PackageNotFoundError, distributions

    try:
        return next(iter(distributions(name=name, path=list(entries)))).version
    except (StopIteration, PackageNotFoundError):
        return None
