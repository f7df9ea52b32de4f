"""Exact integer noise: geometric, two-sided geometric and Bernoulli draws.

No draw goes through a floating-point probability, so each is exactly the stated law at every rate
(after Canonne, Kamath and Steinke 2020, §5, vectorised); the argument is in
:ref:`randomness-and-floats`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from ..exceptions import naming

#: smallest rate ``ε/Δ`` (per unit of the integer query) honoured: a draw leaves int64
#: only with probability below ``e**-8000`` (it is then clamped)
MIN_INTEGER_RATE = 2.0**-50

#: bits per digit of a uniform (a tie, probability 2**-8, reads the next byte)
_DIGIT = 8
_DIGIT_MASK = (1 << _DIGIT) - 1
#: ``H`` is drawn at a rate of at least this per trial, so its loop shrinks geometrically
_BLOCK_RATE = 0.5
#: largest ``H``: ``2**k · H + L`` stays below ``2**62`` (a larger one has probability
#: below ``e**-(2**62 · rate)``, and at the smallest rate below ``e**-8000``)
_INT_LIMIT = 1 << 62


def check_rate(rate: float, name: str = "epsilon") -> None:
    """Refuse integer noise whose rate ``ε/Δ`` (``Δ`` in grid steps) is below
    :data:`MIN_INTEGER_RATE`: a ValueError that starts with ``name`` (a message template:
    settings in backticks, see :func:`~skdp_anomaly.exceptions.naming`)."""
    if not rate >= MIN_INTEGER_RATE:
        raise naming(
            ValueError,
            f"{name}: the integer noise's rate epsilon/sensitivity = {rate:.4g} (per unit of "
            f"the released integer) is below {MIN_INTEGER_RATE:.4g} = 2**-50, the smallest "
            "this package's samplers honour (their draws would exceed the 64-bit range); "
            "use a larger `epsilon`.",
        )


# --- rigorous bounds, in integers scaled by 2**prec --------------------------------------
def _exp_neg_small(x: Fraction, prec: int) -> tuple[int, int]:
    """``lo <= e**-x · 2**prec <= hi`` for ``0 <= x <= 1`` (alternating Taylor series)."""
    # terms decrease for x <= 1: e**-x lies between consecutive partial sums
    total, term, k = Fraction(1), Fraction(1), 0
    while True:
        k += 1
        term = term * x / k
        nxt = total - term if k % 2 else total + term
        if term * (1 << prec) < 1:
            low, high = min(total, nxt), max(total, nxt)
            return math.floor(low * (1 << prec)), math.ceil(high * (1 << prec))
        total = nxt


def _mul_bounds(a: tuple[int, int], b: tuple[int, int], prec: int) -> tuple[int, int]:
    """The product of two non-negative bounded values, rounded outwards."""
    return (a[0] * b[0]) >> prec, -((-(a[1] * b[1])) >> prec)


def _exp_neg_bounds(x: Fraction, prec: int) -> tuple[int, int]:
    """``lo <= e**-x · 2**prec <= hi`` for any ``x >= 0``."""
    whole = math.floor(x)
    guard = 2 * whole.bit_length() + 8  # each rounded product may widen the bounds by one
    work = prec + guard
    result = _exp_neg_small(x - whole, work)
    power = _exp_neg_small(Fraction(1), work)
    while whole:  # e**-whole by squaring, rounded outwards
        if whole & 1:
            result = _mul_bounds(result, power, work)
        whole >>= 1
        if whole:
            power = _mul_bounds(power, power, work)
    return result[0] >> guard, -((-result[1]) >> guard)


def _probability_bounds(kind: str, x: Fraction, prec: int) -> tuple[int, int]:
    """Bounds on ``p·2**prec`` for ``p = e**-x`` (``"exp"``) or ``1/(1 + e**x)`` (``"logistic"``)."""
    lo, hi = _exp_neg_bounds(x, prec + 2)
    if kind == "exp":
        return lo >> 2, -((-hi) >> 2)
    # t/(1 + t) increases with t
    one = 1 << (prec + 2)
    return (lo << prec) // (one + lo), -((-(hi << prec)) // (one + hi))


@lru_cache(maxsize=4096)
def _digit(kind: str, x: float, m: int) -> int:
    """The ``m``-th 8-bit digit of ``p`` (``m = 0`` first); precision rises until bounds agree.

    ``p`` is irrational for ``x > 0`` (Lindemann), so this terminates.
    """
    exact = Fraction(x)
    prec = _DIGIT * (m + 1)
    guard = 16
    while True:
        lo, hi = _probability_bounds(kind, exact, prec + guard)
        if lo >> guard == hi >> guard:
            return (lo >> guard) & _DIGIT_MASK
        guard *= 2


def _shape(size) -> tuple:
    """numpy's ``size``: None (one draw), an int or a tuple."""
    if size is None:
        return ()
    return (int(size),) if np.ndim(size) == 0 else tuple(int(k) for k in size)


def _uniform_digits(rng: np.random.Generator, size: int) -> np.ndarray:
    return rng.integers(0, 1 << _DIGIT, size=size, dtype=np.uint8)


def _below(kind: str, x: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` exact draws of ``U < p`` for uniform ``U`` (bool), ``p`` named by ``kind, x``."""
    digits = _uniform_digits(rng, size)
    digit = np.uint8(_digit(kind, x, 0))
    out = digits < digit
    tie = np.flatnonzero(digits == digit)
    m = 0
    while tie.size:  # probability 2**-8 per draw and digit
        m += 1
        digits = _uniform_digits(rng, tie.size)
        digit = np.uint8(_digit(kind, x, m))
        out[tie] = digits < digit
        tie = tie[digits == digit]
    return out


def bernoulli_logistic(epsilon: float, size, rng: np.random.Generator) -> np.ndarray:
    """Exact ``Bernoulli(1 / (1 + e**ε))`` draws (bool) of shape ``size`` (None: a scalar),
    e.g. randomized response's flips; ``epsilon`` non-negative and finite."""
    shape = _shape(size)
    return _below("logistic", float(epsilon), math.prod(shape), rng).reshape(shape)[()]


def _trials_until_failure(x: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` geometric draws: successes of exact ``Bernoulli(e**-x)`` trials before a failure."""
    count = np.zeros(n, dtype=np.int64)
    active = np.arange(n)
    while active.size:  # shrinks by e**-x <= e**-1/2 per round
        active = active[_below("exp", x, active.size, rng)]
        count[active] += 1
    return count


def geometric(rate: float, size, rng: np.random.Generator) -> np.ndarray:
    """Exact geometric noise on ``{0, 1, ...}`` with ``P(G = k) ∝ exp(-rate·k)`` (int64).

    Drawn as ``2**k·H + L``: ``H`` from exact Bernoulli trials at rate ``rate·2**k >= 1/2``,
    the bits of ``L`` as exact Bernoullis. Shape ``size`` (None: a scalar); ``rate`` below
    :data:`MIN_INTEGER_RATE` is refused before any draw.

    >>> import numpy as np
    >>> from skdp_anomaly.privacy._exact import geometric
    >>> g = geometric(0.1, 100_000, np.random.default_rng(0))
    >>> bool(abs(g.mean() - 1 / np.expm1(0.1)) < 0.1)  # the mean 1/(e^rate - 1)
    True
    """
    check_rate(rate, "geometric noise")
    shape = _shape(size)
    n = math.prod(shape)
    levels = max(0, math.ceil(math.log2(_BLOCK_RATE / rate)))  # rate·2**levels >= 1/2
    blocks = _trials_until_failure(math.ldexp(rate, levels), n, rng)
    draw = np.minimum(blocks, _INT_LIMIT >> levels) << levels
    for low in range(0, levels, 8):  # eight binary digits of L gathered in one byte
        byte = np.zeros(n, dtype=np.uint8)
        for j in range(low, min(low + 8, levels)):
            byte |= _below("logistic", math.ldexp(rate, j), n, rng).view(np.uint8) << (j - low)
        draw |= byte.astype(np.int64) << low
    return draw.reshape(shape)[()]


def two_sided_geometric(rate: float, size, rng: np.random.Generator) -> np.ndarray:
    """Exact integer noise with ``P(Z = k) ∝ exp(-rate·|k|)`` (int64), a difference of geometrics.

    ``rate`` is ``ε / Δ`` for an integer query of sensitivity ``Δ``, refused below
    :data:`MIN_INTEGER_RATE`; shape ``size`` (None: a scalar)."""
    pair = geometric(rate, (2,) + _shape(size), rng)
    return pair[0] - pair[1]
