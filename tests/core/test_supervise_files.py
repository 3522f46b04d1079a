"""The supervisor's files in the state dir: the audit log, the state, the lock.

Every line is kept; a file that is corrupt, foreign or cannot be written is one clear line
naming it (file, line, what was expected), and is never rewritten.
"""

from __future__ import annotations

import json
import os

import pytest

from wftop.core.resume.errors import ResumeBusy
from wftop.core.supervise.audit import AuditError, AuditLine
from wftop.core.supervise.decide import UsdRange
from wftop.core.supervise.state import Mark, SuperviseStore, holder_line

T = 1_800_000_000.0


def line(**changes) -> AuditLine:
    base = {
        "at": T,
        "run": "wf_aaaaaaaa-bbb",
        "decision": "waiting",
        "reason": "rate_limited",
        "until": T + 60,
        "forecast_usd": UsdRange(0.01, 0.05),
        "cap_usd": 1.0,
        "cause": "rate_limited",
    }
    return AuditLine(**{**base, **changes})


@pytest.fixture
def store(tmp_path):
    return SuperviseStore(tmp_path / "state")


def test_an_audit_line_is_written_with_every_field_and_read_back(store):
    store.audit.check_writable()
    store.audit.append(line())
    store.audit.append(line(decision="finished", until=None, cost_usd=0.0123, request="r-1"))
    raw = [json.loads(text) for text in store.audit.path.read_text().splitlines()]
    assert raw[0] == {
        "at": "2027-01-15T08:00:00.000Z",
        "run": "wf_aaaaaaaa-bbb",
        "decision": "waiting",
        "reason": "rate_limited",
        "until": "2027-01-15T08:01:00.000Z",
        "forecast_usd": {"low": 0.01, "high": 0.05},
        "cap_usd": 1.0,
        "cost_usd": None,
        "cause": "rate_limited",
        "request": None,
    }
    assert raw[1]["cost_usd"] == 0.0123 and raw[1]["request"] == "r-1"
    assert store.audit.read() == [
        line(),
        line(decision="finished", until=None, cost_usd=0.0123, request="r-1"),
    ]
    assert oct(store.audit.path.stat().st_mode & 0o777) == "0o600"
    assert oct(store.folder.stat().st_mode & 0o777) == "0o700"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{not json\n", "audit.jsonl:2:"),
        (
            '{"at": "2027-01-15T08:00:00Z", "run": "wf_x", "decision": "maybe", "reason": ""}\n',
            "audit.jsonl:2: decision 'maybe' is not one of considered",
        ),
        ('{"some": "other program"}\n', "audit.jsonl:2:"),
        (
            '{"at": "yesterday", "run": "wf_x", "decision": "waiting", "reason": ""}\n',
            "at must be an ISO-8601 time",
        ),
    ],
)
def test_a_line_that_is_not_an_audit_line_is_one_clear_line_and_the_file_is_kept(store, text, says):
    store.audit.append(line())
    with open(store.audit.path, "a") as handle:
        handle.write(text)
    before = store.audit.path.read_bytes()
    with pytest.raises(AuditError) as raised:
        store.audit.read()
    message = str(raised.value)
    assert says in message and "\n" not in message
    assert str(store.audit.path) in message and "expected" in message
    assert store.audit.path.read_bytes() == before


def test_a_foreign_or_linked_file_is_refused_and_left_alone(store, tmp_path):
    store.folder.mkdir(parents=True, mode=0o700)
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text("keep me\n")
    store.audit.path.symlink_to(elsewhere)
    with pytest.raises(AuditError, match="not a regular file"):
        store.audit.check_writable()
    with pytest.raises(AuditError, match="not a regular file"):
        store.audit.read()
    assert elsewhere.read_text() == "keep me\n"


CHECK_WRITABLE = """
import sys
from pathlib import Path
from wftop.core.supervise.audit import AuditError
from wftop.core.supervise.state import SuperviseStore
try:
    SuperviseStore(Path(sys.argv[1])).audit.check_writable()
except AuditError as error:
    print(error)
    sys.exit(1)
"""


def test_an_audit_log_that_cannot_be_written_says_so_before_anything_launches(store, tmp_path):
    import subprocess
    import sys

    from tests.faults_kit import unprivileged

    store.audit.check_writable()
    store.audit.path.chmod(0o400)
    # a process of its own, where file modes bind even for root (setpriv drops the override)
    argv = [*unprivileged(), sys.executable, "-c", CHECK_WRITABLE, str(tmp_path / "state")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cannot be written" in done.stdout


def test_an_unwritable_audit_log_is_refused_even_for_root(store):
    store.folder.mkdir(parents=True, mode=0o700)
    os.mkdir(store.audit.path)
    with pytest.raises(AuditError, match="not a regular file"):
        store.audit.check_writable()


def test_marks_toggle_and_off_takes_them_all_off(store):
    assert store.read_state().marks == ()
    assert store.toggle("wf_aaaaaaaa-bbb", "/root/a") is True
    assert store.toggle("wf_cccccccc-ddd", "/root/a") is True
    assert store.read_state().marks == (
        Mark("wf_aaaaaaaa-bbb", "/root/a"),
        Mark("wf_cccccccc-ddd", "/root/a"),
    )
    assert store.toggle("wf_aaaaaaaa-bbb", "/root/a") is False
    state = store.read_state()
    assert state.marked("wf_cccccccc-ddd", "/root/a") and not state.marked("wf_cccccccc-ddd", "/b")
    before = store.switch_off(T)
    assert len(before.marks) == 1
    assert store.read_state().marks == () and store.read_state().off_at == T


def test_a_corrupt_state_file_is_never_overwritten(store):
    store.folder.mkdir(parents=True, mode=0o700)
    store.state_path.write_text('{"version": 7}')
    with pytest.raises(AuditError) as raised:
        store.toggle("wf_aaaaaaaa-bbb", "/root")
    assert "state.json:1:" in str(raised.value) and "expected" in str(raised.value)
    assert store.state_path.read_text() == '{"version": 7}'


def test_one_supervisor_per_state_dir(store):
    first = store.lock(holder_line(4242, "777"))
    try:
        with pytest.raises(ResumeBusy) as raised:
            SuperviseStore(store.folder.parent).lock(holder_line(4343, "778"))
        assert "a supervisor already runs" in str(raised.value)
        assert "wftop supervise pid 4242 start 777" in str(raised.value)
        assert store.holder() == (4242, "777", "-")
    finally:
        first.release()
    again = store.lock(holder_line(4343, "778"))
    again.release()
