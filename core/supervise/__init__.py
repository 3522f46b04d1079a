"""Resume by policy: the supervisor, its decision, its audit log and its state."""
