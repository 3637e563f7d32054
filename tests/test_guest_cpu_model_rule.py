"""The guest-cpu-model rule: a KVM guest given a named CPU model (libvirt host-model) instead of the
host's CPU, told apart from another machine by what its domain asked for (domain-cpu-mode)."""

import resultgen
import yaml
from vmparity.lab import checkout, interventions

KVM_GUEST = dict(resultgen.METAL, **{
    "target-kind": "kvm-guest", "hypervisor": "yes", "hypervisor-signature": "KVMKVMKVM",
    "clocksource": "kvm-clock", "pmu": "no", "domain-cpu-mode": "host-passthrough"})
METAL = dict(resultgen.METAL, **{"domain-cpu-mode": "n/a (not a lab domain: no vmparity:cpu-mode OEM string)"})


def _memcpy_slower(factor):
    def rows(side, rng):
        f = factor if side else 1.0
        return {f"BenchmarkMemcpy/link=static/tunable=default/size={size}": {
                    "ns/op": [ns * f * rng.gauss(1, 0.003) for _ in range(6)]}
                for size, ns in ((64, 4.0), (1024, 21.3), (4096, 70.0))}
    return rows


def _pair(tmp_path, mode, cpu):
    guest = dict(KVM_GUEST, target="guest-named", cpu=cpu, **{"domain-cpu-mode": mode})
    return resultgen.explained_pair(tmp_path, METAL, guest, _memcpy_slower(1.3), seed=11)


def test_a_host_model_guest_is_a_named_cpu_model_not_another_machine(tmp_path):
    res = _pair(tmp_path, "host-model", "AMD EPYC-Milan Processor")
    by = {x.rule["id"]: x for x in res.explanations}
    e = by["guest-cpu-model"]
    assert "cpu-model" not in by  # the same host: not "different machine"
    assert {f.name for f in e.rows} >= {f"BenchmarkMemcpy/link=static/tunable=default/size={s}"
                                        for s in (64, 1024, 4096)}
    assert "guest-named runs with <cpu mode='host-model'>" in e.cause and "AMD EPYC-Milan Processor" in e.cause
    assert "host-passthrough" in e.fix
    assert ("domain-cpu-mode", METAL["domain-cpu-mode"], "host-model") in e.evidence


def test_a_host_passthrough_guest_on_another_cpu_is_left_to_cpu_model(tmp_path):
    res = _pair(tmp_path, "host-passthrough", "Intel(R) Xeon(R) Gold 6338")
    ids = {x.rule["id"] for x in res.explanations}
    assert "guest-cpu-model" not in ids and "cpu-model" in ids


def test_its_fix_is_a_derived_variant_with_the_hosts_cpu(tmp_path):
    shipped = yaml.safe_load(checkout.GUEST_VARIANTS.read_text(encoding="utf-8"))
    shipped["variants"] = {"named": {"cpu_mode": "host-model"}}
    guests_file = tmp_path / "guests.yml"
    guests_file.write_text(yaml.safe_dump(shipped, sort_keys=False), encoding="utf-8")
    res = _pair(tmp_path, "host-model", "AMD EPYC-Milan Processor")
    e = next(x for x in res.explanations if x.rule["id"] == "guest-cpu-model")
    e.b = "guest-named"
    run = tmp_path / "2026-12-05T10-00-00Z-lab-quick"
    run.mkdir()
    plan = interventions.derive(run, "metal", [e], guests_file=guests_file)
    (item,) = plan["interventions"]
    assert item["target"] == "guest-named+cpu-host-passthrough" and item["variant-fields"]["cpu_mode"] == "host-passthrough"
    assert item["changes"] == [{"field": "cpu_mode", "from": "host-model", "to": "host-passthrough"}]
