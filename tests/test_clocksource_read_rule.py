"""The clocksource-read rule: a KVM guest that reads kvm-clock in the vDSO against a host that reads
tsc is slower per read, but its clock does not leave the vDSO: vdso-fallback must not claim it."""

import resultgen

CLOCK_ROWS = ("BenchmarkClock/clock=monotonic/path=vdso", "BenchmarkClock/clock=realtime/path=vdso")


def _clock_slower(side, rng):
    f = 1.8 if side else 1.0
    return {name: {"ns/op": [24.0 * f * rng.gauss(1, 0.003) for _ in range(6)]} for name in CLOCK_ROWS}


def _pair(tmp_path, guest_verdict, guest_clocksource):
    metal = dict(resultgen.METAL, target="metal", clocksource="tsc", **{"clock-verdict-monotonic": "vdso"})
    guest = dict(resultgen.METAL, target="guest-nosmt", clocksource=guest_clocksource,
                 **{"target-kind": "kvm-guest", "clock-verdict-monotonic": guest_verdict, "kvm-clock-stable-bit": "yes"})
    res = resultgen.explained_pair(tmp_path, metal, guest, _clock_slower, seed=9)
    return {x.rule["id"]: x for x in res.explanations}


def test_kvm_clock_read_in_the_vdso_is_its_own_cause_with_the_tsc_fix(tmp_path):
    by = _pair(tmp_path, "vdso", "kvm-clock")
    assert "vdso-fallback" not in by
    e = by["clocksource-read"]
    assert {f.name for f in e.rows} >= set(CLOCK_ROWS)
    assert "Both sides read the clock in the vDSO" in e.cause and "kvm-clock on guest-nosmt" in e.cause
    assert "clocksource=tsc tsc=reliable" in e.fix and e.rule["intervention"]["cmdline"] == {"clocksource": "tsc",
                                                                                           "tsc": "reliable"}


def test_a_clock_that_falls_back_is_still_vdso_fallback(tmp_path):
    by = _pair(tmp_path, "fallback", "hpet")
    assert "clocksource-read" not in by and "vdso-fallback" in by


def _pair_both(tmp_path, metal_clocksource, guest_clocksource, guest_kind="kvm-guest"):
    metal = dict(resultgen.METAL, target="metal", clocksource=metal_clocksource,
                 **{"clock-verdict-monotonic": "fallback", "target-kind": "tcg-guest"})
    guest = dict(resultgen.METAL, target="guest-hpet-clock", clocksource=guest_clocksource,
                 **{"target-kind": guest_kind, "clock-verdict-monotonic": "fallback", "kvm-clock-stable-bit": "no"})
    res = resultgen.explained_pair(tmp_path, metal, guest, _clock_slower, seed=9)
    return {x.rule["id"]: x for x in res.explanations}


def test_when_both_sides_fall_back_the_clocksource_device_is_the_cause_not_the_vdso(tmp_path):
    # the nested KVM host in a boot whose kernel distrusts its TSC: metal-kvm01 reads acpi_pm by system call
    by = _pair_both(tmp_path, "acpi_pm", "hpet")
    assert "vdso-fallback" not in by and "clocksource-read" not in by
    e = by["clocksource-syscall-read"]
    assert {f.name for f in e.rows} >= set(CLOCK_ROWS)
    assert "Neither side reads the clock in the vDSO" in e.cause and "acpi_pm on metal" in e.cause
    assert "hpet on guest-hpet-clock" in e.cause
    assert e.rule["intervention"]["cmdline"] == {"clocksource": "tsc", "tsc": "reliable"}


def test_an_unstable_kvm_clock_against_a_host_that_falls_back_is_the_same_cause(tmp_path):
    by = _pair_both(tmp_path, "acpi_pm", "kvm-clock")
    assert "vdso-fallback" not in by and "clocksource-syscall-read" in by


def test_the_same_device_on_both_sides_is_no_clocksource_cause(tmp_path):
    by = _pair_both(tmp_path, "acpi_pm", "acpi_pm")
    assert not {"vdso-fallback", "clocksource-syscall-read", "clocksource-read"} & set(by)
