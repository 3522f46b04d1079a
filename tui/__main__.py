"""``python -m tui`` runs the wftop command line."""

from tui.cli import main

raise SystemExit(main())
