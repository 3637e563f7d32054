"""Planted effects: the lab's false-negative rate, measured.

The A/A control says how often the noise rule cries wolf; this package says
how often it misses. `vmparity power RUN` copies a run, multiplies the
values of randomly chosen benchmarks of one target by a known factor (a
slowdown or a speed-up of e %), runs the decision the report uses on the
copy (vmparity.table with the run's A/A noise model), and counts how many
planted rows come out beyond noise in the planted direction (recall), beside
the false alarms: the A/A control's figure and the unplanted rows of the
target that are beyond noise. Seeded, so a figure can be quoted and
reproduced.

plant.py rewrites a result file's values; trials.py draws the rows, runs the
decision and counts.
"""
