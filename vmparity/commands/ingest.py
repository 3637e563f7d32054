"""`vmparity ingest FILE… --run-id ID`: validate result files and store them as one run.

All or nothing: the run is assembled in a temporary directory next to its
final place and renamed into place only when every file has been validated
and written, so a failed ingest never leaves a half-written run and never
touches a run already stored (unless --force, which swaps it atomically).
"""

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from ..results import bounded, inputs, jsonfile, manifest as binaries, round_record
from ..lab import rounds
from ..errors import InputError
from ..results.check import check
from ..render.escape import terminal
from ..results.file import parse_file
from ..results.targets import BASE_SIDE, NAME_MAX, PLAIN_NAME, is_base_side, is_target_name


def run(files, run_id, out, err, results_dir=None, force=False, manifest=None, rounds_record=None, fill_in=False,
        base_manifest=None):
    if not PLAIN_NAME.match(run_id):
        raise InputError("--run-id", f"{run_id!r}: expected letters, digits, '.', '_' or '-' (a directory name)")
    if len(run_id) > NAME_MAX:
        raise InputError("--run-id", f"{len(run_id)} characters: expected at most {NAME_MAX} (it names a directory)")
    if not files:
        raise InputError("ingest", "expected at least one result file")
    parsed = []
    for f in files:
        rf = check(parse_file(f))
        if not is_target_name(rf.target):
            raise InputError(f, f"target {rf.target[:80]!r} cannot name a file; expected letters, digits, '.', '_', "
                                f"'+' or '-' (and {BASE_SIDE!r} at the end for an A/B run's BASE side), "
                                f"at most {NAME_MAX} characters", rf.config_lines.get("target"))
        if rf.config.get("run-id") != run_id:
            err.write(f"vmparity: warning: {f}: header says run-id {rf.config.get('run-id')!r}, storing it under {run_id!r}\n")
        parsed.append(rf)
    inputs.check_unique_targets(parsed)
    manifest_text = binaries.read(manifest) if manifest else None
    rounds_text = _read_rounds(rounds_record) if rounds_record else None
    # An A/B run holds two builds: the BASE sides are checked against BASE's manifest.
    base_text = binaries.read(base_manifest) if base_manifest else None
    bases = [rf for rf in parsed if is_base_side(rf.target)]
    if bases and manifest_text is not None and base_text is None:
        raise InputError(bases[0].path, "an A/B run's BASE side: expected --base-manifest with BASE's MANIFEST.sha256")
    _check_binaries([rf for rf in parsed if rf not in bases], manifest, manifest_text, err)
    _check_binaries(bases, base_manifest, base_text, err)

    runs = inputs.runs_dir(results_dir)
    final = runs / run_id
    if fill_in:
        rounds_text = _fill_in_record(final, parsed, rounds_text)
    elif final.exists() and not force:
        raise InputError(final, f"run {run_id!r} is already stored; use --force to replace it "
                                "(or --fill-in to add the targets a partial run is missing)")
    runs.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".ingest-{run_id}-", dir=runs))
    try:
        if fill_in:  # start from the stored run: its finished targets stay exactly as they are
            bounded.no_link_out(final)  # the copy would take in what a link out of the run points to
            shutil.copytree(final, tmp, dirs_exist_ok=True, ignore=bounded.not_regular)  # never a FIFO
        for rf in parsed:
            shutil.copyfile(rf.path, tmp / f"{rf.target}.txt")  # verbatim: benchstat reads it as is
            with open(tmp / f"{rf.target}.env.json", "w", encoding="utf-8") as fh:
                json.dump(rf.config, fh, indent=1, ensure_ascii=False)
                fh.write("\n")
        if manifest_text is not None:
            (tmp / binaries.NAME).write_text(manifest_text, encoding="utf-8")
        if base_text is not None:
            (tmp / binaries.BASE_NAME).write_text(base_text, encoding="utf-8")
        if rounds_text is not None:
            (tmp / "rounds.json").write_text(rounds_text, encoding="utf-8")
        os.chmod(tmp, 0o755)
        _swap_in(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    out.write(f"stored run {run_id}: {', '.join(rf.target for rf in parsed)} in {final}\n")
    record = json.loads(rounds_text) if rounds_text else {}
    if record.get("partial"):
        failed = ", ".join(f"{t} (round {w.get('round')})" for t, w in record.get("failed", {}).items()) or "none"
        hosts = "".join(f"; host {h} failed in round {w.get('round')}: {w.get('msg')}"
                        for h, w in record.get("failed-hosts", {}).items())
        out.write(terminal(f"the run is partial: failed {failed}{hosts}; missing rounds "
                           f"{record.get('missing-rounds', {})} (rounds.json in {final})") + "\n")
    return 0


def _fill_in_record(final, parsed, new_text):
    """The stored run's rounds record with these targets filled in; refuses a run
    that is not stored or not partial, and a target the run does not miss."""
    if not final.is_dir():
        raise InputError(final, "--fill-in: no such stored run")
    old = round_record.load(final)
    if old is None or not old.get("partial"):
        raise InputError(final, "--fill-in: the run is not partial; expected a run whose rounds.json says partial")
    if new_text is None:
        raise InputError("--fill-in", "expected --rounds with the fill-in's own rounds.json")
    new = json.loads(new_text)
    allowed = rounds.fill_in_allowed(old, new)
    extra = [rf.target for rf in parsed if rf.target not in allowed]
    if extra:
        raise InputError(parsed[0].path, f"--fill-in: {', '.join(extra)} finished in the stored run; "
                                         f"expected only the missing target(s) {', '.join(sorted(allowed))}")
    merged = rounds.fill_in(old, new, [rf.target for rf in parsed])
    return json.dumps(merged, indent=1, ensure_ascii=False) + "\n"


def _check_binaries(parsed, manifest, manifest_text, err):
    """benchrun's `binary-sha256` is the sha256 of MANIFEST.sha256: one run, one set of binaries."""
    if manifest_text is not None:
        want = hashlib.sha256(manifest_text.encode("utf-8")).hexdigest()
        for rf in parsed:
            got = rf.config.get("binary-sha256")
            if got is not None and got != want:
                raise InputError(rf.path, f"binary-sha256 {got} is not the sha256 of {manifest} ({want}): "
                                          "expected results of the binaries that manifest lists",
                                 rf.config_lines.get("binary-sha256"))
        return
    seen = {rf.config.get("binary-sha256") for rf in parsed} - {None}
    if len(seen) > 1:
        err.write(f"vmparity: warning: the files come from {len(seen)} different builds (binary-sha256 differs)\n")


def _swap_in(tmp, final):
    if not final.exists():
        os.rename(tmp, final)
        return
    old = final.with_name(f".old-{final.name}-{os.getpid()}")
    os.rename(final, old)
    try:
        os.rename(tmp, final)
    except BaseException:
        os.rename(old, final)  # put the stored run back
        raise
    shutil.rmtree(old)


def _read_rounds(path):
    """The lab's record of the rounds (vmparity.lab.rounds), checked before anything is stored."""
    text = bounded.read_text(path, what="the rounds record of the lab (rounds.json)")
    round_record.check(path, jsonfile.read(path, "cannot read the rounds record: {error}"))
    return text

