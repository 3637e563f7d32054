"""The report of a rack run: each host's targets against that host's metal,
and the hosts' metals against each other with the fingerprint keys that differ."""

import resultgen
from vmparity.report import hosts
from vmparity.results.targets import metal_of


def _rack_run(tmp_path):
    run = tmp_path / "rack-run"
    run.mkdir()
    for host, cpu in (("rack01", "AMD EPYC 7B13"), ("rack02", "AMD EPYC 9B14")):
        metal = dict(resultgen.METAL, host=host, cpu=cpu)
        for target, cfg in ((f"metal-{host}", metal), (f"metal-aa-{host}", metal),
                            (f"container-quota-{host}", dict(resultgen.QUOTA_CONTAINER, host=host, cpu=cpu))):
            resultgen.target_file(run, dict(cfg, target=target), seed=len(target))
    resultgen.target_file(run, dict(resultgen.NOSMT_GUEST, host="guest", target="guest-nosmt-rack01"))
    return run


def test_a_target_belongs_to_the_metal_whose_suffix_it_carries():
    metals = ["metal-rack1", "metal-rack01", "metal-prack01"]
    assert metal_of("guest-nosmt-rack01", metals) == "metal-rack01"
    assert metal_of("metal-aa-prack01", metals) == "metal-prack01"
    assert metal_of("container-quota-rack1", metals) == "metal-rack1"
    assert metal_of("guest-nosmt", metals) is None
    assert metal_of("guest-nosmt", ["metal"]) == "metal"


def test_each_host_is_compared_with_its_own_metal_and_the_metals_with_each_other(tmp_path, cli):
    run = _rack_run(tmp_path)
    r = cli("report", run, "--out", tmp_path / "out")
    assert r.code == 0, r.err
    md = (tmp_path / "out" / "report.md").read_text()
    host1, host2 = md.index("## Host `rack01`"), md.index("## Host `rack02`")
    compared = md.index("## Hosts compared")
    assert "Baseline: `metal-rack01`" in md[host1:host2] and "`guest-nosmt-rack01`" in md[host1:host2]
    assert "Baseline: `metal-rack02`" in md[host2:compared] and "`container-quota-rack02`" in md[host2:compared]
    assert "`container-quota-rack01`" not in md[host2:compared]
    hosts_part = md[compared:md.index("## Why they differ")]
    assert "| `metal-rack02` |" in hosts_part
    assert "| `cpu` | `AMD EPYC 7B13` | `AMD EPYC 9B14` |" in hosts_part
    assert "metal-aa" not in hosts_part.split("Fingerprint keys")[1]
