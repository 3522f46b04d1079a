"""Resuming dead workflow runs: guard, plan, state machine, persistence, launch and relocation.

Nothing here imports UI code. The submodules are imported by name: ``guard`` (reasons to
refuse), ``plan`` (what a resume would do), ``driver`` (carries a confirmed plan out),
``states`` and ``machine`` (a request's states and the rules between them), ``records`` and
``store`` (the resume log), ``launcher`` and ``relocate``; ``runner`` is a stdlib-only script
that the launcher starts as a detached process.
"""

from __future__ import annotations
