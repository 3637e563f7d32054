"""The power side of the noise rule (vmparity/stats/sensitivity.py): the U test's simulated power
curve against a fresh simulation, its interpolation against numpy's, and the minimum detectable
effect's bisection against the power it inverts."""
import math

import numpy as np
import pytest

from vmparity.stats import sensitivity


@pytest.mark.parametrize("n1, n2", [(5, 5), (10, 10), (6, 9)])
def test_the_power_curve_agrees_with_a_fresh_simulation(n1, n2):
    # another seed, so other draws: within the binomial error of 4,000 draws a side (sd <= 0.008)
    for shift in (0.0, 0.5, 1.0, 1.5, 2.5):
        fresh = sensitivity.u_power(n1, n2, 0.05, shift, seed=7)
        assert sensitivity.u_power_at(n1, n2, 0.05, shift) == pytest.approx(fresh, abs=0.04), shift


def test_power_between_the_curves_points_is_numpys_interpolation():
    rng = np.random.default_rng(2)
    for curve in (sensitivity.u_power_curve(10, 10, 0.05), sensitivity.w_power_curve(8, 0.05)):
        xs = np.concatenate([rng.uniform(0, curve[0][-1] + 1, 2000), curve[0]])
        for x in xs:
            assert sensitivity._on_curve(curve, float(x)) == float(np.interp(x, curve[0], curve[1]))


def test_a_sample_that_cannot_reach_alpha_has_no_power():
    assert sensitivity.u_power_at(3, 3, 0.05, 30.0) == 0.0
    assert sensitivity.u_shift_for_power(3, 3, 0.05) == math.inf


def test_the_smallest_detectable_effect_is_where_the_power_reaches_its_goal():
    def power(delta):
        return sensitivity.u_power_at(10, 10, 0.05, delta / 0.02)

    d = sensitivity.smallest_detectable(power, 0.0, 0.02)
    assert power(d) >= sensitivity.POWER > power(d * (1 - 1e-6))
    assert sensitivity.smallest_detectable(lambda delta: 0.5, 0.0, 0.02) == math.inf
