"""The loopback mock Messages API lives in ``wftop.mockapi.server`` (wftop ships it for ``demo``
and ``drill``); this module re-exports it so tests keep importing ``tests.mockapi``.

``python -m tests.mockapi`` still runs the server as a process.
"""

from __future__ import annotations

import sys

from wftop.mockapi.server import MockAPI, Record, main

__all__ = ["MockAPI", "Record", "main"]

if __name__ == "__main__":
    sys.exit(main())
