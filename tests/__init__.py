"""wftop's test suite: a package, so ``tests.realcli`` and friends import from anywhere."""
