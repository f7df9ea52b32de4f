"""Private binary segmentation with the Mann–Whitney rank statistic: several
change points, or none.

**Score.** For a segment ``y_1, ..., y_m`` and a split ``k`` (``k`` points
before the change) let ``S(k)`` be the Mann–Whitney pair count of Lut 2022,
Eq. (2.1), with ties counted one half (mid-ranks), and with ``s = min_size``

    E(k) = (S(k) - k (m - k) / 2) / (m - s) = (V(k) - 1/2) · k (m - k) / (m - s),

for ``k in {s, ..., m - s}``. ``E > 0``: the values tend to decrease at
``k``; ``E < 0``: to increase. Without a change ``E(k)`` is centred at 0;
with one change at ``τ`` (post-change values ordered against pre-change ones
with probability ``1/2 + δ``) its mean is ``δ k (m - τ)/(m - s)`` for
``k <= τ`` and ``δ τ (m - k)/(m - s)`` beyond, so it peaks exactly at ``τ``
(the CUSUM shape). Weighting ``V(k) - 1/2`` by ``min(k, m - k)`` instead
would equalise the splits' sensitivities but flatten the mean between the
middle and ``τ``, a poor locator.

**Sensitivity (replace one element).** Each pair contributes 0, 1/2 or 1 to
``S``; replacing ``y_t`` changes only the pairs containing it, each by at most
1. If ``t <= k`` these are the ``m - k`` pairs with the right part, else the
``k`` pairs with the left part, so ``|ΔS(k)| <= max(k, m - k) <= m - s`` and
``|ΔE(k)| <= 1`` for every candidate: **Δ = 1**, whatever ``m``, ``k`` and
the ties (mid-ranks do not change it: a pair still moves by at most 1),
attained at ``k = s`` (the neighbouring pair the audit tests build). Algorithm 3's ``V(k)`` has
``Δ = 1/min(k, m - k)``, set by the edges, so its noise drowns the middle;
here a change at fraction ``θ`` of a segment scores ``≈ δ θ (1-θ) m``
against noise of order ``1/ε``.

**Test of "no change here".** The test reads the split statistic with
the tightest normalisation that keeps each split's sensitivity at 1,

    B(k) = (S(k) - k (m - k) / 2) / max(k, m - k),

(``|ΔS(k)| <= max(k, m - k)`` as above). ``|B| >= |E|`` (same sign) at
every split, twice ``E`` near the middle, so a change in the middle half lifts the test about
1.4–2 times higher above the same noise; its mean is flat between the
middle and ``τ``, so it would be a poor locator, and the location keeps
``E``. ``T = max_k B(k)`` over the splits leaving
``min_size`` points on each side (``max |B|`` for ``direction="both"``,
``max -B`` for ``"increase"``), released with the float-safe
:class:`~skdp_anomaly.privacy.LaplaceMechanism` (``Δ = 1``). Under "no
change" (exchangeable values, e.g. i.i.d.) the ranks are a uniform random
permutation, so the law of ``T`` depends on ``m`` and ``min_size`` only: it
is public. It is simulated once per segment length (fixed seed, cached) and
the critical value ``c`` solves ``mean_i P(T_i + L > c) = α'`` with the
exact Laplace tail of the noise ``L`` (no Monte Carlo error from the noise);
``α' = α - 2 sqrt(α(1-α)/B)`` (``B = min(50 000, max(2000, ⌈20/α⌉))``
simulated permutations; ``α' >= α/10``) counts the Monte Carlo error of the
simulated null at two standard errors. Segments
longer than :data:`EXACT_MAX` use the simulation at ``EXACT_MAX`` points
scaled by ``sqrt((m+1)/(EXACT_MAX+1))`` (the rank process converges to a
Brownian bridge: Donsker's theorem). Ties make the statistic less variable
(mid-ranks), so the continuous calibration is conservative for them.

**Location.** Report-noisy-max over the same scores (``Δ = 1``, Laplace
scale ``2/ε``; ``"both"``: the ``2(m - 2 min_size + 1)`` scores ``E`` and
``-E``).  Exact ``k``: one report-noisy-max per round over the scores of
every segment (each ``Δ = 1``).

**Budget.** ``n_change_points="auto"``: at most ``L = ⌈log2(max_change_points
+ 1)⌉`` levels, fewer when the deepest ones could not tell a clear change
from the noise at this ε (:func:`useful_levels`, public); level ``l`` tests
every segment made by the level before and
locates a change in those that pass (at most the remaining number of change
points, the largest noisy margins first). The segments of one level are
disjoint and cut at earlier DP outputs, so one level costs what one segment
costs (parallel composition). Level ``l`` gets ``ε_l = ε 2^-l / (1 - 2^-L)``
(halving: 8/15, 4/15, 2/15, 1/15 of ε for ``L = 4``), a third of it for the
tests (Laplace scale ``3/ε_l``) and two thirds for the locations
(report-noisy-max scale ``3/ε_l``); on the first level a quarter and three
quarters (scales ``4/ε_1`` and ``8/(3ε_1)``). The levels compose sequentially: ε in
total. Under "no change"
only the first test can pass, so ``P(any change reported) <= α``.

**Serial dependence.** ``dependence="estimate"`` first releases the number of
turning points (:mod:`._dependence`, ``Δ = 2``, two-sided geometric noise,
:data:`DEPENDENCE_SHARE` of ε; the levels share the rest) and calibrates every
test under the stationary Gaussian AR(1) null with the bound ``φ⁺`` it gives
(post-processing); a public ``φ`` skips the release; ``"none"`` keeps the
exchangeable null. The AR(1) laws are simulated like the permutation one (the
statistic reads ranks only, so any monotone transform of such a series has the
same law). ``series="auto"`` ends, when every change found is a level change
the same way, with a trend check (:mod:`._trend`, 15 % of ε taken from the
locations): a trend is reported as no change.
``n_change_points=k``: ``k`` greedy rounds, each one report-noisy-max with
``ε/k`` over the splits of all current segments (cuts that would leave too
little room for the remaining ones are excluded; the segments are public),
exactly ``k`` change points.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.signal import lfilter

from ..privacy import GeometricMechanism, LaplaceMechanism, PrivacyCost, ReportNoisyMax
from ..privacy._mechanisms import MAX_GEOMETRIC_EPSILON
from ..privacy._rng import check_random_state
from ._core import DIRECTIONS
from ._dependence import (
    MAX_RHO,
    RHO_FLOOR,
    RHO_STEP,
    TURNING_POINT_SENSITIVITY,
    ar1_ranks,
    turning_points,
)
from ._in_memory import reject_dask_collection
from ._models import SERIES, SeriesModel, channels, choose_model, public_model
from ._statistic import doubled_counts
from ._trend import TREND_SENSITIVITY, TREND_SHARE, is_trend, sign_sums

__all__ = ["EXACT_MAX", "binary_segmentation", "check_segmentation", "critical_value", "default_min_size",
           "n_levels", "noisy_test_statistic", "segment_scores", "segmentation_plan",
           "useful_levels"]

#: Longest segment whose null law is simulated at its own length.
EXACT_MAX = 1000
_CAL_SEED = 20_221_031          # fixed: the calibration is public and deterministic
_CELLS = 4_000_000              # permutation matrix entries per block

_NOTES = {"dependence": "binary segmentation: serial dependence (turning points, geometric, Δ=2)",
          "test": "binary segmentation: noisy rank test (Laplace, Δ=1)",
          "location": "binary segmentation: location (report-noisy-max, Δ=1)",
          "trend": "binary segmentation: trend check (sign counts, geometric, Δ=2)"}

#: Share of ε spent on the turning-point count (``series="auto"`` or
#: ``dependence="estimate"``).
DEPENDENCE_SHARE = 0.15
#: Share of each level's test ε (and of its ``α``) spent on the spread channel.
SPREAD_SHARE = 1 / 3


def default_min_size(n: int) -> int:
    """``max(2, ⌈n/20⌉)``: segments of at least 5 % of the series (public, from ``n``)."""
    return max(2, -(-int(n) // 20))


def n_levels(max_change_points: int) -> int:
    """``⌈log2(max_change_points + 1)⌉``: levels of binary segmentation."""
    return max(1, math.ceil(math.log2(max_change_points + 1)))


#: Share of each level's ε spent on the tests; the other two thirds locate. A
#: real change lifts ``T`` far above the critical value well before the
#: location is sharp (its slope near the change is only ``≈ δ/2`` per index
#: against noise ``2/ε``), so the location gets more.
TEST_SHARE = 1 / 3
#: ... and of the first level's: its segment is the whole series, where a change
#: worth reporting clears the test by the widest margin, so its location gets more
#: still (measured: 2-sd shifts in AR(1) series with φ = 0.5, n = 300, ε = 1 located
#: within 10 points in 0.41 of runs against 0.34 with a third).
FIRST_TEST_SHARE = 1 / 4


def level_weights(n_level: int) -> np.ndarray:
    """``ε`` share of each level: halving from one level to the next, normalised.

    The first level decides alone whether anything is reported (the false
    alarms and the most consequential cut); deeper levels cut shorter
    segments, fewer of which hold a change.
    """
    w = 0.5 ** np.arange(1, n_level + 1)
    return w / w.sum()


def useful_levels(n: int, epsilon: float, max_change_points: int, min_size: int,
                  alpha: float, direction: str) -> int:
    """Levels worth their ε: the deepest level kept is one on which a clear change
    could pass the test (public: ``n``, ε, ``α``, ``min_size``).

    Level ``l`` cuts segments of about ``m_l = n / 2^(l-1)`` points and tests
    each at ``α / 2^(l-1)`` (at most ``2^(l-1)`` segments). A change that moves
    the values by about one standard deviation in the middle of such a
    segment (``P(before > after) ≈ 3/4``) scores ``B ≈ m_l/8``. When that is
    below the level's critical value, the level could only report noise, so
    it is dropped and its ε goes to the levels above (the weights are
    renormalised): at small ``ε·n`` the first test and location get all of
    ε instead of 8/15 of it.
    """
    levels = n_levels(max_change_points)
    while levels > 1:
        m = n // 2 ** (levels - 1)
        if m >= 2 * min_size:
            # the whole test's ε and α, as if the level channel had them: the levels
            # kept do not depend on how a level's test is shared between channels
            test = _plan(epsilon, levels)[2 * (levels - 1)][1]
            c = critical_value(m, min_size, direction, alpha / 2 ** (levels - 1), test.scale)
            if m / 8.0 > c:
                break
        levels -= 1
    return levels


def _plan(epsilon: float, levels: int) -> list:
    plan = []
    for level, w in enumerate(level_weights(levels)):
        eps = float(epsilon * w)
        share = FIRST_TEST_SHARE if level == 0 else TEST_SHARE
        plan += [("test", LaplaceMechanism(eps * share, 1.0, neighbours="replace")),
                 ("location", ReportNoisyMax(eps * (1 - share), 1.0, neighbours="replace"))]
    return plan


def _to_total(plan: list, epsilon: float) -> list:
    """``plan`` with its last location taking what the others leave, to the ulp, so
    that the stages compose (math.fsum) to ε exactly where a float can, never more."""
    at = max(i for i, (kind, _) in enumerate(plan) if kind == "location")
    others = [mechanism.epsilon for i, (_, mechanism) in enumerate(plan) if i != at]
    last = epsilon - math.fsum(others)
    while math.fsum(others + [last]) > epsilon:
        last = float(np.nextafter(last, -np.inf))
    up = float(np.nextafter(last, np.inf))
    if math.fsum(others + [up]) <= epsilon:
        last = up
    return plan[:at] + [("location", ReportNoisyMax(last, 1.0, neighbours="replace"))] + plan[at + 1:]


def _levels_after_model(epsilon: float, levels: int, trend: bool) -> list:
    """The levels' stages after the model's release, then (when ``trend``) the
    trend check. The check's ε comes out of the locations (each the same
    fraction): the tests keep theirs, so the check costs no power against the
    nulls, only a little sharpness of the locations."""
    plan = _plan(epsilon, levels)
    if not trend:
        return plan
    check = epsilon * TREND_SHARE / (1 - DEPENDENCE_SHARE)
    keep = 1 - check / math.fsum(m.epsilon for kind, m in plan if kind == "location")
    plan = [(kind, m if kind == "test" else ReportNoisyMax(m.epsilon * keep, 1.0,
                                                            neighbours="replace"))
            for kind, m in plan]
    return plan + [("trend", GeometricMechanism(check, TREND_SENSITIVITY,
                                                neighbours="replace"))]


def segmentation_plan(epsilon: float, n_change_points, max_change_points: int, *,
                      n: int | None = None, min_size: int | None = None, alpha: float = 0.05,
                      direction: str = "both", dependence="none",
                      series: str = "level") -> list:
    """The stages ``(kind, mechanism)`` in the order they are charged.

    ``kind`` is ``"dependence"`` (GeometricMechanism on the turning points,
    ``Δ = 2``, for ``dependence="estimate"`` or ``series="auto"``), ``"test"``
    (LaplaceMechanism), ``"location"`` (ReportNoisyMax, both ``Δ = 1``) or,
    for ``series="auto"``, ``"trend"`` (GeometricMechanism on the segments'
    sign counts, ``Δ = 2``, :mod:`._trend`) after the levels; all are
    under replace-one neighbours. ``"auto"`` with the series length ``n``
    (and ``min_size``): only the :func:`useful_levels`; without ``n``, every
    level (the total is ε either way). When ``"auto"`` tests increments the
    trend check's ε goes to the levels instead (:func:`_replan`): this plan
    is the one priced.
    """
    if n_change_points == "auto":
        levels = n_levels(max_change_points)
        if n is not None:
            # the same levels with or without the dependence stage: a clear change
            # deep down is as worth finding when some of ε went to the dependence
            levels = useful_levels(n, epsilon, max_change_points, min_size, alpha, direction)
        if not _releases_count(series, dependence):
            return _plan(epsilon, levels)
        count = GeometricMechanism(epsilon * DEPENDENCE_SHARE, TURNING_POINT_SENSITIVITY,
                                   neighbours="replace")
        rest = _levels_after_model(epsilon * (1 - DEPENDENCE_SHARE), levels, series == "auto")
        return _to_total([("dependence", count)] + rest, epsilon)
    k = int(n_change_points)
    return [("location", ReportNoisyMax(epsilon / k, 1.0, neighbours="replace"))] * k


def _replan(plan: list) -> list:
    """The stages after the model's release without the trend check: its ε spread
    over the levels as :func:`segmentation_plan` spreads the rest (the total
    is unchanged; choosing the stages from a DP output is adaptive composition)."""
    if not any(kind == "trend" for kind, _ in plan):
        return plan
    if any(m is None for _, m in plan):  # the non-private reference
        return [(kind, None) for kind, _ in plan if kind != "trend"]
    total = math.fsum(m.epsilon for _, m in plan)
    levels = sum(kind == "test" for kind, _ in plan)
    return _to_total(_plan(total, levels), total)


def stage_cost(kind: str, mechanism) -> PrivacyCost | None:
    """The charge of one stage (None for the non-private ``ε = inf`` search)."""
    if mechanism is None:
        return None
    return mechanism.cost.with_notes(_NOTES[kind])


def segment_scores(y: np.ndarray, min_size: int, order: np.ndarray | None = None):
    """``(ks, E)``: the splits ``min_size..m-min_size`` of ``y`` and ``E(k)`` there.

    ``order``: a stable argsort of ``y`` if known (saves the sort).
    """
    m = y.shape[-1]
    ks = np.arange(min_size, m - min_size + 1, dtype=np.int64)
    return ks, _scores(doubled_counts(y, order)[..., ks], ks, m, min_size)


class _Ranker:
    """Segment scores from one global stable argsort: the stable order of a
    segment is the global one restricted to it (O(n) per segment, no new sort)."""

    def __init__(self, x: np.ndarray, min_size: int):
        self.x, self.min_size = x, min_size
        self.order = np.argsort(x, kind="stable")

    def __call__(self, a: int, b: int):
        """``(ks, E, B)`` of the segment ``x[a:b]``: splits, location and test scores."""
        if a == 0 and b == self.x.size:
            order = self.order
        else:
            order = self.order[(self.order >= a) & (self.order < b)] - a
        m = b - a
        ks = np.arange(self.min_size, m - self.min_size + 1, dtype=np.int64)
        s2 = doubled_counts(self.x[a:b], order)[ks]
        return ks, _scores(s2, ks, m, self.min_size), _test_scores(s2, ks, m)


def _scores(s2: np.ndarray, ks: np.ndarray, m: int, min_size: int) -> np.ndarray:
    """``E(k)`` from the doubled counts ``2 S(k)`` (exact integers until the division)."""
    return (s2 - ks * (m - ks)) / (2.0 * (m - min_size))


def _test_scores(s2: np.ndarray, ks: np.ndarray, m: int) -> np.ndarray:
    """``B(k)`` from the doubled counts: each split normalised by its own sensitivity bound."""
    return (s2 - ks * (m - ks)) / (2.0 * np.maximum(ks, m - ks))


def noisy_test_statistic(y: np.ndarray, min_size: int, direction: str,
                   order: np.ndarray | None = None) -> float:
    """``T``: the largest directed ``B(k)`` over the splits ``min_size..m-min_size``
    (the statistic of the noisy test; ``Δ = 1`` under replace-one neighbours)."""
    m = y.shape[-1]
    ks = np.arange(min_size, m - min_size + 1, dtype=np.int64)
    return float(_directed(_test_scores(doubled_counts(y, order)[ks], ks, m), direction).max())


def _directed(e: np.ndarray, direction: str) -> np.ndarray:
    if direction == "decrease":
        return e
    if direction == "increase":
        return -e
    return np.concatenate([e, -e], axis=-1)


def _alpha_budget(alpha: float) -> int:
    """Simulated permutations: at least ``20/α`` (two standard errors <= 0.45 α),
    at most 50 000."""
    return min(50_000, max(2000, math.ceil(20.0 / alpha)))


def _channel_ranks(rows: int, m: int, rho: float, spread: bool,
                   rng: np.random.Generator) -> np.ndarray:
    """Null channel series as ranks: a stationary Gaussian AR(1) ``z`` of ``m`` values
    (``rho = 0``: a uniform permutation), or ``|Δz|`` of one of ``m + 1`` (spread)."""
    if not spread:
        return ar1_ranks(rows, m, rho, rng)
    e = rng.standard_normal((rows, m + 1))
    if rho:
        e[:, 1:] *= math.sqrt(1.0 - rho * rho)
        e = lfilter([1.0], [1.0, -rho], e, axis=1)
    v = np.abs(np.diff(e, axis=1))
    order = np.argsort(v, axis=1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(m, dtype=np.int64)[None, :], axis=1)
    return ranks


@lru_cache(maxsize=512)
def _null_statistics(m: int, min_size: int, direction: str, n_sim: int,
                     rho: float = 0.0, spread: bool = False) -> np.ndarray:
    """Sorted simulated ``T`` of a channel of ``m`` values (public): the ranks of a
    stationary Gaussian AR(1) with lag-1 correlation ``rho`` (``rho = 0``:
    exchangeable values), or of the absolute increments of one (``spread``)."""
    if m > EXACT_MAX:
        s = max(1, round(min_size * EXACT_MAX / m))
        base = _null_statistics(EXACT_MAX, s, direction, n_sim, rho, spread)
        return base * math.sqrt((m + 1) / (EXACT_MAX + 1))
    seed = ([_CAL_SEED, m, min_size] + ([round(rho * 100)] if rho else [])
            + ([1] if spread else []))
    rng = np.random.default_rng(seed)
    ks = np.arange(min_size, m - min_size + 1, dtype=np.int64)
    idx2 = 2 * np.arange(m, dtype=np.int64)
    out = np.empty(n_sim)
    rows = max(1, _CELLS // m)
    for a in range(0, n_sim, rows):
        b = min(n_sim, a + rows)
        perm = _channel_ranks(b - a, m, rho, spread, rng)
        s2 = np.cumsum(2 * perm - idx2, axis=1)[:, ks - 1]
        out[a:b] = _directed(_test_scores(s2, ks, m), direction).max(axis=1)
    out.sort()
    out.flags.writeable = False
    return out


@lru_cache(maxsize=2048)
def critical_value(m: int, min_size: int, direction: str, alpha: float,
                   noise_scale: float, rho: float = 0.0, spread: bool = False) -> float:
    """``c`` with ``P(T + L > c) <= α`` under "no change" (see the module docstring).

    ``noise_scale`` is the Laplace scale of ``L`` (0: no noise, ``ε = inf``);
    ``rho``: the lag-1 correlation of the AR(1) null (0: exchangeable values);
    ``spread``: the spread channel's null (:mod:`._models`).
    """
    n_sim = _alpha_budget(alpha)
    t = _null_statistics(m, min_size, direction, n_sim, rho, spread)
    target = max(alpha - 2.0 * math.sqrt(alpha * (1 - alpha) / n_sim), alpha / 10)
    if noise_scale == 0:
        return float(t[min(n_sim - 1, math.ceil((1 - target) * n_sim) - 1)])
    b = noise_scale

    def tail(c):
        z = c - t
        sf = np.where(z >= 0, 0.5 * np.exp(-np.abs(z) / b), 1 - 0.5 * np.exp(-np.abs(z) / b))
        return sf.mean()

    lo, hi = float(t[0]), float(t[-1]) + b * (math.log(1 / target) + 1)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if tail(mid) > target else (lo, mid)
    return hi


def check_segmentation(n, n_change_points, max_change_points, min_size, alpha, direction):
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}.")
    if not 0 < alpha < 0.5 + 1e-12:
        raise ValueError(f"alpha must be in (0, 0.5], got {alpha!r}.")
    min_size = default_min_size(n) if min_size is None else int(min_size)
    if min_size < 1:
        raise ValueError(f"min_size must be an int >= 1, got {min_size!r}.")
    need = 2 if n_change_points == "auto" else int(n_change_points) + 1
    if n < need * min_size:
        what = ("one change point" if n_change_points == "auto"
                else f"n_change_points={n_change_points}")
        raise ValueError(f"the series has {n} samples: {what} with segments of at least "
                         f"min_size={min_size} needs at least {need * min_size}; use a longer "
                         "series or a smaller min_size.")
    return min_size


def _decode(index: int, ks: np.ndarray, direction: str):
    names = direction if direction != "both" else ("increase" if index >= ks.size else "decrease")
    return int(ks[index % ks.size]), names


def check_dependence_epsilon(epsilon: float, n_change_points, dependence,
                             series: str = "level") -> None:
    """Refuse, by name and before any charge, an ε whose share would make the
    turning-point count's geometric noise almost always zero (rate above 30)."""
    if not _releases_count(series, dependence) or n_change_points != "auto":
        return
    largest = MAX_GEOMETRIC_EPSILON * TURNING_POINT_SENSITIVITY / DEPENDENCE_SHARE
    if epsilon > largest:
        raise ValueError(
            f"epsilon={epsilon!r} is too large for the turning-point count of "
            f"series={series!r} (dependence={dependence!r}): its share of "
            f"epsilon ({DEPENDENCE_SHARE:g}) would make the noise of the turning-point "
            f"count almost always zero; use epsilon <= {largest:g}, or "
            "series='level' or 'increments' with dependence='none' or a float.")


def public_rho(dependence) -> float:
    """The smallest ``φ`` the tests can be calibrated for, from the parameter alone:
    a float ``dependence`` rounded up to the simulated grid, 0 for ``"none"``,
    :data:`~._dependence.RHO_FLOOR` for ``"estimate"``."""
    if dependence == "estimate":
        return RHO_FLOOR
    if isinstance(dependence, str):
        return 0.0
    return round(math.ceil(float(dependence) / RHO_STEP - 1e-9) * RHO_STEP, 2)


def _releases_count(series: str, dependence) -> bool:
    """Whether the search starts with the turning-point release."""
    return dependence == "estimate" or series == "auto"


def _model(x, plan, series, dependence, rng, charge, report) -> tuple[SeriesModel, list]:
    """The model the tests hold under and the rest of the plan.

    With a release (``"auto"`` or ``dependence="estimate"``) the noisy
    turning-point count chooses the model and/or bounds its dependence
    (post-processing); a public ``dependence`` then still sets the null.
    """
    if not plan or plan[0][0] != "dependence":
        return public_model(series, public_rho(dependence)), plan
    mechanism = plan[0][1]
    charge(stage_cost("dependence", mechanism))
    if mechanism is None:  # the non-private reference: the exact count (fixed tie keys)
        noisy = turning_points(x, np.random.default_rng(_CAL_SEED))
    else:
        count = turning_points(x, rng)
        noisy = int(mechanism.randomise(np.asarray([count]), rng)[0])
    model = choose_model(series, noisy, x.size, mechanism)
    if dependence != "estimate":
        model = SeriesModel(model.name, model.order, public_rho(dependence))
    report.update(noisy_turning_points=noisy)
    plan = plan[1:] if model.name == "level" else _replan(plan[1:])
    return model, plan


def _trend_check(x, cuts, name, mechanism, min_size, rho, rng) -> bool:
    """The trend check of :mod:`._trend` on the segments between ``cuts``."""
    sums, halves = sign_sums(x, cuts, min_size)
    if mechanism is not None:
        sums = mechanism.randomise(sums, rng)
    return is_trend(sums, halves, name == "increase", rho, mechanism)


def _channel_mechanisms(test, locate, model: SeriesModel):
    """Per channel: its noisy test (its share of the level's test ε, its
    sensitivity) and its location mechanism (the level's location ε)."""
    out = []
    for channel, share in zip(channels(model.order), (1 - SPREAD_SHARE, SPREAD_SHARE)):
        if test is None:
            out.append((channel, share, None, None))
            continue
        out.append((channel, share,
                    LaplaceMechanism(test.epsilon * share, channel.sensitivity,
                                     neighbours="replace"),
                    ReportNoisyMax(locate.epsilon, channel.sensitivity, neighbours="replace")))
    return out


def _segment_candidates(x, a, b, mechanisms, model, min_size, alpha, direction, rng):
    """The noisy tests of one segment: ``(margin, kind, name, ks, scores, locate)``
    for each channel that passes (margin in units of its noise scale)."""
    passed = []
    for channel, share, test, locate in mechanisms:
        values = channel.values(x[a:b], model.order)
        m = values.size
        if m < 2 * min_size:
            continue
        way = "both" if channel.spread else direction
        ks = np.arange(min_size, m - min_size + 1, dtype=np.int64)
        s2 = doubled_counts(values)[ks]
        t = float(_directed(_test_scores(s2, ks, m), way).max())
        c = critical_value(m, min_size, way, alpha * share, _scale(test), model.rho,
                           channel.spread)
        noisy = t if test is None else float(test.randomise(t, rng))
        if noisy > c:
            scores = _directed(_scores(s2, ks, m, min_size), way)
            passed.append(((noisy - c) / max(_scale(test), 1.0), channel.kind, way, ks, scores,
                           locate))
    return passed


def _auto(x, plan, min_size, alpha, direction, max_cp, rng, charge, series, dependence,
          report):
    model, plan = _model(x, plan, series, dependence, rng, charge, report)
    report.update(rho=model.rho, series=model.name)
    if math.isinf(model.rho):
        return []  # too persistent for any calibrated test (Notes)
    active, found, stages = [(0, x.size)], [], iter(plan)
    for kind, test in stages:
        if kind == "trend":  # the last stage, after the levels
            break
        _, locate = next(stages)
        active = [(a, b) for a, b in active if b - a >= 2 * min_size + model.order + 1]
        if not active or len(found) >= max_cp:
            break
        charge(stage_cost("test", test))
        mechanisms = _channel_mechanisms(test, locate, model)
        passed = []
        # Bonferroni over the level's segments and channels: P(any false split) <= α
        level_alpha = alpha / len(active)
        for a, b in active:
            candidates = _segment_candidates(x, a, b, mechanisms, model, min_size,
                                             level_alpha, direction, rng)
            if candidates:
                passed.append((a, b, max(candidates, key=lambda c: c[0])))
        if not passed:
            break
        passed.sort(key=lambda p: -p[2][0])
        passed = passed[:max_cp - len(found)]
        charge(stage_cost("location", locate))
        active = []
        for a, b, (_, kind, way, ks, scores, mechanism) in passed:
            index = int(np.argmax(scores)) if mechanism is None else mechanism.select(scores,
                                                                                         rng)
            k, name = _decode(index, ks, way)
            found.append((a + k, name, kind))
            active += [(a, a + k), (a + k, b)]
    check = [m for kind, m in plan if kind == "trend"]
    if check and found and len({(name, kind) for _, name, kind in found}) == 1 \
            and found[0][2] == "level":
        # every change a level change the same way: a staircase, or a trend?
        charge(stage_cost("trend", check[0]))
        if _trend_check(x, sorted(k for k, *_ in found), found[0][1], check[0], min_size,
                        model.rho, rng):
            report.update(series="trend")
            return []
    return found


def _scale(mechanism) -> float:
    return 0.0 if mechanism is None else mechanism.scale


def _capacity(m, min_size):
    return np.maximum(m // min_size - 1, 0)


def _exact_k(x, plan, min_size, direction, rng, charge, order=0):
    """``k`` greedy rounds on ``Δ^order x`` (a value of ``x`` moves ``order + 1`` of its
    values: the location's sensitivity)."""
    kind = channels(order)[0].kind
    if order:
        x = np.diff(x, n=order)
        plan = [(name, None if m is None else ReportNoisyMax(m.epsilon, order + 1,
                                                              neighbours="replace"))
                for name, m in plan]
    segments, found, ranker = [(0, x.size)], [], _Ranker(x, min_size)
    for round_, (_, locate) in enumerate(plan):
        remaining = len(plan) - round_ - 1      # cuts still needed after this one
        total = sum(int(_capacity(b - a, min_size)) for a, b in segments)
        cand_seg, cand_k, cand_score, cand_inc = [], [], [], []
        for j, (a, b) in enumerate(segments):
            m = b - a
            if m < 2 * min_size:
                continue
            ks, e, _ = ranker(a, b)
            room = (_capacity(ks, min_size) + _capacity(m - ks, min_size)
                    + total - _capacity(m, min_size))
            ok = room >= remaining
            ks, e = ks[ok], e[ok]
            for sign, name in ((1.0, "decrease"), (-1.0, "increase")):
                if direction in (name, "both"):
                    cand_seg.append(np.full(ks.size, j))
                    cand_k.append(ks)
                    cand_score.append(sign * e)
                    cand_inc.append(np.full(ks.size, name == "increase"))
        scores = np.concatenate(cand_score)
        if not scores.size:
            break
        charge(stage_cost("location", locate))
        index = int(np.argmax(scores)) if locate is None else locate.select(scores, rng)
        j, k = int(np.concatenate(cand_seg)[index]), int(np.concatenate(cand_k)[index])
        a, b = segments[j]
        found.append((a + k, "increase" if np.concatenate(cand_inc)[index] else "decrease",
                      kind))
        segments[j:j + 1] = [(a, a + k), (a + k, b)]
    return found


def run_segmentation(x: np.ndarray, *, epsilon: float, n_change_points, max_change_points: int,
                     min_size: int, alpha: float, direction: str, rng, charge=None,
                     dependence="none", series: str = "level", report: dict | None = None):
    """The private (or, for ``ε = inf``, exact) search; ``[(index, direction, kind)]``
    sorted.

    ``charge(cost)`` is called right before each stage's releases.
    ``dependence``: ``"none"`` (exchangeable null), ``"estimate"`` (private
    turning-point bound, :mod:`._dependence`) or a public ``φ``; ``series``:
    the model (:mod:`._models`). ``report`` (a dict, optional) receives the
    DP outputs about the model: ``series``, ``rho`` (the ``φ`` of the tested
    series' null; ``inf``: no test) and, when released,
    ``noisy_turning_points``.
    """
    charge = charge if charge is not None else (lambda cost: None)
    report = {} if report is None else report
    if math.isinf(epsilon):
        plan = segmentation_plan(1.0, n_change_points, max_change_points,
                                 dependence=dependence, series=series)
        plan = [(kind, None) for kind, _ in plan]
        charge = (lambda cost: None)
    else:
        plan = segmentation_plan(epsilon, n_change_points, max_change_points, n=x.size,
                                 min_size=min_size, alpha=alpha, direction=direction,
                                 dependence=dependence, series=series)
    if n_change_points == "auto":
        found = _auto(x, plan, min_size, alpha, direction, max_change_points, rng, charge,
                      series, dependence, report)
    else:
        order = public_model(series, 0.0).order
        found = _exact_k(x, plan, min_size, direction, rng, charge, order)
    return sorted(found)


def binary_segmentation(x, *, n_change_points="auto", max_change_points: int = 10,
                        min_size: int | None = None, alpha: float = 0.05,
                        direction: str = "both", dependence="estimate", series: str = "auto",
                        epsilon: float = np.inf, random_state=None) -> np.ndarray:
    """Change points by (private) binary segmentation with the rank statistic.

    The same search as :class:`~skdp_anomaly.PrivateChangePointDetector`
    offline; with the default ``epsilon=np.inf`` it is the **non-private
    reference**: the same test (noiseless, calibrated at level ``alpha`` by
    the same simulation) and exact argmax locations. Finite ``epsilon`` runs
    the private search (ε-DP under replace-one neighbours; no accountant: use
    the estimator for accounted fits).

    Parameters
    ----------
    x : array-like of shape (n,)
        The series (finite values).
    n_change_points : "auto" or int, default="auto"
        ``"auto"``: decided by the rank test at false-alarm level ``alpha``;
        an int ``k >= 1``: exactly ``k``.
    max_change_points : int, default=10
        Upper bound for ``"auto"`` (sets the number of levels).
    min_size : int or None, default=None
        Shortest segment; None: ``default_min_size(n)`` (``max(2, ⌈n/20⌉)``).
    alpha : float, default=0.05
        False-alarm level of each test (``"auto"``).
    direction : {"both", "increase", "decrease"}, default="both"
    dependence : "estimate", "none" or float in [0, 0.95], default="estimate"
        The null of the tests, as for the estimator: ``"estimate"`` bounds
        the serial dependence from the turning points (exactly, without
        noise, for ``epsilon=np.inf``), ``"none"`` assumes exchangeable
        values, a float is a known AR(1) ``φ``.
    series : {"auto", "level", "increments"}, default="auto"
        What is tested, as for the estimator: the levels of the series, its
        increments (changes of slope), or the one the turning points choose.
    epsilon : float, default=np.inf
        ``np.inf``: non-private; else the total ε.
    random_state : None, int or numpy.random.Generator
        Noise source (finite ``epsilon``).

    Returns
    -------
    change_points : ndarray of int64
        Sorted first post-change indices (possibly empty).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.changepoint import binary_segmentation
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(0, 1, 100), rng.normal(3, 1, 100), rng.normal(0, 1, 100)])
    >>> binary_segmentation(x).tolist()
    [100, 200]
    >>> binary_segmentation(rng.normal(size=300)).tolist()
    []
    """
    reject_dask_collection(x, "binary_segmentation")
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or not np.all(np.isfinite(x)):
        raise ValueError("x must be a 1-D series of finite values.")
    if not (isinstance(epsilon, (int, float)) and not isinstance(epsilon, bool) and epsilon > 0):
        raise ValueError(f"epsilon must be a float in the range (0, inf], got {epsilon!r}.")
    if n_change_points != "auto" and not (isinstance(n_change_points, (int, np.integer))
                                          and n_change_points >= 1):
        raise ValueError(f"n_change_points must be 'auto' or an int >= 1, got "
                         f"{n_change_points!r}.")
    min_size = check_segmentation(x.size, n_change_points, max_change_points, min_size, alpha,
                           direction)
    if not (dependence in ("estimate", "none") or (
            isinstance(dependence, (int, float)) and not isinstance(dependence, bool)
            and 0 <= dependence <= MAX_RHO)):
        raise ValueError(f"dependence must be 'estimate', 'none' or a float in [0, {MAX_RHO}], "
                         f"got {dependence!r}.")
    if series not in SERIES:
        raise ValueError(f"series must be one of {SERIES}, got {series!r}.")
    found = run_segmentation(x, epsilon=float(epsilon), n_change_points=n_change_points,
                             max_change_points=int(max_change_points), min_size=min_size,
                             alpha=float(alpha), direction=direction,
                             rng=check_random_state(random_state), dependence=dependence,
                             series=series)
    return np.array([k for k, *_ in found], dtype=np.int64)
