"""A run folder is made as the frozen data class would make it, by an ``__init__`` of its
own: a warm engine makes one for each of its kept rows before it lists them."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError, fields, replace

import pytest

from wftop.core.read import runfolder
from wftop.core.read.runfolder import RunFolder

VALUES = ("/r", "-p", "s1", "wf_abcdef-001", "/r/projects/-p/s1/subagents/workflows/wf_abcdef-001")


def test_a_run_folder_is_made_by_place_and_by_name_as_its_fields_say() -> None:
    by_place = RunFolder(*VALUES, "/real")
    by_name = RunFolder(
        root="/r",
        project="-p",
        session_id="s1",
        run_id="wf_abcdef-001",
        path=VALUES[4],
        real_path="/real",
    )
    assert by_place == by_name and hash(by_place) == hash(by_name)
    assert [getattr(by_place, each.name) for each in fields(RunFolder)] == [*VALUES, "/real"]
    names = [each.name for each in fields(RunFolder)]
    assert vars(by_place) == dict(zip(names, [*VALUES, "/real"], strict=True))
    assert repr(by_place).startswith("RunFolder(root='/r', project='-p', session_id='s1'")
    assert by_place != replace(by_place, real_path="/other")
    assert replace(by_place, real_path="/other").real_path == "/other"
    for made in (pickle.loads(pickle.dumps(by_place)), copy.copy(by_place)):
        assert made == by_place and made.ident == by_place.ident


def test_a_run_folder_is_refused_as_the_data_class_refuses_one() -> None:
    folder = RunFolder(*VALUES, "/real")
    with pytest.raises(FrozenInstanceError):
        folder.root = "/elsewhere"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del folder.root  # type: ignore[misc]
    with pytest.raises(TypeError):
        RunFolder(*VALUES)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        RunFolder(*VALUES, "/real", "/one-too-many")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        RunFolder(*VALUES, real_path="/real", root="/twice")  # type: ignore[misc]
    with pytest.raises(TypeError):
        RunFolder(*VALUES, real="/real")  # type: ignore[call-arg]


def test_a_run_folder_is_made_by_an_init_written_in_its_module() -> None:
    """Not one `dataclasses` compiled as the module was imported (its code's file is
    ``<string>``), which sets each field through ``object.__setattr__``."""
    assert RunFolder.__init__.__code__.co_filename == runfolder.__file__
