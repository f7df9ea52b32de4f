"""The integer noise is exact at every rate, with its whole support.

numpy's geometric sampler truncates its support at rates of 1/2 and above (at
rate 30 two-sided noise was only -1, 0 or +1: an infinite privacy loss at
``δ ≈ 1e-13``). The package's sampler compares uniform bytes with the binary
expansion of each probability, computed in integer arithmetic: these tests
check the expansion digit by digit against 80-digit decimals, force the
uniforms to reach values far in the tail, and fit the law at high and low
rates. Statistical tests use fixed seeds and state their false-failure rate.
"""

from decimal import Decimal, localcontext

import numpy as np
import pytest
from scipy.stats import chisquare

from skdp_anomaly.privacy import GeometricMechanism, RandomizedResponse
from skdp_anomaly.privacy._exact import _digit, bernoulli_logistic, geometric, two_sided_geometric


class ScriptedBytes:
    """A stand-in generator whose uniform bytes are given in advance (nothing else exists)."""

    def __init__(self, script):
        self.script = list(script)

    def integers(self, low, high, size, dtype):
        assert (low, high, dtype) == (0, 256, np.uint8)
        out, self.script = self.script[:size], self.script[size:]
        assert len(out) == size, "the script ran out"
        return np.array(out, dtype=np.uint8)


def _decimal_digits(p: Decimal, n: int) -> list[int]:
    return [int(p * 256 ** (m + 1)) % 256 for m in range(n)]


@pytest.mark.parametrize("x", [30.0, 7.25, 1.0, 0.8, 0.5, 0.1, 2.0**-20, 2.0**-49, 123.456])
def test_each_probability_is_expanded_exactly(x):
    with localcontext() as ctx:
        ctx.prec = 120
        exp_neg = (-Decimal(x)).exp()  # Decimal(x) is the double exactly
        logistic = 1 / (1 + Decimal(x).exp())
        assert [_digit("exp", x, m) for m in range(12)] == _decimal_digits(exp_neg, 12)
        assert [_digit("logistic", x, m) for m in range(12)] == _decimal_digits(logistic, 12)


def test_the_largest_rate_reaches_the_tail():
    # e**-30 = 0.000000000000093576... = 0.00 00 00 00 00 1a... in bytes: a trial succeeds
    # when its first six bytes are zero. Two successes, then a failure: G = 2, a value
    # numpy's sampler could never return at this rate (its support was {0, 1}).
    assert _digit("exp", 30.0, 5) == 26
    success, failure = [0] * 6, [255]
    assert geometric(30.0, 1, ScriptedBytes(success + success + failure)).tolist() == [2]
    # a two-sided draw of -3: one call draws both geometrics, a round of trials at a
    # time (a byte each, the ties read on): the first fails at once (255), the second
    # succeeds three times, then fails on its sixth byte (27 > 26)
    rng = ScriptedBytes([255, 0] + [0] * 5 + success + success + [0] * 5 + [27])
    assert two_sided_geometric(30.0, 1, rng).tolist() == [-3]


def test_a_tie_reads_the_next_byte():
    # rate 1: e**-1 = 0.5e 2d 58 d8 ... (bytes 94, 45, 88, ...); a uniform starting 94, 45
    # ties twice and is decided by its third byte
    digits = [_digit("exp", 1.0, m) for m in range(3)]
    assert digits == [94, 45, 88]
    below = digits[:2] + [digits[2] - 1] + [255]  # success, then a failure
    above = digits[:2] + [digits[2] + 1]
    assert geometric(1.0, 1, ScriptedBytes(below)).tolist() == [1]
    assert geometric(1.0, 1, ScriptedBytes(above)).tolist() == [0]


def test_small_rates_add_exact_binary_digits():
    # rate 0.1: three binary digits (rates 0.1, 0.2, 0.4) below blocks of 8 at rate 0.8;
    # no block (a byte above e**-0.8's 115), then digits 1, 0, 1: G = 5
    assert _digit("exp", 0.8, 0) == 115
    assert geometric(0.1, 1, ScriptedBytes([255, 0, 255, 0])).tolist() == [5]


@pytest.mark.parametrize("rate", [30.0, 12.0, 5.0, 1.0, 0.5])
def test_the_geometric_law_holds_at_high_rates(rate):
    # cells {0, 1, 2, >= 3} (merged where the expected count is below 5); chi-square at
    # p < 1e-6 (false failure 1e-6 per rate for a correct sampler, over seeds). At rate 30
    # every draw is 0 but with probability 2e5·e**-30 ≈ 2e-8.
    g = geometric(rate, 200_000, np.random.default_rng(11))
    q = np.exp(-rate)
    pmf = np.array([1 - q, (1 - q) * q, (1 - q) * q * q, q**3])
    observed = np.array([np.sum(g == 0), np.sum(g == 1), np.sum(g == 2), np.sum(g >= 3)])
    expected = pmf * g.size
    keep = np.cumsum(expected[::-1])[::-1] >= 5  # merge the tail cells too small to test
    last = np.flatnonzero(keep)[-1]
    obs = np.r_[observed[:last], observed[last:].sum()]
    exp = np.r_[expected[:last], expected[last:].sum()]
    if obs.size == 1:
        assert obs[0] == g.size
    else:
        assert chisquare(obs, exp).pvalue > 1e-6


@pytest.mark.parametrize("epsilon", [1e-9, 0.3, 1.0, 4.0])
def test_the_flips_have_the_logistic_probability(epsilon):
    # a binomial count within 5.3 standard deviations: false failure below 1.2e-7
    n = 400_000
    flips = bernoulli_logistic(epsilon, n, np.random.default_rng(12))
    p = 1 / (1 + np.exp(epsilon))
    assert abs(flips.sum() - n * p) < 5.3 * np.sqrt(n * p * (1 - p))


def test_randomized_response_flips_exactly_and_keeps_the_shape():
    rr = RandomizedResponse(epsilon=30.0)
    bits = np.zeros((3, 4), dtype=bool)
    # the flip's probability is 1/(1+e**30): its first five bytes are zero, like e**-30's
    assert [_digit("logistic", 30.0, m) for m in range(5)] == [0] * 5
    # one byte per bit first: the first ties (0) and reads on, 0 0 0 0 then 1 < 26
    flipped = rr.randomise(bits, ScriptedBytes([0] + [255] * 11 + [0] * 4 + [1]))
    assert flipped.shape == (3, 4) and flipped.sum() == 1 and flipped[0, 0]


def test_the_mechanism_at_its_largest_rate_can_move_a_count_by_two():
    # the review's neighbours: 5 and 6 rows in a bin at ε/Δ = 30. The release 7 needs
    # noise 2 from 5 and 1 from 6; both are possible now (with probability
    # ≈ e**-60 and e**-30 times (1 - e**-30)/(1 + e**-30))
    mech = GeometricMechanism(epsilon=30.0, sensitivity=1.0, neighbours="add_remove")
    # noise 2 = 2 - 0: the first geometric succeeds twice, the second fails at once
    rng = ScriptedBytes([0, 255] + [0] * 5 + [0] * 6 + [255])
    assert mech.randomise(np.array([5]), rng).tolist() == [7]
