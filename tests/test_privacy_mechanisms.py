"""Distributional and API tests of the vectorised mechanisms.

Statistical tests use fixed seeds, so they are deterministic; the stated
false-failure rate is the probability that a *correct* implementation fails
over a random seed.
"""

import math

import numpy as np
import pytest
from scipy import stats

from skdp_anomaly.privacy import (
    AboveThreshold,
    BernoulliSelection,
    ExponentialSelection,
    GeometricMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
)
from skdp_anomaly.privacy._rng import call_rng, check_random_state
from skdp_anomaly.privacy._validation import check_bounds
from skdp_anomaly.exceptions import PrivacyLeakWarning

N = 200_000


def test_geometric_is_exact_two_sided_geometric():
    # chi-square goodness of fit against P(k) ∝ alpha^|k|; false-failure rate 1e-3
    mech = GeometricMechanism(epsilon=0.7)
    z = mech.noise(N, np.random.default_rng(1))
    assert z.dtype == np.int64
    alpha = mech.alpha
    ks = np.arange(-8, 9)
    pmf = (1 - alpha) / (1 + alpha) * alpha ** np.abs(ks)
    observed = np.array([np.count_nonzero(z == k) for k in ks] + [np.count_nonzero(np.abs(z) > 8)])
    expected = np.append(pmf, 1 - pmf.sum()) * N
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_geometric_randomise_rejects_floats_and_keeps_integers():
    mech = GeometricMechanism(epsilon=1.0)
    out = mech.randomise(np.array([0, 5, 10]), np.random.default_rng(0))
    assert out.dtype == np.int64 and out.shape == (3,)
    with pytest.raises(TypeError, match="integer"):
        mech.randomise(np.array([0.5]), np.random.default_rng(0))


def test_laplace_scale_and_distribution():
    # Kolmogorov–Smirnov against Laplace(0, Δ/ε): on a grid 2^-20 finer than Δ the
    # discrete Laplace is indistinguishable from it at this N; false-failure rate 1e-3
    mech = LaplaceMechanism(epsilon=0.5, sensitivity=2.0)
    assert mech.scale == pytest.approx(4.0, rel=2e-6) and mech.scale >= 4.0
    z = mech.randomise(np.zeros(N), np.random.default_rng(2))
    assert stats.kstest(z, stats.laplace(scale=4.0).cdf).pvalue > 1e-3


@pytest.mark.parametrize("value", [0.0, 1.0, 37.25, -1234.5678, 1e9 + 0.1, 3e-7])
def test_laplace_output_is_on_its_grid_whatever_the_input(value):
    # the float-safety property: every output is granularity · integer, an exact
    # double, so the support does not depend on the input (Mironov 2012)
    mech = LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    g = mech.granularity
    assert math.frexp(g)[0] == 0.5 and g <= 2.0**-20
    out = mech.randomise(np.full(10_000, value), np.random.default_rng(0))
    steps = out / g
    assert np.array_equal(steps, np.rint(steps)) and np.all(np.abs(steps) < 2.0**53)


def test_laplace_rounding_is_counted_in_the_sensitivity():
    mech = LaplaceMechanism(epsilon=1.0, sensitivity=3.0, coordinates=3)
    assert mech.steps == math.floor(3.0 / mech.granularity) + 3
    assert mech.scale == pytest.approx(mech.steps * mech.granularity)
    assert mech.scale <= 3.0 * (1 + 2.0**-20)
    # a granularity given by the caller must be a power of two
    assert LaplaceMechanism(1.0, 4.0, granularity=2.0**-32).steps == 4 * 2**32 + 1
    with pytest.raises(ValueError, match="power of two"):
        LaplaceMechanism(1.0, 1.0, granularity=0.3)
    with pytest.raises(ValueError, match="coordinates"):
        LaplaceMechanism(1.0, 1.0, coordinates=0)


def test_laplace_randomise_steps_adds_integer_noise_to_integers():
    mech = LaplaceMechanism(epsilon=1.0, sensitivity=2.0, granularity=2.0**-32, coordinates=2)
    out = mech.randomise_steps(np.array([5, -7], np.int64), np.random.default_rng(0))
    assert out.dtype == np.int64
    with pytest.raises(TypeError, match="integer"):
        mech.randomise_steps(np.array([0.5]), np.random.default_rng(0))
    with pytest.raises(ValueError, match="finite"):
        mech.randomise(np.array([np.nan]), np.random.default_rng(0))


def test_randomized_response_flip_rate():
    # binomial test of the flip rate 1/(1+e); false-failure rate 1e-3
    rr = RandomizedResponse(epsilon=1.0)
    out = rr.randomise(np.ones(N, bool), np.random.default_rng(3))
    flips = int(np.count_nonzero(~out))
    assert stats.binomtest(flips, N, 1 / (1 + math.e)).pvalue > 1e-3


def test_report_noisy_max_returns_index_only_and_scale():
    rnm = ReportNoisyMax(epsilon=2.0, sensitivity=0.5)
    assert rnm.scale == pytest.approx(0.5, rel=2e-6)
    monotone = ReportNoisyMax(epsilon=2.0, sensitivity=0.5, monotone=True)
    assert monotone.scale == pytest.approx(0.25, rel=2e-6)
    idx = rnm.select([0.0, 1e6, 0.0], np.random.default_rng(0))
    assert isinstance(idx, int) and idx == 1
    rows = rnm.select(np.tile([0.0, 1e6, 0.0], (5, 1)), np.random.default_rng(0))
    assert rows.tolist() == [1] * 5
    with pytest.raises(ValueError, match="finite"):
        rnm.select([0.0, np.nan], np.random.default_rng(0))


def test_above_threshold_scales_and_chunked_feeding():
    q = np.r_[np.zeros(500), np.full(10, 30.0), np.zeros(10)]
    at = AboveThreshold(2.0, epsilon=1.0, rng=np.random.default_rng(5))
    assert at.threshold_scale == pytest.approx(2.0, rel=2e-6)
    assert at.query_scale == pytest.approx(4.0, rel=2e-6)
    rng = np.random.default_rng(6)
    answers = [at.feed(chunk, rng) for chunk in np.array_split(q, 7) if not at.halted]
    hits = [a for a in answers if a is not None]
    # whichever query answers first, there is exactly one answer and feeding stops there
    assert len(hits) == 1 and at.halted and at.n_seen_ == hits[0] + 1
    with pytest.raises(RuntimeError, match="halted"):
        at.feed([0.0], rng)


def test_above_threshold_keeps_no_generator():
    at = AboveThreshold(2.0, epsilon=1.0, rng=np.random.default_rng(5))
    assert not any(
        isinstance(v, (np.random.Generator, np.random.BitGenerator)) for v in vars(at).values()
    )
    assert isinstance(at._noisy_threshold, int)  # in grid steps


def test_call_rng_semantics():
    a = call_rng(7, 0).integers(1 << 30, size=4)
    assert np.array_equal(a, call_rng(7, 0).integers(1 << 30, size=4))
    assert not np.array_equal(a, call_rng(7, 1).integers(1 << 30, size=4))
    gen = np.random.default_rng(0)
    assert call_rng(gen, 3) is gen
    assert call_rng(None, 0) is not call_rng(None, 0)
    with pytest.raises(ValueError, match="random_state"):
        call_rng(-1, 0)


def test_selection_probabilities():
    sel = BernoulliSelection(epsilon=math.log(3))
    assert sel.probability([True, False]).tolist() == pytest.approx([0.75, 0.25])
    exp = ExponentialSelection(epsilon=1.0, b=0.5, M=2.0)
    p = exp.probability([0.0, 0.5, 2.0, 5.0])
    assert p[0] == p[1] == pytest.approx(math.exp(-0.5 / 1.5))
    assert p[2] == p[3] == pytest.approx(math.exp(-2.0 / 1.5))


def test_exponential_selection_cost_covers_the_not_selected_outcome():
    # the paper's setting b=0.2, M=1, ε=1 violates Lemma 2's condition q_max <= 1/2
    sel = ExponentialSelection(epsilon=1.0, b=0.2, M=1.0)
    q_max, q_min = sel.probability([0.0, 1.0])
    assert sel.cost.epsilon == pytest.approx(math.log((1 - q_min) / (1 - q_max)))
    assert sel.cost.epsilon > 1.0
    # a wide slab satisfies the condition and the paper's ε is exact
    assert ExponentialSelection(epsilon=1.0, b=2.0, M=3.0).cost.epsilon == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
@pytest.mark.parametrize(
    "cls", [GeometricMechanism, LaplaceMechanism, RandomizedResponse, ReportNoisyMax]
)
def test_bad_epsilon_names_the_parameter(cls, bad):
    with pytest.raises(ValueError, match=r"epsilon must be a float in the range \(0, inf\)"):
        cls(epsilon=bad)


def test_non_numeric_epsilon_and_sensitivity():
    with pytest.raises(TypeError, match="epsilon"):
        LaplaceMechanism(epsilon="1")
    with pytest.raises(ValueError, match="sensitivity"):
        LaplaceMechanism(epsilon=1.0, sensitivity=0)


def test_random_state_none_never_touches_global_state():
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    LaplaceMechanism(epsilon=1.0).randomise(np.zeros(10), check_random_state(None))
    assert np.array_equal(np.random.get_state()[1], before)


def test_random_state_semantics():
    a = check_random_state(7).random(3)
    assert np.array_equal(a, check_random_state(7).random(3))
    gen = np.random.default_rng(0)
    assert check_random_state(gen) is gen
    assert isinstance(check_random_state(np.random.RandomState(0)), np.random.Generator)
    with pytest.raises(ValueError, match="random_state"):
        check_random_state("seed")


def test_check_bounds():
    lo, hi = check_bounds(([0, 1], [2, 3]), n_features=2)
    assert lo.tolist() == [0, 1] and hi.tolist() == [2, 3]
    with pytest.raises(ValueError, match="lower must be < upper"):
        check_bounds((1, 1), n_features=2)
    with pytest.raises(ValueError, match="shape"):
        check_bounds(([0, 0, 0], 1), n_features=2)
    with pytest.raises(ValueError, match="finite"):
        check_bounds((0, np.inf), n_features=2)
    with pytest.raises(ValueError, match="pair"):
        check_bounds(5, n_features=2)
    X = np.array([[0.0, 5.0], [2.0, 5.0]])
    with pytest.warns(PrivacyLeakWarning, match="bounds"):
        lo, hi = check_bounds(None, X, n_features=2)
    assert lo.tolist() == [0, 5] and hi.tolist() == [2, 6]  # constant feature widened


# -- relation and range of the cost -------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: GeometricMechanism(1.0, **kw),
        lambda **kw: LaplaceMechanism(1.0, **kw),
        lambda **kw: ReportNoisyMax(1.0, **kw),
        lambda **kw: AboveThreshold(threshold=0.0, epsilon=1.0, rng=np.random.default_rng(0), **kw),
    ],
)
def test_cost_is_stated_only_with_its_relation(make):
    with pytest.raises(ValueError, match="neighbours="):
        make().cost
    for relation in ("add_remove", "replace"):
        cost = make(neighbours=relation).cost
        assert cost.epsilon == 1.0 and cost.neighbours == relation


def test_fixed_relation_mechanisms_are_replace_one():
    assert RandomizedResponse(1.0).cost.neighbours == "replace"
    assert BernoulliSelection(1.0).cost.neighbours == "replace"
    assert ExponentialSelection(1.0, b=0.2, M=1.0).cost.neighbours == "replace"


def test_geometric_refuses_epsilon_where_the_noise_would_vanish():
    from skdp_anomaly.privacy._mechanisms import MAX_GEOMETRIC_EPSILON

    # at ε/Δ = 40 the old draw returned exactly zero noise: the exact count
    p = -math.expm1(-40.0)
    assert p == 1.0
    with pytest.raises(ValueError, match="epsilon/sensitivity = 40"):
        GeometricMechanism(40.0)
    GeometricMechanism(80.0, sensitivity=4.0)  # ε/Δ = 20 is fine
    mech = GeometricMechanism(MAX_GEOMETRIC_EPSILON)
    # at the maximum the non-zero noise still has its exact probability 2a/(1+a), a = e^-30
    a = math.exp(-MAX_GEOMETRIC_EPSILON)
    assert -math.expm1(-MAX_GEOMETRIC_EPSILON) < 1.0
    assert mech.alpha == pytest.approx(a)
