"""Privacy audits of the private choice of PrivateGridSearchCV with :func:`skdp_anomaly.audit`.

What is measured: the choice alone. The candidates are
``DeclaredCostClassifier(label=c)``: "predict class ``c``", fitted without
reading the data, declaring a pure ε (``ε_run`` = 1) that the budget
validator prices and the search sizes its noise by. Candidate ``c``'s
validation count is the number of validation records labelled ``c``.
Neighbours: replace one record, here the same row with its label flipped
(``n``, the splits and the test sizes are public). Every run is one call of
``PrivateGridSearchCV.fit``; the output is ``best_index_`` and, for
``"repeated"``, the noisy count ``best_score_ · n_test``.

* ``"repeated"``: claimed ``(2 + η)·ε_run`` in all (the count noise lives in
  the runs). Pair: a holdout of 10 records all labelled 0 (counts 10/0) vs
  one relabelled 1 (9/1); event: the best run is candidate 0 with a noisy
  count <= 9. Also the near tie 6/4 vs 5/5 with the event "candidate 1 is
  chosen", and free candidates (``ε_run = epsilon/3``).
* ``"holdout-noisy-max"`` / ``"cv-noisy-max"``: claimed ``epsilon`` (the
  fits' declared cost is not spent). Pair: the gap of the (summed) counts
  moves from 3Δ to Δ; event: "candidate 1 is chosen". Δ = 2 when the flipped
  record is in two validation parts.

The events were chosen before any run, from the exact output distributions
(``exact_distribution``, computed from the documented rules without calling
the search). Each test checks, at fixed seeds (deterministic):

1. the Clopper–Pearson lower bound (95 %) is <= the claimed ε (false failure
   for a correct search: at most 5 % over seeds);
2. on each dataset, each event's exact probability lies in the two-sided
   1 − 1e-5 Clopper–Pearson interval of its count: catches over- or
   under-noising and a wrong distribution of the number of runs (false
   failure <= 2e-5 per test);
3. where robust, a closeness floor: the bound is >= ``floor``·ε. Measured with
   the seeds below: repeated η=1 0.40ε (the event's exact loss is 0.47ε),
   η=0 0.49ε (0.65ε), noisy-max 0.54–0.63ε (0.745ε). The floors' false-failure
   rates over seeds, from 10⁶ simulated audits at the exact probabilities,
   are in ``AUDITS``.

Report-noisy-max on two candidates is not tight at finite gaps: its loss
``ε + log((2b+g−2Δ)/(2b+g))`` (``b = 2Δ/ε``, gap ``g``) reaches ε only as the
event becomes rare (0.745ε for the events here), so "≥ 0.8ε" needs about 10⁶
fits; ``benchmarks/bench_model_selection_audit.py`` measures 0.70–0.73ε at
2·10⁴ fits per dataset. The ``"repeated"`` bound is attained only as the mean
number of runs grows (exactly: 1.60 of 3 at 4 runs, 2.84 at 100, 2.998 at
10⁴); see ``test_exact_loss_attains_the_repeated_claim_in_the_limit``.

Two over-claims this audit found are closed, and tested here: a split that
lists a record several times, or in both its parts, is refused (a run's
count would move by more than the sensitivity its noise is sized for), and
the seed a candidate's fit used is not kept in ``best_estimator_`` (its noise
could be redrawn).
"""

import dataclasses
from numbers import Real

import numpy as np
import pytest
from audit_scenarios.selection import (
    NO_SCORE,
    DeclaredCostClassifier,
    exact_distribution,
    exact_event_probabilities,
    index_outputs,
    run_selection_scenario,
    score_scenarios,
    selection_outputs,
    selection_scenarios,
)
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import Interval

from skdp_anomaly import audit, check_privacy_budget
from skdp_anomaly.auditing import clopper_pearson
from skdp_anomaly.model_selection import PrivateGridSearchCV
from skdp_anomaly.privacy import GeometricMechanism, PrivacyCost, PrivacyCostMixin
from skdp_anomaly.privacy._rng import check_random_state

# long statistical audits: CI runs them in one job (`-m slow` selects them,
# `-m "not slow"` leaves them out; docs/contributing.md)
pytestmark = pytest.mark.slow

EPS_RUN, EPS_MAX, N_RUNS = 1.0, 2.0, 4
SCENARIOS = selection_scenarios(EPS_RUN, EPS_MAX, N_RUNS)
# (scenario, fits per dataset, seed, floor as a fraction of the claimed ε or None).
# Floor false-failure rates over seeds (10⁶ simulated audits at the exact probabilities):
# η=1 < 1e-6, η=0 < 1e-6, holdout 1e-5, KFold 1e-5, overlapping 2e-5.
AUDITS = [
    (SCENARIOS[0], 800, 11, 0.2),  # repeated η=1: measured 0.40ε
    (SCENARIOS[1], 800, 12, 0.25),  # repeated η=0: measured 0.49ε
    (SCENARIOS[2], 300, 13, None),  # near tie, "candidate 1 chosen": exact 0.2ε, measured 0.05ε
    (SCENARIOS[3], 300, 14, None),  # free candidates (ε_run = epsilon/3): measured 0.37ε
    (SCENARIOS[4], 1200, 15, 0.35),  # holdout-noisy-max: measured 0.62ε
    (SCENARIOS[5], 600, 16, 0.2),  # cv-noisy-max, KFold(2): measured 0.63ε
    (SCENARIOS[6], 600, 17, 0.2),  # cv-noisy-max, Δ=2: measured 0.54ε
]
FREQUENCY_LEVEL = 5e-6  # each side of the two-sided interval of a frequency check


def _check_frequencies(result):
    """The exact probability of every event lies in its 1 − 1e-5 Clopper–Pearson interval."""
    exact = result.extras["exact"]
    for row in result.rows:
        for count, p in zip((row["count_a"], row["count_b"]), exact[row["event"]]):
            lo, hi = clopper_pearson(count, result.n_runs, FREQUENCY_LEVEL)
            assert lo <= p <= hi, (row["event"], count, result.n_runs, p)


# ------------------------------------------------------------------ the claim audited
def test_candidates_are_priced_as_declared():
    # the claim of each scenario is the package's own price, with no leak
    fits = {"repeated": EPS_RUN, "holdout-noisy-max": 2 * EPS_RUN, "cv-noisy-max": 2 * EPS_RUN}
    for scenario in SCENARIOS:
        search = scenario.search
        report = check_privacy_budget(search, on_leak="raise")
        steps = {s.path: s.cost.epsilon for s in report.steps}
        declared = search.estimator.epsilon
        if search.selection == "repeated":
            # (2 + η)·ε_run = ε_run + epsilon; free candidates: ε_run = epsilon/3, η = 1
            assert scenario.claimed_epsilon == pytest.approx(report.cost.epsilon)
            assert report.cost.epsilon == pytest.approx(declared + search.epsilon)
        else:
            assert scenario.claimed_epsilon == steps["selection"] == search.epsilon
            assert steps["estimator"] == pytest.approx(fits[search.selection])
    assert [s.claimed_epsilon for s in SCENARIOS] == [3.0, 2.0, 3.0, 3.0, 2.0, 2.0, 2.0]


def test_exact_reference_is_a_distribution_within_the_claim():
    for scenario in SCENARIOS:
        exact = exact_event_probabilities(scenario)
        assert exact["max loss"] <= scenario.claimed_epsilon + 1e-9, scenario.name
        for y in scenario.neighbours:
            _, probs = exact_distribution(scenario.search, scenario.X, y)
            assert probs.sum() == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("eta", [0.0, 0.5, 1.0, 2.0])
def test_exact_loss_attains_the_repeated_claim_in_the_limit(eta):
    # The (2 + η)·ε_run of the pure limit of Papernot and Steinke's Theorem 2 is
    # never exceeded on the far pair, and is attained as the mean number of runs
    # grows: the claim cannot be lowered (the audit's gap is statistical only).
    base = SCENARIOS[0]
    claim = (2 + eta) * EPS_RUN
    losses = []
    for mean in (4, 100, 1e4, 1e6):
        search = clone(base.search).set_params(epsilon=(1 + eta) * EPS_RUN, n_runs=mean)
        scenario = dataclasses.replace(base, search=search, claimed_epsilon=claim)
        losses.append(exact_event_probabilities(scenario)["max loss"])
    assert all(loss <= claim + 1e-9 for loss in losses), losses
    assert losses == sorted(losses)
    assert losses[-1] >= 0.995 * claim, losses


# ------------------------------------------------------------------ the audits
@pytest.mark.parametrize("scenario, n_runs, seed, floor", AUDITS, ids=[a[0].name for a in AUDITS])
def test_audit_selection(scenario, n_runs, seed, floor):
    result = run_selection_scenario(scenario, n_runs, random_state=seed)
    table = f"{result}\n{result.to_markdown()}\nexact: {result.extras['exact']}"
    assert result.epsilon_lower_bound <= scenario.claimed_epsilon, table
    _check_frequencies(result)
    if floor is not None:
        assert result.epsilon_lower_bound >= floor * scenario.claimed_epsilon, table


@pytest.mark.parametrize("selection", ["repeated", "holdout-noisy-max", "cv-noisy-max"])
@pytest.mark.parametrize(
    "split",
    [
        (np.arange(4), np.r_[4, 4, 5, 6]),  # a record listed twice in the validation part
        (np.r_[0, 0, 1, 2], np.arange(4, 8)),  # ... in the training part
        (np.arange(5), np.arange(4, 8)),  # in both parts
    ],
)
def test_splits_that_repeat_a_record_are_refused(selection, split):
    # with 8 copies of one validation record, "repeated" measured a lower bound of 4.29 > 3
    # before such splits were refused (the count moved by 8, its noise sized for 1)
    X, y = np.zeros((8, 1)), np.r_[np.zeros(4, np.int64), np.ones(4, np.int64)]
    search = PrivateGridSearchCV(
        DeclaredCostClassifier(epsilon=1.0),
        {"label": [0, 1]},
        epsilon=2.0,
        selection=selection,
        cv=[split],
        refit=False,
    )
    with pytest.raises(ValueError, match="'cv' parameter"):
        search.fit(X, y)
    assert not hasattr(search, "privacy_spent_")


class SeededNoisyCount(PrivacyCostMixin, ClassifierMixin, BaseEstimator):
    """An honest ε-DP candidate: the number of label-1 training rows + geometric noise.

    Its noise is drawn from ``random_state`` (as every estimator of the package
    does), so whoever knows the seed of a fit can subtract the noise.
    """

    _parameter_constraints: dict = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, epsilon=0.5, random_state=None):
        self.epsilon = epsilon
        self.random_state = random_state

    def _privacy_cost(self):
        return PrivacyCost.pure(self.epsilon, neighbours="replace")

    def fit(self, X, y, classes=None):  # the search gives its public label set
        noise = GeometricMechanism(self.epsilon).noise(1, check_random_state(self.random_state))
        self.noisy_count_ = int(np.sum(np.asarray(y) == 1)) + int(noise[0])
        self.classes_ = np.array([0, 1])
        self._fitted = True
        return self

    def predict(self, X):
        return np.ones(len(X), dtype=np.int64)


@pytest.mark.parametrize(
    "candidate_seed",
    [
        None,
        0,
    ],
)
def test_audit_released_model_does_not_carry_its_seed(candidate_seed):
    # Pair: 12 rows, 5 vs 6 labelled 1 (one record relabelled). Output: the count an
    # attacker recovers from best_estimator_ (refit on all rows) by redrawing its noise
    # from its random_state. Claim: (2 + η)·0.5 + the refit's 0.5 = 2.0. With the
    # candidate's random_state=None the redrawn noise is fresh: no evidence. With 0, a
    # model that kept the seed of its fit gave 3.1 > 2 at 100 fits (unbounded as the fits
    # grow); the released model carries the user's 0, not the seed its fit used.
    y_a = np.r_[np.ones(5, np.int64), np.zeros(7, np.int64)]
    y_b = y_a.copy()
    y_b[5] = 1
    X = np.zeros((12, 1))
    search = PrivateGridSearchCV(
        SeededNoisyCount(0.5, candidate_seed),
        {"epsilon": [0.5]},
        epsilon=1.0,
        n_runs=2,
        cv=[(np.arange(8), np.arange(8, 12))],
        refit=True,
    )
    claim = check_privacy_budget(search, on_leak="raise").cost.epsilon
    assert claim == pytest.approx(2.0)

    def recovered_counts(y, rng, n):
        est = clone(search).set_params(random_state=rng)
        out = np.empty(n, dtype=np.int64)
        for i in range(n):
            model = est.fit(X, y).best_estimator_
            redrawn = GeometricMechanism(model.epsilon).noise(
                1, check_random_state(model.random_state)
            )
            out[i] = model.noisy_count_ - int(redrawn[0])
        return out

    result = audit(
        recovered_counts,
        (y_a, y_b),
        {"recovers 5": lambda o: o == 5},
        n_runs=100,
        batch=True,
        claimed_epsilon=claim,
        random_state=19,
        name="seed kept in best_estimator_",
    )
    assert result.epsilon_lower_bound <= claim, result.to_markdown()


# ------------------------------------------------------------------ floating point
def test_released_score_is_a_count_over_the_public_test_size():
    # best_score_ = noisy integer count / n_test: its float is a function of an integer
    # DP output and a public size, so it carries no low-order bits of the data
    scenario = SCENARIOS[0]
    search, X = scenario.search, scenario.X
    m = len(search.cv[0][1])
    est = clone(search).set_params(random_state=np.random.default_rng(0))
    scores = set()
    for y in scenario.neighbours:
        for _ in range(40):
            est.fit(X, y)
            count = round(est.best_score_ * m)
            assert est.best_score_ == count / m
            scores.add(est.best_score_)
    assert len(scores) > 3
    out = selection_outputs(
        SCENARIOS[4].search, SCENARIOS[4].X, SCENARIOS[4].neighbours[0], np.random.default_rng(0), 5
    )
    assert np.all(out[:, 1] == NO_SCORE)  # noisy-max releases the index only
    assert set(out[:, 0].tolist()) <= {0, 1}


# ------------------------------------------------------------------ scores with class sizes
SCORE_SCENARIOS = score_scenarios()


@pytest.mark.parametrize("scenario", SCORE_SCENARIOS, ids=[s.name for s in SCORE_SCENARIOS])
def test_audit_score_selection(scenario):
    """Balanced accuracy and recall: the Clopper–Pearson bound (95 %) stays <= the claim.

    150 fits per dataset at a fixed seed (deterministic). The claim of the
    noisy-max rule is the choice's ε with its class-size quarter; of the
    repetitions, ``ε_run + epsilon``. False failure for a correct search: at
    most 5 % over seeds. The same audit with the weighted count's noise
    sized for sensitivity 1 instead of the largest weight (the bug this
    guards against) gives a bound above the claim.
    """

    def mechanism(y, rng, n):
        return index_outputs(scenario.search, scenario.X, y, rng, n)

    result = audit(
        mechanism,
        scenario.neighbours,
        scenario.events,
        n_runs=150,
        batch=True,
        claimed_epsilon=scenario.claimed_epsilon,
        random_state=3,
        alpha=0.05,
        name=scenario.name,
    )
    assert result.epsilon_lower_bound <= scenario.claimed_epsilon, result.to_markdown()
    # the pair is seen: the candidate that predicts the feature wins more often on y_a
    rates = next(row for row in result.rows if row["event"] == "picks 1")
    assert rates["p_a"] > rates["p_b"], result.to_markdown()


def test_score_audit_can_fail_when_the_noise_ignores_the_weights(monkeypatch):
    """Noise sized for sensitivity 1 on balanced accuracy's weighted count is caught."""
    from skdp_anomaly.model_selection import _scoring

    init = _scoring.ScoreWeights.__init__

    def unit_sensitivity(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.sensitivity = 1

    monkeypatch.setattr(_scoring.ScoreWeights, "__init__", unit_sensitivity)
    scenario = SCORE_SCENARIOS[0]

    def mechanism(y, rng, n):
        return index_outputs(scenario.search, scenario.X, y, rng, n)

    result = audit(
        mechanism,
        scenario.neighbours,
        scenario.events,
        n_runs=150,
        batch=True,
        claimed_epsilon=scenario.claimed_epsilon,
        random_state=3,
        alpha=0.05,
    )
    assert result.epsilon_lower_bound > scenario.claimed_epsilon, result.to_markdown()
