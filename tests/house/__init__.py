"""The house rules: packaging, layers, lint, types, no shell, an untouched corpus."""
