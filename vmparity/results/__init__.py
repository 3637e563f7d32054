"""read: result files, their samples, inputs, the lab's result check, provenance."""
