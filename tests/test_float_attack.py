"""The floating-point attack (Mironov 2012): its sampler model, and audits with it.

Seeds are fixed, so every test is deterministic. The model tests are exact
(no randomness in what they assert). Over random seeds: the "> 5" bounds on
the textbook release fail with probability < 1e-20 (each attack event holds
on A in 2.5 % to 80 % of the runs and never on B, and the bound needs only
0.75 % at 10⁵ runs, 7.5 % at 10⁴); the float-safe mechanism's "≤ ε" fails
with probability at most alpha = 0.05 (the auditor's guarantee) and its
"≥ 0.8 ε" with probability < 1e-9 (the bound's standard error is ~0.01).
"""

import numpy as np
import pytest

from skdp_anomaly.auditing import floating_point_audit
from skdp_anomaly.auditing._float_attack import grid_reachable, laplace_reachable
from skdp_anomaly.auditing import _float_attack
from skdp_anomaly.auditing._float_attack import _laplace_noise
from skdp_anomaly.privacy import LaplaceMechanism

SCALES = [1e-9, 0.3, 1.0, 4.0, 1e6]
INPUTS = np.array([0.0, 37.25, -1234.5, 1e-3])


def _naive_release(scale):
    """The textbook release the package used to make."""
    return lambda x, rng, n: x + rng.laplace(0.0, scale, size=(n,) + np.shape(x))


def _outputs(k, x, scale):
    return x + _laplace_noise(np.asarray(k, dtype=np.int64), scale)


# ----------------------------------------------------------------- the sampler model
@pytest.mark.parametrize("scale", SCALES)
def test_model_is_numpys_sampler_bit_for_bit(scale):
    raw = np.random.PCG64(11).random_raw(100_000)
    k = (raw >> np.uint64(11)).astype(np.int64)
    assert k.min() > 0  # numpy redraws k = 0; not met at this seed
    drawn = np.random.Generator(np.random.PCG64(11)).laplace(0.0, scale, k.size)
    np.testing.assert_array_equal(_laplace_noise(k, scale).view(np.int64), drawn.view(np.int64))


@pytest.mark.parametrize("scale", [1e-9, 1.0, 4.0, 1e6])
def test_every_numpy_draw_is_reachable(scale):
    y = INPUTS[:, None] + np.random.default_rng(5).laplace(0.0, scale, (INPUTS.size, 100_000))
    assert laplace_reachable(y, INPUTS[:, None], scale).all()


# (x, scale, k range): the far tail (outputs sparser than floats), the bulk at
# x = 0, both sides of the branch switch at U = 1/2, the top end, and a range
# where thousands of uniforms round to the same output
RANGES = [
    (37.25, 1.0, 1, 4_000),
    (0.0, 1.0, 2**51 - 3_000, 2**51 + 3_000),
    (37.25, 1.0, 2**52 - 3_000, 2**52 + 3_000),
    (-1234.5, 4.0, 2**53 - 4_000, 2**53 - 1),
    (-1234.5, 4.0, 2**52 + 2**50, 2**52 + 2**50 + 100_000),
]


@pytest.mark.parametrize("x, scale, first, last", RANGES)
def test_reachability_is_exact_against_enumeration(x, scale, first, last):
    outputs = _outputs(np.arange(first, last + 1), x, scale)
    assert (np.diff(outputs) >= 0).all()  # the monotonicity the model relies on
    image = np.unique(outputs)
    steps = [np.nextafter(image, np.inf), np.nextafter(image, -np.inf)]
    steps += [np.nextafter(s, d) for s, d in zip(steps, (np.inf, -np.inf))]
    between = np.random.default_rng(3).uniform(image[0], image[-1], 2_000)
    points = np.concatenate([image, *steps, between])
    # by monotonicity, uniforms outside [first, last] land outside [image[0], image[-1]]
    points = points[(points > image[0]) & (points < image[-1])]
    np.testing.assert_array_equal(laplace_reachable(points, x, scale), np.isin(points, image))


def test_exact_search_when_the_candidate_is_far_off(monkeypatch):
    """The galloping search (rarely needed) gives the same answers from a bad start."""
    image = _outputs(np.arange(10, 4_000, 20), 37.25, 1.0)
    points = np.concatenate([image, np.nextafter(image, np.inf)])
    expected = laplace_reachable(points, 37.25, 1.0)
    assert expected.any() and not expected.all()
    for start in (1, 2**52, 2**53 - 1):  # below, inside and above the outputs' uniforms
        monkeypatch.setattr(
            _float_attack,
            "_candidate_k",
            lambda noise, scale, k=start: np.full(noise.shape, k, np.int64),
        )
        np.testing.assert_array_equal(laplace_reachable(points, 37.25, 1.0), expected)


def test_sparse_tail_has_unreachable_neighbours():
    image = np.unique(_outputs(np.arange(1, 4_001), 37.25, 1.0))
    assert not laplace_reachable(np.nextafter(image[1:-1], np.inf), 37.25, 1.0).any()


def test_edge_values_and_shapes():
    top = float(_outputs(2**53 - 1, 0.0, 1.0))  # the largest noise numpy can draw
    y = np.array([[0.0, -0.0, np.nan, np.inf], [1e300, -40.0, top, np.nextafter(top, np.inf)]])
    expected = [[True, False, False, False], [False, False, True, False]]
    np.testing.assert_array_equal(laplace_reachable(y, 0.0, 1.0), expected)
    vector = np.zeros((3, 4)) + np.array([0.5, 1.5, 2.5, 3.5])
    assert laplace_reachable(vector, vector[0], 1.0).shape == (3, 4)
    with pytest.raises(ValueError, match="scale"):
        laplace_reachable(1.0, 0.0, 0.0)


def test_grid_reachable():
    g = 2.0**-20
    y = np.array([0.0, 3 * g, -7 * g, 37.25, (2**52 - 1) * g, g / 2, 37.25 + g / 4, -0.0, np.nan])
    expected = [True, True, True, True, True, False, False, False, False]
    np.testing.assert_array_equal(grid_reachable(y, g), expected)
    with pytest.raises(ValueError, match="granularity"):
        grid_reachable(y, -1.0)


# ------------------------------------------------------------------------ audits
# At |x| = 37 with scale 1 the outputs' ulp hides the noise's bits except in
# the tails (|noise| > ln 32): 2.5 % of outputs are unreachable from the
# neighbour, too few for a bound above 5 from 10⁴ runs (at most ~3.9), so that
# case runs 10⁵; near 0 the attack wins at 80 % of the runs.
@pytest.mark.parametrize("x, x_prime, n_runs", [(37.25, 38.25, 100_000), (0.0, 1.0, 10_000)])
def test_textbook_laplace_breaks_its_claim(x, x_prime, n_runs):
    result = floating_point_audit(
        _naive_release(1.0),
        (x, x_prime),
        lambda y, v: laplace_reachable(y, v, 1.0),
        n_runs=n_runs,
        random_state=2012,
        claimed_epsilon=1.0,
    )
    assert result.epsilon_lower_bound > 5


def test_textbook_laplace_breaks_its_claim_on_a_class_sum():
    # sum of d = 4 coordinates over the unit box: add/remove one record, sensitivity d
    records = np.random.default_rng(2012).uniform(size=(41, 4))
    sums = (records[:40].sum(axis=0), records.sum(axis=0))
    result = floating_point_audit(
        _naive_release(4.0),
        sums,
        lambda y, v: laplace_reachable(y, v, 4.0),
        n_runs=10_000,
        random_state=2012,
        claimed_epsilon=1.0,
    )
    assert result.epsilon_lower_bound > 5


def test_float_safe_laplace_keeps_its_claim():
    mech = LaplaceMechanism(1.0, 1.0, neighbours="add_remove")
    result = floating_point_audit(
        lambda x, rng, n: mech.randomise(np.full(n, x), rng),
        (37.25, 38.25),
        lambda y, v: grid_reachable(y, mech.granularity),
        tail={"out >= 38.25": lambda out: out >= 38.25},  # tight for the shift by Δ
        n_runs=100_000,
        random_state=2012,
        claimed_epsilon=1.0,
    )
    assert all(row["count_a"] == row["count_b"] == 0 for row in result.rows[:2])
    assert 0.8 <= result.epsilon_lower_bound <= 1.0
