"""Stage 4, decide: what a difference means.

- noise.py: the A/A control's noise band, the one noise rule of a run (docs/noise.md);
- policy.py: the named policies a comparison is judged under; judgement.py: the one reading
  of a decided row (beyond, within, its verdict), which every command asks;
- paired.py: the same rule round by round; fastlevel.py: the fast level beside it; inrun.py:
  a target's evidence under the in-run policy, the rule calibrated on the A/A pair;
  coreclock.py: time at an equal core clock;
  clockcheck.py: whether a target's clock is the host's, so that its time may be judged so;
- crossrun.py: two runs compared beyond run-to-run noise (what reads other stored runs is
  history/'s: the run-to-run bands, the host's noise against its usual, a row's range on its machine);
- explain.py and rules.yaml: the explain rules, matched in public (matches,
  explanation, apply_rules) so the history's change points use the same ones;
- gate.py: which rows fail CI (--fail-on-regression);
- figures.py: a run's trust figures as data (noise share, per-target counts, sensitivity; their
  words are render/run_figures.py's);
- layers.py: the layers on top of a policy's base test, by name, to switch off and measure.

A judge takes rows and cells (a table's, duck-typed) and never imports the table
package: table.build applies the noise and cross-run judges as it builds, the rest
run on the built table. Imports stats, query and results.
"""
