"""Private binary segmentation with the Mann–Whitney rank statistic: several change points, or none.

For a segment of ``m`` points, a split ``k`` and ``s = min_size``, with ``S(k)`` the pair count of
Lut 2022, Eq. (2.1) (ties count 1/2), the location score is
``E(k) = (S(k) - k (m - k)/2) / (m - s)`` (its mean peaks exactly at a single change) and the test
score ``B(k) = (S(k) - k (m - k)/2) / max(k, m - k)`` (``|B| >= |E|``, but flat between the middle
and the change); both have sensitivity 1 under replace-one neighbours. The test releases
``T = max_k B(k)`` with Laplace noise against the simulated public null law of ``T``
(:func:`critical_value`; conservative with ties); ``"auto"`` runs the levels of
:func:`useful_levels` with the ε shares of :func:`level_weights`, testing the segments of the level
before and locating (report-noisy-max over ``±E``) a change in those that pass; an exact ``k`` makes
``k`` greedy report-noisy-max rounds with ``ε/k``. Proofs: :ref:`proofs-changepoint` on
:doc:`/proofs`.
"""

from __future__ import annotations

import math
from functools import lru_cache, partial

import numpy as np

from ..exceptions import naming
from ..privacy import GeometricMechanism, LaplaceMechanism, PrivacyCost, ReportNoisyMax
from ..privacy._mechanisms import MAX_GEOMETRIC_EPSILON
from ..privacy._rng import check_random_state
from ._core import DIRECTIONS
from ._dependence import (
    MAX_RHO,
    RHO_FLOOR,
    RHO_STEP,
    TURNING_POINT_SENSITIVITY,
    ar1_filter,
    ar1_ranks,
    row_ranks,
    turning_points,
)
from ._in_memory import reject_dask_collection
from ._models import SERIES, SeriesModel, channels, choose_model, public_model
from ._statistic import doubled_counts
from ._trend import TREND_SENSITIVITY, TREND_SHARE, is_trend, sign_sums

# every mechanism here holds under replace-one neighbours
_laplace = partial(LaplaceMechanism, neighbours="replace")
_locate = partial(ReportNoisyMax, neighbours="replace")
_geometric = partial(GeometricMechanism, neighbours="replace")

#: Longest segment whose null law is simulated at its own length; longer ones scale it (Donsker).
EXACT_MAX = 1000
_CAL_SEED = 20_221_031  # fixed: the calibration is public and deterministic
_CELLS = 4_000_000  # permutation matrix entries per block

_NOTES = {
    "dependence": "binary segmentation: serial dependence (turning points, geometric, Δ=2)",
    "test": "binary segmentation: noisy rank test (Laplace, Δ=1)",
    "location": "binary segmentation: location (report-noisy-max, Δ=1)",
    "trend": "binary segmentation: trend check (sign counts, geometric, Δ=2)",
}

#: Share of ε spent on the turning-point count (``series="auto"`` or ``dependence="estimate"``).
DEPENDENCE_SHARE = 0.15
#: Share of each level's test ε (and of its ``α``) spent on the spread channel.
SPREAD_SHARE = 1 / 3


def default_min_size(n: int) -> int:
    """``max(2, ⌈n/20⌉)``: segments of at least 5 % of the series (public, from ``n``)."""
    return max(2, -(-int(n) // 20))


def n_levels(max_change_points: int) -> int:
    """``⌈log2(max_change_points + 1)⌉``: levels of binary segmentation."""
    return max(1, math.ceil(math.log2(max_change_points + 1)))


#: Share of each level's ε spent on the tests; the locations get the rest (a real
#: change clears the test long before its location is sharp).
TEST_SHARE = 1 / 3
#: ... and of the first level's: a change in the whole series clears its test by the widest margin.
FIRST_TEST_SHARE = 1 / 4


def level_weights(n_level: int) -> np.ndarray:
    """``ε`` share of each level: halving from one to the next (the first decides alone
    whether anything is reported), normalised."""
    w = 0.5 ** np.arange(1, n_level + 1)
    return w / w.sum()


def useful_levels(
    n: int, epsilon: float, max_change_points: int, min_size: int, alpha: float, direction: str
) -> int:
    """Levels worth their ε (public: ``n``, ε, ``α``, ``min_size``): level ``l`` tests segments of
    about ``m = n / 2^(l-1)`` points at ``α / 2^(l-1)``; a level where a one-sd shift in the middle
    (``B ≈ m/8``) cannot clear the critical value is dropped and its ε goes to the others."""
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
        test, locate = _laplace(eps * share, 1.0), _locate(eps * (1 - share), 1.0)
        plan += [("test", test), ("location", locate)]
    return plan


def _to_total(plan: list, epsilon: float) -> list:
    """``plan`` with its last location taking what the others leave, to the ulp, so that the
    stages compose (math.fsum) to ε exactly where a float can, never more."""
    at = max(i for i, (kind, _) in enumerate(plan) if kind == "location")
    others = [mechanism.epsilon for i, (_, mechanism) in enumerate(plan) if i != at]
    last = epsilon - math.fsum(others)
    while math.fsum(others + [last]) > epsilon:
        last = float(np.nextafter(last, -np.inf))
    up = float(np.nextafter(last, np.inf))
    if math.fsum(others + [up]) <= epsilon:
        last = up
    return plan[:at] + [("location", _locate(last, 1.0))] + plan[at + 1 :]


def _levels_after_model(epsilon: float, levels: int, trend: bool) -> list:
    """The levels' stages after the model's release, then the ``trend`` check, whose ε comes
    out of the locations (the tests keep their power)."""
    plan = _plan(epsilon, levels)
    if not trend:
        return plan
    check = epsilon * TREND_SHARE / (1 - DEPENDENCE_SHARE)
    keep = 1 - check / math.fsum(m.epsilon for kind, m in plan if kind == "location")
    plan = [(kind, m if kind == "test" else _locate(m.epsilon * keep, 1.0)) for kind, m in plan]
    return plan + [("trend", _geometric(check, TREND_SENSITIVITY))]


def segmentation_plan(
    epsilon: float,
    n_change_points,
    max_change_points: int,
    *,
    n: int | None = None,
    min_size: int | None = None,
    alpha: float = 0.05,
    direction: str = "both",
    dependence="none",
    series: str = "level",
) -> list:
    """The stages ``(kind, mechanism)`` in the order they are charged.

    ``kind``: ``"dependence"`` (geometric, turning points, ``Δ = 2``), ``"test"`` (Laplace),
    ``"location"`` (report-noisy-max, both ``Δ = 1``) and last, for ``series="auto"``, ``"trend"``
    (geometric, ``Δ = 2``); all replace-one. With ``n``, ``"auto"`` keeps only the
    :func:`useful_levels`. The total is ε; this plan (with the trend check) is the one priced.
    """
    if n_change_points == "auto":
        levels = n_levels(max_change_points)
        if n is not None:
            # the same levels with or without the dependence stage: a clear change
            # deep down is as worth finding when some of ε went to the dependence
            levels = useful_levels(n, epsilon, max_change_points, min_size, alpha, direction)
        if not _releases_count(series, dependence):
            return _plan(epsilon, levels)
        count = _geometric(epsilon * DEPENDENCE_SHARE, TURNING_POINT_SENSITIVITY)
        rest = _levels_after_model(epsilon * (1 - DEPENDENCE_SHARE), levels, series == "auto")
        return _to_total([("dependence", count)] + rest, epsilon)
    k = int(n_change_points)
    return [("location", _locate(epsilon / k, 1.0))] * k


def _replan(plan: list) -> list:
    """The post-release stages without the trend check, its ε spread over the levels (same
    total; choosing from a DP output is adaptive composition)."""
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
    """``(ks, E)``: the splits ``min_size..m-min_size`` of ``y`` and ``E(k)`` there; ``order``: a
    stable argsort of ``y`` if known (saves the sort)."""
    m = y.shape[-1]
    ks = np.arange(min_size, m - min_size + 1, dtype=np.int64)
    return ks, _scores(doubled_counts(y, order)[..., ks], ks, m, min_size)


class _Ranker:
    """Segment scores from one global stable argsort: the stable order of a segment is the
    global one restricted to it (O(n) per segment, no new sort)."""

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


def noisy_test_statistic(
    y: np.ndarray, min_size: int, direction: str, order: np.ndarray | None = None
) -> float:
    """``T``: the largest directed ``B(k)`` over the splits ``min_size..m-min_size`` (the
    statistic of the noisy test; ``Δ = 1`` under replace-one neighbours)."""
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
    """Simulated permutations: at least ``20/α`` (two standard errors <= 0.45 α), at most 50 000."""
    return min(50_000, max(2000, math.ceil(20.0 / alpha)))


def _channel_ranks(
    rows: int, m: int, rho: float, spread: bool, rng: np.random.Generator
) -> np.ndarray:
    """Null channel series as ranks: a stationary Gaussian AR(1) ``z`` of ``m`` values
    (``rho = 0``: a uniform permutation), or ``|Δz|`` of one of ``m + 1`` (spread)."""
    if not spread:
        return ar1_ranks(rows, m, rho, rng)
    e = rng.standard_normal((rows, m + 1))
    z = ar1_filter(e, rho) if rho else e
    return row_ranks(np.abs(np.diff(z, axis=1)))


@lru_cache(maxsize=512)
def _null_statistics(
    m: int, min_size: int, direction: str, n_sim: int, rho: float = 0.0, spread: bool = False
) -> np.ndarray:
    """Sorted simulated ``T`` of a channel of ``m`` values (public): ranks of an AR(1) with
    lag-1 correlation ``rho`` (0: exchangeable), or of its ``|Δz|`` (``spread``)."""
    if m > EXACT_MAX:
        s = max(1, round(min_size * EXACT_MAX / m))
        base = _null_statistics(EXACT_MAX, s, direction, n_sim, rho, spread)
        return base * math.sqrt((m + 1) / (EXACT_MAX + 1))
    seed = [_CAL_SEED, m, min_size] + ([round(rho * 100)] if rho else []) + ([1] if spread else [])
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
def critical_value(
    m: int, min_size: int, direction: str, alpha: float, noise_scale: float, rho=0.0, spread=False
) -> float:
    """``c`` with ``P(T + L > c) <= α`` under "no change": the exact tail of the Laplace ``L``
    (scale ``noise_scale``, 0: ``ε = inf``) over the simulated ``T`` (AR(1) null ``rho``), at ``α``
    less two Monte Carlo standard errors."""
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
        raise naming(ValueError, f"`direction` must be one of {DIRECTIONS}, got {direction!r}.")
    if not 0 < alpha < 0.5 + 1e-12:
        raise naming(ValueError, f"`alpha` must be in (0, 0.5], got {alpha!r}.")
    min_size = default_min_size(n) if min_size is None else int(min_size)
    if min_size < 1:
        raise naming(ValueError, f"`min_size` must be an int >= 1, got {min_size!r}.")
    auto = n_change_points == "auto"
    need = 2 if auto else int(n_change_points) + 1
    if n < need * min_size:
        what = "one change point" if auto else f"`n_change_points={n_change_points}`"
        raise naming(
            ValueError,
            f"the series has {n} samples: {what} with segments of at least "
            f"`min_size={min_size}` needs at least {need * min_size}; use a longer "
            "series or a smaller `min_size`.",
        )
    return min_size


def _is_real(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _decode(index: int, ks: np.ndarray, direction: str):
    names = direction if direction != "both" else ("increase" if index >= ks.size else "decrease")
    return int(ks[index % ks.size]), names


def check_dependence_epsilon(
    epsilon: float, n_change_points, dependence, series: str = "level"
) -> None:
    """Refuse, by name and before any charge, an ε whose share would make the turning-point
    count's geometric noise almost always zero (rate above 30)."""
    if not _releases_count(series, dependence) or n_change_points != "auto":
        return
    largest = MAX_GEOMETRIC_EPSILON * TURNING_POINT_SENSITIVITY / DEPENDENCE_SHARE
    if epsilon > largest:
        raise naming(
            ValueError,
            f"`epsilon={epsilon!r}` is too large for the turning-point count of "
            f"`series={series!r}` (`dependence={dependence!r}`): its share of "
            f"epsilon ({DEPENDENCE_SHARE:g}) would make the noise of the turning-point "
            f"count almost always zero; use `epsilon` <= {largest:g}, or "
            "`series='level' or 'increments'` with `dependence='none'` or a float.",
        )


def public_rho(dependence) -> float:
    """The smallest ``φ`` the tests can be calibrated for, from the parameter alone: a float
    ``dependence`` rounded up to the simulated grid, 0 for ``"none"``,
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
    """The model the tests hold under and the rest of the plan; with a release, the noisy
    turning-point count chooses and bounds it (post-processing)."""
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
    """Per channel: its noisy test (its share of the level's test ε, its sensitivity) and
    its location mechanism (the level's location ε)."""
    out = []
    for channel, share in zip(channels(model.order), (1 - SPREAD_SHARE, SPREAD_SHARE)):
        sens, mechanisms = channel.sensitivity, (None, None)
        if test is not None:
            mechanisms = (_laplace(test.epsilon * share, sens), _locate(locate.epsilon, sens))
        out.append((channel, share, *mechanisms))
    return out


def _segment_candidates(x, a, b, mechanisms, model, min_size, alpha, direction, rng):
    """The noisy tests of one segment: ``(margin, kind, name, ks, scores, locate)`` for each
    channel that passes (margin in units of its noise scale)."""
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
        c = critical_value(m, min_size, way, alpha * share, _scale(test), model.rho, channel.spread)
        noisy = t if test is None else float(test.randomise(t, rng))
        if noisy > c:
            margin = (noisy - c) / max(_scale(test), 1.0)
            scores = _directed(_scores(s2, ks, m, min_size), way)
            passed.append((margin, channel.kind, way, ks, scores, locate))
    return passed


def _auto(x, plan, min_size, alpha, direction, max_cp, rng, charge, series, dependence, report):
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
            candidates = _segment_candidates(
                x, a, b, mechanisms, model, min_size, level_alpha, direction, rng
            )
            if candidates:
                passed.append((a, b, max(candidates, key=lambda c: c[0])))
        if not passed:
            break
        passed.sort(key=lambda p: -p[2][0])
        passed = passed[: max_cp - len(found)]
        charge(stage_cost("location", locate))
        active = []
        for a, b, (_, kind, way, ks, scores, mechanism) in passed:
            index = int(np.argmax(scores)) if mechanism is None else mechanism.select(scores, rng)
            k, name = _decode(index, ks, way)
            found.append((a + k, name, kind))
            active += [(a, a + k), (a + k, b)]
    check = [m for kind, m in plan if kind == "trend"]
    one_way = found and len({(name, kind) for _, name, kind in found}) == 1
    if check and one_way and found[0][2] == "level":
        # every change a level change the same way: a staircase, or a trend?
        charge(stage_cost("trend", check[0]))
        cuts = sorted(k for k, *_ in found)
        if _trend_check(x, cuts, found[0][1], check[0], min_size, model.rho, rng):
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
        plan = [(name, None if m is None else _locate(m.epsilon, order + 1)) for name, m in plan]
    segments, found, ranker = [(0, x.size)], [], _Ranker(x, min_size)
    for round_, (_, locate) in enumerate(plan):
        remaining = len(plan) - round_ - 1  # cuts still needed after this one
        total = sum(int(_capacity(b - a, min_size)) for a, b in segments)
        cand_seg, cand_k, cand_score, cand_inc = [], [], [], []
        for j, (a, b) in enumerate(segments):
            m = b - a
            if m < 2 * min_size:
                continue
            ks, e, _ = ranker(a, b)
            room = _capacity(ks, min_size) + _capacity(m - ks, min_size) - _capacity(m, min_size)
            ok = room + total >= remaining
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
        found.append((a + k, "increase" if np.concatenate(cand_inc)[index] else "decrease", kind))
        segments[j : j + 1] = [(a, a + k), (a + k, b)]
    return found


def run_segmentation(
    x: np.ndarray,
    *,
    epsilon: float,
    n_change_points,
    max_change_points: int,
    min_size: int,
    alpha: float,
    direction: str,
    rng,
    charge=None,
    dependence="none",
    series: str = "level",
    report: dict | None = None,
):
    """The private (or, for ``ε = inf``, exact) search: ``[(index, direction, kind)]``.
    ``charge(cost)`` runs right before each stage's releases; ``report`` (a dict) receives the
    model's DP outputs ``series``, ``rho`` (``inf``: no test) and ``noisy_turning_points``."""
    charge = charge if charge is not None else (lambda cost: None)
    report = {} if report is None else report
    model = dict(dependence=dependence, series=series)
    if math.isinf(epsilon):
        plan = segmentation_plan(1.0, n_change_points, max_change_points, **model)
        plan = [(kind, None) for kind, _ in plan]
        charge = lambda cost: None
    else:
        sizes = dict(n=x.size, min_size=min_size, alpha=alpha, direction=direction)
        plan = segmentation_plan(epsilon, n_change_points, max_change_points, **sizes, **model)
    if n_change_points == "auto":
        settings = (min_size, alpha, direction, max_change_points, rng, charge, series, dependence)
        found = _auto(x, plan, *settings, report)
    else:
        order = public_model(series, 0.0).order
        found = _exact_k(x, plan, min_size, direction, rng, charge, order)
    return sorted(found)


def binary_segmentation(
    x,
    *,
    n_change_points="auto",
    max_change_points: int = 10,
    min_size: int | None = None,
    alpha: float = 0.05,
    direction: str = "both",
    dependence="estimate",
    series: str = "auto",
    epsilon: float = np.inf,
    random_state=None,
) -> np.ndarray:
    """Change points by (private) binary segmentation with the rank statistic.

    The offline search of :class:`~skdp_anomaly.PrivateChangePointDetector`.
    With the default ``epsilon=np.inf`` it is the **non-private reference**
    (noiseless test calibrated at ``alpha``, exact argmax locations); a finite
    ``epsilon`` is ε-DP under replace-one neighbours, without accountant.

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
        The tests' null, as for the estimator: ``"estimate"`` bounds it from
        the turning points (exactly for ``epsilon=np.inf``), ``"none"``:
        exchangeable values, a float: a known AR(1) ``φ``.
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
    if not (_is_real(epsilon) and epsilon > 0):
        raise naming(
            ValueError, f"`epsilon` must be a float in the range (0, inf], got {epsilon!r}."
        )
    n_cp = n_change_points
    if n_cp != "auto" and not (isinstance(n_cp, (int, np.integer)) and n_cp >= 1):
        raise naming(ValueError, f"`n_change_points` must be 'auto' or an int >= 1, got {n_cp!r}.")
    min_size = check_segmentation(x.size, n_cp, max_change_points, min_size, alpha, direction)
    named = dependence in ("estimate", "none")
    if not (named or (_is_real(dependence) and 0 <= dependence <= MAX_RHO)):
        raise naming(
            ValueError,
            f"`dependence` must be 'estimate', 'none' or a float in [0, {MAX_RHO}], "
            f"got {dependence!r}.",
        )
    if series not in SERIES:
        raise naming(ValueError, f"`series` must be one of {SERIES}, got {series!r}.")
    search = dict(n_change_points=n_cp, max_change_points=int(max_change_points), min_size=min_size)
    search.update(alpha=float(alpha), direction=direction, dependence=dependence, series=series)
    rng = check_random_state(random_state)
    found = run_segmentation(x, epsilon=float(epsilon), rng=rng, **search)
    return np.array([k for k, *_ in found], dtype=np.int64)
