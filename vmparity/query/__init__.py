"""Stage 2, select (golang/perf's benchproc): which results, and how they are keyed.

- names.py: benchmark names, the one definition of a name's parts (split_name),
  its family, its parameters as numbers and its benchrun job;
- filter.py: benchstat's -filter expressions; projection.py: -col/-row keys.

Imports results (and errors) only.
"""
