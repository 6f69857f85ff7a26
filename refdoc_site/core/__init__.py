"""The bottom layer every phase stands on: the records passed between phases, errors,
configuration, the store, reading the repository safely (regular files only, secrets
redacted, trust in its settings), and small shared helpers. It imports no phase."""
