"""Reproductions of the seed write-ups: scenario data and verdicts."""

from .section import report_section

__all__ = ["report_section"]
