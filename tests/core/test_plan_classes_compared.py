"""The data classes of a plan (`wftop.core.resume`, `wftop.core.forecast`) get no comparison,
hash or repr compiled for each as a plan's modules are imported (`wftop.core.compared`
gives them: about 35 M instructions of a plan's imports, the parse and compile of each
method's text), and answer as the data classes did; `wftop.core.forecast.fates.CallFate`,
hashed by its fields though not frozen, keeps the generated ones."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from dataclasses import replace

import pytest

from wftop.core import forecast, resume
from wftop.core.forecast.fates import CallFate
from wftop.core.resume.choice import Hazard
from wftop.core.resume.guard import Verdict

KEPT = {CallFate}
"""Hashed by its fields though not frozen (``unsafe_hash``), which `compared` does not make."""


def plan_classes() -> list[type]:
    found = []
    for package in (resume, forecast):
        for info in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if (
                    isinstance(value, type)
                    and value.__module__ == module.__name__
                    and dataclasses.is_dataclass(value)
                ):
                    found.append(value)
    return found


def test_there_are_plan_classes_of_every_kind() -> None:
    classes = plan_classes()
    assert len(classes) >= 25 and set(classes) >= KEPT
    frozen = [kind for kind in classes if kind.__dataclass_params__.frozen]  # type: ignore[attr-defined]
    assert 0 < len(frozen) < len(classes)


@pytest.mark.parametrize("kind", plan_classes(), ids=lambda kind: kind.__qualname__)
def test_a_plan_class_is_compared(kind: type) -> None:
    if kind in KEPT:
        return
    for method in ("__eq__", "__repr__"):
        assert getattr(kind, method).__module__ == "wftop.core.compared", method
    if kind.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        assert kind.__hash__.__module__ == "wftop.core.compared"
    else:
        assert kind.__hash__ is None  # not frozen: unhashable, as the data class made it


def test_plan_classes_compare_hash_and_say_themselves_as_before() -> None:
    hazard = Hazard("transcript_missing", "the transcript is gone")
    assert (
        hazard
        == Hazard("transcript_missing", "the transcript is gone")
        != replace(hazard, code="other")
    )
    assert hash(hazard) == hash(replace(hazard)) and hazard != ("transcript_missing",)
    assert repr(hazard) == ("Hazard(code='transcript_missing', message='the transcript is gone')")
    verdict = Verdict(False, "busy", fix="wait")
    assert verdict == replace(verdict) and verdict != replace(verdict, ok=True)
    assert repr(verdict) == "Verdict(ok=False, reason='busy', forceable=True, fix='wait', risk='')"
    assert len({verdict, replace(verdict)}) == 1
