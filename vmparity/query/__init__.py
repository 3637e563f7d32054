"""select: filter, projection, benchmark names."""
