"""Verified explanations (`vmparity lab verify`): interventions as data, their derivation from a
run's explanations, and the verdict rule (vmparity.decide.verification) on synthetic rows and runs."""

import json
import math
import random

import pytest
import resultgen
import yaml
from vmparity.decide import explain, verification
from vmparity.decide.explain import Finding
from vmparity.errors import InputError
from vmparity.lab import interventions, verify
from vmparity.render.verification import closed_alike_reason, reason
from vmparity.stats import utest

RUN = "2026-11-25T10-00-00Z-lab-quick"


# --- interventions as data ----------------------------------------------------------------------

def test_every_shipped_rule_says_how_the_lab_tests_it():
    for rule in explain.load_rules():
        assert "intervention" in rule or "not-testable" in rule, rule["id"]
    kinds = {r["id"]: r["intervention"]["kind"] for r in explain.load_rules() if "intervention" in r}
    assert kinds == {"nt-threshold": "env", "vdso-fallback": "guest", "cpu-quota": "env",
                     "seccomp-syscalls": "container", "spec-store-bypass": "container", "cpu-throttling": "container",
                     "fence-buffer-size": "container", "guest-cpu-model": "guest",
                     "clocksource-read": "guest", "clocksource-syscall-read": "guest"}
    # a reason beside an intervention is for the targets it does not fit: fence-buffer-size's for a guest
    both = {r["id"] for r in explain.load_rules() if "intervention" in r and "not-testable" in r}
    assert both == {"fence-buffer-size"}


def _rules_file(tmp_path, block):
    rule = {"id": "bad-one", "title": "t", "when": [{"benchmark": "x"}], "cause": "c", "fix": "f", **block}
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump([rule]), encoding="utf-8")
    return path


@pytest.mark.parametrize("block, says", [
    ({"intervention": {"kind": "kernel", "name": "x", "env": {"A": "1"}}}, "intervention kind 'kernel'"),
    ({"intervention": {"kind": "env", "name": "x", "env": {"lower": "1"}}}, "intervention env 'lower'"),
    ({"intervention": {"kind": "env", "name": "x", "set": {"hpet": False}}}, "unknown key(s) set"),
    ({"intervention": {"kind": "guest", "name": "x"}}, "needs a non-empty mapping"),
    ({"intervention": {"kind": "guest", "name": "x", "set": {"hpet": False}}, "not-testable": ""}, "must be the reason"),
    ({"not-testable": ""}, "must be the reason"),
    ({"intervention": {"kind": "env", "name": "{{ x", "env": {"A": "1"}}}, "intervention template error"),
])
def test_a_bad_intervention_names_the_file_and_the_rule(tmp_path, block, says):
    path = _rules_file(tmp_path, block)
    with pytest.raises(InputError) as e:
        explain.load_rules(path)
    assert str(path) in str(e.value) and "bad-one" in str(e.value) and says in str(e.value)


# --- derivation: one intervention target per (target, fix) ---------------------------------------

def _finding(name, unit="ns/op", pct=80.0, verdict="worse"):
    return Finding("", name, unit, pct, 0.002, verdict)


def _explained(rules, B, rows, A=resultgen.METAL):
    found, _ = explain.apply_rules(rules, "", "metal", B["target"], dict(A, target="metal"), B, rows)
    return found


def _plan(tmp_path, explanations):
    run = tmp_path / RUN
    run.mkdir(exist_ok=True)
    return interventions.derive(run, "metal", explanations)


def _entry(plan, target, rule):
    return next(e for e in plan["explanations"] if e["target"] == target and e["rule"] == rule)


def _item(plan, name):
    return next(i for i in plan["interventions"] if i["target"] == name)


def test_env_intervention_nt_threshold_gets_the_references_threshold(tmp_path):
    guest = dict(resultgen.NOSMT_GUEST)  # 0xc0000 against metal's 0x1800000
    rows = [_finding("BenchmarkMemcpy/link=static/tunable=default/size=1048576")]
    plan = _plan(tmp_path, _explained(explain.load_rules(), guest, rows))
    e = _entry(plan, "guest-nosmt", "nt-threshold")
    assert e["intervention"] == "guest-nosmt+nt-threshold-0x1800000"
    item = _item(plan, e["intervention"])
    assert item["kind"] == "env" and item["of"] == "guest-nosmt"
    assert item["env"] == {"GLIBC_TUNABLES": "glibc.cpu.x86_non_temporal_threshold=0x1800000"}
    assert item["changes"] == [{"field": "env GLIBC_TUNABLES", "from": "",
                                "to": "glibc.cpu.x86_non_temporal_threshold=0x1800000"}]
    assert plan["jobs"] == {"guest-nosmt": ["memcpy-static/tunable=default"]}


def test_env_intervention_gomaxprocs_follows_the_quota(tmp_path):
    box = dict(resultgen.QUOTA_CONTAINER, **{"cpu-quota": "1.5"})
    rows = [_finding("BenchmarkSnowflake/impl=ticker/procs=8-8")]
    plan = _plan(tmp_path, _explained(explain.load_rules(), box, rows))
    item = _item(plan, _entry(plan, "container-quota", "cpu-quota")["intervention"])
    assert item["target"] == "container-quota+gomaxprocs-2" and item["env"] == {"GOMAXPROCS": "2"}
    assert item["changes"][0]["from"].startswith("(unset: Go uses the 8 visible CPUs")


def test_guest_intervention_is_a_derived_variant_with_only_the_fix(tmp_path):
    guest = dict(resultgen.HPET_GUEST, target="guest-hpet-clock")
    rows = [_finding("BenchmarkClock/clock=monotonic/path=vdso")]
    plan = _plan(tmp_path, _explained(explain.load_rules(), guest, rows))
    item = _item(plan, _entry(plan, "guest-hpet-clock", "vdso-fallback")["intervention"])
    assert item["target"] == "guest-hpet-clock+clocksource-tsc" and item["variant"] == "hpet-clock+clocksource-tsc"
    assert item["variant-fields"]["kernel_cmdline_extra"] == "clocksource=tsc tsc=reliable"
    assert item["variant-fields"]["hpet"] is False
    assert {c["field"]: (c["from"], c["to"]) for c in item["changes"]}["kernel_cmdline_extra"] == \
        ("clocksource=hpet", "clocksource=tsc tsc=reliable")
    assert plan["original-variants"]["guests"]["hpet-clock"]["kernel_cmdline_extra"] == "clocksource=hpet"
    # the derived variant file is the lab's own format, and its checker accepts it
    args = verify.files(plan, [item], tmp_path / "files")
    assert "--skip-tags" in args and "containers" in args
    from vmparity.lab import variants
    derived = variants.load_guests(tmp_path / "files" / "guests.yml")
    assert set(derived) == {"hpet-clock", "hpet-clock+clocksource-tsc"}
    assert derived["hpet-clock+clocksource-tsc"]["kernel_cmdline_extra"] == "clocksource=tsc tsc=reliable"
    bench = json.loads((tmp_path / "files" / "bench-vars.json").read_text())
    assert bench["bench_targets_only"] == ["metal", "guest-hpet-clock", "guest-hpet-clock+clocksource-tsc"]
    assert bench["bench_only_by_target"]["guest-hpet-clock+clocksource-tsc"] == "^(clock)$"


def test_a_rack_hosts_run_keeps_its_suffix_last_and_finds_its_variants(tmp_path):
    # `make kvm-lab`'s run: one rack host (the nested KVM host kvm01), every target named with -kvm01.
    # The derived guest is the variant hpet-clock+clocksource-tsc, which the roles name
    # guest-hpet-clock+clocksource-tsc-kvm01 on that host; an env fix keeps the suffix last as well,
    # and its original is provisioned again with its own fields, not the defaults
    metal = dict(resultgen.METAL, target="metal-kvm01")
    hpet = dict(resultgen.HPET_GUEST, target="guest-hpet-clock-kvm01", **{"target-kind": "kvm-guest"})
    nosmt = dict(resultgen.NOSMT_GUEST, target="guest-nosmt-kvm01", **{"target-kind": "kvm-guest"})
    rules = explain.load_rules()
    found = (_explained(rules, hpet, [_finding("BenchmarkClock/clock=monotonic/path=vdso")], A=metal)
             + _explained(rules, nosmt, [_finding("BenchmarkMemcpy/link=static/tunable=default/size=1048576")], A=metal))
    run = tmp_path / RUN
    run.mkdir()
    plan = interventions.derive(run, "metal-kvm01", found)
    tsc = _item(plan, _entry(plan, "guest-hpet-clock-kvm01", "vdso-fallback")["intervention"])
    assert tsc["target"] == "guest-hpet-clock+clocksource-tsc-kvm01" and tsc["variant"] == "hpet-clock+clocksource-tsc"
    nt = _item(plan, _entry(plan, "guest-nosmt-kvm01", "nt-threshold")["intervention"])
    assert nt["target"].startswith("guest-nosmt+nt-threshold-") and nt["target"].endswith("-kvm01")
    assert plan["original-variants"]["guests"]["nosmt"]["topology"]["threads"] == 1
    verify.files(plan, plan["interventions"], tmp_path / "files", rounds=5)
    from vmparity.lab import variants
    derived = variants.load_guests(tmp_path / "files" / "guests.yml")
    assert set(derived) == {"hpet-clock", "hpet-clock+clocksource-tsc", "nosmt"}
    assert derived["nosmt"]["features"] == [{"name": "topoext", "policy": "disable"}]
    bench = json.loads((tmp_path / "files" / "bench-vars.json").read_text())
    assert bench["bench_targets_only"] == ["metal-kvm01", "guest-hpet-clock-kvm01", "guest-nosmt-kvm01",
                                           "guest-hpet-clock+clocksource-tsc-kvm01"]
    assert bench["bench_env_targets"] == [{"target": nt["target"], "of": "guest-nosmt-kvm01", "env": nt["env"]}]
    prov = json.loads((tmp_path / "files" / "provision-vars.json").read_text())
    assert prov["guests_variants_only"] == ["hpet-clock", "hpet-clock+clocksource-tsc", "nosmt"]
    # every target of the plan belongs to the host's metal by its suffix
    from vmparity.results.targets import metal_of
    assert {metal_of(t, ["metal-kvm01"]) for t in bench["bench_targets_only"] + [nt["target"]]} == {"metal-kvm01"}


def test_each_intervention_target_runs_only_the_jobs_of_its_own_rows(tmp_path):
    # one TCG guest, two explanations on rows of different jobs: each fix is measured on its own rows
    # (the original on both, metal on every job measured), and the TCG guests take the 4 rounds
    # the U test between a target and its fix needs, not every round of the run
    guest = dict(resultgen.HPET_GUEST, target="guest-hpet-clock", **{
        "nt-threshold": resultgen.NOSMT_GUEST["nt-threshold"], "threads-per-core": "1", "topoext": "no"})
    rows = [_finding("BenchmarkMemcpy/link=static/tunable=default/size=1048576"),
            _finding("BenchmarkClock/clock=monotonic/path=vdso")]
    plan = _plan(tmp_path, _explained(explain.load_rules(), guest, rows))
    nt = _entry(plan, "guest-hpet-clock", "nt-threshold")["intervention"]
    tsc = _entry(plan, "guest-hpet-clock", "vdso-fallback")["intervention"]
    assert interventions.intervention_jobs(plan, _item(plan, nt)) == ["memcpy-static/tunable=default"]
    assert interventions.intervention_jobs(plan, _item(plan, tsc)) == ["clock"]
    verify.files(plan, plan["interventions"], tmp_path / "files", rounds=5)
    bench = json.loads((tmp_path / "files" / "bench-vars.json").read_text())
    assert bench["bench_only_by_target"] == {
        "metal": "^(clock|memcpy\\-static/tunable=default)$",
        "guest-hpet-clock": "^(clock|memcpy\\-static/tunable=default)$",
        nt: "^(memcpy\\-static/tunable=default)$", tsc: "^(clock)$"}
    # five rounds: every target takes every round; a TCG guest takes one spare over the U test's 4 a side
    assert bench["bench_count"] == 5 and bench["bench_rounds_by_kind"] == {}
    assert verify.rounds_by_kind(10) == {"tcg-guest": 5}
    assert verify.rounds_by_kind(4) == {} and verify.rounds_by_kind(3) == {}
    # ten without a budget: TCG guests take the first five; ten as a budget's most: every target may
    # take all ten (their verdicts' intervals narrow with rounds too)
    verify.files(plan, plan["interventions"], tmp_path / "files", rounds=10)
    bench = json.loads((tmp_path / "files" / "bench-vars.json").read_text())
    assert bench["bench_count"] == 10 and bench["bench_rounds_by_kind"] == {"tcg-guest": 5}
    verify.files(plan, plan["interventions"], tmp_path / "files", rounds=10, budgeted=True)
    bench = json.loads((tmp_path / "files" / "bench-vars.json").read_text())
    assert bench["bench_count"] == 10 and bench["bench_rounds_by_kind"] == {}


def test_memcpy_measures_only_from_the_smallest_copy_a_verdict_judges(tmp_path):
    # the NT threshold's rows are the large copies: the verify run's memcpy starts at the smallest of
    # them (benchrun --memcpy-min-size), on every target; a fix whose rows have no copy leaves every size
    guest = dict(resultgen.HPET_GUEST, target="guest-hpet-clock", **{
        "nt-threshold": resultgen.NOSMT_GUEST["nt-threshold"], "threads-per-core": "1", "topoext": "no"})
    rows = [_finding("BenchmarkMemcpy/link=static/tunable=default/size=16777216"),
            _finding("BenchmarkMemcpy/link=static/tunable=default/size=10485760"),
            _finding("BenchmarkClock/clock=monotonic/path=vdso")]
    plan = _plan(tmp_path, _explained(explain.load_rules(), guest, rows))
    nt = _item(plan, _entry(plan, "guest-hpet-clock", "nt-threshold")["intervention"])
    tsc = _item(plan, _entry(plan, "guest-hpet-clock", "vdso-fallback")["intervention"])
    for chosen, size in (([nt, tsc], 10485760), ([nt], 10485760), ([tsc], 0)):
        verify.files(plan, chosen, tmp_path / "files")
        bench = json.loads((tmp_path / "files" / "bench-vars.json").read_text())
        assert bench["bench_memcpy_min_size_planned"] == size, [i["target"] for i in chosen]


def test_interventions_on_the_same_rows_are_each_measured_on_all_of_them():
    # when two rules claim the same rows, the verdict says which fix carries them (carried-by):
    # each intervention measures the rows of the other as well, and nothing of a third explanation
    clock, memcpy, fence = ("BenchmarkClock/clock=monotonic/path=vdso", "ns/op"), \
        ("BenchmarkMemcpy/link=static/tunable=default/size=64", "ns/op"), ("BenchmarkFence/work=llc/barrier=none", "ns/op")
    plan = {"explanations": [
        {"target": "guest-a", "rule": "r1", "rows": [list(clock)], "intervention": "guest-a+fix1"},
        {"target": "guest-a", "rule": "r2", "rows": [list(clock), list(memcpy)], "intervention": "guest-a+fix2"},
        {"target": "guest-a", "rule": "r3", "rows": [list(fence)], "intervention": "guest-a+fix3"},
        {"target": "guest-a", "rule": "r4", "rows": [list(fence), list(clock)], "intervention": None},
        {"target": "guest-b", "rule": "r1", "rows": [list(fence)], "intervention": "guest-b+fix1"}]}
    jobs = {name: interventions.intervention_jobs(plan, {"target": name, "of": name.split("+")[0]})
            for name in ("guest-a+fix1", "guest-a+fix2", "guest-a+fix3", "guest-b+fix1")}
    assert jobs == {"guest-a+fix1": ["clock", "memcpy-static/tunable=default"],
                    "guest-a+fix2": ["clock", "memcpy-static/tunable=default"],
                    "guest-a+fix3": ["fence"], "guest-b+fix1": ["fence"]}


def test_container_interventions_unconfined_and_no_quota(tmp_path):
    box = dict(resultgen.QUOTA_CONTAINER, **{"seccomp": "filter (1 filters)", "cpu-throttled-periods": "40"})
    metal = dict(resultgen.METAL, seccomp="disabled")
    rows = [_finding("BenchmarkClock/clock=monotonic/path=syscall"),
            _finding("BenchmarkFence/work=div/barrier=none", pct=30.0)]
    plan = _plan(tmp_path, _explained(explain.load_rules(), box, rows, A=metal))
    unconfined = _item(plan, _entry(plan, "container-quota", "seccomp-syscalls")["intervention"])
    assert unconfined["target"] == "container-quota+seccomp-unconfined"
    assert unconfined["variant-fields"]["seccomp"] == "unconfined"
    no_quota = _item(plan, _entry(plan, "container-quota", "cpu-throttling")["intervention"])
    assert no_quota["target"] == "container-quota+no-quota"
    assert no_quota["changes"] == [{"field": "cpus_fraction_of_host", "from": 0.5, "to": None}]
    verify.files(plan, [unconfined, no_quota], tmp_path / "files")
    from vmparity.lab import variants
    resolved = variants.containers_for_host(tmp_path / "files" / "containers.yml", 2)
    assert resolved["quota+seccomp-unconfined"]["seccomp"] == "unconfined"
    assert resolved["quota+no-quota"]["cpus"] is None and resolved["quota"]["cpus"] == 1.0


def test_fence_buffer_size_gives_a_container_the_room_for_metals_buffer_and_says_why_not_for_a_guest(tmp_path):
    rules = explain.load_rules()
    llc = [_finding("BenchmarkFence/work=llc/barrier=none", "ns/iter", pct=-33.0, verdict="better")]
    metal = dict(resultgen.METAL, **{"fence-llc-buffer-bytes": "1073741824 (capped)"})
    box = dict(resultgen.QUOTA_CONTAINER, **{"fence-llc-buffer-bytes": "67108864 (cgroup room, capped)"})
    guest = dict(resultgen.NOSMT_GUEST, **{"fence-llc-buffer-bytes": "268435456 (MemAvailable, capped)"})
    plan = _plan(tmp_path, _explained(rules, box, llc, A=metal) + _explained(rules, guest, llc, A=metal))
    item = _item(plan, _entry(plan, "container-quota", "fence-buffer-size")["intervention"])
    assert item["target"] == "container-quota+memory-9216m"
    assert item["changes"] == [{"field": "memory_mib", "from": 1024, "to": 9216}]
    verify.files(plan, [item], tmp_path / "files")
    from vmparity.lab import variants
    assert variants.containers_for_host(tmp_path / "files" / "containers.yml", 2)["quota+memory-9216m"]["memory_mib"] == 9216
    why = _entry(plan, "guest-nosmt", "fence-buffer-size")["not-testable"]
    assert why.startswith("the fix is a change of a container's variant, and guest-nosmt is a tcg-guest; ")
    assert "a guest's memory is RAM its kernel uses, not a cap" in why


def test_vdso_fallback_claims_only_the_clocks_that_read_the_clocksource(tmp_path):
    guest = dict(resultgen.HPET_GUEST, target="guest-hpet-clock")
    rows = [_finding(f"BenchmarkClock/clock={c}/path={p}") for c in ("monotonic", "monotonic-raw", "realtime",
                                                                    "boottime", "gettimeofday", "monotonic-coarse", "time")
            for p in ("vdso", "syscall")] + [_finding("BenchmarkClock/clock=rdtsc/path=insn")]
    plan = _plan(tmp_path, _explained(explain.load_rules(), guest, rows))
    claimed = {name for name, _ in _entry(plan, "guest-hpet-clock", "vdso-fallback")["rows"]}
    assert len(claimed) == 10 and not any(c in n for n in claimed for c in ("coarse", "clock=time/", "rdtsc"))


def test_not_testable_reasons(tmp_path):
    rules = explain.load_rules()
    tcg = dict(resultgen.NOSMT_GUEST, **{"nt-threshold": resultgen.METAL["nt-threshold"]})
    box = dict(resultgen.QUOTA_CONTAINER, clocksource="hpet", **{"clock-verdict-monotonic": "fallback"})
    found = (_explained(rules, tcg, [_finding("BenchmarkAlign/pad=0", "ns/iter")])
             + _explained(rules, box, [_finding("BenchmarkClock/clock=monotonic/path=vdso")]))
    plan = _plan(tmp_path, found)
    assert "vmx/svm" in _entry(plan, "guest-nosmt", "tcg-emulation")["not-testable"]
    assert _entry(plan, "container-quota", "vdso-fallback")["not-testable"] == \
        "the fix is a change of a guest's variant, and container-quota is a container"
    # a fix the target already has is no test of the rule
    rows = [_finding("BenchmarkClock/clock=monotonic/path=vdso")]
    plain = dict(resultgen.HPET_GUEST, target="guest-nosmt", clocksource="tsc")  # nosmt's variant has no hpet
    plain["kernel-cmdline"] = "root=/dev/vda rw"
    rule = next(r for r in rules if r["id"] == "vdso-fallback")
    hack = dict(rule, intervention={"kind": "guest", "name": "no-hpet", "set": {"hpet": False}})
    plan = _plan(tmp_path, _explained([hack], plain, rows))
    assert "already has what the fix asks for" in _entry(plan, "guest-nosmt", "vdso-fallback")["not-testable"]


def test_the_plan_is_stored_in_the_run_and_reused(tmp_path, monkeypatch):
    run = _lab_run(tmp_path / "runs", RUN, {"guest-hpet-clock": dict(resultgen.HPET_GUEST, target="guest-hpet-clock")})
    directory, plan = interventions.plan_for(str(run))
    assert (run / interventions.PLAN_FILE).is_file()
    assert [i["target"] for i in plan["interventions"]] == ["guest-hpet-clock+clocksource-tsc"]
    # a second verify reads the stored plan, even when the rules that made it have changed since
    monkeypatch.setattr(interventions, "derive", lambda *a, **k: pytest.fail("derived again"))
    assert interventions.plan_for(str(run))[1] == plan


# --- the verdict rule on synthetic rows ---------------------------------------------------------

def _effects(before, after, n=4, moved=True, after_beyond=None):
    return [verification.RowEffect(f"BenchmarkX/i={i}", "ns/op", before, after, True,
                                   after_beyond if after_beyond is not None else abs(after) > 2, moved)
            for i in range(n)]


def test_a_fix_that_closes_the_gap_is_verified():
    v = verification.judge(_effects(100.0, 0.5))
    assert v.verdict == "verified" and v.share > 0.99 and v.closed == v.rows == 4


def test_a_fix_that_closes_half_the_gap_at_the_stated_share_is_verified_and_less_is_partly():
    half = verification.judge(_effects(100.0, 2 ** 0.5 * 100 - 100))  # half of log(2)
    assert half.verdict == "verified" and half.share == pytest.approx(0.5)
    third = verification.judge(_effects(100.0, 2 ** (2 / 3) * 100 - 100))
    assert third.verdict == "partly" and third.share == pytest.approx(1 / 3) and "33%" in reason(third)


def test_a_fix_that_took_the_rows_to_within_noise_of_metal_is_verified_though_few_moves_passed_the_u_test():
    """container-nolimit's system-call clock rows on 2026-12-06T19-52-40Z-verify-quick: +8.4 to +14.3 %
    before the seccomp fix, -0.1 to +0.7 % after, all 14 within noise of metal; one slow repetition on
    each side left the U test between the target and its fix at p = 0.095 (five values each) on 12
    of them. container-quota's same rows, 12 moved, were verified: so is this."""
    rows = [verification.RowEffect(f"BenchmarkClock/i={i}", "ns/op", 8.5, 0.1, True, False, i < 2, band=1.0)
            for i in range(14)]
    v = verification.judge(rows)
    assert v.verdict == "verified" and (v.moved, v.closed) == (2, 14) and v.share_interval[0] > 0.85, v
    assert "2 of 14 row(s) moved" in reason(v) and "14 now within noise" in reason(v)
    # closed to within noise, but with a band as wide as half the gap: not shown to be half of it
    wide = verification.judge([verification.RowEffect(f"BenchmarkClock/i={i}", "ns/op", 4.0, 0.5, True, False,
                                                      False, band=3.0) for i in range(14)])
    assert wide.verdict != "verified" and wide.share_interval[0] < 0.5


def test_a_fix_that_changes_nothing_is_refuted():
    v = verification.judge(_effects(100.0, 98.0, moved=False))
    assert v.verdict == "refuted" and "changed none of 4" in reason(v)
    worse = verification.judge(_effects(100.0, 150.0, moved=True))
    assert worse.verdict == "refuted" and "away from metal" in reason(worse)


def test_a_gap_the_run_could_not_have_seen_closed_is_inconclusive_not_refuted():
    """A 2.5 % gap, blamed on the fence buffer's size, in a five-round verify run whose band between the
    target and its fix is 4.2 %: the fix closed 40 % of it without a move beyond noise, but not even a
    fix that closed it whole could have shown there, so nothing is refuted."""
    unseen = [verification.RowEffect("BenchmarkFence/work=llc", "ns/iter", -2.5, -1.5, True, False, False,
                                     visible=False, band=4.2)]
    v = verification.judge(unseen)
    assert v.verdict == "inconclusive" and "none could have" in reason(v) and "2.5 %" in reason(v)
    assert "4.2 %" in reason(v) and v.share == pytest.approx(0.4, abs=0.02)
    # the same rows where the run could see a whole closure: the fix is refuted
    seen = [verification.RowEffect("BenchmarkFence/work=llc", "ns/iter", -2.5, -2.4, True, True, False,
                                   visible=True, band=1.0)]
    assert verification.judge(seen).verdict == "refuted"


def test_no_difference_to_close_is_inconclusive():
    rows = [verification.RowEffect("BenchmarkX", "ns/op", 3.0, 1.0, False, False, False)]
    assert verification.judge(rows).verdict == "inconclusive"


def test_the_intervention_that_closes_most_carries_the_rows():
    good, half, none = (verification.judge(_effects(100.0, 0.5)), verification.judge(_effects(100.0, 50.0)),
                        verification.judge(_effects(100.0, 99.0, moved=False)))
    assert verification.carrier({"a+wrong": none, "a+half": half, "a+fix": good}) == "a+fix"
    assert verification.carrier({"a+wrong": none}) is None


def test_a_fix_that_a_control_closes_alike_is_not_shown():
    """Run 2026-11-27T20-39-11Z: container-quota's vDSO clock rows, 3.6 % slower than metal in every
    round and blamed on the CPU quota, closed fully under the no-quota fix, and as fully under
    seccomp-unconfined, which keeps the quota: the difference lived in that container instance.
    A sibling that keeps what the fix changes is the control: closing alike, the fix is not shown."""
    fix = verification.judge(_effects(3.6, 0.0))
    control = verification.judge(_effects(3.6, 0.1))
    half = verification.judge(_effects(3.6, 2.5))
    no_quota = {"target": "q+no-quota", "changes": [{"field": "cpus", "from": 1, "to": None}]}
    unconfined = {"target": "q+seccomp-unconfined", "changes": [{"field": "seccomp", "from": None, "to": "unconfined"}]}
    also_cpus = {"target": "q+cpus-2", "changes": [{"field": "cpus", "from": 1, "to": 2}]}
    siblings = [no_quota, unconfined]
    assert verification.closed_alike(fix, no_quota, siblings, {"q+no-quota": fix, "q+seccomp-unconfined": control}) \
        is unconfined
    why = closed_alike_reason(fix, unconfined, control)
    assert "q+seccomp-unconfined" in why and "changes only seccomp" in why and "new instance" in why
    # a control that closed far less leaves the fix shown (it closed more than a new instance does)
    assert verification.closed_alike(fix, no_quota, siblings, {"q+no-quota": fix, "q+seccomp-unconfined": half}) is None
    # a sibling that changes the same field is no control
    assert verification.closed_alike(fix, no_quota, [no_quota, also_cpus],
                                     {"q+no-quota": fix, "q+cpus-2": control}) is None
    # a fix that closed nothing has nothing to be shown
    refuted = verification.judge(_effects(100.0, 99.0, moved=False))
    assert verification.closed_alike(refuted, no_quota, siblings,
                                     {"q+no-quota": refuted, "q+seccomp-unconfined": control}) is None


# --- end to end on generated runs: the right fix verified, an innocent key refuted ---------------

def _lab_run(runs, run_id, targets, count=6, seed=7, noise=0.02):
    """A run directory: metal, metal-aa and `targets` ({name: header}) in rounds with a shared drift."""
    rng = random.Random(seed)
    run = runs / run_id
    run.mkdir(parents=True)
    drifts = [1 + 0.05 * rng.uniform(-1, 1) for _ in range(count)]
    every = {"metal": resultgen.METAL, "metal-aa": resultgen.METAL, **targets}
    for name, cfg in every.items():
        cfg = dict(cfg, target=name, count=str(count), **{"run-id": run_id})
        benches = resultgen.suite(cfg, random.Random(rng.random()), count=count, noise=noise)
        for rows in benches.values():
            for unit, vals in rows.items():
                rows[unit] = [v * (d if unit != "B/s" else 1 / d) for v, d in zip(vals, drifts)]
        resultgen.write(run / f"{name}.txt", cfg, benches)
    return run


WRONG_RULE = {  # blames an innocent key: the guest's memory size, for the clock rows
    "id": "blame-memory", "title": "the guest has too little memory", "when": [
        {"benchmark": "^BenchmarkClock/", "differs": ["target-kind"]}],
    "cause": "{{ b }} has less memory", "fix": "give it more",
    "intervention": {"kind": "guest", "name": "more-memory", "set": {"memory_mib": 2048}}}


def _original_and_plan(tmp_path):
    """A lab run of the hpet guest and the quota container, and its verify plan, with a rule
    that blames an innocent key (WRONG_RULE) beside the shipped ones; and the verify run's
    targets: each intervention target is what the fix makes of the original. The generator's
    benchmarks follow the fingerprint (resultgen.suite): clocksource tsc brings the clock back to
    the vDSO, GOMAXPROCS at the quota ends the oversubscription, memory changes nothing."""
    hpet = dict(resultgen.HPET_GUEST, target="guest-hpet-clock")
    quota = dict(resultgen.QUOTA_CONTAINER)
    original = _lab_run(tmp_path / "runs", RUN, {"guest-hpet-clock": hpet, "container-quota": quota})
    rules_path = tmp_path / "rules.yaml"
    shipped = yaml.safe_load(explain.resources.files("vmparity.decide").joinpath("rules.yaml").read_text())
    rules_path.write_text(yaml.safe_dump([WRONG_RULE] + shipped, sort_keys=False), encoding="utf-8")
    rules = explain.load_rules(rules_path)
    directory, metal, found = interventions.run_explanations(original, rules=rules)
    plan = interventions.derive(directory, metal, found)
    fixed = {
        "guest-hpet-clock": hpet,
        "guest-hpet-clock+clocksource-tsc": dict(hpet, clocksource="tsc", **{"clock-verdict-monotonic": "vdso"}),
        "guest-hpet-clock+more-memory": hpet,
        "container-quota": quota,
        "container-quota+gomaxprocs-2": dict(quota, **{"cpu-quota": "none"}),
    }
    return original, plan, fixed


def test_verify_verifies_the_right_fixes_and_refutes_a_rule_that_blames_an_innocent_key(tmp_path, monkeypatch):
    original, plan, fixed = _original_and_plan(tmp_path)
    by_rule = {(e["target"], e["rule"]): e["intervention"] for e in plan["explanations"]}
    assert by_rule[("guest-hpet-clock", "blame-memory")] == "guest-hpet-clock+more-memory"
    assert by_rule[("guest-hpet-clock", "vdso-fallback")] == "guest-hpet-clock+clocksource-tsc"
    assert by_rule[("container-quota", "cpu-quota")] == "container-quota+gomaxprocs-2"
    verify_run = _lab_run(tmp_path / "runs", "2026-11-25T11-00-00Z-verify-quick", fixed, seed=8)
    result = verify.verdicts(verify_run, plan)
    got = {(v["target"], v["rule"]): v for v in result["verdicts"]}
    assert got[("guest-hpet-clock", "vdso-fallback")]["verdict"] == "verified"
    assert got[("container-quota", "cpu-quota")]["verdict"] == "verified"
    wrong = got[("guest-hpet-clock", "blame-memory")]
    assert wrong["verdict"] == "refuted"
    assert wrong["carried-by"] == "guest-hpet-clock+clocksource-tsc"
    assert all(n["before-pct"] > 100 for n in wrong["numbers"])
    # a gap of 100 % and more is far beyond the band between the target and its fix: refuted, not inconclusive
    assert all(n["whole-closure-visible"] and n["band-between-pct"] < 100 for n in wrong["numbers"])

    verify.store(verify_run, original, result, plan, seconds=42)
    links = json.loads((original / verify.LINKS_FILE).read_text())
    assert links["verified-by"][0]["run"] == verify_run.name
    assert json.loads((verify_run / interventions.PLAN_FILE).read_text())["verifies"] == RUN
    for run in (original, verify_run):
        stored, holder = verify.read_verdicts(run)
        assert holder == verify_run.name and stored["seconds"] == 42


def test_a_fix_measured_too_few_times_for_the_u_test_is_not_refuted(tmp_path):
    # a TCG guest's round lost in the verify run: the innocent key's target has 3 values against
    # the original's 4, and the U test between them cannot reach 0.05 (best p 2/35): its rows
    # "changed nothing" because nothing could have shown a change, so the rule is not refuted
    original, plan, fixed = _original_and_plan(tmp_path)
    verify_run = _lab_run(tmp_path / "runs", "2026-11-25T11-00-00Z-verify-quick", fixed, count=4, seed=8)
    f = verify_run / "guest-hpet-clock+more-memory.txt"
    lines = f.read_text().split("\n")
    last = {line.split()[0]: i for i, line in enumerate(lines) if line.startswith("Benchmark")}
    f.write_text("\n".join(line for i, line in enumerate(lines) if i not in set(last.values())))
    got = {(v["target"], v["rule"]): v for v in verify.verdicts(verify_run, plan)["verdicts"]}
    wrong = got[("guest-hpet-clock", "blame-memory")]
    assert wrong["verdict"] == "inconclusive", wrong
    assert not any(n["whole-closure-visible"] for n in wrong["numbers"])
    # the right fix, 4 values a side, is still seen
    assert got[("guest-hpet-clock", "vdso-fallback")]["verdict"] == "verified"
    assert utest.can_reach(4, 4, 0.05) and not utest.can_reach(3, 4, 0.05) and utest.can_reach(5, 5, 0.05)


# --- environment bisection for the rows no rule explains -----------------------------------------

def test_bisection_steps_vary_one_field_toward_metal_per_kind():
    from vmparity.lab import bisect
    guest = dict(resultgen.HPET_GUEST, target="guest-hpet-clock", **{"threads-per-core": "1", "topoext": "no",
                                                                      "nt-threshold": "0xc0000"})
    fields = dict(bisect.steps(resultgen.METAL, guest))
    assert list(fields) == ["nt-threshold", "clocksource", "topology"]
    assert fields["clocksource"]["cmdline"] == {"clocksource": "tsc", "tsc": "reliable"}
    assert fields["topology"]["set"]["topology"] == {"sockets": 1, "cores": 1, "threads": 2}
    assert fields["topology"]["set"]["features"] == [{"name": "topoext", "policy": "require"}]
    box = dict(resultgen.QUOTA_CONTAINER, seccomp="filter (1 filters)", cpuset="0-1")
    fields = dict(bisect.steps(dict(resultgen.METAL, seccomp="disabled"), box))
    assert list(fields) == ["gomaxprocs", "seccomp", "quota", "cpuset"]
    assert fields["gomaxprocs"]["env"] == {"GOMAXPROCS": "2"} and fields["gomaxprocs"]["name"] == "bisect-gomaxprocs"
    assert bisect.steps(resultgen.METAL, dict(resultgen.METAL, target="container-nolimit", **{"target-kind": "container"})) == []


def test_bisection_attributes_unexplained_rows_to_the_field_whose_change_closes_them(tmp_path):
    quota = dict(resultgen.QUOTA_CONTAINER)
    runs = tmp_path / "runs"
    original = _lab_run(runs, RUN, {"container-quota": quota})
    rules_path = tmp_path / "rules.yaml"
    rules_path.write_text("[]\n", encoding="utf-8")  # no rule: every difference is unexplained
    directory, plan = interventions.plan_for(str(original), bisect_budget=1, rules=explain.load_rules(rules_path))
    steps = [e for e in plan["explanations"] if e.get("bisect")]
    assert [(e["bisect"], e["intervention"]) for e in steps] == [("gomaxprocs", "container-quota+bisect-gomaxprocs")]
    assert [(x["field"], x["reason"]) for x in plan["bisect"]["left-out"]] == [
        ("quota", "over the bisection budget of 1 step(s)")]
    directory, plan = interventions.plan_for(str(original), bisect_budget=2, rules=explain.load_rules(rules_path))
    assert {e["bisect"] for e in plan["explanations"] if e.get("bisect")} == {"gomaxprocs", "quota"}
    # the generator's snowflake rows follow GOMAXPROCS against the quota; here the quota step is
    # measured as if it changed nothing, so the attribution must pick gomaxprocs
    fixed = {"container-quota": quota, "container-quota+bisect-gomaxprocs": dict(quota, **{"cpu-quota": "none"}),
             "container-quota+bisect-quota": quota}
    verify_run = _lab_run(runs, "2026-11-25T11-00-00Z-verify-quick", fixed, seed=9)
    result = verify.verdicts(verify_run, plan)
    (b,) = result["bisection"]
    assert b["target"] == "container-quota" and b["attributed-to"] == "gomaxprocs"
    assert b["steps"]["gomaxprocs"]["verdict"] == "verified" and b["steps"]["quota"]["verdict"] == "refuted"


# --- the command ---------------------------------------------------------------------------------

def test_the_command_writes_the_plan_files_and_judges_a_measured_run(cli, tmp_path):
    hpet = dict(resultgen.HPET_GUEST, target="guest-hpet-clock")
    runs = tmp_path / "runs"
    _lab_run(runs, RUN, {"guest-hpet-clock": hpet})
    r = cli("--results-dir", tmp_path, "lab", "verify", RUN, "--measured", "nothing-yet")
    assert r.code == 2 and "verify-plan.json: run `vmparity lab verify" in r.err
    r = cli("--results-dir", tmp_path, "lab", "verify", RUN, "--targets", "container-*", "--write", tmp_path / "f")
    assert r.code == 2 and "no intervention to measure among the targets container-*" in r.err
    assert "guest-hpet-clock vdso-fallback (8 rows) -> guest-hpet-clock+clocksource-tsc (not chosen)" in r.err
    r = cli("--results-dir", tmp_path, "lab", "verify", RUN, "--write", tmp_path / "f")
    assert r.code == 0 and r.out.split() == ["-e", f"@{tmp_path / 'f' / 'provision-vars.json'}",
                                             "-e", f"@{tmp_path / 'f' / 'bench-vars.json'}", "--skip-tags", "containers"]
    fixed = {"guest-hpet-clock": hpet,
             "guest-hpet-clock+clocksource-tsc": dict(hpet, clocksource="tsc", **{"clock-verdict-monotonic": "vdso"})}
    _lab_run(runs, "2026-11-25T11-00-00Z-verify-quick", fixed, seed=8)
    r = cli("--results-dir", tmp_path, "lab", "verify", RUN, "--measured", "2026-11-25T11-00-00Z-verify-quick",
            "--seconds", "75")
    assert r.code == 0, r.err
    assert r.out.startswith("guest-hpet-clock vdso-fallback: verified by guest-hpet-clock+clocksource-tsc, 100% "
                            "of the gap closed"), r.out
    assert json.loads((runs / "2026-11-25T11-00-00Z-verify-quick" / "verdicts.json").read_text())["seconds"] == 75


def _rack_run(runs, run_id, hosts, count=6, seed=7):
    """A run of several rack hosts: per host {host: {target: header}}, metal-<host>, metal-aa-<host> and its
    targets (named <target>-<host>), in rounds with a shared drift."""
    run = runs / run_id
    for host, targets in hosts.items():
        one = _lab_run(runs / host, run_id, targets, count=count, seed=seed)
        run.mkdir(parents=True, exist_ok=True)
        for f in one.glob("*.txt"):
            text = f.read_text().replace(f"target: {f.stem}\n", f"target: {f.stem}-{host}\n", 1)
            (run / f"{f.stem}-{host}.txt").write_text(text)
    return run


def test_a_run_of_two_rack_hosts_is_verified_one_host_at_a_time(cli, tmp_path):
    # a rack run (or `make kvm-lab` on two nested hosts): each host's targets against its own metal, with
    # a plan of its own, and site.yml limited to that host, whose inventory must not provision the fixes
    runs = tmp_path / "runs"
    hpet = dict(resultgen.HPET_GUEST, **{"target-kind": "kvm-guest"})
    run = _rack_run(runs, RUN, {"kvm01": {"guest-hpet-clock": hpet}, "kvm02": {"guest-hpet-clock": hpet}})
    verify_cli = ("--results-dir", tmp_path, "lab", "verify", RUN, "--write", tmp_path / "f")
    r = cli(*verify_cli)
    assert r.code == 2 and "a run of 2 rack hosts (kvm01, kvm02) is verified one host at a time" in r.err, r.err
    assert "no targets were named" in r.err
    r = cli(*verify_cli, "--targets", "guest-hpet-clock")  # a glob over both hosts' guests
    assert r.code == 2 and "the targets guest-hpet-clock run on 2 of them" in r.err, r.err
    r = cli(*verify_cli, "--host", "kvm03")
    assert r.code == 2 and "--host kvm03: this run has no metal-kvm03; expected one of its hosts kvm01, kvm02" in r.err
    r = cli(*verify_cli, "--targets", "guest-hpet-clock-kvm02")
    assert r.code == 0, r.err
    assert r.out.split()[-2:] == ["--limit", "~^kvm02(\\.|$)"], r.out
    plan = json.loads((run / "verify-plan-kvm02.json").read_text())
    assert plan["reference"] == "metal-kvm02" and not (run / "verify-plan.json").exists()
    assert {e["target"] for e in plan["explanations"]} == {"guest-hpet-clock-kvm02"}
    bench = json.loads((tmp_path / "f" / "bench-vars.json").read_text())
    assert bench["bench_targets_only"] == ["metal-kvm02", "guest-hpet-clock-kvm02", "guest-hpet-clock+clocksource-tsc-kvm02"]
    # the other host gets a plan of its own; the first stays as it was
    r = cli("--results-dir", tmp_path, "lab", "verify", RUN, "--host", "kvm01", "--write", tmp_path / "g")
    assert r.code == 0 and "~^kvm01(\\.|$)" in r.out.split(), r.err
    assert json.loads((run / "verify-plan-kvm01.json").read_text())["reference"] == "metal-kvm01"
    assert json.loads((run / "verify-plan-kvm02.json").read_text()) == plan
    # the verify run measured kvm02 (its one metal): judged with kvm02's plan
    fixed = {"guest-hpet-clock": hpet,
             "guest-hpet-clock+clocksource-tsc": dict(hpet, clocksource="tsc", **{"clock-verdict-monotonic": "vdso"})}
    _rack_run(runs, "2026-11-25T11-00-00Z-verify-quick", {"kvm02": fixed}, seed=8)
    r = cli("--results-dir", tmp_path, "lab", "verify", RUN, "--measured", "2026-11-25T11-00-00Z-verify-quick")
    assert r.code == 0, r.err
    assert r.out.startswith("guest-hpet-clock-kvm02 vdso-fallback: verified by guest-hpet-clock+clocksource-tsc-kvm02"), r.out


def test_fixes_that_closed_48_and_53_percent_with_overlapping_intervals_get_one_verdict():
    """Issue 56: vdso-fallback's fix closed 53 % of guest-hpet-clock's gap (verified) and 48 % of
    guest-nosmt's (partly), the same fix on the same evidence either side of a cut on the median.
    The cut is on the share's interval now: both straddle half, both are partly; a fix whose
    whole interval lies above half is verified, and the reasons give the intervals."""
    def rows(share, band):
        after = math.expm1((1 - share) * math.log1p(0.2)) * 100  # a +20 % gap, `share` of it closed
        return [verification.RowEffect(f"BenchmarkClock/i={i}", "ns/op", 20.0, after, True, True, True, band=band)
                for i in range(6)]

    hpet, nosmt = verification.judge(rows(0.53, 2.0)), verification.judge(rows(0.48, 2.0))
    assert hpet.share_interval[0] < nosmt.share_interval[1]  # the intervals overlap
    assert hpet.verdict == nosmt.verdict == "partly" and "…" in reason(hpet)
    assert verification.judge(rows(0.70, 2.0)).verdict == "verified"  # 70 % ± 11 %: wholly above half
    assert verification.judge(rows(0.53, 0.1)).verdict == "verified"  # 53 % ± 0.5 %: shown above half
