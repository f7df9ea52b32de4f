"""Privacy audits of PrivateHBOS's releases with :func:`skdp_anomaly.audit`.

Neighbours: add/remove one record. The worst case for the histograms is any
added row: it moves one count in each of the ``d`` histograms, and the event
"every one of those ``d`` noisy counts is at least its count with the row"
has probability ratio exactly ``e^ε`` (each count's noise has rate ``ε/d``),
so the bound must come close to ε (>= 0.8 ε) as well as stay below it. The
row count the bins are read from is tight the same way: one added row moves
it by one, and "the noisy count is at least the count with the row" has ratio
``e^ε_n``. The quantile's worst case adds a row that scores below every other, which moves
the rank of every candidate above it; report-noisy-max is not tight there,
so only ``<= ε`` is asserted. Events are fixed before any run.

Each bound holds with probability >= 0.95 (alpha = 0.05): a correct
mechanism fails "bound <= ε" with probability <= 5 % per audit; with the
fixed seeds the outcome is deterministic. At the run counts below the
expected tight bound is about 0.93 ε.
"""

import numpy as np
import pytest

from skdp_anomaly import PrivateHBOS, audit
from skdp_anomaly.outlier._hbos import COUNT_SHARE, QUANTILE_SHARE
from skdp_anomaly.outlier._histograms import (
    bin_index,
    count_mechanism,
    feature_counts,
    quantile_mechanism,
    quantile_utility,
    row_count_mechanism,
)

# long statistical audits: CI runs them in one job (`-m slow` selects them)
pytestmark = pytest.mark.slow

EPS = 1.0
N_BINS = 4
LOWER, UPPER = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
_RNG = np.random.default_rng(7)
D = _RNG.uniform(-1, 1, size=(30, 2))
ADDED = np.array([[0.9, -0.9]])
D_PRIME = np.vstack([D, ADDED])
CELLS = bin_index(ADDED, LOWER, UPPER, N_BINS)[0]  # the added row's bin in each feature
TRUE_PRIME = feature_counts(bin_index(D_PRIME, LOWER, UPPER, N_BINS), N_BINS)


def tail_events(shifts):
    """Every changed cell's noisy count >= its count with the row, plus ``shift``."""
    target = TRUE_PRIME[np.arange(2), CELLS]
    return {
        f"all changed cells >= count + {s}": (
            lambda out, s=s: np.all(out[:, np.arange(2), CELLS] >= target + s, axis=1)
        )
        for s in shifts
    }


def histogram_release(X, rng, n):
    """n releases of the d histograms, through the estimator's binning and mechanism."""
    counts = feature_counts(bin_index(X, LOWER, UPPER, N_BINS), N_BINS)
    return counts + count_mechanism(EPS, X.shape[1]).noise((n, *counts.shape), rng)


def test_the_histogram_release_is_tight_at_epsilon():
    res = audit(
        histogram_release,
        (D_PRIME, D),
        tail_events([0, 1]),
        n_runs=200_000,
        batch=True,
        claimed_epsilon=EPS,
        random_state=0,
        name="PrivateHBOS histograms",
    )
    assert 0.8 * EPS <= res.epsilon_lower_bound <= EPS, res.to_markdown()


def test_the_row_count_release_is_tight_at_its_share():
    # the estimator's own mechanism at the share a fit at epsilon=20 spends on the count
    # (COUNT_SHARE · 20 = 1): at ε = 1 the share, 0.05, is too small to resolve
    eps_n = COUNT_SHARE * 20.0
    mechanism = row_count_mechanism(eps_n)

    def row_count(X, rng, n):
        return len(X) + mechanism.noise(n, rng)

    events = {
        f"noisy count >= {len(D_PRIME) + s}": (lambda out, s=s: out >= len(D_PRIME) + s)
        for s in (0, 1)
    }
    res = audit(
        row_count,
        (D_PRIME, D),
        events,
        n_runs=200_000,
        batch=True,
        claimed_epsilon=eps_n,
        random_state=3,
        name="PrivateHBOS row count",
    )
    assert 0.8 * eps_n <= res.epsilon_lower_bound <= eps_n, res.to_markdown()


def test_the_fitted_estimator_releases_within_epsilon():
    # the whole fit, row count, counts and DP offset together, through fit itself
    def fit_release(X, rng, n):
        out = []
        for _ in range(n):
            det = PrivateHBOS(
                epsilon=EPS, bounds=(-1, 1), n_bins=N_BINS, contamination=0.2, random_state=rng
            ).fit(X)
            out.append(np.r_[det.noisy_counts_.ravel(), det.noisy_n_samples_, det.offset_])
        return np.array(out)

    target = TRUE_PRIME[np.arange(2), CELLS]
    changed = np.ravel_multi_index((np.arange(2), CELLS), TRUE_PRIME.shape)
    events = {
        "all changed cells >= count + 0": lambda out: np.all(out[:, changed] >= target, axis=1),
        "noisy row count >= 31": lambda out: out[:, -2] >= len(D_PRIME),
    }
    res = audit(
        fit_release,
        (D_PRIME, D),
        events,
        n_runs=1500,
        batch=True,
        claimed_epsilon=EPS,
        random_state=1,
        name="PrivateHBOS fit",
    )
    assert res.epsilon_lower_bound <= EPS, res.to_markdown()


def test_the_automatic_bins_release_within_epsilon():
    # n_bins="auto": the bins are read from the noisy row count; the fit's outputs of
    # fixed shape, the bins and the row count, through fit itself
    def fit_release(X, rng, n):
        out = []
        for _ in range(n):
            det = PrivateHBOS(epsilon=EPS, bounds=(-1, 1), random_state=rng).fit(X)
            out.append((det.n_bins_, det.noisy_n_samples_))
        return np.array(out)

    events = {
        "n_bins_ >= 4": lambda out: out[:, 0] >= 4,
        "noisy row count >= 31": lambda out: out[:, 1] >= len(D_PRIME),
    }
    res = audit(
        fit_release,
        (D_PRIME, D),
        events,
        n_runs=1500,
        batch=True,
        claimed_epsilon=EPS,
        random_state=4,
        name="PrivateHBOS automatic bins",
    )
    assert res.epsilon_lower_bound <= EPS, res.to_markdown()


def test_the_quantile_release_stays_within_its_share():
    eps_q = QUANTILE_SHARE * EPS
    scores = np.linspace(0.0, 1.0, 40)
    grid = np.linspace(-0.5, 1.5, 128)
    mechanism = quantile_mechanism(eps_q, 0.1)

    def quantile(s, rng, n):
        # release_quantile's utility and selection, n selections at once
        below = np.searchsorted(np.sort(s), grid, side="left")
        utility = np.tile(quantile_utility(below, s.size, 0.1), (n, 1))
        return grid[mechanism.select(utility, rng, axis=1)]

    lowest = np.r_[scores, -0.25]  # the added row scores below every other
    # q n = 4 rows: with D the best thresholds lie between the 4th and 5th scores, with the
    # added row between the 3rd and 4th (3/39 ≈ 0.077)
    events = {f"offset <= {t:g}": (lambda out, t=t: out <= t) for t in (3 / 39, 2 / 39)}
    res = audit(
        quantile,
        (lowest, scores),
        events,
        n_runs=30_000,
        batch=True,
        claimed_epsilon=eps_q,
        random_state=2,
        name="PrivateHBOS quantile",
    )
    assert res.epsilon_lower_bound <= eps_q, res.to_markdown()
