"""The report's paragraph for a nested KVM host (vmparity.report.run_quality.emulated_host): the
host's metal says target-kind tcg-guest and its guests kvm-guest, so configuration holds and timing
is the emulator's; a KVM guest of a real host, or a TCG guest alone, gets no such paragraph."""

import resultgen
from vmparity import table
from vmparity.report.run_quality import emulated_host
from vmparity.results import inputs


def _table(tmp_path, metal_kind, guest_kind):
    run = tmp_path / f"{metal_kind}-{guest_kind}"
    run.mkdir()
    for i, (target, kind) in enumerate((("metal-kvm01", metal_kind), ("guest-nosmt-kvm01", guest_kind))):
        resultgen.target_file(run, {**resultgen.METAL, "target": target, "target-kind": kind}, seed=i, count=3)
    return table.build([inputs.load(run)], by="target")


def test_kvm_guests_of_an_emulated_host_are_named_and_their_timing_disowned(tmp_path):
    text = emulated_host(_table(tmp_path, "tcg-guest", "kvm-guest"))
    assert text.startswith("**Emulated host:** `metal-kvm01`'s own fingerprint says `target-kind: tcg-guest`")
    assert "(`guest-nosmt-kvm01`)" in text and "timings say nothing of real hardware" in text


def test_a_real_kvm_host_or_a_tcg_guest_alone_gets_no_paragraph(tmp_path):
    assert emulated_host(_table(tmp_path, "metal", "kvm-guest")) == ""
    assert emulated_host(_table(tmp_path, "metal", "tcg-guest")) == ""


# --- the explain rules: which side is emulated, said of the right side ------------------------------

def _explained(tmp_path, metal_kind, guest_kind, guest_machine=None):
    metal = dict(resultgen.METAL, target="metal-kvm01", machine="8c1eaf05f343081f", **{"target-kind": metal_kind})
    guest = dict(resultgen.METAL, target="guest-nosmt-kvm01", machine=guest_machine or metal["machine"],
                 **{"target-kind": guest_kind})

    def slower(side, rng):
        f = 3.0 if side else 1.0
        return {"BenchmarkStorefwd/size=32/form=fresh": {"ns/entry": [3.8 * f * rng.gauss(1, 0.003) for _ in range(6)]}}
    res = resultgen.explained_pair(tmp_path, metal, guest, slower, seed=4)
    return {x.rule["id"]: x for x in res.explanations}


def test_a_kvm_guest_of_an_emulated_host_is_the_nestings_not_tcg_emulation(tmp_path):
    # the nested KVM host's run: its metal says tcg-guest, its guest kvm-guest, one machine
    by = _explained(tmp_path, "tcg-guest", "kvm-guest")
    assert "tcg-emulation" not in by  # the guest is not emulated by TCG: its host is
    e = by["emulated-host"]
    assert e.cause.startswith("metal-kvm01 is itself a TCG guest") and "guest-nosmt-kvm01 is a real KVM guest of it" in e.cause
    assert "host with real vmx/svm" in e.rule["not-testable"]


def test_a_tcg_guest_against_metal_or_a_kvm_guest_elsewhere_is_tcg_emulation_of_the_tcg_side(tmp_path):
    (tmp_path / "a").mkdir()
    by = _explained(tmp_path / "a", "metal", "tcg-guest")
    assert "emulated-host" not in by and by["tcg-emulation"].cause.startswith("guest-nosmt-kvm01 is emulated")
    # a TCG file first and a KVM guest of another machine second: not a nested host's guest
    (tmp_path / "b").mkdir()
    by = _explained(tmp_path / "b", "tcg-guest", "kvm-guest", guest_machine="0123456789abcdef")
    assert "emulated-host" not in by and by["tcg-emulation"].cause.startswith("metal-kvm01 is emulated")
    # the rule says why the nested host cannot test it either
    assert "nested KVM host" in by["tcg-emulation"].rule["not-testable"]
