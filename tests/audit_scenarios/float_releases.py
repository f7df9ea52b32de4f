"""The floating-point attack on the package's real-valued releases, before and after the fix.

A review attacked three releases with the floating-point attack (Mironov
2012) and found ε ≥ 7 where 1 was claimed: DPSMOTE's class sums (the
Gaussian synopsis), DPOAD's prediction-phase release, and NoisyGroupSearch's
:class:`~skdp_anomaly.group_search.MaxSensor`. Each now releases on a
power-of-two grid with discrete Laplace noise
(:class:`~skdp_anomaly.privacy.LaplaceMechanism`). Each scenario here holds
both versions on the same worst-case neighbours: ``before``, the removed
textbook code ``x + rng.laplace(0, Δ/ε)`` (kept in this module only, as the
attack's reference), and ``after``, the package's current code path, plus
the attacker's model of each (:func:`laplace_reachable`,
:func:`grid_reachable`) and a tail event that makes the ordinary Laplace
bound tight, so that the fixed release must come close to its claim.

Shared by ``tests/test_float_attack_releases.py`` and
``benchmarks/bench_float_attack.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from skdp_anomaly.active_learning._ftrl import FtrlState, gradient_sensitivity, released_size
from skdp_anomaly.auditing import AuditResult, floating_point_audit
from skdp_anomaly.auditing._float_attack import grid_reachable, laplace_reachable
from skdp_anomaly.dpoad import DPOAD, window_histogram
from skdp_anomaly.group_search import MaxSensor
from skdp_anomaly.group_search._sensors import _half_maxima
from skdp_anomaly.over_sampling._release import fixed_to_float, sum_mechanism
from skdp_anomaly.over_sampling._statistics import BoxScale, unit_fixed_sum
from skdp_anomaly.privacy import LaplaceMechanism

from .dpoad import AUDIT_BINS, AUDIT_CELL

__all__ = ["ReleaseAttackScenario", "release_attack_scenarios", "run_release_attack"]

#: DPSMOTE: d features with public bounds ±6, 40 minority rows
_SUM_D, _SUM_BOUND, _SUM_ROWS = 4, 6.0, 40
#: DPOAD: the public count cap, the windows run before the audit, records per window
_DPOAD_MAX_COUNT, _DPOAD_WINDOWS, _DPOAD_RECORDS = 100, 3, 160
#: the seed of the owner's sensitivity sampling: the same Δ in every audited release
_DPOAD_SAMPLE_SEED = 7
#: MaxSensor: t_ℓ, and the queried half's scores (the anomaly, 3.0 > t_ℓ, first)
_SENSOR_LOW = 1.0
_SENSOR_INSIDE = (3.0, 0.2, 0.9, 0.4)
#: PrivateOnlineActiveSVC: features and rows of one gradient window
_SVC_D, _SVC_ROWS = 2, 12


def _removed_textbook_laplace(values, scale: float, rng: np.random.Generator, n: int) -> np.ndarray:
    """The removed code path, ``values + rng.laplace(0, scale)``: for audits only.

    The attack's reference: ``n`` releases of ``values`` exactly as the
    package made them before the float-safe grid (one draw per coordinate,
    in order, so the stream matches ``n`` calls of the old code). Its low-
    order bits reveal ``values``; never release data with it.
    """
    values = np.asarray(values, dtype=np.float64)
    return values + rng.laplace(0.0, scale, size=(n,) + values.shape)


@dataclass(frozen=True)
class ReleaseAttackScenario:
    """One release of the package, as it was and as it is, on worst-case neighbours.

    Attributes
    ----------
    name : str
        The release, in words.
    inputs : tuple
        The neighbouring inputs ``(A, B)`` of both releases.
    before : callable
        ``before(x, rng, n)``: ``n`` outputs of the removed textbook release
        ``statistic(x) + rng.laplace(0, Δ/ε)``.
    after : callable
        ``after(x, rng, n)``: ``n`` outputs of the package's current code path.
    reachable_before : callable
        ``reachable_before(outputs, x)``: whether each coordinate can come
        from ``x`` under ``before`` (:func:`laplace_reachable` at its scale).
    reachable_after : callable
        The same for ``after`` (:func:`grid_reachable` at its granularity).
    tail : dict
        Event name -> callable on the outputs, fixed in advance, on which
        the Laplace part's likelihood ratio is exactly ``e^ε``.
    claimed_epsilon : float
        The ε both releases claim for these neighbours.
    relation : str, default=""
        The neighbouring relation of the pair, in words.

    Examples
    --------
    >>> from audit_scenarios.float_releases import release_attack_scenarios
    >>> [s.name for s in release_attack_scenarios(1.0)]  # doctest: +NORMALIZE_WHITESPACE
    ['DPSMOTE class sums (d=4)', 'DPOAD prediction release',
     'NoisyGroupSearch MaxSensor', 'PrivateOnlineActiveSVC window sums (d=2)']
    """

    name: str
    inputs: tuple
    before: Callable
    after: Callable
    reachable_before: Callable
    reachable_after: Callable
    tail: dict
    claimed_epsilon: float
    relation: str = field(default="")


def _dpsmote_sums(epsilon: float) -> ReleaseAttackScenario:
    box = BoxScale(np.full(_SUM_D, -_SUM_BOUND), np.full(_SUM_D, _SUM_BOUND))
    minority = np.random.default_rng(2012).uniform(-_SUM_BOUND, _SUM_BOUND, (_SUM_ROWS, _SUM_D))
    # a record at the box's corner moves every coordinate by 1: the whole L1 sensitivity d
    inputs = (minority, np.vstack([minority, np.full(_SUM_D, _SUM_BOUND)]))
    mech, old_scale = sum_mechanism(epsilon, _SUM_D), _SUM_D / epsilon

    def float_sum(X):  # the old code's input: the exact sums as floats
        return fixed_to_float(unit_fixed_sum(X, box))

    larger = float_sum(inputs[1])

    def after(X, rng, n):  # release_means' noisy sums (its division is post-processing)
        return fixed_to_float(mech.randomise_steps(np.tile(unit_fixed_sum(X, box), (n, 1)), rng))

    return ReleaseAttackScenario(
        f"DPSMOTE class sums (d={_SUM_D})",
        inputs,
        lambda X, rng, n: _removed_textbook_laplace(float_sum(X), old_scale, rng, n),
        after,
        lambda y, X: laplace_reachable(y, float_sum(X), old_scale),
        lambda y, X: grid_reachable(y, mech.granularity),
        # each coordinate: P(Lap(d/ε) >= 0) / P(Lap(d/ε) >= 1) = e^(ε/d); d of them: e^ε
        {"every coordinate >= the larger sum": lambda out: (out >= larger).all(axis=1)},
        epsilon,
        "add/remove one minority row; the row at the corner moves all d sums by 1",
    )


def _dpoad_owner(epsilon: float):
    """A real DPOAD run into its prediction phase, and one more window's counts."""
    # the paper's analyst (KSE feedback): the scenario and its recorded Δ are the paper's
    det = DPOAD(
        AUDIT_BINS,
        epsilon=epsilon,
        mechanism="dpoad",
        detector="kse",
        max_count=_DPOAD_MAX_COUNT,
        learning_windows=1,
        random_state=0,
    )
    records = np.random.default_rng(0)
    for _ in range(_DPOAD_WINDOWS):
        det.partial_fit(records.uniform(0.0, 1.0, _DPOAD_RECORDS))
    window = records.uniform(0.0, 1.0, _DPOAD_RECORDS)
    return det.owner_, np.minimum(window_histogram(window, AUDIT_BINS), _DPOAD_MAX_COUNT)


def _dpoad_prediction(epsilon: float) -> ReleaseAttackScenario:
    owner, counts = _dpoad_owner(epsilon)

    def g(c):
        return owner.feedback.g(c, _DPOAD_MAX_COUNT)

    def release(c, rng):
        # a fresh sampling stream per release: the owner draws the same Δ every
        # time, so that both versions add noise of one known scale
        sampling = np.random.default_rng(_DPOAD_SAMPLE_SEED)
        return owner._release_prediction(c, _DPOAD_MAX_COUNT, sampling, rng)

    sensitivity = release(counts, np.random.default_rng(0)).sensitivity
    # one contributor's cell removed vs holding g⁻¹(Δ) records: g moves by exactly Δ
    inputs = (counts.copy(), counts.copy())
    inputs[0][AUDIT_CELL] = 0
    inputs[1][AUDIT_CELL] = round(sensitivity * _DPOAD_MAX_COUNT)
    larger = float(g(inputs[1])[AUDIT_CELL])
    old_scale = sensitivity / epsilon
    granularity = LaplaceMechanism(epsilon, sensitivity).granularity
    return ReleaseAttackScenario(
        "DPOAD prediction release",
        inputs,
        lambda c, rng, n: _removed_textbook_laplace(g(c), old_scale, rng, n),
        lambda c, rng, n: release(np.tile(c, (n, 1)), rng).values,
        lambda y, c: laplace_reachable(y, g(c), old_scale),
        lambda y, c: grid_reachable(y, granularity),
        {f"cell {AUDIT_CELL} >= g(larger count)": lambda out: out[:, AUDIT_CELL] >= larger},
        epsilon,
        f"one count cell of {len(counts)}: 0 vs {inputs[1][AUDIT_CELL]} records "
        f"(g moves by the learnt Δ = {sensitivity:g}); max_count={_DPOAD_MAX_COUNT}",
    )


def _max_sensor(epsilon: float) -> ReleaseAttackScenario:
    half = len(_SENSOR_INSIDE)
    mask = np.arange(2 * half) < half
    # anomaly-restricted neighbours: the anomaly stays, one outside score 0 -> t_ℓ
    inputs = (np.array(_SENSOR_INSIDE + (0.0,) * half), np.array(_SENSOR_INSIDE + (0.0,) * half))
    inputs[1][-1] = _SENSOR_LOW

    def maxima(scores):
        return np.array(_half_maxima(scores, mask))

    old_scale = _SENSOR_LOW / epsilon
    granularity = LaplaceMechanism(epsilon, _SENSOR_LOW).granularity

    def after(scores, rng, n):  # the sensor's public query, one answer per run
        sensor = MaxSensor(scores, _SENSOR_LOW, epsilon, rng)
        return np.array([sensor.query(mask) for _ in range(n)])

    return ReleaseAttackScenario(
        "NoisyGroupSearch MaxSensor",
        inputs,
        lambda s, rng, n: _removed_textbook_laplace(maxima(s), old_scale, rng, n),
        after,
        lambda y, s: laplace_reachable(y, maxima(s), old_scale),
        lambda y, s: grid_reachable(y, granularity),
        {"outside max >= t_l": lambda out: out[:, 1] >= _SENSOR_LOW},
        epsilon,
        f"anomaly-restricted: the anomaly stays, one non-anomalous score outside "
        f"the queried half goes from 0 to t_l = {_SENSOR_LOW:g}",
    )


class _Noiseless:
    """A grid mechanism's granularity with zero noise: reads a release's exact steps."""

    def __init__(self, mech: LaplaceMechanism):
        self.granularity = mech.granularity

    @staticmethod
    def noise_steps(size, rng) -> np.ndarray:
        return np.zeros(size, np.int64)


def _online_svc_window(epsilon: float) -> ReleaseAttackScenario:
    d, norm = _SVC_D, 1.0
    rows = np.random.default_rng(2016).uniform(-0.4, 0.4, (_SVC_ROWS, d))
    rows[0] = np.full(d, norm / np.sqrt(d))  # on the sphere: the whole sensitivity
    base = np.where(np.arange(_SVC_ROWS) % 2 == 0, 1.0, -1.0)
    # replace one element: the first row's label +1 vs -1 (both sums and the count move)
    inputs = (base.copy(), base.copy())
    inputs[1][0] = -1.0
    sensitivity = gradient_sensitivity(d, norm)
    mech = LaplaceMechanism(
        epsilon, sensitivity, neighbours="replace", coordinates=released_size(d)
    )

    def exact(signs):  # the old code's input: the window's statistic as floats
        positive = signs > 0
        return np.concatenate(
            [
                rows[positive].sum(axis=0),
                rows[~positive].sum(axis=0),
                [norm * np.count_nonzero(positive)],
            ]
        )

    def after(signs, rng, n):  # the estimator's release (w = 0: every hinge active)
        # the window's statistic in grid steps, by the estimator's own code (a fresh
        # state whose mechanism adds no noise); then n independent releases of it,
        # leaf + the mechanism's integer noise, as release_gradient adds it
        state = FtrlState(d, 0)
        state.release_gradient(rows, signs, np.zeros(d), 0.0, norm, _Noiseless(mech), True, rng)
        return (state.first + mech.noise_steps((n, released_size(d)), rng)) * mech.granularity

    a = exact(inputs[0])
    # A's positive sums and count lie above B's, its negative sums below, each by a
    # share of Δ adding up to Δ: the event "every coordinate beyond A's value, on
    # A's side" has likelihood ratio e^ε
    above = np.r_[np.ones(d, bool), np.zeros(d, bool), True]
    return ReleaseAttackScenario(
        f"PrivateOnlineActiveSVC window sums (d={d})",
        inputs,
        lambda sg, rng, n: _removed_textbook_laplace(exact(sg), sensitivity / epsilon, rng, n),
        after,
        lambda y, sg: laplace_reachable(y, exact(sg), sensitivity / epsilon),
        lambda y, sg: grid_reachable(y, mech.granularity),
        {
            "every coordinate beyond A's, on A's side": lambda out: np.all(
                np.where(above, out >= a, out <= a), axis=1
            )
        },
        epsilon,
        "replace one stream element: the label of a row on the sphere flips, "
        "moving both class sums and the positive count",
    )


def release_attack_scenarios(epsilon: float = 1.0) -> list[ReleaseAttackScenario]:
    """The releases the floating-point attack broke, and a newer one, before and after.

    Parameters
    ----------
    epsilon : float, default=1.0
        The ε each release is built with (DPOAD's owner learns its feedback
        at this ε too).

    Returns
    -------
    list of ReleaseAttackScenario
        DPSMOTE's class sums (``d = 4``, bounds ±6; a row at the box's
        corner added; ``after`` is ``release_means``' noisy sums, before its
        division by the class size), DPOAD's prediction-phase release (a
        real run's owner and feedback; ``after`` is the owner's
        ``_release_prediction`` with its Δ draw pinned to one seed; one cell
        from 0 to ``g⁻¹(Δ)`` records) and
        :class:`~skdp_anomaly.group_search.MaxSensor`'s two noisy maxima
        (one query of a search, at its per-query ``query_epsilon_``; one
        outside score from 0 to ``t_ℓ``), and one gradient window's
        release of :class:`~skdp_anomaly.PrivateOnlineActiveSVC` (``d = 2``,
        12 rows; the label of a row on the sphere flips).

    Notes
    -----
    The tail events are fixed in advance and attain ``e^ε`` for Laplace
    noise of scale ``Δ/ε``: for the sums, each of the ``d`` coordinates of
    the larger neighbour ``b`` exceeds the smaller one's by 1, and
    ``P(Y_j >= b_j | b) / P(Y_j >= b_j | b - 1) = (1/2) / (e^(-ε/d) / 2) =
    e^(ε/d)``; the coordinates are independent, so "every ``Y_j >= b_j``"
    has ratio ``e^ε`` (and probability 1/16 on ``b``). For the two scalar
    moves by Δ, "``Y >= b``" has ratio ``e^ε`` and probability 1/2. The grid
    mechanism's ratio on the same events is ``e^(ε (1 - O(2^-20)))``.

    References
    ----------
    .. [1] I. Mironov, "On significance of the least significant bits for
       differential privacy", ACM CCS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from audit_scenarios.float_releases import release_attack_scenarios
    >>> sums = release_attack_scenarios(1.0)[0]
    >>> sums.after(sums.inputs[0], np.random.default_rng(0), 3).shape
    (3, 4)
    """
    return [
        _dpsmote_sums(epsilon),
        _dpoad_prediction(epsilon),
        _max_sensor(epsilon),
        _online_svc_window(epsilon),
    ]


def run_release_attack(
    scenario: ReleaseAttackScenario,
    which: str = "before",
    n_runs: int = 10_000,
    *,
    random_state=0,
    confidence: float = 0.95,
) -> AuditResult:
    """Audit one version of a release with the floating-point attack.

    Parameters
    ----------
    scenario : ReleaseAttackScenario
        The release, its neighbours, models and tail events.
    which : {"before", "after"}, default="before"
        The removed textbook release or the current one.
    n_runs : int, default=10_000
        Runs per input.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the audit's draws.
    confidence : float, default=0.95
        The bound holds with this probability.

    Returns
    -------
    AuditResult
        The lower bound on ε; ``extras`` holds ``which``, the ``relation``
        and the fractions of runs that tell the neighbours apart
        (``unreachable_from_b``: outputs on A that B cannot produce, and
        ``unreachable_from_a``).

    Examples
    --------
    >>> from audit_scenarios.float_releases import release_attack_scenarios, run_release_attack
    >>> sensor = release_attack_scenarios(1.0)[2]
    >>> before = run_release_attack(sensor, "before", n_runs=2_000)
    >>> after = run_release_attack(sensor, "after", n_runs=2_000)
    >>> bool(before.epsilon_lower_bound > 3), bool(after.epsilon_lower_bound <= 1.0)
    (True, True)
    >>> after.extras["unreachable_from_b"]
    0.0
    """
    if which not in ("before", "after"):
        raise ValueError(f"which must be 'before' or 'after', got {which!r}.")
    result = floating_point_audit(
        getattr(scenario, which),
        scenario.inputs,
        getattr(scenario, f"reachable_{which}"),
        tail=scenario.tail,
        n_runs=n_runs,
        confidence=confidence,
        random_state=random_state,
        claimed_epsilon=scenario.claimed_epsilon,
    )
    counts = {row["event"]: row for row in result.rows}
    result.name = f"{scenario.name} ({which})"
    result.extras.update(
        which=which,
        relation=scenario.relation,
        unreachable_from_b=counts["unreachable from B"]["count_a"] / n_runs,
        unreachable_from_a=counts["unreachable from A"]["count_b"] / n_runs,
    )
    return result
