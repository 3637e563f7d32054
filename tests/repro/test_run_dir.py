"""Reading a run directory and rendering it, in-process, with bad input named."""

import io

from repro_runs import result_text, storefwd_rows
from vmparity.repro.__main__ import main
from vmparity.repro.section import report_section


def run_main(*argv):
    out, err = io.StringIO(), io.StringIO()
    return main(list(map(str, argv)), out, err), out.getvalue(), err.getvalue()


def test_renders_every_seed_for_a_run_directory(tmp_path):
    (tmp_path / "metal.txt").write_text(result_text("metal", storefwd_rows(11.4, 5.6, 5.6, 5.0)))
    (tmp_path / "metal.env.json").write_text("{}")
    code, out, err = run_main(tmp_path)
    assert code == 0, err
    for seed in ("002", "004", "000", "001", "003"):
        assert f"### Seed {seed}:" in out
    assert "| metal | ✅ reproduced | overlap 11.4 vs 5.6 ns/entry" in out


def test_bad_result_file_is_named_and_nothing_is_written(tmp_path):
    (tmp_path / "metal.txt").write_text("target: metal\nBenchmarkStorefwd/size=28/form=overlap 10 1.0\n")
    code, out, err = run_main(tmp_path)
    assert code == 2 and out == ""
    assert "metal.txt:2:" in err


def test_missing_directory_and_empty_directory(tmp_path):
    code, _, err = run_main(tmp_path / "nope")
    assert code == 2 and "no such result file, run directory or run-id" in err
    code, _, err = run_main(tmp_path)
    assert code == 2 and "holds no <target>.txt result files" in err


def test_report_section_is_none_without_scenario_benchmarks(tmp_path):
    (tmp_path / "metal.txt").write_text("target: metal\ntarget-kind: metal\n"
                                        "BenchmarkStreamcopy/size=64 1 10 ns/op\n")
    assert report_section(tmp_path) is None
