"""Stage 1, read (golang/perf's benchfmt): result files and what they say about themselves.

Owns the result format and the target names, the contracts other layers call:

- file.py: the Go benchmark format as benchstat reads it (parse_file, parse_text),
  with samples.py's packed values; spec.py and format.yaml: the lab's header keys,
  units and series keys (the format's one definition);
- check.py: the strict check of the lab's own files (`vmparity check`);
- inputs.py: what a command's operands name (a file, a run directory, a run-id);
- targets.py: target names and kinds (metal, metal-aa, guest-…, container-…, a rack's
  -<host> suffix) and metal_of, the one rule for which metal a target belongs to;
- machine.py: which physical machine a run ran on; provenance.py: its commit and branch.

Imports nothing of vmparity but errors.
"""
