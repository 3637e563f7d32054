"""Generate realistic vmparity result files for tests and `make bench-compare`.

The header carries every key docs/formats.md lists, with the values a metal
host, an SMT-less guest, an hpet guest or a quota-limited container would
report, so explain rules see what they would see from `benchrun`.
"""

import random

METAL = {
    "vmparity-format": "1",
    "run-id": "2026-11-22T10-15-03Z-3f2a",
    "target": "metal",
    "target-kind": "metal",
    "target-kind-evidence": "cpuid hypervisor bit clear",
    "host": "rack07.example.net",
    "kernel": "6.1.0-26-amd64",
    "kernel-cmdline": "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet",
    "cpu": "AMD EPYC 7B13 64-Core Processor",
    "cpu-vendor": "AuthenticAMD",
    "cpu-flags": "ht topoext constant_tsc nonstop_tsc svm",
    "ht": "yes",
    "topoext": "yes",
    "hypervisor": "no",
    "hypervisor-signature": "none",
    "constant-tsc": "yes",
    "nonstop-tsc": "yes",
    "vmx": "no",
    "svm": "yes",
    "threads-per-core": "2",
    "cores-per-socket": "4",
    "sockets": "1",
    "cpus-online": "8",
    "cpus-visible": "8",
    "l1d-cache": "32768",
    "l2-cache": "524288",
    "l3-cache": "33554432",
    "glibc": "2.36",
    "nt-threshold": "0x1800000",
    "rep-movsb-threshold": "0x2000",
    "rep-stosb-threshold": "0x800",
    "shared-cache-size": "0x2000000",
    "glibc-tunables": "",
    "clocksource": "tsc",
    "clocksources-available": "tsc hpet acpi_pm",
    "vdso": "yes",
    "pmu": "yes",
    "pmu-reason": "perf_event_open cycles ok",
    "cgroup": "/",
    "cpu-quota": "none",
    "cpuset": "0-7",
    "governor": "performance",
    "turbo": "yes",
    "thp": "madvise",
    "profile": "quick",
    "count": "10",
    "memcpy-tsc": "usable",
    "clock-verdict-monotonic": "vdso",
    "clock-verdict-realtime": "vdso",
    "snowflake-floor-ns": "244",
    "memcpy-tunables-l3-3q": "glibc.cpu.x86_non_temporal_threshold=0x1800000",
    "memcpy-tunables-min": "glibc.cpu.x86_non_temporal_threshold=0x4040",
    "binary-sha256": "9c1e5f0e3a3b0c4d2e1f00112233445566778899aabbccddeeff001122334455",
}

NOSMT_GUEST = dict(METAL, **{
    "target": "guest-nosmt", "target-kind": "tcg-guest", "target-kind-evidence": "VMPARITY_TARGET_KIND set by the lab",
    "hypervisor": "yes", "hypervisor-signature": "TCGTCGTCGTCG", "ht": "no", "topoext": "no",
    "threads-per-core": "1", "cpus-online": "2", "cpus-visible": "2", "cpuset": "0-1",
    "nt-threshold": "0xc0000", "clocksource": "kvm-clock", "pmu": "no",
    "pmu-reason": "perf_event_open cycles: EOPNOTSUPP", "cpu-flags": "constant_tsc",
})

HPET_GUEST = dict(NOSMT_GUEST, **{
    "target": "guest-hpet", "clocksource": "hpet", "kernel-cmdline": "root=/dev/vda1 ro clocksource=hpet",
    "clock-verdict-monotonic": "fallback", "clock-verdict-realtime": "fallback",
    "nt-threshold": METAL["nt-threshold"], "threads-per-core": "2", "topoext": "yes",
})

QUOTA_CONTAINER = dict(METAL, **{
    "target": "container-quota", "target-kind": "container", "target-kind-evidence": "/.dockerenv present",
    "cgroup": "/docker/3f2a", "cpu-quota": "2", "pmu": "no", "pmu-reason": "perf_event_paranoid=3",
})

MEMCPY_SIZES = [256, 1024, 4096, 65536, 1048576, 4194304, 16777216, 33554432]


def memcpy_gbps(size, nt_threshold):
    """Bandwidth model: cached copies fast, NT stores slow (the seed's 40x at 1k is extreme)."""
    base = 40e9 if size <= 1 << 20 else 20e9
    return base / 8 if size > nt_threshold else base


def suite(config, rng, count=10, noise=0.01):
    """Benchmarks as benchrun would print them for this fingerprint: {name: {unit: [values]}}."""
    nt = int(config["nt-threshold"], 0)
    out = {}
    for size in MEMCPY_SIZES:
        bps = memcpy_gbps(size, nt)
        vals = [bps * rng.gauss(1, noise) for _ in range(count)]
        out[f"BenchmarkMemcpy/link=static/tunable=default/size={size}"] = {
            "ns/op": [size / v * 1e9 for v in vals], "B/s": vals,
        }
    fallback = config["clocksource"] not in ("tsc", "kvm-clock")
    for clock in ("monotonic", "realtime"):
        for path, ns in (("vdso", 1500.0 if fallback else 20.0), ("syscall", 1500.0 if fallback else 300.0)):
            out[f"BenchmarkClock/clock={clock}/path={path}"] = {"ns/op": [ns * rng.gauss(1, noise) for _ in range(count)]}
    out["BenchmarkClock/clock=rdtsc/path=insn"] = {"ns/op": [8.0 * rng.gauss(1, noise) for _ in range(count)]}
    quota = config["cpu-quota"]
    for impl in ("ticker", "twitter"):
        for procs in (1, 2, 4, 8):
            ns = 244.0 if impl == "ticker" else (1600.0 if fallback else 260.0)
            if quota != "none" and procs > float(quota):
                ns *= procs / float(quota)  # oversubscribed GOMAXPROCS
            out[f"BenchmarkSnowflake/impl={impl}/procs={procs}-{procs}"] = {
                "ns/op": [ns * rng.gauss(1, noise) for _ in range(count)]}
    return out


def render(config, benches, iterations=1000000):
    """The file text: header, Unit line, then one line per repetition (interleaved like benchrun)."""
    lines = [f"{k}: {v}".rstrip() for k, v in config.items()]
    lines.append("Unit B/s better=higher")
    count = max(len(v) for units in benches.values() for v in units.values())
    for i in range(count):
        for name, units in benches.items():
            if i < min(len(v) for v in units.values()):
                fields = " ".join(f"{_num(v[i])} {u}" for u, v in units.items())
                lines.append(f"{name} {iterations} {fields}")
    return "\n".join(lines) + "\n"


def _num(v):
    return f"{v:.6g}"


def write(path, config, benches):
    path.write_text(render(config, benches), encoding="utf-8")
    return path


def target_file(tmp_path, config, seed=1, count=10, noise=0.01, name=None):
    rng = random.Random(seed)
    return write(tmp_path / (name or f"{config['target']}.txt"), config, suite(config, rng, count, noise))


def explained_pair(tmp_path, metal, box, extra_rows, seed):
    """explain() of metal against box (their headers): each side the suite of its fingerprint, 6 repetitions,
    plus extra_rows(side, rng) (side 0 metal, 1 box), written as <target>.txt in tmp_path."""
    from vmparity.decide import explain
    from vmparity.results import inputs
    from vmparity import table

    rng = random.Random(seed)
    files = []
    for side, cfg in enumerate((metal, box)):
        benches = suite(cfg, rng, count=6)
        benches.update(extra_rows(side, rng))
        files.append(write(tmp_path / f"{cfg['target']}.txt", cfg, benches))
    t = table.build(inputs.load_all(files))
    return explain.explain(t, t.configs, explain.load_rules())


def lab_run(run, seed=0, count=6, noise=0.02, drift=0.0, effect=None, metal_spell=None, rounds_record=False,
            machine=None, spells=None):
    """A lab run directory: metal, metal-aa and container-nolimit measured in interleaved rounds.
    Every round has a shared drift factor (the machine's speed that moment) that hits all three.
    effect=(name prefix, factor) changes those rows of the container; metal_spell=(name prefix,
    factor) slows those rows of metal alone (its pass ran in slow spells). rounds_record: write
    rounds.json too (which round each value is from), so the run is decided paired by round.
    machine: the `machine` key every file names (none by default). spells=(share, factor): each
    target's repetition of a round is, with that chance, slower by the factor, every row of it (a
    noisy hour of the shared host: one-sided, and each target's in other rounds)."""
    rng = random.Random(seed)
    run.mkdir(parents=True, exist_ok=True)
    drifts = [1 + drift * rng.uniform(-1, 1) for _ in range(count)]
    for target in ("metal", "metal-aa", "container-nolimit"):
        slow = [spells[1] if spells and rng.random() < spells[0] else 1.0 for _ in range(count)]
        cfg = dict(METAL, target=target, count=str(count), **({"machine": machine} if machine else {}))
        if target == "container-nolimit":
            cfg["target-kind"] = "container"
        benches = suite(cfg, random.Random(rng.random()), count=count, noise=noise)
        for name, units in benches.items():
            for unit, vals in units.items():
                scale = [x * y for x, y in zip(drifts, slow)]
                if effect and target == "container-nolimit" and effect[0] in name:
                    scale = [x * (effect[1] if unit != "B/s" else 1 / effect[1]) for x in scale]
                if metal_spell and target == "metal" and metal_spell[0] in name:
                    scale = [x * (metal_spell[1] if unit != "B/s" else 1 / metal_spell[1]) for x in scale]
                units[unit] = [v * (x if unit != "B/s" else 1 / x) for v, x in zip(vals, scale)]
        write(run / f"{target}.txt", cfg, benches)
    if rounds_record:
        import json

        targets = ["metal", "metal-aa", "container-nolimit"]
        (run / "rounds.json").write_text(json.dumps({
            "schema": "vmparity-rounds/1", "partial": False, "missing-rounds": {},
            "hosts": {"localhost": [{"round": k, "seed": seed, "order": random.Random(k).sample(targets, 3)}
                                    for k in range(1, count + 1)]}}), encoding="utf-8")
    return run


def ab_run(run, seed=0, count=6, noise=0.02, drift=0.0, effect=None, targets=("metal", "container-nolimit"),
           rounds_record=True, missing=None, not_measured=None):
    """An A/B run directory (make lab-ab): every target of `targets` on both sides, HEAD as <target>.txt
    and BASE as <target>~base.txt, plus the A/A pass metal-aa (HEAD), measured in interleaved rounds
    whose shared drift factor hits every side alike. effect=(target, name prefix, factor) makes those
    rows of that target's HEAD side slower by the factor (the code change). missing={side's name:
    [rounds]}: rounds (1-based) that side did not finish, left out of its file and listed in rounds.json.
    not_measured={target: rounds}: TCG guests the run left out, both sides, as the lab does with a kind
    whose rounds are too few for an A/B (rounds.json ab.not-measured, lab/ab.sides): named, no files."""
    rng = random.Random(seed)
    run.mkdir(parents=True, exist_ok=True)
    drifts = [1 + drift * rng.uniform(-1, 1) for _ in range(count)]
    sides = [("metal-aa", "head")] + [(t, side) for t in targets for side in ("head", "base")]
    for target, side in sides:
        name = target if side == "head" else f"{target}~base"
        gone = set((missing or {}).get(name, ()))
        cfg = dict(METAL, target=name, count=str(count - len(gone)), **{"ab-side": side, "ab-base-ref": "main",
                                                           "ab-base-commit": "0123456789abcdef"})
        if target.startswith("container-"):
            cfg["target-kind"] = "container"
        benches = suite(cfg, random.Random(rng.random()), count=count, noise=noise)
        for bname, units in benches.items():
            for unit, vals in units.items():
                scale = list(drifts)
                if effect and side == "head" and target == effect[0] and effect[1] in bname:
                    scale = [x * effect[2] for x in scale]
                units[unit] = [v * (x if unit != "B/s" else 1 / x) for k, (v, x) in enumerate(zip(vals, scale), 1)
                               if k not in gone]
        write(run / f"{name}.txt", cfg, benches)
    if rounds_record:
        import json

        ab = {"base-ref": "main", "base-commit": "0123456789abcdef0123456789abcdef01234567"}
        if not_measured:
            ab["not-measured"] = {t: {"kind": "tcg-guest", "rounds": n, "need": 4} for t, n in not_measured.items()}
        (run / "rounds.json").write_text(json.dumps({
            "schema": "vmparity-rounds/1", "partial": bool(missing), "missing-rounds": missing or {},
            "hosts": {"localhost": [{"round": k, "seed": seed, "order": [n if s == "head" else f"{n}~base"
                                                                          for n, s in sides]}
                                    for k in range(1, count + 1)]},
            "ab": ab}), encoding="utf-8")
    return run
