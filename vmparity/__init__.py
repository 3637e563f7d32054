"""vmparity: compare benchmark results across metal, guests and containers, and explain why they differ."""

__version__ = "0.1.0"
