"""Audit scenarios for the private choice of :mod:`skdp_anomaly.model_selection`.

The searches' claimed cost is the candidates' fits plus the choice. To audit
the choice alone, the candidates here learn nothing: a
:class:`DeclaredCostClassifier` predicts a constant class given by a
parameter and *declares* a pure ε it never spends. The budget validator
prices it at that ε, so the search draws its noise exactly as for a real
private candidate of that cost, while the only privacy loss left in a fit is
the choice's. Candidate ``c`` ("predict ``c``") scores the number of
validation records labelled ``c``; neighbouring datasets (replace one record:
the same row with its label flipped) move one candidate's count down and the
other's up.

Every scenario runs :meth:`PrivateGridSearchCV.fit` itself, one fit per run,
and fixes its neighbouring pair and events in advance (they were chosen from
the exact output distributions of :func:`exact_distribution`, never from
draws). :func:`exact_distribution` is the reference the tests compare the
empirical frequencies with: the distribution the documented rule implies
(Papernot and Steinke's best-of-``K`` closed form through the probability
generating function of ``D_{η,γ}``; the difference of two discrete Laplace
variables for report-noisy-max), computed without running the search (it
shares only the γ solver of ``_repetitions`` and the mechanism's grid).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import KFold, check_cv
from sklearn.utils._param_validation import Interval

from skdp_anomaly.auditing import AuditResult, audit
from skdp_anomaly.budget import check_privacy_budget
from skdp_anomaly.model_selection import PrivateGridSearchCV
from skdp_anomaly.model_selection._repetitions import tnb_gamma_for_mean
from skdp_anomaly.privacy import PrivacyCost, PrivacyCostMixin, ReportNoisyMax

__all__ = [
    "NO_SCORE",
    "DeclaredCostClassifier",
    "SelectionScenario",
    "claimed_epsilon",
    "exact_distribution",
    "exact_event_probabilities",
    "run_selection_scenario",
    "selection_outputs",
    "selection_scenarios",
    "score_scenarios",
]

#: The count column of an output without a released score (the noisy-max rules).
NO_SCORE = np.iinfo(np.int64).min


class DeclaredCostClassifier(PrivacyCostMixin, ClassifierMixin, BaseEstimator):
    """Audit instrument: predicts the class ``label`` and declares a cost it does not spend.

    Its fit reads nothing, so it is 0-DP; :meth:`privacy_cost` states
    ``epsilon`` (pure, replace-one neighbours), which the budget validator
    charges and a search sizes its noise by. Not for use on data.

    Parameters
    ----------
    label : int, default=0
        The class predicted for every row; ``-1``: the first feature of the
        row, as an int (a candidate that can be right on every class).
    epsilon : float, default=1.0
        The declared ε, ``>= 0`` (0: a free candidate).

    Examples
    --------
    >>> import numpy as np
    >>> from audit_scenarios.selection import DeclaredCostClassifier
    >>> clf = DeclaredCostClassifier(label=1, epsilon=0.5).fit(np.zeros((3, 1)), [0, 0, 1])
    >>> clf.predict(np.zeros((2, 1))).tolist(), float(clf.privacy_cost().epsilon)
    ([1, 1], 0.5)
    """

    _parameter_constraints: dict = {
        "label": [Integral],
        "epsilon": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, label=0, epsilon=1.0):
        self.label = label
        self.epsilon = epsilon

    def _privacy_cost(self) -> PrivacyCost:
        return PrivacyCost.pure(float(self.epsilon), neighbours="replace")

    def fit(self, X, y, classes=None):
        """Learn nothing: the classes are ``classes`` (the public label set) or ``[0, 1]``."""
        self.classes_ = np.array([0, 1]) if classes is None else np.asarray(classes)
        self._fitted = True
        return self

    def predict(self, X):
        """The constant ``label`` for every row (the first feature with ``label=-1``)."""
        if self.label == -1:
            return np.asarray(X)[:, 0].astype(np.int64)
        return np.full(len(X), self.label)


@dataclass(frozen=True)
class SelectionScenario:
    """One audit of a search's choice: the search, a neighbouring pair, events, claim.

    Attributes
    ----------
    name : str
        Label of the rule and setting.
    search : PrivateGridSearchCV
        Unfitted; its ``random_state`` is replaced by the audit's generator.
    X : ndarray
        The rows (shared by both datasets; the candidates ignore them).
    neighbours : tuple of ndarray
        The labels ``(y_a, y_b)``: one record's label differs.
    events : dict
        Event name -> callable on the ``(n, 2)`` int outputs (columns: the
        chosen index, the noisy validation count or :data:`NO_SCORE`).
    claimed_epsilon : float
        The claimed ε of what is measured (see :func:`claimed_epsilon`).
    relation : str
        The pair, in words.
    notes : dict
        Free-form details (e.g. the exact loss the events can show).
    """

    name: str
    search: PrivateGridSearchCV
    X: np.ndarray
    neighbours: tuple
    events: dict
    claimed_epsilon: float
    relation: str = ""
    notes: dict = field(default_factory=dict)


# -------------------------------------------------------------- the claim
def claimed_epsilon(search) -> float:
    """The claimed ε of a search's choice when its candidates learn nothing.

    ``"repeated"``: the whole ``(2 + η)·ε_run`` (the count noise of a run is
    sized by the candidates' declared ε); the noisy-max rules: the
    ``epsilon`` of the report-noisy-max (the fits' declared cost is not spent).
    Read from :func:`~skdp_anomaly.check_privacy_budget`'s report, which must
    have no leak.

    Parameters
    ----------
    search : PrivateGridSearchCV
        The search, unfitted.

    Returns
    -------
    float
        The claimed ε.
    """
    report = check_privacy_budget(search, on_leak="raise")
    if search.selection == "repeated":
        return float(report.cost.epsilon)
    # the choice, and the class sizes its score needs (balanced accuracy)
    return float(
        sum(s.cost.epsilon for s in report.steps if s.path in ("selection", "class_sizes"))
    )


# -------------------------------------------------------------- running fits
def _splits(search, X, y) -> list:
    return list(check_cv(search.cv).split(X, y))


def _test_size(search, X, y) -> int:
    sizes = {len(test) for _, test in _splits(search, X, y)}
    if len(sizes) != 1:
        raise ValueError("the audit reads the count back from best_score_: equal test sizes only")
    return sizes.pop()


def selection_outputs(search, X, y, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` fits of ``search`` on ``(X, y)``: the chosen index and noisy count of each.

    Each fit is :meth:`PrivateGridSearchCV.fit` as a user calls it, drawing
    its schedule and noise from ``rng``. The count is read back from
    ``best_score_`` (a noisy count over the public test size).

    Parameters
    ----------
    search : PrivateGridSearchCV
        The search, unfitted (cloned; its ``random_state`` becomes ``rng``).
    X : array-like of shape (n_samples, n_features)
        The rows.
    y : array-like of shape (n_samples,)
        The labels.
    rng : numpy.random.Generator
        The audit's generator.
    n : int
        Number of fits.

    Returns
    -------
    ndarray of shape (n, 2)
        The chosen index and the noisy count (:data:`NO_SCORE` when the rule
        releases no score).
    """
    est = clone(search).set_params(random_state=rng)
    m = _test_size(search, X, y) if search.selection == "repeated" else None
    out = np.full((n, 2), NO_SCORE, dtype=np.int64)
    for i in range(n):
        est.fit(X, y)
        out[i, 0] = est.best_index_
        if hasattr(est, "best_score_"):
            count = est.best_score_ * m
            out[i, 1] = round(count)
            if abs(count - out[i, 1]) > 1e-9:
                raise AssertionError(f"best_score_ * n_test = {count} is not a count")
    return out


def run_selection_scenario(
    scenario: SelectionScenario, n_runs: int, *, random_state=0, alpha: float = 0.05
) -> AuditResult:
    """Audit one scenario: ``n_runs`` fits on each dataset of the pair.

    Parameters
    ----------
    scenario : SelectionScenario
        The search, pair, events and claim.
    n_runs : int
        Fits per dataset.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the audit (every fit draws from it).
    alpha : float, default=0.05
        The bound holds with probability at least ``1 - alpha``.

    Returns
    -------
    AuditResult
        With ``extras["exact"]``: event -> exact ``(p_a, p_b)``.
    """

    def mechanism(y, rng, n):
        return selection_outputs(scenario.search, scenario.X, y, rng, n)

    result = audit(
        mechanism,
        scenario.neighbours,
        scenario.events,
        n_runs=n_runs,
        batch=True,
        claimed_epsilon=scenario.claimed_epsilon,
        random_state=random_state,
        alpha=alpha,
        name=scenario.name,
    )
    result.extras.update(
        relation=scenario.relation, exact=exact_event_probabilities(scenario), **scenario.notes
    )
    return result


# -------------------------------------------------------------- exact reference
def _tnb_divided_difference(lower, mass, eta: float, gamma: float):
    """``(f(L + t) - f(L)) / t`` for the generating function ``f(x) = E[x^K]`` of ``D_{η,γ}``.

    From the definition ``f(x) = ((1 - qx)^{-η} - 1) / (γ^{-η} - 1)`` (``q = 1 - γ``;
    η = 0: ``log(1 - qx) / log γ``), written without cancellation: ``t`` can
    be 1e-30 next to ``L ≈ 1``.
    """
    lower, mass = np.asarray(lower, np.float64), np.asarray(mass, np.float64)
    if gamma == 1:
        return np.ones_like(lower)
    q = 1 - gamma
    base = 1 - q * lower  # >= γ > 0
    step = np.log1p(-q * mass / base)  # log((1 - qU) / (1 - qL))
    if eta == 0:
        return step / math.log(gamma) / mass
    return base**-eta * np.expm1(-eta * step) / math.expm1(-eta * math.log(gamma)) / mass


def _correct_counts(search, X, y, splits) -> np.ndarray:
    """``counts[c, s]``: correct validation predictions of candidate ``c`` on split ``s``."""
    from sklearn.model_selection import ParameterGrid

    counts = []
    for params in ParameterGrid(search.param_grid):
        row = []
        for train, test in splits:
            model = clone(search.estimator).set_params(**params).fit(X[train], y[train])
            row.append(int(np.sum(model.predict(X[test]) == y[test])))
        counts.append(row)
    return np.array(counts, dtype=np.int64)


def _repeated_exact(search, X, y):
    splits = _splits(search, X, y)
    if len(splits) != 1:
        raise ValueError("the exact reference of 'repeated' handles one split")
    counts = _correct_counts(search, X, y, splits)[:, 0]
    declared = max(
        clone(search.estimator).set_params(**p).privacy_cost().epsilon for p in _grid(search)
    )
    run_eps = declared if declared > 0 else search.epsilon / 3
    eta = search.epsilon / run_eps - 1 if declared > 0 else 1.0
    gamma = tnb_gamma_for_mean(eta, float(search.n_runs))
    reach = int(math.ceil(40 / run_eps))  # the noise's mass beyond is below e^-40
    s = np.arange(-reach, len(splits[0][1]) + reach + 1)  # the same outputs for every y
    a = math.exp(-run_eps)
    # one run: a uniform candidate, its count + two-sided geometric noise
    q = (1 - a) / (1 + a) * a ** np.abs(s[None, :] - counts[:, None]) / len(counts)
    mass = q.sum(0)
    lower = np.cumsum(mass) - mass  # P(a run scores less)
    # the first run to reach the best score is released: with L = P(score < s) and
    # U = L + P(score = s), P(best = (c, s)) = q(c, s) · (f(U) - f(L)) / (U - L)
    probs = q * _tnb_divided_difference(lower, mass, eta, gamma)
    outputs = np.stack(np.broadcast_arrays(np.arange(len(counts))[:, None], s[None, :]), -1)
    return outputs.reshape(-1, 2), probs.reshape(-1)


def _grid(search):
    from sklearn.model_selection import ParameterGrid

    return list(ParameterGrid(search.param_grid))


def _dlap_difference_tail(u: int, rate: float) -> float:
    """``P(Z1 - Z0 >= u)`` for i.i.d. ``P(Z = k) ∝ e^{-rate|k|}``, ``u >= 0`` an integer."""
    a = math.exp(-rate)
    one_minus_a = -math.expm1(-rate)
    c = (one_minus_a / (1 + a)) ** 2
    # P(W = w) = c · a^w (w + 1 + 2a²/(1-a²)) for w >= 0; sum the tail in closed form
    shift = 1 + 2 * a * a / -math.expm1(-2 * rate)
    return c * math.exp(-rate * u) * ((u + shift) / one_minus_a + a / one_minus_a**2)


def _noisy_max_exact(search, X, y):
    splits = _splits(search, X, y)
    used = splits[:1] if search.selection == "holdout-noisy-max" else splits
    counts = _correct_counts(search, X, y, used).sum(1)
    if len(counts) != 2:
        raise ValueError("the exact reference of report-noisy-max handles two candidates")
    sensitivity = int(np.bincount(np.concatenate([t for _, t in used])).max())
    # the mechanism's grid and noise rate: scale 2Δ/ε in score units
    mech = ReportNoisyMax(float(search.epsilon), sensitivity)
    steps = mech.to_steps(counts)
    rate = mech.epsilon / (2 * mech.steps)
    gap = int(steps[0] - steps[1])  # candidate 1 wins iff Z1 - Z0 > gap (0 wins ties)
    p1 = _dlap_difference_tail(gap + 1, rate) if gap >= 0 else 1 - _dlap_difference_tail(-gap, rate)
    outputs = np.array([[0, NO_SCORE], [1, NO_SCORE]], dtype=np.int64)
    return outputs, np.array([1 - p1, p1])


def exact_distribution(search, X, y):
    """Every output of the search's choice on ``(X, y)`` with its exact probability.

    Two candidates for the noisy-max rules, one split for ``"repeated"``;
    ``n_runs`` must be a number. Computed from the documented rule, not by
    calling the search.

    Parameters
    ----------
    search : PrivateGridSearchCV
        The search, unfitted, with a numeric ``n_runs`` for ``"repeated"``.
    X : array-like of shape (n_samples, n_features)
        The rows.
    y : array-like of shape (n_samples,)
        The labels.

    Returns
    -------
    outputs : ndarray of shape (n_outputs, 2)
        The chosen index and the noisy count (:data:`NO_SCORE` if not released).
    probabilities : ndarray of shape (n_outputs,)
        Summing to 1 (up to ~1e-12 of truncated noise tails).
    """
    y = np.asarray(y)
    if search.selection == "repeated":
        return _repeated_exact(search, X, y)
    return _noisy_max_exact(search, X, y)


def exact_event_probabilities(scenario: SelectionScenario) -> dict:
    """Event name -> exact ``(p_a, p_b)`` on the scenario's pair, plus ``"max loss"``.

    ``"max loss"`` is the largest ``|log(p_a/p_b)|`` of a single output: the
    privacy loss of the pair, which no event exceeds.

    Parameters
    ----------
    scenario : SelectionScenario
        The search, pair and events.

    Returns
    -------
    dict
        ``{event name: (p_a, p_b), "max loss": float}``.
    """
    dists = [exact_distribution(scenario.search, scenario.X, y) for y in scenario.neighbours]
    (out_a, p_a), (out_b, p_b) = dists
    if not np.array_equal(out_a, out_b):
        raise AssertionError("the two datasets' exact outputs must be listed alike")
    exact = {
        name: (float(p_a[event(out_a)].sum()), float(p_b[event(out_b)].sum()))
        for name, event in scenario.events.items()
    }
    both = (p_a > 1e-300) & (p_b > 1e-300)
    exact["max loss"] = float(np.max(np.abs(np.log(p_a[both] / p_b[both]))))
    return exact


# -------------------------------------------------------------- the scenarios
def _flip(y, i):
    other = np.array(y, copy=True)
    other[i] = 1 - other[i]
    return other


def _holdout(n_train: int, n_test: int) -> list:
    """One explicit split: the first rows train, the rest validate."""
    return [(np.arange(n_train), np.arange(n_train, n_train + n_test))]


def _repeated(name, *, epsilon_c, epsilon, zeros, ones, n_runs, events, relation):
    """``"repeated"`` on a holdout of ``zeros + ones`` rows; record 2 (a 0) flips to 1."""
    m = zeros + ones
    search = PrivateGridSearchCV(
        DeclaredCostClassifier(epsilon=epsilon_c),
        {"label": [0, 1]},
        epsilon=epsilon,
        selection="repeated",
        n_runs=n_runs,
        cv=_holdout(2, m),
        refit=False,
    )
    y = np.r_[0, 0, np.zeros(zeros, np.int64), np.ones(ones, np.int64)]
    return SelectionScenario(
        name,
        search,
        np.zeros((len(y), 1)),
        (y, _flip(y, 2)),
        events,
        claimed_epsilon(search),
        relation,
    )


def _noisy_max(name, *, epsilon, selection, cv, y, flip, relation):
    search = PrivateGridSearchCV(
        DeclaredCostClassifier(epsilon=1.0),
        {"label": [0, 1]},
        epsilon=epsilon,
        selection=selection,
        cv=cv,
        refit=False,
    )
    y = np.asarray(y, dtype=np.int64)
    return SelectionScenario(
        name,
        search,
        np.zeros((len(y), 1)),
        (y, _flip(y, flip)),
        {"picks 1": lambda o: o[:, 0] == 1},
        claimed_epsilon(search),
        relation,
    )


def selection_scenarios(
    epsilon_run: float = 1.0, epsilon_max: float = 2.0, n_runs: float = 4
) -> list[SelectionScenario]:
    """The audit scenarios of the three rules of :class:`PrivateGridSearchCV`.

    Parameters
    ----------
    epsilon_run : float, default=1.0
        The candidates' declared ε (``ε_run`` of ``"repeated"``).
    epsilon_max : float, default=2.0
        ``epsilon`` of the noisy-max rules.
    n_runs : float, default=4
        Mean number of runs of ``"repeated"``.

    Returns
    -------
    list of SelectionScenario
        Repeated with η = 1 and η = 0 (the far pair: the best run's count
        falls below the leader's true count), η = 1 on a near tie that swaps
        the winner, free candidates (``ε_run = epsilon/3``); holdout and
        cross-validated report-noisy-max, and the latter with validation parts
        that overlap (sensitivity 2).

    Examples
    --------
    >>> from audit_scenarios.selection import selection_scenarios
    >>> [s.claimed_epsilon for s in selection_scenarios()][:2]
    [3.0, 2.0]
    """
    m = 10
    below = {f"picks 0, count <= {m - 1}": lambda o: (o[:, 0] == 0) & (o[:, 1] <= m - 1)}
    far = f"holdout of {m}: all labelled 0 (counts {m}/0) vs one relabelled 1 (counts {m - 1}/1)"
    e = epsilon_run
    scenarios = [
        _repeated(
            f"repeated η=1 (ε_run={e:g}, epsilon={2 * e:g})",
            epsilon_c=e,
            epsilon=2 * e,
            zeros=m,
            ones=0,
            n_runs=n_runs,
            events=below,
            relation=far,
        ),
        _repeated(
            f"repeated η=0 (ε_run={e:g}, epsilon={e:g})",
            epsilon_c=e,
            epsilon=e,
            zeros=m,
            ones=0,
            n_runs=n_runs,
            events=below,
            relation=far,
        ),
        _repeated(
            f"repeated η=1, near tie (ε_run={e:g})",
            epsilon_c=e,
            epsilon=2 * e,
            zeros=6,
            ones=4,
            n_runs=n_runs,
            events={"picks 1": lambda o: o[:, 0] == 1},
            relation="holdout of 10: counts 6/4 vs the 5/5 tie",
        ),
        _repeated(
            f"repeated, free candidates (epsilon={3 * e:g})",
            epsilon_c=0.0,
            epsilon=3 * e,
            zeros=m,
            ones=0,
            n_runs=n_runs,
            events=below,
            relation=far + "; ε_run = epsilon/3 = " + f"{e:g}",
        ),
    ]
    eps = epsilon_max
    # report-noisy-max: the pair moves the gap c0 - c1 from 3Δ to Δ (noise scale 2Δ/ε)
    scenarios += [
        _noisy_max(
            f"holdout-noisy-max (epsilon={eps:g})",
            epsilon=eps,
            selection="holdout-noisy-max",
            cv=_holdout(2, 7),
            y=[0, 0, 0, 0, 0, 0, 0, 1, 1],
            flip=2,
            relation="holdout of 7: counts 5/2 vs 4/3",
        ),
        _noisy_max(
            f"cv-noisy-max, KFold(2) (epsilon={eps:g})",
            epsilon=eps,
            selection="cv-noisy-max",
            cv=KFold(2),
            y=[0, 0, 0, 1, 1, 0, 0, 0, 1],
            flip=0,
            relation="9 rows, KFold(2): summed counts 6/3 vs 5/4 (Δ=1)",
        ),
        _noisy_max(
            f"cv-noisy-max, overlapping validation (epsilon={eps:g})",
            epsilon=eps,
            selection="cv-noisy-max",
            cv=[(np.arange(3), np.arange(3, 10)), (np.arange(7, 10), np.arange(7))],
            y=[0, 0, 1, 0, 0, 0, 0, 1, 1, 1],
            flip=3,
            relation="records 3-6 are in both validation parts (Δ=2), one of them "
            "flips: summed counts 10/4 vs 8/6",
        ),
    ]
    return scenarios


def score_scenarios(epsilon: float = 2.0) -> list[SelectionScenario]:
    """Audit scenarios of the scores that need class sizes or a named class.

    Two candidates: "predict 0" and "predict the first feature", which is
    the label of every row of ``y_a``. The validation part holds eight 0s
    and one 1 (record 10); its neighbour relabels that record 0: the
    candidates' balanced accuracies go from 0.5 / 1.0 to 0.5 / 0.44, and the
    second one's recall of class 1 from 1 to nothing. The events are "the
    second candidate is chosen"; the outputs are the chosen index only.

    Parameters
    ----------
    epsilon : float, default=2.0
        ``epsilon`` of the searches (the choice's ε; the candidates declare
        ``epsilon/2``).

    Returns
    -------
    list of SelectionScenario
        Balanced accuracy with holdout-noisy-max and with repetitions,
        recall with repetitions.

    Examples
    --------
    >>> from audit_scenarios.selection import score_scenarios
    >>> [s.claimed_epsilon for s in score_scenarios()]
    [2.0, 3.0, 3.0]
    """
    y = np.r_[0, 1, np.zeros(8, np.int64), 1]
    X = y[:, None].astype(np.float64)
    split = [(np.arange(2), np.arange(2, 11))]
    events = {"picks 1": lambda o: o[:, 0] == 1}
    relation = (
        "holdout of 9: eight 0s and one 1, which the neighbour relabels 0; "
        "candidates 'predict 0' and 'predict the feature'"
    )
    out = []
    for scoring, selection in (
        ("balanced_accuracy", "holdout-noisy-max"),
        ("balanced_accuracy", "repeated"),
        ("recall", "repeated"),
    ):
        search = PrivateGridSearchCV(
            DeclaredCostClassifier(epsilon=epsilon / 2),
            {"label": [0, -1]},
            epsilon=epsilon,
            selection=selection,
            scoring=scoring,
            n_runs=4,
            cv=split,
            refit=False,
        )
        out.append(
            SelectionScenario(
                f"{scoring}, {selection} (epsilon={epsilon:g})",
                search,
                X,
                (y, _flip(y, 10)),
                events,
                claimed_epsilon(search),
                relation,
            )
        )
    return out


def index_outputs(search, X, y, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` fits of ``search``: the chosen index of each, as an ``(n, 1)`` int array.

    Parameters
    ----------
    search : PrivateGridSearchCV
        The search, unfitted (cloned; its ``random_state`` becomes ``rng``).
    X, y : array-like
        The data.
    rng : numpy.random.Generator
        The audit's generator.
    n : int
        Number of fits.

    Returns
    -------
    ndarray of shape (n, 1)
        ``best_index_`` of each fit.
    """
    est = clone(search).set_params(random_state=rng)
    return np.array([[est.fit(X, y).best_index_] for _ in range(n)], dtype=np.int64)
