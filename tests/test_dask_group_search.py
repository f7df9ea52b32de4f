"""NoisyGroupSearch on Dask: the same search over a dask array of scores.

Run on an in-process ``distributed.LocalCluster`` (two workers, one thread
each). The splits on dask input are not bit-identical to the in-memory ones
(the uniforms come from per-block child streams), so the comparisons are of
behaviour and distribution, with the rates stated next to each test.

Statistical tests use fixed seeds, so they are deterministic; the quoted
false-failure rates are for a re-drawn random stream.
"""

import math

import numpy as np
import pytest
from _faults import fail_on

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from _accountants import Ledger, LedgerRefused  # noqa: E402
from _dask_cluster import local_client  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.utils.validation import check_is_fitted  # noqa: E402

from skdp_anomaly import NoisyGroupSearch  # noqa: E402
from skdp_anomaly.group_search import MaxSensor  # noqa: E402
from skdp_anomaly.group_search import _dask_search, _sensors  # noqa: E402
from skdp_anomaly.group_search._dask_search import DaskPosterior  # noqa: E402
from skdp_anomaly.group_search._posterior import split as _split  # noqa: E402

LOW, HIGH = 1.0, 1.8


@pytest.fixture(scope="module")
def client():
    with local_client(processes=False) as c:
        yield c


def _scores(n, seed, value=3.0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, n)
    anomaly = int(rng.integers(n))
    x[anomaly] = value
    return x, anomaly


def _search(**kw):
    # the paper's per-query mode, ε = 2 per query, at most 100 queries
    params = dict(epsilon=200.0, query_epsilon=2.0, low=LOW, high=HIGH, random_state=0)
    params.update(kw)
    return NoisyGroupSearch(**params)


# ------------------------------------------------------------------ finds it
# n = 10^5 in 4 blocks, uniform [0, 1) scores, anomaly 3.0, query_epsilon=2, direct oracle,
# halting="posterior" (alpha=0.5). In memory over 300 seeds: found 300/300 (a failure
# rate below 1 %, 95 % upper bound), queries 17-30 (median 22; 0.5-99.5 % quantiles
# 18-29). On dask each fit is a single draw of the same distribution: the test needs
# every fit to find it (false failure < 2 % for a re-drawn stream) with queries in
# [14, 36] (outside the whole in-memory range by 3 or more).
@pytest.mark.parametrize("seed", [0, 1])
def test_finds_planted_anomaly_like_in_memory(client, seed):
    x, anomaly = _scores(100_000, seed=5000 + seed)
    X = da.from_array(x.reshape(-1, 1), chunks=(25_000, 1))
    est = _search(random_state=seed).fit(X)
    assert anomaly in est.candidates_
    assert est.halted_by_ == "posterior"
    assert 14 <= est.n_queries_ <= 36, est.n_queries_
    assert math.isclose(est.privacy_spent_.epsilon, 2.0 * est.n_queries_)
    assert (est.query_epsilon_, est.n_queries_planned_) == (2.0, 100)
    assert est.privacy_spent_.notion == "anomaly-restricted ε-DP"
    # fitted attributes: posterior and groups stay dask arrays, candidates are numpy
    assert isinstance(est.posterior_, da.Array) and isinstance(est.groups_, da.Array)
    assert isinstance(est.candidates_, np.ndarray) and est.candidates_.size == 4
    post = est.posterior_.compute()
    assert math.isclose(post.sum(), 1.0, rel_tol=1e-9) and post.max() > 0.5
    assert post[est.candidates_].min() >= np.delete(post, est.candidates_).max()
    assert not est.groups_.any().compute()
    # the posterior is persisted on the workers: its graph does not grow with queries
    assert len(est.posterior_.__dask_graph__()) <= 3 * X.numblocks[0]
    # the same data in memory halts by the same rule and flags it too
    mem = _search(random_state=seed).fit(x.reshape(-1, 1))
    assert mem.halted_by_ == est.halted_by_ and anomaly in mem.candidates_


@pytest.mark.parametrize("oracle", ["binarized", "randomized_response"])
def test_other_oracles_budget_halting(client, oracle):
    x, _ = _scores(5_000, seed=1)
    X = da.from_array(x.reshape(-1, 1), chunks=(2_000, 1))
    est = _search(oracle=oracle, halting="budget", epsilon=6.0).fit(X)
    assert (est.n_queries_, est.halted_by_) == (3, "budget")
    assert math.isclose(est.posterior_.sum().compute(), 1.0, rel_tol=1e-9)


def test_fit_predict_labels_dask(client):
    x, _ = _scores(5_000, seed=2)
    est = _search(halting="budget", epsilon=4.0, n_candidates=3)
    labels = est.fit_predict(da.from_array(x.reshape(-1, 1), chunks=(1_500, 1)))
    assert isinstance(labels, da.Array)
    labels = labels.compute()
    np.testing.assert_array_equal(np.flatnonzero(labels == -1), est.candidates_)
    assert (labels == 1).sum() == x.size - 3


def test_same_random_state_same_search(client):
    x, _ = _scores(5_000, seed=3)
    X = da.from_array(x.reshape(-1, 1), chunks=(2_000, 1))
    a = _search(halting="budget", epsilon=8.0, random_state=7).fit(X)
    b = _search(halting="budget", epsilon=8.0, random_state=7).fit(X)
    np.testing.assert_array_equal(a.posterior_.compute(), b.posterior_.compute())
    c = _search(halting="budget", epsilon=8.0, random_state=8).fit(X)
    assert not np.array_equal(a.posterior_.compute(), c.posterior_.compute())


# ------------------------------------------------------------------ other containers
def test_dataframe_series_and_score_func(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    x, _ = _scores(4_000, seed=4)
    frame = dd.from_pandas(pd.DataFrame({"score": x}), npartitions=3)
    for X in (frame, frame["score"]):
        est = _search(halting="budget", epsilon=4.0).fit(X)  # unknown chunk sizes
        assert est.n_queries_ == 2 and est.n_features_in_ == 1
        assert est.posterior_.shape == (x.size,)
    assert list(_search(halting="budget", epsilon=2.0).fit(frame).feature_names_in_) == ["score"]
    # several columns mapped to scores block by block
    rows = np.random.default_rng(0).uniform(0, 1, (4_000, 3)) / math.sqrt(3)
    rows[17] = 2.0
    X = da.from_array(rows, chunks=(1_000, 2))
    est = _search(
        score_func=lambda Z: np.linalg.norm(Z, axis=1), halting="budget", epsilon=4.0
    ).fit(X)
    assert est.n_features_in_ == 3 and est.posterior_.shape == (4_000,)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kw, x, match",
    [
        ({}, np.array([[0.1], [-0.2], [2.0], [0.3]]), ">= 0"),
        ({}, np.array([[0.1], [np.nan], [2.0], [0.3]]), "finite"),
        ({}, np.array([[0.1], [np.inf], [2.0], [0.3]]), "finite"),
        ({}, np.ones((4, 2)), "score_func"),
        ({}, np.array([[2.0]]), "minimum of 2"),
        ({"score_func": lambda Z: Z[:-1, 0]}, np.ones((4, 2)), "score_func"),
        ({"score_func": lambda Z: Z[:, 0] - 2.0}, np.ones((4, 2)), ">= 0"),
        ({"low": 2.0}, np.array([[0.1], [2.0]]), "'low' parameter must be < high"),
    ],
)
def test_bad_dask_input_raises(client, kw, x, match):
    X = da.from_array(x, chunks=(2, x.shape[1]))
    with pytest.raises(ValueError, match=match):
        _search(**kw).fit(X)


def test_bad_dask_containers_raise(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    text = dd.from_pandas(pd.DataFrame({"s": ["a", "b", "c"]}), npartitions=1)
    with pytest.raises(ValueError, match="numbers"):
        _search().fit(text)
    with pytest.raises(ValueError, match="2-D"):
        _search().fit(da.ones((4, 1, 1)))


def test_unsupported_parameters_on_dask_raise(client):
    X = da.from_array(np.linspace(0, 1, 100).reshape(-1, 1), chunks=(50, 1))
    with pytest.raises(NotImplementedError, match="n_anomalies"):
        _search(n_anomalies=2).fit(X)
    sensor = MaxSensor(np.zeros(100), LOW, 2.0, np.random.default_rng(0))
    with pytest.raises(NotImplementedError, match="oracle"):
        _search(oracle=sensor).fit(X)


# ------------------------------------------------------------------ privacy
class OrderedLedger(Ledger):
    """Records charges and sensor answers in one sequence."""

    def __init__(self, events, **kw):
        super().__init__(**kw)
        self.events = events

    def spend(self, epsilon, delta):
        super().spend(epsilon, delta)
        self.events.append("charge")
        return self


def test_accountant_charged_before_each_answer(client, monkeypatch):
    events = []
    query = MaxSensor.query

    def recorded(self, mask):
        assert isinstance(mask, da.Array)
        events.append("answer")
        return query(self, mask)

    monkeypatch.setattr(MaxSensor, "query", recorded)
    x, _ = _scores(5_000, seed=5)
    X = da.from_array(x.reshape(-1, 1), chunks=(2_000, 1))
    ledger = OrderedLedger(events)
    est = _search(accountant=ledger, query_epsilon=0.5, halting="budget", epsilon=2.0).fit(X)
    assert events == ["charge", "answer"] * 4 == ["charge", "answer"] * est.n_queries_
    assert math.isclose(ledger.total()[0], est.privacy_spent_.epsilon)
    # the plan (epsilon) is reserved before X is read: a refusal answers nothing
    events.clear()
    refusing = OrderedLedger(events, epsilon=1.5)
    est = _search(accountant=refusing, query_epsilon=0.5, halting="budget", epsilon=3.0)
    with pytest.raises(LedgerRefused):
        est.fit(X)
    assert events == [] and refusing.spent == []
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


DASK_STAGES = {
    "validation pass": (_dask_search, "dask_scores", 1, 0),
    "split on the workers": (DaskPosterior, "split", 2, 2),
    "blockwise maxima": (_sensors, "blockwise_statistic", 3, 3),
    "update on the workers": (DaskPosterior, "update", 2, 2),
}


DASK_FAULTS = [(stage, RuntimeError) for stage in DASK_STAGES] + [
    ("split on the workers", KeyboardInterrupt),
    ("blockwise maxima", KeyboardInterrupt),
]
_DASK_BUDGET = dict(query_epsilon=0.5, halting="budget", epsilon=1.5)  # three queries


@pytest.fixture(scope="module")
def dask_scores_and_reference(client):
    x, _ = _scores(3_000, seed=7)
    X = da.from_array(x.reshape(-1, 1), chunks=(1_000, 1))
    reference = _search(**_DASK_BUDGET).fit(X)
    return X, reference.posterior_.compute(), reference.candidates_


@pytest.mark.parametrize(
    "stage, exc", DASK_FAULTS, ids=[f"{s}-{e.__name__}" for s, e in DASK_FAULTS]
)
def test_a_failed_dask_search_is_rolled_back_and_keeps_the_queries_charged(
    dask_scores_and_reference, monkeypatch, stage, exc
):
    X, posterior, candidates = dask_scores_and_reference
    where, attribute, n, made = DASK_STAGES[stage]
    ledger = Ledger()
    est = _search(accountant=ledger, **_DASK_BUDGET)
    fail_on(monkeypatch, where, attribute, n, exc)
    with pytest.raises(exc):
        est.fit(X)
    monkeypatch.undo()
    assert ledger.spent == [(0.5, 0.0)] * made
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    params = set(est.get_params(deep=False))
    assert {k for k in vars(est) if k not in params} <= (
        {"privacy_spent_", "_charges"} if made else set()
    )
    if made:
        assert est.privacy_spent_.epsilon == pytest.approx(0.5 * made)
    # a retry is the uninterrupted search, charged its own three queries
    est.fit(X)
    np.testing.assert_array_equal(est.posterior_.compute(), posterior)
    np.testing.assert_array_equal(est.candidates_, candidates)
    assert est.n_queries_ == 3 and len(ledger.spent) == made + 3


# ------------------------------------------------------------------ the split
def _q_frequencies(split, f, reps):
    hits = np.zeros(f.size)
    for _ in range(reps):
        mask = split()
        q_mass = f[mask].sum()
        # eq. (10): Q holds less than half of the mass, or is one heavy item alone
        assert q_mass < 0.5 or (mask.sum() == 1 and q_mass >= 0.5)
        assert 0 < mask.sum() < f.size
        hits += mask
    return hits / reps


# n = 40 in 2 blocks (5 buckets, so the crossing bucket holds ~8 items and its key
# order matters); item 0 holds 0.3, item 1 0.15, the 38 others share 0.55. The
# in-memory split over 10 000 draws gives the reference P(item in Q); 200 dask splits
# must match it within 4 standard errors of a Bernoulli mean over 200 draws for item
# 0, item 1, and the light items pooled in the first and in the last block (a
# block-dependent order would separate those two). Per comparison the false-failure
# rate is about 6e-5 for a re-drawn stream. The split is timed on the synchronous
# scheduler (the distribution does not depend on where the blocks run; the tests
# above run it on the cluster).
@pytest.mark.slow
def test_dask_split_has_the_in_memory_distribution(client):
    n, reps = 40, 200
    f = np.full(n, 0.55 / 38)
    f[0], f[1] = 0.3, 0.15
    rng = np.random.default_rng(11)
    reference = _q_frequencies(lambda: _split(f, rng), f, 10_000)
    with dask.config.set(scheduler="sync"):
        belief = DaskPosterior(((20, 20),), np.random.default_rng(12))
        belief.f = da.from_array(f, chunks=20).persist()
        observed = _q_frequencies(lambda: belief.split().compute(), f, reps)
    first, last = np.arange(2, 20), np.arange(20, 40)
    for items in ([0], [1], first, last):
        p = reference[items].mean()
        tolerance = 4 * math.sqrt(p * (1 - p) / reps)
        assert abs(observed[items].mean() - p) <= tolerance, (items, observed[items], p)


def test_dask_split_heavy_item_alone(client):
    f = np.full(16, 0.4 / 15)
    f[5] = 0.6
    with dask.config.set(scheduler="sync"):
        belief = DaskPosterior(((8, 8),), np.random.default_rng(3))
        belief.f = da.from_array(f, chunks=8).persist()
        masks = [belief.split().compute() for _ in range(60)]
    for mask in masks:
        assert mask.any() and (not mask[5] or mask.sum() == 1)
        assert f[mask].sum() < 0.5 or np.flatnonzero(mask).tolist() == [5]
    # P(Q = {5}) = P(item 5 comes first) = 1/16; over 60 splits at least once w.p. 98 %
    assert any(np.flatnonzero(m).tolist() == [5] for m in masks)


# ------------------------------------------------------------------ top-k, any chunking
def test_two_items_in_chunks_of_one(client):
    # da.argtopk failed here: k = n_candidates (4) exceeds every partial reduction
    X = da.from_array(np.array([[0.5], [3.0]]), chunks=1)
    est = NoisyGroupSearch(epsilon=30.0, low=1.0, high=2.5, random_state=0).fit(X)
    assert est.candidates_.tolist() == [0, 1]
    assert est.fit_predict(X).compute().tolist() == [-1, -1]
    # the per-query ε is derived from n as in memory
    mem = NoisyGroupSearch(epsilon=30.0, low=1.0, high=2.5, random_state=0).fit(X.compute())
    assert (est.query_epsilon_, est.n_queries_planned_) == (
        mem.query_epsilon_,
        mem.n_queries_planned_,
    )


@pytest.mark.parametrize("chunks", [1, 2, 3, 7, (1, 5, 1, 3, 2)])
@pytest.mark.parametrize("k", [1, 3, 12, 50])
def test_candidates_are_the_k_largest_whatever_the_chunks(chunks, k):
    f = np.random.default_rng(5).permutation(np.arange(1.0, 13.0))
    with dask.config.set(scheduler="sync"):
        f_dask = da.from_array(f, chunks=chunks)
        belief = DaskPosterior(f_dask.chunks, np.random.default_rng(0))
        belief.f = f_dask.persist()
        posterior, top, _ = belief.result(k)
    assert top.dtype == np.int64
    np.testing.assert_array_equal(top, np.argsort(-f)[: min(k, f.size)])  # largest first
    np.testing.assert_allclose(posterior.compute(), f / f.sum())
