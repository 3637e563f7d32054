"""Verdicts per seed and target, on result files parsed by the real parser."""

import pytest

from repro_runs import align_rows, fence_rows, memcpy_rows, parsed, snowflake_rows, storefwd_rows
from vmparity.repro.render import render_markdown
from vmparity.repro.scenarios import load_scenarios
from vmparity.repro.judges import judge_align, judge_fence, judge_memcpy, judge_snowflake, judge_storefwd
from vmparity.repro.judges.verdict import CANNOT_TELL, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from vmparity.repro.verdicts import judge_run
from vmparity.repro.measure import Target

SC = {s["seed"]: s for s in load_scenarios()}
PADS = [0, 16, 32, 48]
FENCE_SEEDLIKE = {
    ("llc", "none"): 100,
    ("llc", "lock"): 130,
    ("llc", "mfence"): 700,
    ("tlb", "none"): 40,
    ("tlb", "lock"): 60,
    ("tlb", "mfence"): 200,
    ("div", "none"): 25,
    ("div", "lock"): 26,
    ("div", "mfence"): 40,
}


def target(name, rows, **config):
    return Target(name, parsed(name, rows, config))


def test_storefwd_reproduced_with_numbers():
    v = judge_storefwd(SC["000"], target("metal", storefwd_rows(11.4, 5.6, 5.6, 5.0)))
    assert v.status == REPRODUCED
    assert "overlap 11.4 vs 5.6 ns/entry" in v.here and "2.04x" in v.here and "p=0.008" in v.here


def test_storefwd_not_reproduced_when_sizes_equal():
    v = judge_storefwd(SC["000"], target("metal", storefwd_rows(5.0, 5.0, 5.0, 5.0)))
    assert v.status == NOT_REPRODUCED and "is 1.00x, under the 1.3x" in v.reason


def test_storefwd_not_reproduced_when_fresh_form_is_slow_too():
    v = judge_storefwd(SC["000"], target("metal", storefwd_rows(10.0, 5.0, 10.0, 5.0)))
    assert v.status == NOT_REPRODUCED and "fresh form is slow too" in v.reason


def test_storefwd_on_tcg_cannot_tell_but_shows_numbers():
    v = judge_storefwd(SC["000"], target("guest-tcg", storefwd_rows(300, 150, 150, 140)))
    assert v.status == CANNOT_TELL and "TCG" in v.reason and "300 vs 150" in v.here


def test_single_sample_is_inconclusive_and_says_so():
    v = judge_storefwd(SC["000"], target("metal", storefwd_rows(11.4, 5.6, 5.6, 5.0, n=1)))
    assert v.status == INCONCLUSIVE and "ratio only" in v.here and "straddles" in v.reason


def test_an_effect_near_its_bar_is_inconclusive_not_a_coin_flip():
    # seed 003 on this machine: ~4-6 % against a 5 % bar; whichever side the
    # ratio of medians lands on, the verdict must be the same: inconclusive
    for slow in (1.045, 1.055):
        rows = {f"BenchmarkAlign/pad={p}": {"ns/iter": [(slow if p == 8 else 1.0) * (1 + 0.02 * ((i * 7 + p) % 5 - 2))
                                                        for i in range(5)],
                                            "insns/iter": [1000.0] * 5} for p in (0, 8)}
        v = judge_align(SC["003"], target("metal", rows, **{"align-insn-source": "callgrind", "pmu": "no"}))
        assert v.status == INCONCLUSIVE and "straddles the 1.05x bar" in v.reason, v


def test_missing_benchmark_cannot_tell():
    v = judge_storefwd(SC["000"], target("metal", fence_rows(FENCE_SEEDLIKE)))
    assert v.status == CANNOT_TELL and "no BenchmarkStorefwd results" in v.reason


def test_fence_reproduced_and_reports_every_work_against_the_seed():
    v = judge_fence(SC["001"], target("metal", fence_rows(FENCE_SEEDLIKE)))
    assert v.status == REPRODUCED
    assert "llc: mfence 86% / lock 23% of the loop (seed 86% / 23%)" in v.here
    assert "tlb:" in v.here and "div:" in v.here and "cycles/iter" in v.here


def test_fence_not_reproduced_when_mfence_is_cheap():
    cheap = {**FENCE_SEEDLIKE, ("llc", "mfence"): 110}
    v = judge_fence(SC["001"], target("metal", fence_rows(cheap)))
    assert v.status == NOT_REPRODUCED and "mfence overhead on llc is 9%" in v.reason


def test_align_same_instructions_different_time():
    ns = {0: 0.9, 16: 0.9, 32: 1.3, 48: 1.3}
    v = judge_align(
        SC["003"], target("metal", align_rows(ns, {p: 10.0 for p in PADS}), **{"align-insn-source": "callgrind"})
    )
    assert v.status == REPRODUCED and "+44%" in v.here and "callgrind" in v.here


def test_align_same_time_is_not_reproduced():
    v = judge_align(
        SC["003"],
        target("metal", align_rows({p: 1.0 for p in PADS}, {p: 10.0 for p in PADS}), **{"align-insn-source": "perf"}),
    )
    assert v.status == NOT_REPRODUCED and "under the 1.05x" in v.reason


def test_align_different_instructions_is_not_reproduced():
    v = judge_align(
        SC["003"],
        target(
            "metal",
            align_rows({0: 1.0, 16: 1.0, 32: 1.5, 48: 1.5}, {0: 10.0, 16: 10.0, 32: 12.0, 48: 12.0}),
            **{"align-insn-source": "perf"},
        ),
    )
    assert v.status == NOT_REPRODUCED and "instruction counts differ" in v.reason


def test_align_without_instruction_counts_cannot_tell_and_says_why():
    v = judge_align(
        SC["003"],
        target(
            "container-quota",
            align_rows({0: 1.0, 16: 1.0, 32: 1.5, 48: 1.5}),
            **{"align-insn-source": "unavailable (no PMU; callgrind: valgrind not installed)"},
        ),
    )
    assert v.status == CANNOT_TELL and "valgrind not installed" in v.reason and "+50%" in v.here


SIZES = [1024, 10240, 1048576, 16777216]


def memcpy_target(name, slow_sizes=(), nt_penalty=1.0, fixed=True):
    ns = {}
    for size in SIZES:
        base = size / 40.0
        slow = 4.0 if size in slow_sizes else 1.0
        ns["default", size] = base * slow
        ns["l3-3q", size] = base * (1.0 if fixed else slow)
        ns["min", size] = base * (nt_penalty if size > 0x4040 else 1.0)
    return target(name, memcpy_rows(ns))


def test_memcpy_on_metal_judges_the_nt_store_penalty():
    v = judge_memcpy(SC["002"], memcpy_target("metal", nt_penalty=3.0), None)
    assert v.status == REPRODUCED and "nt-threshold 0x1800000" in v.here and "1048576 B" in v.here
    assert "tunable=min applied 0x4041" in v.here
    v = judge_memcpy(SC["002"], memcpy_target("metal", nt_penalty=1.0), None)
    assert v.status == NOT_REPRODUCED


def test_memcpy_min_that_glibc_ignored_cannot_tell():
    t = memcpy_target("metal", nt_penalty=3.0)
    t.config["memcpy-nt-threshold-min"] = t.config["nt-threshold"]  # glibc kept its default
    v = judge_memcpy(SC["002"], t, None)
    assert v.status == CANNOT_TELL and "did not lower the threshold" in v.reason
    del t.config["memcpy-nt-threshold-min"]
    assert judge_memcpy(SC["002"], t, None).status == CANNOT_TELL


def test_memcpy_guest_with_lower_threshold_reproduces_and_tunable_closes_gap():
    metal = memcpy_target("metal")
    guest = memcpy_target("guest-nosmt", slow_sizes=(16777216,))
    v = judge_memcpy(SC["002"], guest, metal)
    assert v.status == REPRODUCED, v
    assert "nt-threshold 0xc00000 here, 0x1800000 on metal" in v.here and "16777216 B" in v.here
    assert v.reason == "the 3/4-L3 tunable closes the gap"
    v = judge_memcpy(SC["002"], memcpy_target("guest-nosmt", slow_sizes=(16777216,), fixed=False), metal)
    assert v.status == REPRODUCED and v.reason == "the 3/4-L3 tunable does not close the gap"


def test_memcpy_same_threshold_is_not_reproduced():
    metal = memcpy_target("metal")
    v = judge_memcpy(SC["002"], memcpy_target("guest-hpet-clock"), metal)
    assert v.status == NOT_REPRODUCED and "(equal)" in v.here


def test_tcg_voids_timing_decisions_only():
    """On a TCG guest a decision taken on timings becomes "cannot tell" with
    the numbers kept; one taken on the fingerprint (equal thresholds) stands,
    and seed 004's clock and scheduler effects are judged as anywhere."""
    metal = memcpy_target("metal")
    guest = memcpy_target("guest-nosmt", slow_sizes=(16777216,))
    guest.kind = "tcg-guest"
    v = judge_memcpy(SC["002"], guest, metal)
    assert v.status == CANNOT_TELL and "TCG" in v.reason and "16777216 B" in v.here
    same = memcpy_target("guest-hpet-clock")
    same.kind = "tcg-guest"
    assert judge_memcpy(SC["002"], same, metal).status == NOT_REPRODUCED
    snow_metal = target("metal", snow(250, 250), **{"clock-verdict-monotonic": "vdso"})
    snow_guest = target("guest-hpet-clock", snow(270, 1080), **{"clock-verdict-monotonic": "fallback"})
    snow_guest.kind = "tcg-guest"
    assert judge_snowflake(SC["004"], snow_guest, snow_metal).status == REPRODUCED


def snow(ticker, twitter, procs=(1, 2)):
    return snowflake_rows({(impl, p): ns for p in procs for impl, ns in (("ticker", ticker), ("twitter", twitter))})


def test_snowflake_hpet_guest_fallback_hurts_the_per_call_clock_design():
    metal = target("metal", snow(250, 250), **{"clock-verdict-monotonic": "vdso"})
    guest = target("guest-hpet-clock", snow(270, 1080), **{"clock-verdict-monotonic": "fallback"})
    v = judge_snowflake(SC["004"], guest, metal)
    assert v.status == REPRODUCED and "fallback" in v.here and "4.00x worse off" in v.here
    v = judge_snowflake(SC["004"], metal, metal)
    assert v.status == NOT_REPRODUCED and "stays in the vDSO" in v.reason


def test_snowflake_on_an_emulated_target_is_decided_by_the_clocks_path_not_the_size_of_the_loss():
    # the nested KVM host's hpet guest: twitter 1.49x worse off than on its host in one run, 1.5x and
    # more in another; the clock left the vDSO in both (configuration), and the size is emulated timing
    host = target("metal-kvm01", snow(250, 250), **{"clock-verdict-monotonic": "vdso"})
    host.kind = "tcg-guest"
    guest = target("guest-hpet-clock-kvm01", snow(250, 372.5), **{"clock-verdict-monotonic": "fallback"})
    guest.kind = "kvm-guest"
    v = judge_snowflake(SC["004"], guest, host)
    assert v.status == REPRODUCED and "1.49x worse off" in v.here and "emulated timing" in v.reason, v
    stays = target("guest-nosmt-kvm01", snow(250, 372.5), **{"clock-verdict-monotonic": "vdso"})
    stays.kind = "kvm-guest"
    assert judge_snowflake(SC["004"], stays, host).status == NOT_REPRODUCED
    # on real hardware the size is the seed's claim: 1.49x is under its 1.5x bar
    host.kind = "metal"
    assert judge_snowflake(SC["004"], guest, host).status == NOT_REPRODUCED


def test_snowflake_quota_container_scaling():
    rows = snowflake_rows({("ticker", 1): 250, ("ticker", 2): 400, ("twitter", 1): 250, ("twitter", 2): 600})
    metal = target("metal", snow(250, 250), **{"clock-verdict-monotonic": "vdso"})
    v = judge_snowflake(SC["004"], target("container-quota", rows, **{"clock-verdict-monotonic": "vdso"}), metal)
    assert v.status == REPRODUCED and "GOMAXPROCS=2 (visible) vs 1 (quota 1)" in v.here


def full_run():
    metal_rows = {
        **storefwd_rows(11.4, 5.6, 5.6, 5.0),
        **fence_rows(FENCE_SEEDLIKE),
        **align_rows({0: 0.9, 16: 0.9, 32: 1.3, 48: 1.3}, {p: 10.0 for p in PADS}),
        **snow(250, 250),
    }
    cont_rows = {**storefwd_rows(5.0, 5.0, 5.0, 5.0), **align_rows({p: 1.0 for p in PADS})}
    return {
        "metal": parsed("metal", metal_rows, {"align-insn-source": "callgrind", "clock-verdict-monotonic": "vdso"}),
        "container-quota": parsed("container-quota", cont_rows, {"align-insn-source": "unavailable (no PMU)"}),
    }


def test_judge_run_gives_every_seed_a_verdict_on_every_target():
    verdicts = judge_run(full_run())
    by = {(v.seed, v.target): v for v in verdicts}
    for seed in ("000", "001", "003"):
        assert {t for s, t in by if s == seed} == {"metal", "container-quota"}
    assert by["000", "metal"].status == REPRODUCED and by["000", "container-quota"].status == NOT_REPRODUCED
    assert by["001", "container-quota"].status == CANNOT_TELL  # fence did not run there
    assert by["002", "guest-nosmt"].reason == "target not in this run"
    assert all(v.status in (REPRODUCED, NOT_REPRODUCED, CANNOT_TELL) for v in verdicts)
    assert {v.seed for v in verdicts} == {"000", "001", "002", "003", "004"}


def test_markdown_names_the_seed_figures_and_every_verdict():
    scenarios = load_scenarios()
    verdicts = judge_run(full_run())
    md = render_markdown(verdicts, scenarios)
    assert md.startswith("## Reproductions\n")
    assert "seed: overlap 7.3 vs 4.4 ns/key (28 vs 32 B); fresh 4.1 vs 4.5" in md
    assert md.index("### Seed 002") < md.index("### Seed 004") < md.index("### Seed 000")
    for v in verdicts:
        assert f"| {v.target} |" in md
    assert md.count("| metal |") == 5
    with pytest.raises(ValueError, match="seed 003 has no verdict"):
        render_markdown([v for v in verdicts if v.seed != "003"], scenarios)


def test_judge_run_takes_the_lab_metal_as_reference_when_the_host_is_a_container():
    # CI runners are often containers themselves: the lab's `metal` target then says
    # target-kind container, yet the guests are still measured against it
    run = {
        "metal": parsed("metal", snow(250, 250), {"target-kind": "container", "clock-verdict-monotonic": "vdso"}),
        "guest-hpet-clock": parsed("guest-hpet-clock", snow(270, 1080),
                                   {"target-kind": "kvm-guest", "clock-verdict-monotonic": "fallback"}),
    }
    by = {(v.seed, v.target): v for v in judge_run(run)}
    v = by["004", "guest-hpet-clock"]
    assert v.status == REPRODUCED and "on metal" in v.here and "4.00x worse off" in v.here


def test_rack_targets_are_covered_and_judged_against_their_own_host():
    # on a rack every target carries its host's suffix (vmparity_target_suffix)
    run = {
        "metal-rack01": parsed("metal-rack01", snow(250, 250), {"clock-verdict-monotonic": "vdso"}),
        "metal-rack02": parsed("metal-rack02", snow(250, 1000), {"clock-verdict-monotonic": "vdso"}),
        "guest-hpet-clock-rack02": parsed("guest-hpet-clock-rack02", snow(270, 1080),
                                          {"target-kind": "kvm-guest", "clock-verdict-monotonic": "fallback"}),
    }
    by = {(v.seed, v.target): v for v in judge_run(run)}
    assert ("004", "guest-hpet-clock") not in by  # the pattern found its rack target
    v = by["004", "guest-hpet-clock-rack02"]
    assert "on metal-rack02" in v.here and v.status == NOT_REPRODUCED  # same ratio as its own host
    assert {t for s, t in by if s == "000"} == set(run)
