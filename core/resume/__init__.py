"""Resuming dead workflow runs: state machine, persistence, launch seam and relocation.

Nothing here imports UI code. The submodules are imported by name
(``wftop.core.resume.machine``, ``wftop.core.resume.store``, ``wftop.core.resume.launcher``,
``wftop.core.resume.relocate``); ``wftop.core.resume.runner`` is a stdlib-only script that the
launcher starts as a detached process.
"""

from __future__ import annotations
