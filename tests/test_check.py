"""`vmparity check`: the one strict rule for the lab's own files, also applied to
a benchmark program's own output (`--program-output`, as the C test does)."""


def test_program_output_passes_every_rule_but_the_fingerprint(cli, tmp_path):
    out = tmp_path / "storefwd.txt"
    out.write_text("storefwd-buffer-bytes: 16384\nUnit flushes/op better=lower\n"
                   "BenchmarkStorefwd/size=28/form=overlap 1 7.3 ns/entry 171 flushes/op\n")
    r = cli("check", "--program-output", out)
    assert r.code == 0 and r.out == f"{out}: ok\n", r.err
    r = cli("check", out)
    assert r.code == 2 and "missing required key(s) vmparity-format" in r.err


def test_program_output_is_still_held_to_the_format(cli, tmp_path):
    late = tmp_path / "late.txt"
    late.write_text("memcpy-tsc: usable\nBenchmarkMemcpy/size=10 100 12 ns/op\nmemcpy-tsc: unusable\n")
    stray = tmp_path / "stray.txt"
    stray.write_text("BenchmarkMemcpy/size=10 100 12 ns/op\nok  vmparity 1.2s\n")
    unit = tmp_path / "unit.txt"
    unit.write_text("BenchmarkMemcpy/size=10 100 12 furlongs/op\n")
    r = cli("check", "--program-output", late, stray, unit)
    assert r.code == 2 and r.out == ""
    assert f"{late}:3: configuration key 'memcpy-tsc' changes after the first result line" in r.err
    assert f"{stray}:2: cannot read 'ok  vmparity 1.2s'" in r.err
    assert f"{unit}:1: unknown unit 'furlongs/op'" in r.err
