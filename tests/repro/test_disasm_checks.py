"""check_disasm.py must fail when the built code loses what makes an effect:
build the three seed programs from bench-src/c into a temporary directory,
once as they are and once with the overlap removed, mfence replaced and the
core-clock chain adding an immediate."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "bench-src" / "c"
PROGRAMS = {
    "storefwd": ["storefwd/main.c", "storefwd/buffer.c"],
    "fence": ["fence/main.c", "fence/kernels.c", "fence/memory.c"],
    "align": ["align/main.c", "align/count.c", "align/copies.c", "align/loops.S"],
}
COMMON = sorted(str(p.relative_to(SRC)) for p in (SRC / "common").glob("*.c"))

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None or shutil.which("objdump") is None,
    reason="needs gcc and objdump (make deps installs them)",
)


def build(src, out):
    out.mkdir()
    for prog, files in PROGRAMS.items():
        subprocess.run(
            [
                "gcc",
                "-O2",
                "-std=gnu11",
                "-o",
                str(out / prog),
                *[str(src / f) for f in files + COMMON],
            ],
            check=True,
        )
    return out


def check(bench_dir):
    return subprocess.run(
        [sys.executable, str(SRC / "check_disasm.py"), str(bench_dir)], capture_output=True, text=True
    )


def test_checks_pass_on_the_real_sources(tmp_path):
    res = check(build(SRC, tmp_path / "good"))
    assert res.returncode == 0, res.stdout
    assert "FAIL" not in res.stdout


def test_checks_fail_when_the_effect_is_compiled_out(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    buf = src / "storefwd" / "buffer.c"
    text = buf.read_text()
    assert text.count('[off] "i"(SIZE - 16)') == 2
    # The overlap form's second store at +16 instead of +12: no overlap for 28 bytes.
    buf.write_text(text.replace('[off] "i"(SIZE - 16)', '[off] "i"(16)', 1))
    kern = src / "fence" / "kernels.c"
    kern.write_text(kern.read_text().replace('"mfence" ::: "memory"', '"lfence" ::: "memory"'))
    # The core-clock chain adding an immediate: a renamer that folds immediates shortens it.
    chain = src / "common" / "coreclock.c"
    chain.write_text(chain.read_text().replace('#define ADD "add %[one], %[x]\\n\\t"',
                                               '#define ADD "add $1, %[x]\\n\\t"'))
    res = check(build(src, tmp_path / "bad"))
    assert res.returncode == 1
    assert "FAIL - storefwd overlap28: 16-byte stores at OFF and OFF+12 to one base" in res.stdout
    assert "FAIL - fence: fence_llc_mfence has an mfence pair (0)" in res.stdout
    assert "FAIL - storefwd: vmp_add_chain adds a register into one other register 32 times (0 adds" in res.stdout
    assert "FAIL - align: vmp_add_chain adds a register" in res.stdout  # the chain is in every program
    assert "FAIL - align: the 13 loop copies" not in res.stdout and "FAIL - align: pad=" not in res.stdout
