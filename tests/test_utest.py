"""The vectorised Mann–Whitney U test gives scipy.stats.mannwhitneyu's p-values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from vmparity import stats
from vmparity.stats import utest


def scipy_p(x, y):
    both = np.concatenate([x, y])
    ties = len(np.unique(both)) < len(both)
    method = "asymptotic" if ties or len(x) > 50 or len(y) > 50 else "exact"
    return sps.mannwhitneyu(x, y, alternative="two-sided", method=method, use_continuity=True).pvalue


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32 - 1), st.booleans(),
)
def test_pvalues_match_scipy(n1, n2, seed, tied):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, (3, n1))
    y = rng.normal(0.5, 1, (3, n2))
    if tied:  # coarse rounding makes ties, as printed benchmark values have
        x, y = np.round(x, 0), np.round(y, 0)
    got = utest.pvalues(x, y)
    for i in range(3):
        both = np.concatenate([x[i], y[i]])
        if both.min() == both.max():
            assert got[i] == 1.0
            continue
        assert got[i] == pytest.approx(min(scipy_p(x[i], y[i]), 1.0), rel=1e-9, abs=1e-12)


def test_large_samples_use_the_normal_approximation():
    rng = np.random.default_rng(7)
    x, y = rng.normal(0, 1, (2, 80)), rng.normal(0.3, 1, (2, 70))
    for i in range(2):
        assert utest.pvalues(x, y)[i] == pytest.approx(scipy_p(x[i], y[i]), rel=1e-9)


def test_median_ci_orders_are_benchstats():
    # go-moremath QuantileCI(n, 0.5, 0.95): n=6 is the first finite interval
    # (the ± values themselves are cross-checked against benchstat's output).
    lo, hi = stats.median_ci_orders(5, 0.95)
    assert lo < 1 or hi > 5
    assert stats.median_ci_orders(6, 0.95) == (1, 6)
    assert stats.samples_for_ci(0.95) == (">=", 6)
    assert stats.samples_for_utest(0.05) == (">=", 4)


def test_median_is_r8_like_go_moremath():
    s = stats.summarize_many([[1, 2, 3, 4]])[0]
    assert s.center == pytest.approx(2.5)
    assert stats.summarize_many([[5, 1, 3]])[0].center == 3


def test_samples_too_big_for_pairwise_matrices_are_ranked_instead():
    # Above PAIRWISE_LIMIT values a row, U and the tie term come from mid-ranks
    # (linear memory); with ties they must equal the pairwise count exactly.
    rng = np.random.default_rng(11)
    x, y = np.round(rng.normal(0, 3, (2, 300)), 0), np.round(rng.normal(0.5, 3, (2, 260)), 0)
    for got, want in zip(utest._ranked(x, y), utest._pairwise(x, y)):
        assert list(got) == list(want)
    n = utest.PAIRWISE_LIMIT
    x, y = np.round(rng.normal(0, 3, (1, n)), 1), np.round(rng.normal(0.1, 3, (1, n)), 1)
    assert utest.pvalues(x, y)[0] == pytest.approx(scipy_p(x[0], y[0]), rel=1e-9)


def test_rows_are_ranked_by_one_sort_and_tied_rows_counted_pair_by_pair():
    # _sorted_rows (every row of benchmark size) must give _pairwise's U and tie term exactly,
    # on rows without ties and on rows with them, mixed in one call
    rng = np.random.default_rng(5)
    for n1, n2 in ((1, 1), (4, 4), (5, 9), (19, 19), (40, 30)):
        x, y = rng.normal(0, 1, (300, n1)), rng.normal(0.4, 1, (300, n2))
        x[::7] = np.round(x[::7], 0)  # every 7th row has ties, within x and with y
        y[::7] = np.round(y[::7], 0)
        for got, want in zip(utest._sorted_rows(x, y), utest._pairwise(x, y)):
            assert list(got) == list(want), (n1, n2)
