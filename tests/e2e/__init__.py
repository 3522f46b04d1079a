"""End-to-end tests: the real claude CLI against the loopback mock."""
