"""Benjamini–Hochberg adjusted p-values (stats.false_discovery_adjusted, the cross-run family of
tests) give scipy.stats.false_discovery_control's."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from vmparity import stats

P = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(P, min_size=1, max_size=60) | st.lists(st.sampled_from([0.001, 0.01, 0.04, 0.5, 1.0]), min_size=1, max_size=30))
def test_adjusted_p_values_are_scipys(ps):
    np.testing.assert_allclose(stats.false_discovery_adjusted(ps), sps.false_discovery_control(ps, method="bh"),
                               rtol=1e-12, atol=1e-15)


def test_known_values_and_the_empty_family():
    # m = 3: 0.001·3 = 0.003, 0.02·3/2 = 0.03, 0.03·3/3 = 0.03; in the order given
    np.testing.assert_allclose(stats.false_discovery_adjusted([0.03, 0.001, 0.02]), [0.03, 0.003, 0.03])
    assert stats.false_discovery_adjusted([0.01] + [0.5] * 99)[0] == 0.5  # 0.01·100 = 1, then the 0.5s' floor
    assert len(stats.false_discovery_adjusted([])) == 0
