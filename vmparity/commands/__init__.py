"""One module per command, each with a pure `run(...)` taking its writers (asv style)."""
