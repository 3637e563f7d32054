"""Reproductions of the seed write-ups (issue 5): scenario data and verdicts."""
