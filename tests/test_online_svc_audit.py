"""Privacy audits of PrivateOnlineActiveSVC (Ghassemi, Sarwate, Wright, Lemmas 1–3) with skdp_anomaly.audit.

Neighbouring streams have the same length and differ in one element (replace
one stream element, the paper's §2). Each test names its pair and fixes its
events before any run; every bound holds with probability >= 0.95
(alpha = 0.05, Bonferroni over events and directions), and with the fixed
seeds below the tests are deterministic.

* Selection (Lemmas 1 and 2): the iterate ``w`` is public, so the selection
  bit of one row is a mechanism of that row alone. The pairs are a row at
  distance 0 from the public hyperplane vs a row at distance M.
* Update (Lemma 3): one noisy step on neighbouring one-row batches.
* End to end: the released iterate and counters of a short stream.
"""

import numpy as np
import pytest
from _online_svc_helpers import paper_svc
from sklearn import config_context

from skdp_anomaly import audit
from skdp_anomaly.active_learning._selection import calibrated_slab
from skdp_anomaly.privacy import BernoulliSelection, ExponentialSelection

# long statistical audits: CI runs them in one job (`-m slow` selects them,
# `-m "not slow"` leaves them out; docs/contributing.md)
pytestmark = pytest.mark.slow

EPS_S = 1.0
PAPER_SLAB_COST = ExponentialSelection(EPS_S, 0.2, 1.0).cost.epsilon  # 1.1711 (Lemma 2: 1)
SELECTION_EVENTS = {"selected": lambda out: out, "not selected": lambda out: ~out}


# ------------------------------------------------------------ selection step
@pytest.mark.parametrize("kind", ["bernoulli", "exponential"])
def test_audit_selection_mechanism(kind):
    # Pair: a row at distance 0 from w (inside any slab) vs a row at distance
    # M = 1 (outside), the same public w. Output: the selection bit.
    # Measured: 0.994 for both (at ε_s = 1 the calibrated slab gives q_max = 1 - q_min,
    # the same two probabilities as Bernoulli selection).
    if kind == "bernoulli":
        mech = BernoulliSelection(EPS_S)
        probability = lambda d: mech.probability(d <= 0.2)  # noqa: E731  (slab 0.2·M)
    else:
        mech = ExponentialSelection(EPS_S, calibrated_slab(EPS_S, 1.0), 1.0)
        probability = mech.probability

    def selection_bits(distance, rng, n):
        return rng.random(n) < probability(np.full(n, distance))

    res = audit(
        selection_bits,
        (0.0, 1.0),
        SELECTION_EVENTS,
        n_runs=1_000_000,
        batch=True,
        claimed_epsilon=EPS_S,
        random_state=0,
        name=f"{kind} selection",
    )
    assert mech.cost.epsilon == EPS_S
    assert 0.8 * EPS_S <= res.epsilon_lower_bound <= EPS_S, res.to_markdown()


def _estimator_selection_bits(n, slab=None, selection="bernoulli"):
    """Selection bits of ``n`` rows drawn by the estimator itself with a public ``w``.

    FLSW with windows of ``n + 1`` rows: the first window (any data) ends in
    one update, which releases ``w = coef_``; the next ``n`` rows all fall in
    the second window, so they are selected with this same ``w`` and no new
    update. The bit of row ``i`` is whether its label was read; given ``w``
    the rows' bits are independent, so each row is one run of the audit.
    """

    def mechanism(where, rng, n_runs):
        assert n_runs == n
        est = paper_svc(
            epsilon=2 * EPS_S,
            selection=selection,
            slab=slab,
            update="flsw",
            batch_size=n + 1,
            random_state=int(rng.integers(2**32)),
        )
        X0 = rng.uniform(-0.7, 0.7, size=(n + 1, 2))
        est.partial_fit(X0, np.where(X0[:, 0] > 0, 1, -1), classes=[-1, 1])
        assert est.n_updates_ == 1
        w = est.coef_[0] / np.linalg.norm(est.coef_[0])
        row = {"distance 0": [-w[1], w[0]], "distance M": w}[where]
        labels = _Recorder(n)
        est.partial_fit(np.tile(row, (n, 1)), labels)
        assert est.n_updates_ == 1  # still in the second window: w was fixed
        bits = np.zeros(n, bool)
        bits[labels.read] = True
        return bits

    return mechanism


class _Recorder:
    """Labels (all 1) as a plain sequence that records which rows were read."""

    def __init__(self, n):
        self.n, self.read = n, []

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.read.append(int(i))
        return 1


@pytest.mark.parametrize(
    "selection,slab,low,high",
    [
        # Bernoulli (Lemma 1), slab 0.2·M: measured 0.991
        ("bernoulli", None, 0.8 * EPS_S, EPS_S),
        # exponential with the calibrated slab 0.2385·M: both outcomes have ratio
        # e^ε_s, the "not selected" one only after the calibration. Measured 0.991
        ("exponential", None, 0.8 * EPS_S, EPS_S),
        # the paper's slab 0.2·M: "not selected" has ratio e^1.1711 > e^ε_s, so
        # Lemma 2 understates the cost; privacy_cost() reports 1.1711. Measured 1.158
        ("exponential", 0.2, EPS_S, PAPER_SLAB_COST),
    ],
)
def test_audit_selection_through_the_estimator(selection, slab, low, high):
    # Pair: (a row at distance 0 from the released w) vs (a row at distance M),
    # both of norm M = 1. Events: the row's label is read / is not read.
    n = 200_000
    # the selection's share of privacy_cost(): total minus ε_g = 1
    claimed = (
        paper_svc(epsilon=2 * EPS_S, selection=selection, slab=slab).privacy_cost().epsilon - EPS_S
    )
    assert claimed == pytest.approx(high)
    res = audit(
        _estimator_selection_bits(n, slab, selection),
        ("distance 0", "distance M"),
        SELECTION_EVENTS,
        n_runs=n,
        batch=True,
        random_state=1,
        claimed_epsilon=claimed,
        name=f"{selection} selection, slab={slab}",
    )
    assert low < res.epsilon_lower_bound <= high, res.to_markdown()
    if slab == 0.2:
        assert res.best_event.startswith("not selected")


# --------------------------------------------------------------- noisy update
EPS = 1.0
RUNS_UPDATE = 6_000


def _one_update(x, rng):
    """coef_ after fit on the one-row stream [(x, +1)]: one noisy step, nothing else."""
    est = paper_svc(
        epsilon=EPS,
        selection="all",
        batch_size=1,
        data_norm=1.0,
        eta0=1.0,
        random_state=int(rng.integers(2**32)),
    )
    return est.fit(np.array([[x]]), np.array([1]), classes=[-1, 1]).coef_[0, 0]


def test_audit_one_noisy_update():
    # Pair: d = 1, batch of one row, x = +1 vs x = -1 with the same label +1:
    # the batch gradient moves by 2 = 2M, Lemma 3's worst case. selection="all"
    # spends all of ε on the update. eta0=1 keeps coef_ = x - z (z with density
    # ∝ exp(-ε|z|/2)) inside the projection radius 10, so the tail events below
    # have likelihood ratio exactly e^ε; the default step 100 would clip them.
    # Events (fixed in advance): coef > c and coef < -c for c = 1, 2.
    # Measured bound: 0.887 (claimed ε = 1), via "coef > 1"; every event gives >= 0.80
    # (6 000 fits per input: the expected bound is about 0.9).
    events = {f"coef > {c}": (lambda o, c=c: o > c) for c in (1.0, 2.0)}
    events.update({f"coef < -{c}": (lambda o, c=c: o < -c) for c in (1.0, 2.0)})
    # parameter validation is skipped only to afford 12 000 fits; the same
    # parameters are validated by the behaviour tests
    with config_context(skip_parameter_validation=True, assume_finite=True):
        res = audit(
            _one_update,
            (1.0, -1.0),
            events,
            n_runs=RUNS_UPDATE,
            claimed_epsilon=EPS,
            random_state=2,
            name="one noisy update",
        )
    assert paper_svc(epsilon=EPS, selection="all").privacy_cost().epsilon == EPS
    assert res.epsilon_lower_bound <= EPS, res.to_markdown()
    assert res.epsilon_lower_bound >= 0.8 * EPS, res.to_markdown()  # tight: no over-noising


# ---------------------------------------------------------------- end to end
def test_audit_short_stream_end_to_end():
    # Pair: 20 rows x = 0.5 with label +1 vs the same stream with the first row
    # replaced by x = -1 (label +1). Bernoulli selection, FLMB with batch 1,
    # ε = 1 (ε_s = ε_g = 0.5). Output: the released coef_, n_updates_ and
    # n_labels_requested_ after fit. Events fixed in advance: coef beyond a
    # few thresholds, and the number of updates. Not tight (the change of one
    # update is diluted by the others); measured bound: 0.082.
    n_rows = 20
    base = np.full(n_rows, 0.5)
    replaced = base.copy()
    replaced[0] = -1.0

    def mechanism(x, rng):
        est = paper_svc(
            epsilon=EPS,
            selection="bernoulli",
            update="flmb",
            batch_size=1,
            data_norm=1.0,
            eta0=1.0,
            random_state=int(rng.integers(2**32)),
        )
        est.fit(x[:, None], np.ones(n_rows, int), classes=[-1, 1])
        return np.array([est.coef_[0, 0], est.n_updates_, est.n_labels_requested_])

    events = {f"coef > {c}": (lambda o, c=c: o[:, 0] > c) for c in (0.0, 0.3, 0.6)}
    events.update({f"coef < {c}": (lambda o, c=c: o[:, 0] < c) for c in (-0.3, -0.6)})
    events.update({f"updates >= {k}": (lambda o, k=k: o[:, 1] >= k) for k in (8, 12)})
    with config_context(skip_parameter_validation=True, assume_finite=True):
        res = audit(
            mechanism,
            (base, replaced),
            events,
            n_runs=3000,
            claimed_epsilon=EPS,
            random_state=3,
            name="short stream",
        )
    assert res.epsilon_lower_bound <= EPS, res.to_markdown()
