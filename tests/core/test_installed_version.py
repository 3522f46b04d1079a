"""A distribution's version is what ``importlib.metadata.version`` says, read without it where
the install is plain (`wftop.core.system.installed`): every distribution of this
interpreter, folders laid out every way ``importlib.metadata`` reads (eggs, zips, two of a
name, METADATA without a version, folded, with other line ends), and METADATA headers made by
hypothesis; and the price data's version, asked by every plan, imports nothing of it."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wftop.core.system.installed import _metadata_version, installed_version


def test_every_distribution_of_this_interpreter_reads_as_importlib_reads_it() -> None:
    names = {dist.metadata["Name"] for dist in importlib.metadata.distributions()} - {None}
    assert {"genai-prices", "orjson"} <= names
    for name in names:
        assert installed_version(name) == importlib.metadata.version(name), name
    assert installed_version("no-such-distribution-here") is None


def dist_info(where: Path, folder: str, metadata: str | bytes | None) -> Path:
    path = where / folder
    path.mkdir(parents=True)
    if metadata is not None:
        data = metadata.encode() if isinstance(metadata, str) else metadata
        (path / "METADATA").write_bytes(data)
    return path


PLAIN = "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.2.3\nSummary: x\n\nbody\n"

LAYOUTS: dict[str, list[tuple[str, str, str | bytes | None]]] = {
    "plain": [("a", "demo_pkg-1.2.3.dist-info", PLAIN)],
    "not there": [("a", "other-1.0.dist-info", PLAIN)],
    "second folder on the path": [
        ("a", "other-1.0.dist-info", PLAIN),
        ("b", "Demo.Pkg-1.2.3.dist-info", PLAIN.replace("1.2.3", "4.5")),
    ],
    "first folder wins": [
        ("a", "demo_pkg-1.dist-info", PLAIN.replace("1.2.3", "1")),
        ("b", "demo_pkg-2.dist-info", PLAIN.replace("1.2.3", "2")),
    ],
    "two of the name in one folder": [
        ("a", "demo_pkg-1.dist-info", PLAIN.replace("1.2.3", "1")),
        ("a", "demo-pkg-2.dist-info", PLAIN.replace("1.2.3", "2")),
    ],
    "an egg-info": [("a", "demo_pkg-1.2.3.egg-info", None)],
    "an egg on the path": [("a.egg", "EGG-INFO", None)],
    "no METADATA": [("a", "demo_pkg-1.2.3.dist-info", None)],
    "no version": [("a", "demo_pkg-1.2.3.dist-info", "Metadata-Version: 2.1\nName: d\n\n")],
    "folded": [("a", "demo_pkg-1.dist-info", "Name: d\nVersion: 1.2\n .3\n\n")],
    "folded before": [("a", "demo_pkg-1.dist-info", "Summary: a\n  b\nVersion: 1\n\n")],
    "crlf": [("a", "demo_pkg-1.dist-info", PLAIN.replace("\n", "\r\n"))],
    "lower case, spaces kept": [("a", "demo_pkg-1.dist-info", "version:\t 7.0 \n\n")],
    "version in the body only": [("a", "demo_pkg-1.dist-info", "Name: d\n\nVersion: 9\n")],
    "not a header first": [("a", "demo_pkg-1.dist-info", "just text\nVersion: 9\n\n")],
    "not utf-8 after the version": [("a", "demo_pkg-1.dist-info", b"Version: 1\n\n\xff\n")],
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_layout_reads_as_importlib_reads_it(layout: str, tmp_path: Path) -> None:
    for entry, folder, metadata in LAYOUTS[layout]:
        dist_info(tmp_path / entry, folder, metadata)
    entries = [str(tmp_path / name) for name in ("a", "a.egg", "b", "gone")]
    assert outcome(installed_version, entries) == outcome(_metadata_version, entries)


def outcome(read: Callable[[str, list[str]], str | None], entries: list[str]) -> object:
    """What ``read`` says of ``demo-pkg``, or the error it raises (a METADATA not UTF-8)."""
    try:
        return read("demo-pkg", entries)
    except ValueError as error:
        return type(error)


def test_a_zip_on_the_path_reads_as_importlib_reads_it(tmp_path: Path) -> None:
    archive = tmp_path / "packed.zip"
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr("demo_pkg-3.1.dist-info/METADATA", "Name: demo-pkg\nVersion: 3.1\n\n")
    assert installed_version("demo-pkg", [str(archive)]) == "3.1"


LINES = st.sampled_from(
    [
        "Name: demo-pkg",
        "Version: 1.0",
        "Version:2",
        "version: 3 ",
        "VERSION:\t4",
        "Summary: Version: 5",
        " folded",
        "\tfolded",
        "From here",
        "X-Odd_Name!: 6",
        ": empty name",
        "no colon",
        "Version: 7\r",
        "Version: 8\x0c",
        "Version: 9\u2028",
        "",
    ]
)


@settings(max_examples=int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "150")), deadline=None)
@given(st.lists(LINES, max_size=6))
def test_any_metadata_headers_read_as_importlib_reads_them(lines: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        dist_info(Path(where), "demo_pkg-1.dist-info", "\n".join(lines) + "\n")
        assert installed_version("demo-pkg", [where]) == _metadata_version("demo-pkg", [where])


def test_the_price_data_version_imports_nothing_of_importlib_metadata(tmp_path: Path) -> None:
    """A plan (and a first listing, and the engine) asks it: importing ``importlib.metadata``
    and parsing METADATA with ``email`` took 20 ms of CPU of each."""
    code = (
        "import json, sys\nfrom wftop.core.cost.prices import price_data\n"
        "print(json.dumps([price_data(), 'importlib.metadata' in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    data, imported = json.loads(done.stdout)
    version = importlib.metadata.version("genai-prices")
    assert data == {"package": "genai-prices", "version": version}
    assert not imported
