"""Resuming dead workflow runs: state machine, persistence, launch seam and relocation.

Nothing here imports UI code. The submodules are imported by name
(``core.resume.machine``, ``core.resume.store``, ``core.resume.launcher``,
``core.resume.relocate``); ``core.resume.runner`` is a stdlib-only script that the
launcher starts as a detached process.
"""

from __future__ import annotations
