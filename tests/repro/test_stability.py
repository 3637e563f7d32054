"""Two runs' verdicts side by side: decided pairs must agree; flips are named."""

import io

from repro_runs import result_text, storefwd_rows
from vmparity.repro.stability import main


def _run(path, o28, n=5, aa=True):
    path.mkdir()
    (path / "metal.txt").write_text(result_text("metal", storefwd_rows(o28, 5.6, 5.6, 5.0, n=n)))
    if aa:  # the A/A control gets no verdict of its own
        (path / "metal-aa.txt").write_text(result_text("metal-aa", storefwd_rows(o28, 5.6, 5.6, 5.0, n=n)))
    return path


def _main(a, b):
    out, err = io.StringIO(), io.StringIO()
    return main([str(a), str(b)], out, err), out.getvalue()


def test_same_effect_twice_agrees(tmp_path):
    code, out = _main(_run(tmp_path / "a", 11.4), _run(tmp_path / "b", 11.0))
    assert code == 0 and "0 flip(s)" in out and "metal-aa" not in out


def test_a_flip_is_printed_and_fails(tmp_path):
    code, out = _main(_run(tmp_path / "a", 11.4), _run(tmp_path / "b", 5.6))
    assert code == 1 and "FLIP seed 000 on metal: reproduced -> not reproduced" in out


def test_inconclusive_is_not_a_flip(tmp_path):
    code, out = _main(_run(tmp_path / "a", 11.4), _run(tmp_path / "b", 11.4, n=1))
    assert code == 0 and "seed 000 on metal: reproduced -> inconclusive" in out
