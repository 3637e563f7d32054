"""The `vmparity` command: argparse only, every command is a pure run() function.

`main(argv, stdout, stderr)` returns the exit status instead of exiting, so
tests call it in-process with their own writers. Exit status: 0 ok, 1
regression gate tripped (`--fail-on-regression`), 2 bad input or usage,
141 the reader closed the output (`vmparity compare … | head`): 128 + SIGPIPE,
as a shell reports for other tools there, so that a cut-off output is never
taken for a regression and nothing was decided.
"""

import argparse
import contextlib
import importlib
import os
import re
import sys
from pathlib import Path

from . import __version__
from .errors import InputError
from .options import at_least, effects, percent, port, probability, results_dir
from .render.escape import terminal, terminal_lines


CLOSED_PIPE = 141  # 128 + SIGPIPE


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    out = None  # where --help goes (main's stdout), set by main

    def error(self, message):  # argparse would print to sys.stderr and exit
        raise _UsageError(f"{self.prog}: {message}\n{self.format_usage().strip()}")

    def print_help(self, file=None):
        super().print_help(file or _Parser.out)

    def _print_message(self, message, file=None):  # --version: to main's stdout too
        super()._print_message(message, _Parser.out if file in (None, sys.stdout) else file)


class _Unbuilt(_Parser):
    """A command this process does not run: listed with its help under `vmparity --help`, its options never
    built. Building every command's options was 8 ms of each start-up (`make bench-startup`)."""

    def add_argument(self, *args, **kwargs):
        return None

    def add_subparsers(self, **kwargs):
        return self

    def add_parser(self, *args, **kwargs):  # as its own subparsers: a lab subcommand is unbuilt too
        return self

    def set_defaults(self, **kwargs):
        return None


# α of every test the rule applies (the U test, the signed-rank test by round, the fast level, across runs the
# false discovery rate): docs/method.md; benchstat's -alpha is the same for two plain files
ALPHA_HELP = ("significance level of every test of the rule (U test, signed-rank by round, fast level; across runs "
              "the false discovery rate), as benchstat's -alpha (default 0.05; docs/method.md)")
FORMATS_HELP = {"text": "text (a terminal table)", "markdown": "markdown (GitHub-flavoured)", "csv": "csv (one line per cell)",
                "json": "json (every number)"}


def _format_option(s, choices, help_more=""):
    """--format with the one vocabulary of every command: text, markdown, csv, json (those that apply)."""
    s.add_argument("--format", default="text", choices=choices, type=_old_format_names,
                   help="output format: " + ", ".join(FORMATS_HELP[c] for c in choices) + " (default text)" + help_more)


def _old_format_names(value):
    return "text" if value == "table" else value  # compare's name for text before the vocabulary was one


def _results_dir_option(s):
    """--results-dir after the command too (`vmparity compare --results-dir DIR …`), as before it."""
    s.add_argument("--results-dir", default=argparse.SUPPRESS, type=results_dir, metavar="DIR",
                   help="where runs are stored (default: ./results or $VMPARITY_RESULTS_DIR); "
                        "also accepted before the command")


def _output_option(s):
    """-o FILE, for the commands that answer on standard output."""
    s.add_argument("-o", "--output", metavar="FILE",
                   help="write the output to FILE instead of standard output; FILE is replaced only when the "
                        "command answers (exit 0, or 1 for a tripped gate), never left half-written")


def _parser(command=None):
    """The argument parser; with `command`, only that command's options are built (the others: _Unbuilt)."""
    p = _Parser(prog="vmparity", description="Compare benchmark results across metal, guests and containers, and explain the differences.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("--results-dir", default=None, type=results_dir, metavar="DIR",
                   help="where runs are stored (default: ./results or $VMPARITY_RESULTS_DIR); also accepted after the command")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    if command is not None:
        sub = _OnlyBuilding(sub, command)

    s = sub.add_parser("ingest", help="validate result files and store them as results/runs/<run-id>/")
    s.add_argument("files", nargs="+", metavar="FILE", help="result files, one per target (benchrun's <target>.txt)")
    s.add_argument("--run-id", required=True, help="the run's id, its directory name under runs/ (e.g. 2026-11-28T08-43-58Z-lab-quick)")
    s.add_argument("--force", action="store_true", help="replace a run already stored under this id")
    s.add_argument("--manifest", metavar="MANIFEST.sha256", help="the binaries' manifest to store with the run")
    s.add_argument("--base-manifest", metavar="MANIFEST.sha256",
                   help="an A/B run: BASE's manifest, which its <target>~base files are checked against and stored with")
    s.add_argument("--rounds", metavar="rounds.json", help="the lab's record of the rounds (order, seed, hygiene) to store with the run")
    s.add_argument("--fill-in", action="store_true", help="add the targets a stored partial run is missing, leaving the rest as it is")
    _results_dir_option(s)

    s = sub.add_parser("check", help="check lab result files strictly: fingerprint keys, one header, known units")
    s.add_argument("files", nargs="+", metavar="FILE", help="result files to check")
    s.add_argument("--program-output", action="store_true",
                   help="each FILE is one benchmark program's own output, before benchrun adds the fingerprint: "
                        "every rule but the fingerprint keys")

    s = sub.add_parser("compare", help="median, CI, change and Mann-Whitney p per benchmark")
    s.add_argument("operands", nargs="+", metavar="A", help="result files, run directories or run-ids")
    s.add_argument("--col", metavar="KEYS", help="one column per value of KEYS, as benchstat's -col "
                   "(a configuration key, /subkey, .name, .fullname, .file, .config; default: one column per operand)")
    s.add_argument("--by", metavar="KEY", dest="col", help="the same as --col KEY (e.g. --by target: every target of a run side by side)")
    s.add_argument("--row", metavar="KEYS", help="one row per value of KEYS, as benchstat's -row (default .fullname)")
    s.add_argument("--table", metavar="KEYS", help="one table per value of KEYS, as benchstat's -table "
                   "(default: one per target of a run, and per configuration key that changes inside a file; "
                   "--table '' is one table, e.g. for two lab files whose fingerprints differ)")
    s.add_argument("--ignore", metavar="KEYS", help="pool the results that differ only in KEYS, as benchstat's "
                   "-ignore (e.g. --ignore /size, --ignore goarch,pkg)")
    s.add_argument("--filter", metavar="EXPR", help="only results matching EXPR, as benchstat's -filter "
                   "(e.g. '/size:(1024 OR 4096) .unit:ns/op', 'goos:linux -.name:Clock')")
    _format_option(s, ["text", "markdown", "csv", "json"])
    s.add_argument("--alpha", type=probability, default=0.05, help=ALPHA_HELP)
    s.add_argument("--confidence", type=probability, default=0.95,
                   help="confidence level of each median's interval, as benchstat's -confidence (default 0.95)")
    s.add_argument("--baseline", metavar="COLUMN", help="the column the others are compared with")
    s.add_argument("--fail-on-regression", type=percent, metavar="PCT", help="exit 1 if a significant regression exceeds PCT percent")
    s.add_argument("--changed", action="store_true",
                   help="show only the rows that differ beyond noise in some column, after a line that says how many "
                        "of all (e.g. vmparity compare --changed RUN_A RUN_B); the gate still reads every row")
    _results_dir_option(s)
    _output_option(s)

    s = sub.add_parser("explain", help="name the likely cause and fix of every significant difference")
    s.add_argument("base", metavar="A", help="the reference: a result file, run directory or run-id")
    s.add_argument("head", metavar="B", help="what is explained against A: a result file, run directory or run-id")
    s.add_argument("--alpha", type=probability, default=0.05, help=ALPHA_HELP)
    _format_option(s, ["text", "markdown", "json"])
    s.add_argument("--rules", metavar="YAML", help="rules file (default: the packaged vmparity/decide/rules.yaml)")
    _results_dir_option(s)
    _output_option(s)

    s = sub.add_parser("report", help="report.md and report.html with plots for one run")
    s.add_argument("run", metavar="RUN", help="run directory or run-id")
    s.add_argument("--out", metavar="DIR", help="where to write (default: the run directory)")
    s.add_argument("--baseline", metavar="TARGET", help="target the others are compared with (default: the lab's metal by name, then a target-kind: metal, then the first; docs/formats.md)")
    s.add_argument("--alpha", type=probability, default=0.05, help=ALPHA_HELP)
    _results_dir_option(s)

    s = sub.add_parser("noise", help="a run's noise figures: the A/A control, and per target the rows beyond noise")
    s.add_argument("run", metavar="RUN", help="run directory or run-id")
    s.add_argument("--alpha", type=probability, default=0.05, help=ALPHA_HELP)
    _format_option(s, ["text", "markdown", "json"])
    _results_dir_option(s)
    _output_option(s)

    s = sub.add_parser("power", help="plant known effects into copies of a run's target files: recall and false alarms")
    s.add_argument("run", metavar="RUN", help="run directory or run-id")
    s.add_argument("--target", action="append", metavar="TARGET",
                   help="plant into this target (repeatable; default: every target but metal, its A/A pass and TCG guests)")
    s.add_argument("--effects", type=effects, metavar="PCTS", help="comma-separated effects in %% "
                   "(default -20,-10,-5,-3,3,5,10,20; + is a slowdown)")
    s.add_argument("--rows", type=at_least(1), default=25, help="benchmarks planted per trial (default 25)")
    s.add_argument("--trials", type=at_least(1), default=4, help="trials per effect and target (default 4)")
    s.add_argument("--seed", type=int, default=1, help="seed of the random choice of rows and samples (default 1)")
    s.add_argument("--alpha", type=probability, default=0.05, help=ALPHA_HELP)
    s.add_argument("--unit", metavar="REGEX", help="count only rows whose unit matches (e.g. '^clocks/' or '^ns/'; "
                   "default: every speed unit); benchmarks are planted in all their speed units either way")
    s.add_argument("--without", metavar="LAYERS", default="",
                   help="switch these layers of the rule off, comma-separated, to measure what each pays (fast-level, "
                   "clock-twin, bandwidth-twin, added-rounds, confirm-rounds; docs/method.md)")
    _format_option(s, ["text", "json"])
    _results_dir_option(s)
    _output_option(s)

    s = sub.add_parser("history", help="change points of every benchmark row per target over the stored runs, largest first")
    _results_dir_option(s)
    s.add_argument("--filter", metavar="EXPR", help="only results matching EXPR, as compare --filter")
    _format_option(s, ["text", "markdown", "json"])
    s.add_argument("--plot", metavar="DIR", help="write one PNG trend plot per selected row to DIR")
    s.add_argument("--window", type=at_least(1), default=16, help="most runs compared on each side of a change, and the longest screening window (default 16)")
    s.add_argument("--alpha", type=probability, default=0.05, help="family-wise significance level over every run tested, Bonferroni-corrected (default 0.05)")
    s.add_argument("--min-change", type=percent, default=5.0, metavar="PCT", help="smallest change reported (default 5 %%)")
    s.add_argument("--top", type=at_least(1), default=30, metavar="N",
                   help="list the N largest change points and the N largest excursions (default 30)")
    s.add_argument("--all", action="store_true", help="list every change point and excursion")
    s.add_argument("--tracks", action="store_true",
                   help="print every run of every track with its change points instead (long: the whole history)")
    _output_option(s)

    s = sub.add_parser("export", help="one run as Bencher Metric Format or github-action-benchmark JSON")
    s.add_argument("run", metavar="RUN", help="run directory or run-id")
    s.add_argument("--format", required=True, choices=["bmf", "gab"],
                   help="the JSON written: bmf (Bencher Metric Format) or gab (github-action-benchmark)")
    s.add_argument("--target", help="only this target (its benchmarks keep their plain names)")
    s.add_argument("--better", default="lower", choices=["lower", "higher"],
                   help="gab: the units of customSmallerIsBetter (lower) or customBiggerIsBetter (higher)")
    _results_dir_option(s)
    _output_option(s)

    s = sub.add_parser("lab", help="the lab's own steps and contracts (called by the Makefile and the Ansible roles)")
    lab = s.add_subparsers(dest="lab_command", required=True, parser_class=_Parser)
    m = lab.add_parser("merge-rounds", help="merge rounds/<k>/<target>.txt into <target>.txt and rounds.json")
    m.add_argument("staging", metavar="STAGING_RUN_DIR")
    m = lab.add_parser("added-round", help="plan the next round added for one host's rows whose minimum detectable effect "
                       "is still above the goal (prints it as JSON, `round` null when none is to be added)")
    m.add_argument("staging", metavar="STAGING_RUN_DIR")
    m.add_argument("--host", required=True, help="the metal host whose targets to check (its rounds' host-<host>.json)")
    m.add_argument("--goal", type=percent, default=3.0, metavar="PCT",
                   help="add rounds for the rows whose minimum detectable effect is above PCT (default 3 %%)")
    m.add_argument("--most", type=at_least(0), default=6, metavar="N", help="add at most N rounds in all (default 6)")
    m.add_argument("--seconds", type=at_least(0), default=120, metavar="S",
                   help="add a round only if the added rounds would then have taken at most S seconds, the next "
                        "as long as the longest so far (default 120)")
    m.add_argument("--round-seconds", type=at_least(0), default=0, metavar="R",
                   help="how long the first added round is expected to take (default 0)")
    m = lab.add_parser("budget", help="plan a lab run to fit LAB_MINUTES: rounds per target kind and the deadline "
                       "(prints the bench role's facts as JSON; vmparity/lab/budget.yaml)")
    m.add_argument("--minutes", type=float, required=True, help="the minutes the run may take from --started to its report")
    m.add_argument("--started", type=float, required=True, metavar="EPOCH", help="when site.yml started (seconds since 1970)")
    m.add_argument("--now", type=float, metavar="EPOCH", help="plan as of this time (default: now)")
    m.add_argument("--profile", required=True, help="benchrun's profile (smoke, quick, full)")
    m.add_argument("--most", type=at_least(1), required=True, metavar="N", help="the profile's planned rounds")
    m.add_argument("--hosts", required=True, metavar="JSON",
                   help='each metal host\'s targets: {"host": [{"target": "metal", "kind": ""}, ...]}')
    m.add_argument("--config", metavar="YAML",
                   help="another budget.yaml, or `verify` for the package's budget-verify.yaml (lab-verify's; "
                        "default: the package's budget.yaml)")
    m = lab.add_parser("confirm-round", help="plan the next round added to measure again one host's rows beyond noise "
                       "(prints it as JSON, `round` null when none is to be added)")
    m.add_argument("staging", metavar="STAGING_RUN_DIR")
    m.add_argument("--host", required=True, help="the metal host whose targets to check (its rounds' host-<host>.json)")
    m.add_argument("--most", type=at_least(0), default=6, metavar="N", help="add at most N such rounds (default 6)")
    m.add_argument("--seconds", type=at_least(0), default=90, metavar="S",
                   help="add such a round only if they would then have taken at most S seconds, the next as long "
                        "as the longest so far (default 90)")
    m.add_argument("--round-seconds", type=at_least(0), default=0, metavar="R",
                   help="how long the first such round is expected to take (default 0)")
    m = lab.add_parser("variants", help="check a variants file against its schema and print its variants merged with the defaults")
    kinds = m.add_subparsers(dest="variants_kind", required=True, parser_class=_Parser)
    g = kinds.add_parser("guests", help="vm-templates/variants.yml: the guest matrix")
    g.add_argument("file", nargs="?", metavar="FILE", help="default: the repository's vm-templates/variants.yml")
    g.add_argument("--accel", choices=["kvm", "qemu"], help="as this acceleration will really get them (qemu: the TCG substitutions)")
    g.add_argument("--host-cpu", metavar="CPUINFO", help="with --accel kvm: a copy of the host's /proc/cpuinfo ('-': "
                   "standard input); a feature a variant requires that this CPU lacks is refused, or dropped by the "
                   "vendor's rule (kvm.vendor_features)")
    g.add_argument("--host", metavar="NAME", help="the host's name, for the messages (with --host-cpu)")
    g.add_argument("--only", metavar="NAME,...", help="only these variants (comma-separated): the others are "
                   "neither resolved nor printed")
    g.add_argument("--json", action="store_true", help="print the variants as JSON")
    c = kinds.add_parser("containers", help="docker/variants.yml: the container matrix, resolved for a host")
    c.add_argument("file", nargs="?", metavar="FILE", help="default: the repository's docker/variants.yml")
    c.add_argument("--host-cpus", type=at_least(1), metavar="N", help="the host's CPU count the quotas are resolved for (default: this host's)")
    c.add_argument("--json", action="store_true", help="print each variant's docker run settings as JSON")
    m = lab.add_parser("domain-xml", help="render vm-templates/domain.xml.j2 for one guest variant, as the guests role does")
    m.add_argument("variant")
    m.add_argument("--variants", metavar="FILE", help="default: the repository's vm-templates/variants.yml")
    m.add_argument("--accel", choices=["kvm", "qemu"], required=True)
    m.add_argument("--ssh-port", type=port, required=True)
    m.add_argument("--image-dir", required=True, metavar="DIR", help="where vmlinuz and initrd.img are (the cache's image/current)")
    m.add_argument("--overlay", required=True, metavar="QCOW2")
    m.add_argument("--console-log", required=True, metavar="FILE")
    m.add_argument("--seed-disk", metavar="IMG")
    m.add_argument("--host-cpus", type=at_least(1), metavar="N")
    m = lab.add_parser("ab", help="check BASE out as a detached worktree for `make lab-ab` and print where "
                       "(ab_ref, ab_commit, ab_src, ab_bench as shell assignments)")
    m.add_argument("--base", required=True, metavar="REF", help="the git ref to compare the working tree with")
    m.add_argument("--dir", required=True, metavar="DIR", help="the A/B directory (the Makefile's build/ab)")
    m.add_argument("--repo", default=".", metavar="DIR", help="the repository BASE is resolved in (default: .)")
    m = lab.add_parser("repro-plan", help="which benchrun jobs `make repro` runs on which target, as Ansible extra-vars")
    m.add_argument("--variants", metavar="FILE", help="the guest matrix (default: the repository's vm-templates/variants.yml)")
    m.add_argument("--containers", metavar="FILE", help="the container matrix (default: the repository's docker/variants.yml)")
    m.add_argument("--targets", default="", help="space- or comma-separated targets to keep (default: all)")
    m.add_argument("--scenarios", metavar="YAML", help="scenario file (default: the package's vmparity/repro/scenarios.yaml)")
    m.add_argument("--profile", default="quick", help="benchrun's profile: its rounds, raised to a scenario's min-rounds")
    m.add_argument("--write", metavar="DIR",
                   help="write DIR/bench-vars.json and DIR/provision-vars.json, and print lab-up.yml's arguments")

    m = lab.add_parser("verify", help="test a run's explanations: derive an intervention target per (target, fix), "
                                      "then judge the verify run that measured them (`make lab-verify`)")
    m.add_argument("run", metavar="RUN", help="the run whose explanations to test (its verify-plan.json is reused)")
    m.add_argument("--targets", default="", help="space- or comma-separated globs over the original or the "
                                                 "intervention targets to measure (default: every one)")
    m.add_argument("--rounds", type=at_least(4), default=5,
                   help="rounds of the verify run (default 5; the U test between two targets needs 4 each); "
                        "TCG guests take the first 5 of more")
    m.add_argument("--budget", action="store_true",
                   help="the run has a time budget (make lab-verify LAB_MINUTES=N): --rounds is the most it may "
                        "plan, and every target, TCG guests too, takes each round it runs")
    m.add_argument("--host", default="", metavar="HOST",
                   help="of a run of several rack hosts, the host to verify (each against its own metal, with a "
                        "plan of its own, verify-plan-HOST.json); default: the host of the --targets, which must "
                        "all run on one")
    m.add_argument("--rederive", action="store_true", help="derive the plan again even when the run has one")
    m.add_argument("--bisect", type=at_least(0), default=0, metavar="STEPS",
                   help="also vary one environment field at a time toward metal for the rows no rule explains, "
                        "at most STEPS intervention targets (default 0: no bisection)")
    m.add_argument("--write", metavar="DIR",
                   help="write the derived variant files and extra-vars into DIR and print site.yml's arguments")
    m.add_argument("--measured", metavar="VERIFY_RUN",
                   help="the verify run that measured the plan: store a verdict per explanation and print them")
    m.add_argument("--seconds", type=at_least(0), help="how long the verify run took (stored with the verdicts)")
    _results_dir_option(m)

    s = sub.add_parser("pr-comment", help="Markdown body for the pull-request comment",
                       usage="%(prog)s [options] BASE HEAD | --ab RUN")
    s.add_argument("base", metavar="BASE", nargs="?", help="the base branch's run (directory or run-id)")
    s.add_argument("head", metavar="HEAD", nargs="?", help="the pull request's run (directory or run-id)")
    s.add_argument("--ab", metavar="RUN", help="an A/B run of `make lab-ab`: HEAD against BASE per target in that "
                   "one run (instead of BASE HEAD, two runs)")
    s.set_defaults(operands_check=_pr_comment_operands(s))
    s.add_argument("--alpha", type=probability, default=0.05, help=ALPHA_HELP)
    s.add_argument("--fail-on-regression", type=percent, metavar="PCT",
                   help="exit 1 if a significant regression exceeds PCT percent")
    s.add_argument("--full-report", metavar="WHERE", help="where readers find the full report (said when rows are left out)")
    _results_dir_option(s)
    _output_option(s)
    return p


class _OnlyBuilding:
    """The subparsers of `vmparity`, building the options of one command only."""

    def __init__(self, sub, command):
        self._sub, self._command = sub, command

    def add_parser(self, name, **kwargs):
        parser = self._sub.add_parser(name, **kwargs)
        if name != self._command:
            parser.__class__ = _Unbuilt
        return parser


def _command_of(argv, parser):
    """The command word of argv (the first operand that names one, past the global --results-dir's value),
    or None; a guess that main checks against what argparse parsed."""
    names = {n for a in parser._actions if isinstance(a, argparse._SubParsersAction) for n in a.choices}
    skip = False
    for arg in argv:
        if skip or arg.startswith("--results-dir="):
            skip = False
            continue
        if arg in ("--results-dir", "-results-dir"):
            skip = True
        elif arg in names:
            return arg
        elif not arg.startswith("-"):
            return None
    return None


def _pr_comment_operands(parser):
    """Two runs, or one A/B run: never both, never half of the two."""
    def check(a):
        if a.ab and (a.base or a.head):
            parser.error("--ab RUN compares the two sides inside one run: give it alone, without BASE HEAD")
        if not a.ab and not (a.base and a.head):
            parser.error("expected BASE HEAD (two runs), or --ab RUN (an A/B run of `make lab-ab`)")
    return check


def _dispatch(a, out, err):
    cmd = importlib.import_module(f".commands.{a.command.replace('-', '_')}", __package__)
    if a.command == "ingest":
        return cmd.run(a.files, a.run_id, out, err, results_dir=a.results_dir, force=a.force, manifest=a.manifest,
                       rounds_record=a.rounds, fill_in=a.fill_in, base_manifest=a.base_manifest)
    if a.command == "check":
        return cmd.run(a.files, out, err, program_output=a.program_output)
    if a.command == "compare":
        return cmd.run(a.operands, out, err, col=a.col, row=a.row, filter=a.filter, fmt=a.format, alpha=a.alpha, confidence=a.confidence,
                       results_dir=a.results_dir, fail_on_regression=a.fail_on_regression, baseline=a.baseline,
                       table_keys=a.table, ignore=a.ignore, changed=a.changed)
    if a.command == "explain":
        return cmd.run(a.base, a.head, out, err, alpha=a.alpha, fmt=a.format, results_dir=a.results_dir, rules=a.rules)
    if a.command == "report":
        return cmd.run(a.run, out, err, out_dir=a.out, baseline=a.baseline, alpha=a.alpha, results_dir=a.results_dir)
    if a.command == "noise":
        return cmd.run(a.run, out, err, alpha=a.alpha, results_dir=a.results_dir, fmt=a.format)
    if a.command == "power":
        return cmd.run(a.run, out, err, results_dir=a.results_dir, targets=a.target, effects=a.effects, rows=a.rows,
                       ntrials=a.trials, seed=a.seed, alpha=a.alpha, fmt=a.format, units=a.unit,
                       without=a.without)
    if a.command == "lab":
        return cmd.run(a, out, err)
    if a.command == "history":
        from .history.changepoints import Method

        return cmd.run(out, err, results_dir=a.results_dir, filter=a.filter, fmt=a.format, plot_dir=a.plot,
                       method=Method(window=a.window, alpha=a.alpha, min_change=a.min_change),
                       top=None if a.all else a.top, tracks=a.tracks)
    if a.command == "export":
        return cmd.run(a.run, out, err, fmt=a.format, target=a.target, better=a.better, results_dir=a.results_dir)
    if a.command == "pr-comment" and a.ab:
        return cmd.run_ab(a.ab, out, err, alpha=a.alpha, results_dir=a.results_dir,
                          fail_on_regression=a.fail_on_regression, full_report=a.full_report)
    if a.command == "pr-comment":
        return cmd.run(a.base, a.head, out, err, alpha=a.alpha, results_dir=a.results_dir,
                       fail_on_regression=a.fail_on_regression, full_report=a.full_report)
    raise AssertionError(a.command)


def _dispatch_to_file(a, path, err):
    """-o FILE: the command writes to a temporary file beside FILE, renamed over it when it answered, so
    that bad input (exit 2) or a crash never leaves half a file, nor destroys the one already there."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        f = open(tmp, "w", encoding="utf-8")
    except OSError as e:
        raise InputError(path, f"cannot write the output there: {e.strerror or e}") from None
    try:
        with f:
            code = _dispatch(a, f, err)
        if code in (0, 1):
            os.replace(tmp, path)
        return code
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _long_options(parser):
    """{--option: whether it takes a value} of parser and of its subcommands, at any depth."""
    names = {}
    for action in parser._actions:
        names.update((o, action.nargs != 0) for o in action.option_strings if o.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                names.update(_long_options(sub))
    return names


_SINGLE_DASH = re.compile(r"-([A-Za-z][A-Za-z0-9-]+)(=.*)?\Z", re.S)


def _double_dashed(argv, parser):
    """benchstat's spellings: `-alpha 0.01` or `-format=csv` is --alpha or --format where vmparity has that
    option; any other single-dash word is refused with the hint that options take two dashes. The value of
    an option (`--filter -x`) is left as it is."""
    known, out = _long_options(parser), []
    for i, arg in enumerate(argv):
        if arg == "--":
            return out + list(argv[i:])
        m = _SINGLE_DASH.match(arg)
        if out and known.get(out[-1]):  # the value of the option before it
            pass
        elif m and f"--{m[1]}" in known:
            arg = f"-{arg}"
        elif m:
            raise _UsageError(f"vmparity: unknown option {arg!r}: vmparity spells options with two dashes "
                              f"(--alpha for benchstat's -alpha), and has no --{m[1]}; `vmparity COMMAND --help` "
                              f"lists them\n{parser.format_usage().strip()}")
        out.append(arg)
    return out


def main(argv=None, stdout=None, stderr=None):
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    _Parser.out = out
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        command = _command_of(argv, _parser(command=""))
        parser = _parser(command)
        a = parser.parse_args(_double_dashed(argv, parser))
        if command is not None and a.command != command:  # the guess was wrong: parse again with every option
            parser = _parser()
            a = parser.parse_args(_double_dashed(argv, parser))
        if getattr(a, "operands_check", None):
            a.operands_check(a)
    except _UsageError as e:
        err.write(f"{terminal_lines(e)}\n")
        return 2
    except SystemExit as e:  # --help, --version
        return int(e.code or 0)
    try:
        if getattr(a, "output", None):
            return _dispatch_to_file(a, Path(a.output), err)
        return _dispatch(a, out, err)
    except InputError as e:
        err.write(f"vmparity: error: {terminal(e)}\n")
        return 2
    except BrokenPipeError:
        _quiet(out)
        return CLOSED_PIPE
    except OSError as e:
        # What no check foresaw (a symlink loop, a name too long, a full disk)
        # still names the file and the reason instead of a traceback.
        where = e.filename if e.filename is not None else a.command
        err.write(f"vmparity: error: {terminal(where)}: {terminal(e.strerror or e)}; "
                  f"vmparity {a.command} expected a readable result file or directory there\n")
        return 2


def _quiet(out):
    """Point a closed stdout at /dev/null, so that Python's flush at exit does not
    fail on it a second time (and print a traceback to the terminal)."""
    try:
        if out is sys.stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, out.fileno())
            os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
