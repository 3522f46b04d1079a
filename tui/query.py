"""What ``/`` understands: ``field:value`` terms and free words, every term must match.

Pure. Fields: ``status:dead`` (a status, or the start of one), ``project:web`` (part of
the project's short name or slug), ``session:cb52`` and ``run:d27`` (part of the id),
``name:`` and ``label:`` (part of the run's name, of the label of a call in flight or
failed: a run's row does not list the calls that returned), ``host:`` (part of the host's
name; ``local`` for this machine). A free word matches the run's name, project, the labels
of its calls in flight and failed, status word and host; it matches the run and session ids
only when it holds a digit, ``-`` or ``_``, so ``dead`` finds dead runs and runs named so,
never a hex id that happens to spell it. Case is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass

from wftop.core.compared import compared
from wftop.core.row import RunRow

FIELDS = ("status", "project", "session", "run", "name", "label", "host")
"""The fields a term may name (``status:dead``)."""

Term = tuple[str, str]
"""(field, value), lowercased; the field is ``""`` for a free word."""


def parse(text: str) -> tuple[Term, ...]:
    """The terms of a filter text; ``foo:bar`` with an unknown field is a free word."""
    terms: list[Term] = []
    for word in text.lower().split():
        field, colon, value = word.partition(":")
        if colon and field in FIELDS:
            if value:
                terms.append((field, value))
        else:
            terms.append(("", word))
    return tuple(terms)


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Hay:
    """What the terms of one run are matched against, lowercased."""

    status: str
    project: str
    session: str
    run: str
    name: str
    labels: str
    words: str
    """Name, project, call labels, status and host: what a free word searches."""
    host: str = "local"
    """The run's host (``local`` for this machine's)."""


def call_labels(run: RunRow) -> tuple[str, ...]:
    """The call labels a row carries: its calls in flight and its failed ones (a row does
    not list the calls that returned)."""
    return (*run.in_flight, *run.failed_calls)


def hay(run: RunRow) -> Hay:
    """What ``/`` matches ``run`` against. One is held per run while the box is used (20,000
    of them): a text already in lower case is the row's own (ids and names mostly are)."""
    labels = lowered(" ".join(call_labels(run)))
    project = f"{run.project_name} {run.project}".lower()
    name = lowered(run.name or "")
    status = run.shown_status  # the word the row shows: partial, not completed
    host = "local" if run.host is None else lowered(run.host)
    return Hay(
        status=status,
        project=project,
        session=lowered(run.session_id),
        run=lowered(run.run_id),
        name=name,
        labels=labels,
        host=host,
        words=" ".join((name, project, labels, status, host)),
    )


def lowered(text: str) -> str:
    """``text`` in lower case: ``text`` itself when it is so already."""
    low = text.lower()
    return text if low == text else low


def id_shaped(word: str) -> bool:
    return any(char.isdigit() or char in "-_" for char in word)


def term_matches(term: Term, found: Hay) -> bool:
    field, value = term
    if field == "status":
        return found.status.startswith(value)
    if field in ("project", "session", "run", "name", "host"):
        return value in getattr(found, field)
    if field == "label":
        return value in found.labels
    if value in found.words:
        return True
    return id_shaped(value) and (value in found.run or value in found.session)


def matches(terms: tuple[Term, ...], found: Hay) -> bool:
    return all(term_matches(term, found) for term in terms)


def implies(term: Term, by: Term) -> bool:
    """A run that ``by`` lets through, ``term`` lets through too (``by`` is ``term`` with
    letters added: ``p0`` then ``p00``, ``status:d`` then ``status:dead``)."""
    field, value = term
    if field != by[0]:
        return False
    if field == "status":
        return by[1].startswith(value)
    if not field and id_shaped(by[1]) and not id_shaped(value):
        return False  # ``p0`` may match an id where ``p`` must match the words
    return value in by[1]
