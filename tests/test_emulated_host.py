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
