#!/usr/bin/env python3
"""Disassembly checks for the repro benchmarks: the built binaries must
still contain the instructions that make each effect, whatever the compiler
did. Usage: check_disasm.py BENCH_DIR (needs storefwd, fence, align there).
Prints ok/FAIL lines; exits 1 when a check fails, 2 when a binary is missing.
Standard library only, so it runs before any virtualenv exists."""

import re
import subprocess
import sys
from pathlib import Path

FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")
# movups %xmmN,OFF(%reg)  /  movups OFF(%reg),%xmmN ; OFF may be absent or 0x0
STORE = re.compile(r"^movups\s+%xmm\d+,(?:(0x[0-9a-f]+))?\((%\w+)\)$")
LOAD = re.compile(r"^movups\s+(?:(0x[0-9a-f]+))?\((%\w+)\),%xmm\d+$")
ALIGN_PADS = [0, 1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 60, 62]

failures = 0


def check(cond, what):
    global failures
    print(f"{'ok' if cond else 'FAIL'} - {what}")
    if not cond:
        failures += 1


def disassemble(binary):
    """{function name: [(address, instruction text)]} from objdump -d."""
    if not binary.is_file():
        sys.exit(f"check_disasm: {binary} does not exist (run `make bench` first)")
    out = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(binary)], check=True, capture_output=True, text=True
    ).stdout
    funcs, current = {}, None
    for line in out.splitlines():
        if m := FUNC.match(line):
            current = funcs.setdefault(m.group(2), [])
            current.append((int(m.group(1), 16), None))
        elif current is not None and (m := INSN.match(line)):
            current.append((int(m.group(1), 16), re.sub(r"\s+", " ", m.group(2)).replace(", ", ",")))
    return funcs


def insns(funcs, name):
    return [text for _, text in funcs.get(name, []) if text]


def mem_ops(code, pattern):
    return [(int(m.group(1) or "0", 16), m.group(2), i) for i, text in enumerate(code) if (m := pattern.match(text))]


def overlapping_store_pair(code, gap):
    """Two 16-byte stores to one base register at OFF and OFF+gap; returns (base, off, index)."""
    stores = mem_ops(code, STORE)
    for off, base, i in stores:
        for off2, base2, j in stores:
            if base2 == base and off2 == off + gap and j > i:
                return base, off, j
    return None


def check_storefwd(funcs):
    for size in (28, 32):
        gap = size - 16
        code = insns(funcs, f"sf_append_overlap{size}")
        check(bool(code), f"storefwd: sf_append_overlap{size} is in the binary")
        pair = overlapping_store_pair(code, gap)
        check(pair is not None, f"storefwd overlap{size}: 16-byte stores at OFF and OFF+{gap} to one base")
        if pair:
            base, off, j = pair
            reload = [k for o, b, k in mem_ops(code, LOAD) if b == base and o == off and k > j]
            check(
                bool(reload),
                f"storefwd overlap{size}: 16-byte load back from {off:#x}({base}) "
                "after both stores (the load that needs forwarding)",
            )
        code = insns(funcs, f"sf_append_fresh{size}")
        pair = overlapping_store_pair(code, gap)
        check(pair is not None, f"storefwd fresh{size}: entry stored at OFF and OFF+{gap}")
        if pair:
            reload = [k for o, b, k in mem_ops(code, LOAD) if b == pair[0]]
            check(not reload, f"storefwd fresh{size}: nothing is loaded back from the stored entry")
    check(
        overlapping_store_pair(insns(funcs, "sf_append_overlap32"), 12) is None,
        "storefwd overlap32: no 12-byte-apart store pair (its stores do not overlap)",
    )


def check_fence(funcs):
    for work in ("llc", "tlb", "div"):
        for barrier in ("none", "lock", "mfence"):
            name = f"fence_{work}_{barrier}"
            code = insns(funcs, name)
            check(bool(code), f"fence: {name} is in the binary")
            mfences = sum(1 for t in code if t == "mfence")
            locked = [t for t in code if t.startswith("lock ")]
            if barrier == "mfence":
                check(mfences == 2 and not locked, f"fence: {name} has an mfence pair ({mfences}) and no lock")
            elif barrier == "lock":
                check(
                    mfences == 0
                    and any(t.startswith("lock inc") for t in locked)
                    and any(t.startswith("lock dec") for t in locked),
                    f"fence: {name} has lock inc + lock dec ({locked}) and no mfence",
                )
            else:
                check(mfences == 0 and not locked, f"fence: {name} has neither mfence nor lock")
            if work == "div":
                check(any(re.match(r"^div[lq]? ", t) for t in code), f"fence: {name} divides with div")


def check_align(funcs):
    bodies = {}
    for pad in ALIGN_PADS:
        start = funcs.get(f"align_body_pad{pad}")
        check(bool(start), f"align: align_body_pad{pad} is in the binary")
        if not start:
            continue
        check(start[0][0] % 64 == pad, f"align: pad={pad} loop starts at offset {start[0][0] % 64} of 64")
        # The jnz target is the copy's own address; compare the rest.
        bodies[pad] = [
            re.sub(r"\b[0-9a-f]+ <align_body_pad\d+>", "<body>", t) for t in insns(funcs, f"align_body_pad{pad}")
        ]
    first = bodies.get(ALIGN_PADS[0])
    check(
        bool(first) and all(b == first for b in bodies.values()),
        f"align: the {len(bodies)} loop copies disassemble to the same instructions",
    )


ADD_REG_REG = re.compile(r"^add (%r\w+),(%r\w+)$")


def check_core_clock(funcs, program):
    """The core-clock chain (common/coreclock.c): 32 register-register adds into one register,
    each reading the one before, in one loop; an add of an immediate could be folded away by
    the CPU, and fewer adds would be the compiler's doing."""
    code = insns(funcs, "vmp_add_chain")
    check(bool(code), f"{program}: vmp_add_chain is in the binary")
    adds = [m.groups() for t in code if (m := ADD_REG_REG.match(t))]
    dests = {dst for _, dst in adds}
    srcs = {src for src, _ in adds}
    check(
        len(adds) == 32 and len(dests) == 1 and not (srcs & dests),
        f"{program}: vmp_add_chain adds a register into one other register 32 times "
        f"({len(adds)} adds into {sorted(dests)} from {sorted(srcs)})",
    )


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: check_disasm.py BENCH_DIR")
    bench = Path(argv[1])
    check_storefwd(disassemble(bench / "storefwd"))
    check_fence(disassemble(bench / "fence"))
    check_align(disassemble(bench / "align"))
    # the chain is common/coreclock.c, built alike into every program: the seed programs show it
    for program in ("storefwd", "fence", "align"):
        check_core_clock(disassemble(bench / program), program)
    print(f"check_disasm: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
