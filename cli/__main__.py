"""``python -m wftop.cli`` runs the wftop command line."""

from wftop.cli.main import main

raise SystemExit(main())
