"""A loopback mock of the Anthropic Messages API that answers the real ``claude`` CLI offline.

``wftop demo`` and ``wftop drill`` run real Workflows against it; the end-to-end tests use it
through ``tests/realcli.py`` and the ``mock_api`` fixture. Standard library only, bound to
127.0.0.1, never forwards anything: no key is needed and no tokens are spent. It imports
nothing of wftop but ``wftop.core``.

* ``server``: the HTTP server (`MockAPI`) and its request log.
* ``flow``: what one request is answered with (pure functions of body and config).
* ``schema``: the smallest value an output schema accepts, for the mock's ``any_agent``
  answers.
* ``wire``: error bodies, messages and server-sent events.
* ``cliproc``: the isolated environment and process-group handling for the CLI.
* ``scripts/six.js``: the demo Workflow (one agent, three in ``parallel()``, two more), read
  with `load_script`.
* ``bundled/``: runs written by the real CLI, which the demo browses where ``claude`` is absent.
* ``scenario``, ``livedemo``, ``drill``: the real CLI driven against the mock (the end-to-end
  tests, ``wftop demo``, ``wftop drill``).
* ``rehearsal``: the installed CLI rehearses a resume on a throwaway copy of the run, to say
  which calls it serves from cache.
"""

from __future__ import annotations

from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent / "scripts"
BUNDLED = Path(__file__).resolve().parent / "bundled"
"""Real CLI trees shipped for the demo without ``claude`` (browse-only)."""


def load_script(name: str = "six.js") -> str:
    """A Workflow script shipped with wftop."""
    return (SCRIPTS / name).read_text()
