"""vmparity: compare benchmark results across metal, guests and containers, and explain why they differ."""

# The one place the version is written: pyproject.toml reads it from here.
__version__ = "0.1.0"
