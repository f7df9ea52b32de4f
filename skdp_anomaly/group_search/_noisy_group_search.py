"""NoisyGroupSearch: anomaly-restricted private search by noisy Bayesian bisection (Bittner,
Sarwate and Wright, Using Noisy Binary Search for Differentially Private Anomaly Detection)."""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import validate_data

from .._data._dask import is_dask_collection
from .._warn import warn
from ..exceptions import GroupSearchBudgetWarning, naming
from ..privacy import PrivacyCost, PrivacyCostMixin
from ..privacy._mechanisms import MAX_GEOMETRIC_EPSILON, MAX_GRID_EPSILON, MIN_EPSILON
from ..privacy._rng import check_random_state
from ..privacy._docstrings import fill_doc
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS, epsilon_constraint
from ..privacy._validation import check_numeric
from ._plan import QueryPlan, plan_queries
from ._posterior import INVALID_SCORES, Posterior, largest
from ._sensors import MaxSensor, RandomizedResponseSensor, binarized_error, flip_probability


@fill_doc
class NoisyGroupSearch(PrivacyCostMixin, OutlierMixin, BaseEstimator):
    """Find the anomaly by noisy group queries, with anomaly-restricted DP (Bittner et al.).

    The searcher keeps a posterior over which item is the anomaly. Each query splits the items into
    a random half ``Q`` holding just under half of the posterior mass and the rest (eq. 10), asks a
    sensor for a noisy answer about the two halves and updates the posterior by Bayes' rule (eqs. 6,
    11, 12); the same answers test whether there is an anomaly at all. It stops by ``halting``, the
    test or the budget, and flags the ``n_candidates`` items of largest posterior only when its
    halting rule found one.

    Parameters
    ----------
    epsilon : float, default=10.0
        The most a fit spends (anomaly-restricted ε), in ``[1e-6, 2**20]``,
        split over the planned queries (each at most 30).
    query_epsilon : float or None, default=None
        The paper's per-query mode: every query costs this, in ``[1e-6, 30]``, and at most
        ``floor(epsilon / query_epsilon)`` are made. ``None``: derived from public quantities
        (Notes). Required with a sensor object as ``oracle``; at most ``epsilon``.
    oracle : {"randomized_response", "binarized", "direct"} or sensor, default="direct"
        ``"direct"``: noisy maxima of the halves, likelihood (11); ``"binarized"``: ``1(Y > Ȳ)``,
        error bound (24), update (6); ``"randomized_response"``: the bit of eq. (5), update (6). Or
        a sensor (:mod:`skdp_anomaly.group_search`) calibrated to ``query_epsilon``.
    low, high : float, default=1.0, 2.0
        ``t_ℓ < t_h``: non-anomalous scores lie in ``[0, t_ℓ]``, the anomaly is
        ``>= t_h`` (eq. 1). Public parameters, never read from the data.
    halting : {"posterior", "bz", "budget"}, default="posterior"
        Stop when the largest posterior entry exceeds ``alpha`` (``"posterior"``), when
        ``max log(f/(1-f)) > log(1/delta)`` (``"bz"``, eq. 25), or when one more query would exceed
        ``epsilon`` (``"budget"``: the planned queries, the largest entries flagged).
    alpha : float in (0, 1), default=0.5
        Posterior threshold of ``halting="posterior"`` (the paper's τ).
    delta : float in (0, 1), default=0.05
        Target error probability of ``halting="bz"`` (eq. 25) and of the plan (Proposition 3).
    null_threshold : float in (0, 1) or None, default=0.99
        Answer "no anomaly" (``halted_by_ == "no_anomaly"``, nothing flagged)
        once the posterior probability that no item is an anomaly exceeds
        this (prior 1/2). ``None``: assume an anomaly, as the paper does.
    max_queries : int, default=10_000
        A safety cap on the number of queries (reported in ``halted_by_``).
    n_candidates : int, default=4
        Items of largest posterior flagged ``-1`` by :meth:`fit_predict`.
    n_anomalies : int, default=1
        §7: with ``k > 1`` the items are split into ``ceil(k(k-1)/(2·0.05))``
        random groups (two random anomalies share one with probability at most
        5 %), each searched on its own; the candidates are the union.
    score_func : callable or None, default=None
        Maps the rows of a multi-column ``X`` to scores ``x_i >= 0``.
    random_state : None, int or numpy.random.Generator, default=None
        Query splits and sensor noise come from independent child streams.
    {accountant}
        ``epsilon`` is reserved; ``query_epsilon_`` is charged right before
        each query (once per query index when several groups run).

    Attributes
    ----------
    posterior_ : ndarray of shape (n_samples,)
        The final belief about which item is the anomaly (sums to 1); a dask
        array persisted on the workers on dask input.
    candidates_ : ndarray of int
        Indices of the flagged items; empty when the search answered "no
        anomaly" or did not halt by its rule within the budget (not found).
    null_posterior_ : ndarray of shape (n_groups,)
        Posterior probability that the group holds no anomaly (0 with ``null_threshold=None``).
    n_queries_ : int
        Queries made (the largest over groups).
    query_epsilon_ : float
        The anomaly-restricted ε of one query: ``query_epsilon``, or derived
        from public quantities (Notes).
    n_queries_planned_ : int
        The most queries the fit could make: ``min(max_queries, floor(epsilon / query_epsilon_))``.
    halted_by_ : str
        ``"posterior"`` or ``"bz"`` (found), ``"no_anomaly"`` (the test),
        ``"budget"`` or ``"max_queries"`` (nothing flagged, except with
        ``halting="budget"``); the first group's reason when there are several.
    groups_ : ndarray of shape (n_samples,)
        The group of each item (all 0 with one anomaly; lazy on dask input).
    privacy_spent_ : PrivacyCost
        ``n_queries_ · query_epsilon_ <= epsilon``, anomaly-restricted,
        replace-one neighbours: the queries charged (kept by a failed fit).
    n_features_in_ : int

    Notes
    -----
    Anomaly-restricted ε-DP per query (Definitions 1–2): neighbouring datasets have the same anomaly
    and differ in the value of one *non-anomalous* item; the anomaly, and whether there is one, are
    not protected, by design. Under the data model (non-anomalous scores in ``[0, t_ℓ]``) a group's
    maximum moves by at most ``t_ℓ`` (Lemma 1) and the halves are disjoint, so ``t`` queries cost
    ``tε`` (Proposition 2); a non-anomalous score ``s > t_ℓ`` is protected only at ``ε·s/t_ℓ``.
    Randomized response is charged Proposition 1 per query, an upper bound. The anomaly test reuses
    the answers (no extra release). Without ``query_epsilon`` each query's ε comes from Proposition
    3's expected queries (``n`` is public). Proofs, budget rule and dask layout:
    :ref:`proofs-group-search` on :doc:`/proofs`; see also :doc:`/group_search`.

    References
    ----------
    .. [1] D. M. Bittner, A. D. Sarwate, R. N. Wright. Using noisy binary
       search for differentially private anomaly detection. Def. 1–2
       (anomaly-restricted DP), Lemma 1 and Propositions 1–3 (the sensors),
       eq. (11) (the likelihood), §6.2 (experiments), §7 (several anomalies).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly import NoisyGroupSearch
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.uniform(0, 1, 10_000)
    >>> scores[1234] = 3.0                        # the anomaly, >= t_h
    >>> search = NoisyGroupSearch(epsilon=30.0, low=1.0, high=2.5, random_state=1)
    >>> labels = search.fit_predict(scores.reshape(-1, 1))
    >>> bool(1234 in search.candidates_), int((labels == -1).sum())
    (True, 4)
    >>> search.privacy_spent_.epsilon <= search.privacy_cost().epsilon == 30.0
    True
    >>> clean = np.delete(scores, 1234)               # no item >= t_h
    >>> search.fit(clean.reshape(-1, 1)).halted_by_, int(search.candidates_.size)
    ('no_anomaly', 0)
    """

    _parameter_constraints: dict = {
        **PRIVACY_PARAMETER_CONSTRAINTS,
        # a total: the package's ceiling for a release (2**20), never infinite
        "epsilon": epsilon_constraint(MAX_GRID_EPSILON),
        # one query: at most 30: randomized response's flip is then below 1e-13, and past
        # ≈745 eq. 24's error bound is 0 in floats (log((1-p)/p) infinite)
        "query_epsilon": [*epsilon_constraint(MAX_GEOMETRIC_EPSILON), None],
        "oracle": [
            StrOptions({"randomized_response", "binarized", "direct"}),
            HasMethods(["query"]),
        ],
        "low": [Interval(numbers.Real, 0, None, closed="neither")],
        "high": [Interval(numbers.Real, 0, None, closed="neither")],
        "halting": [StrOptions({"posterior", "bz", "budget"})],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "delta": [Interval(numbers.Real, 0, 1, closed="neither")],
        "null_threshold": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "max_queries": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_candidates": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_anomalies": [Interval(numbers.Integral, 1, None, closed="left")],
        "score_func": [callable, None],
    }

    def __init__(
        self,
        *,
        epsilon=10.0,
        query_epsilon=None,
        oracle="direct",
        low=1.0,
        high=2.0,
        halting="posterior",
        alpha=0.5,
        delta=0.05,
        null_threshold=0.99,
        max_queries=10_000,
        n_candidates=4,
        n_anomalies=1,
        score_func=None,
        random_state=None,
        accountant=None,
    ):
        self.epsilon = epsilon
        self.query_epsilon = query_epsilon
        self.oracle = oracle
        self.low = low
        self.high = high
        self.halting = halting
        self.alpha = alpha
        self.delta = delta
        self.null_threshold = null_threshold
        self.max_queries = max_queries
        self.n_candidates = n_candidates
        self.n_anomalies = n_anomalies
        self.score_func = score_func
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------ privacy
    @staticmethod
    def _query_cost(query_epsilon: float) -> PrivacyCost:
        how = "one group query: two disjoint halves (parallel composition)"
        return PrivacyCost.anomaly_restricted_dp(query_epsilon, how, neighbours="replace")

    def _response(self) -> str:
        if isinstance(self.oracle, str):
            return "bit" if self.oracle == "randomized_response" else "maxima"
        return self.oracle.response

    def _plan(self, n: int) -> QueryPlan:
        """The per-query ε and the queries ``epsilon`` buys for ``n`` items (public)."""
        given = None if self.query_epsilon is None else float(self.query_epsilon)
        low, high, delta = float(self.low), float(self.high), float(self.delta)
        search = (int(n), float(self.epsilon), self._response(), low, high, delta)
        return plan_queries(*search, int(self.max_queries), given, min_query_epsilon=MIN_EPSILON)

    def _privacy_cost(self) -> PrivacyCost:
        """The most a search can spend: ``epsilon``, over the queries it plans.

        The actual spend is ``privacy_spent_`` (``n_queries_ · query_epsilon_``).

        Examples
        --------
        >>> from skdp_anomaly import NoisyGroupSearch
        >>> cost = NoisyGroupSearch().privacy_cost()
        >>> cost.epsilon, cost.notion, cost.neighbours
        (10.0, 'anomaly-restricted ε-DP', 'replace')
        """
        how = "group queries, at most epsilon in all (sequential composition)"
        return PrivacyCost.anomaly_restricted_dp(float(self.epsilon), how, neighbours="replace")

    def privacy_assumptions(self) -> tuple:
        """The data model the guarantee rests on (eq. 1), which the search cannot check."""
        return (
            f"NoisyGroupSearch: the non-anomalous scores lie in [0, low={self.low!r}] and "
            f"an anomaly is >= high={self.high!r} (Bittner et al., eq. 1); a larger "
            "non-anomalous score is protected only at epsilon·score/low, and neither the "
            "anomaly nor whether there is one is protected",
        )

    def _more_validate_params(self) -> None:
        """The parameters that constrain each other, and a sensor object's protocol."""
        if not self.low < self.high:
            raise naming(
                ValueError,
                f"`The 'low' parameter` must be < `high` (t_ℓ < t_h); got "
                f"`low={self.low!r}`, `high={self.high!r}`.",
            )
        if self.query_epsilon is not None and self.query_epsilon > self.epsilon:
            raise naming(
                ValueError,
                f"`The 'query_epsilon' parameter`, the cost of one query, must be at most "
                f"`epsilon`, the total; got `query_epsilon={self.query_epsilon!r}` > "
                f"`epsilon={self.epsilon!r}`.",
            )
        if not isinstance(self.oracle, str):
            if self.query_epsilon is None:
                raise naming(
                    ValueError,
                    "`The 'query_epsilon' parameter` must be given with a sensor object as "
                    "`oracle`: the sensor answers at its own ε per query, which the search "
                    "charges; got `query_epsilon=None`.",
                )
            if self.n_anomalies != 1:
                raise naming(
                    ValueError,
                    "`The 'n_anomalies' parameter` must be 1 with a sensor object as `oracle` "
                    "(it answers for halves of all its items, not of one group); got "
                    f"`n_anomalies={self.n_anomalies!r}`.",
                )
            _checked_sensor(self.oracle, float(self.query_epsilon))

    # ---------------------------------------------------------------- fit
    def _private_fit(self, X, y=None):
        """Search for the anomaly among the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, 1) or (n_samples, n_features)
            Anomaly scores ``>= 0`` (one column), or rows mapped to scores by ``score_func``. With a
            sensor object as ``oracle``, only the number of rows is used. A dask array, DataFrame or
            Series runs the search on the workers (see Notes).
        y : None
            Ignored.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            A bad parameter (before anything is reserved), or bad data
            (before any query is charged).
        Exception
            The accountant's refusal (diffprivlib's ``BudgetError``), before
            ``X`` is read. A failure leaves the estimator as it was, except
            ``privacy_spent_``, which keeps the queries already charged.
        """
        if is_dask_collection(X):
            return self._fit_dask(X)
        scores = self._scores(X)
        n = scores.shape[0]
        split_rng, group_rng, noise_rng = check_random_state(self.random_state).spawn(3)
        groups = self._groups(n, group_rng)
        posterior = np.empty(n)
        spent, reasons, candidates, nulls = 0, [], [], []
        n_groups = int(groups.max()) + 1
        # one plan for every group (their i-th queries share one charge), sized for the
        # largest: the group sizes are public, as n is
        plan = self._planned(-(-n // n_groups))
        for g in range(n_groups):
            members = np.flatnonzero(groups == g)
            sensor = self._sensor(scores[members], noise_rng, plan.query_epsilon)
            belief = Posterior(members.size, split_rng)
            queries, reason, null = self._search(sensor, belief, plan, paid=spent)
            f = belief.f
            posterior[members] = f / n_groups
            spent = max(spent, queries)  # disjoint groups: parallel composition
            reasons.append(reason)
            nulls.append(null)
            if self._found(reason):
                candidates.append(members[largest(f, self.n_candidates)])
        self.groups_ = groups
        self.posterior_ = posterior
        self.candidates_ = np.sort(np.concatenate(candidates or [np.zeros(0, np.int64)]))
        self._set_outcome(plan, spent, reasons[0], nulls)
        return self

    def _set_outcome(self, plan: QueryPlan, queries: int, reason: str, nulls: list) -> None:
        self.query_epsilon_, self.n_queries_planned_ = plan.query_epsilon, plan.queries
        self.n_queries_, self.halted_by_ = queries, reason
        self.null_posterior_ = np.asarray(nulls, dtype=np.float64)

    def _planned(self, n: int) -> QueryPlan:
        """This fit's plan for ``n`` items; warns when it is shorter than Proposition 3's."""
        plan = self._plan(n)
        if not plan.queries >= plan.proposition3:
            warn(naming(GroupSearchBudgetWarning, _short_plan_message(self, n, plan)))
        return plan

    def _found(self, reason: str) -> bool:
        # a search that did not reach its own halting rule names no culprit; only the
        # budget rule (the paper's Figure 3) hands on the largest entries as they are
        if reason in ("posterior", "bz"):
            return True
        return self.halting == "budget" and reason in ("budget", "max_queries")

    def _fit_dask(self, X):
        """The search over a dask collection: the same loop, a belief on the workers."""
        from ._dask_search import DaskPosterior, dask_scores

        if not isinstance(self.oracle, str):
            raise naming(
                NotImplementedError,
                "`oracle`: a sensor object answers numpy masks over the items it holds; a dask "
                "X needs a built-in oracle ('direct', 'binarized' or 'randomized_response').",
            )
        if self.n_anomalies != 1:
            raise naming(
                NotImplementedError,
                f"`n_anomalies={self.n_anomalies!r}` is not supported on dask input (the group "
                "search runs one group there); pass `n_anomalies=1` or a numpy array.",
            )
        scores, n_features, names = dask_scores(X, self.score_func)
        self.n_features_in_ = n_features
        if names is not None:
            self.feature_names_in_ = names
        split_rng, _, noise_rng = check_random_state(self.random_state).spawn(3)
        plan = self._planned(int(scores.shape[0]))
        belief = DaskPosterior(scores.chunks, split_rng)
        sensor = self._sensor(scores, noise_rng, plan.query_epsilon)
        queries, reason, null = self._search(sensor, belief, plan)
        self.posterior_, top, self.groups_ = belief.result(self.n_candidates)
        self.candidates_ = np.sort(top) if self._found(reason) else np.zeros(0, np.int64)
        self._set_outcome(plan, queries, reason, [null])
        return self

    def _scores(self, X):
        builtin = isinstance(self.oracle, str)  # else the sensor holds the scores
        if not builtin and X is not None and np.ndim(X) == 1:
            X = np.asarray(X).reshape(-1, 1)
        check_numeric(X, type(self).__name__)  # numpy's own error quotes a value of X
        X = validate_data(
            self, X, reset=True, dtype=np.float64, ensure_min_samples=2, ensure_all_finite=builtin
        )
        if not builtin:
            return np.zeros(X.shape[0])
        if self.score_func is not None:
            scores = np.asarray(self.score_func(X), dtype=np.float64).reshape(-1)
            if scores.shape != (X.shape[0],):
                raise naming(
                    ValueError,
                    f"`score_func` returned shape {scores.shape}; expected one "
                    f"score per row, ({X.shape[0]},).",
                )
        elif X.shape[1] != 1:
            raise naming(
                ValueError,
                f"X has {X.shape[1]} columns: pass one column of anomaly scores, "
                "or a `score_func` that maps rows to scores.",
            )
        else:
            scores = X[:, 0]
        if not np.all(np.isfinite(scores)) or np.any(scores < 0):
            raise ValueError(INVALID_SCORES)
        return scores

    def _groups(self, n, rng):
        k = int(self.n_anomalies)
        if k == 1:
            return np.zeros(n, np.int64)
        n_groups = min(n // 2, math.ceil(k * (k - 1) / (2 * 0.05)))
        if n_groups < k:
            raise naming(
                ValueError,
                f"`n_anomalies={k}` needs at least {k} groups of 2 or more items; "
                f"there are {n} items.",
            )
        return rng.permutation(np.arange(n) % n_groups)

    def _sensor(self, scores, rng, query_epsilon: float):
        if not isinstance(self.oracle, str):
            return self.oracle  # its protocol was checked with the parameters
        if self.oracle == "randomized_response":
            return RandomizedResponseSensor(scores, self.high, query_epsilon, rng)
        return MaxSensor(scores, self.low, query_epsilon, rng)

    # ------------------------------------------------------------ search
    def _search(self, sensor, belief, plan: QueryPlan, paid: int = 0):
        """Algorithm 1 with the anomaly test: (queries, halting reason, P(no anomaly)); the
        posterior stays in ``belief``. ``paid``: queries charged by earlier groups (disjoint
        groups' i-th queries compose in parallel: one charge)."""
        threshold = self.alpha if self.halting == "posterior" else 1.0 / (1.0 + self.delta)
        testing = self.null_threshold is not None
        eps, limit = plan.query_epsilon, plan.queries
        null_odds = 0.0  # log P(no anomaly) / P(an anomaly); the prior is 1/2
        queries = 0
        while True:
            null = _expit(null_odds) if testing else 0.0
            if testing and null > self.null_threshold:
                return queries, "no_anomaly", null
            # the paper's rule, on the belief given an anomaly: a search that finds one
            # stops at the same query as without the test, so the test costs nothing more
            if self.halting != "budget" and belief.max() > threshold:
                return queries, self.halting, null
            if queries >= limit:
                return queries, "budget" if limit < self.max_queries else "max_queries", null
            queries += 1
            if queries > paid:  # before the answer exists
                self._charge(self._query_cost(eps))
            mask = belief.split()
            answer = sensor.query(mask)
            log_ratio = self._log_ratio(answer, sensor, eps)
            if testing:
                null_odds += self._null_evidence(answer, sensor, belief.q_mass, eps)
            belief.update(mask, log_ratio)

    def _null_evidence(self, answer, sensor, q_mass: float, eps: float) -> float:
        """Log-likelihood ratio of one answer, no anomaly (both maxima ``t_ℓ``, the bit 0) vs
        an anomaly, in ``Q`` with mass ``q_mass`` (eq. 11, or eq. 5 for a bit)."""
        if sensor.response == "bit":
            p = flip_probability(eps)
            yes, no = math.log1p(-p), math.log(p)
            in_q, in_rest = (yes, no) if _check_bit(answer) else (no, yes)
            none = in_rest  # no anomaly: the true bit is 0, as with the anomaly outside Q
        else:
            none, in_q, in_rest = self._eq11(*_check_maxima(answer), eps / self.low)
        q = min(max(q_mass, 1e-300), 1.0)
        some = np.logaddexp(math.log(q) + in_q, math.log1p(-q) + in_rest if q < 1 else -np.inf)
        return none - float(some)

    def _log_ratio(self, answer, sensor, eps: float) -> float:
        """Bayes' rule (6) or (12): log of the likelihood ratio, anomaly in ``Q`` vs the rest."""
        low, high = float(self.low), float(self.high)
        if sensor.response == "bit":  # R = Q if the bit is 1, else the rest
            return _log_odds(flip_probability(eps), _check_bit(answer))
        y_in, y_out = _check_maxima(answer)
        if self.oracle == "binarized":
            return _log_odds(binarized_error(eps, low, high), y_in > y_out)
        _, in_q, in_rest = self._eq11(y_in, y_out, eps / low)
        return in_q - in_rest

    def _eq11(self, y_in: float, y_out: float, scale: float) -> tuple[float, float, float]:
        """Eq. (11)'s log-likelihoods of the maxima, up to one constant: no anomaly, the
        anomaly in ``Q``, the anomaly in the rest."""
        low, high = float(self.low), float(self.high)
        none = -scale * (abs(y_in - low) + abs(y_out - low))
        in_q = -scale * (abs(y_in - high) + abs(y_out - low))
        return none, in_q, -scale * (abs(y_in - low) + abs(y_out - high))

    # ------------------------------------------------------------ predict
    def fit_predict(self, X, y=None):
        """Search, then label the candidates ``-1`` and every other item ``+1``.

        On dask input the labels are a dask array chunked like the scores.
        """
        self.fit(X)
        if is_dask_collection(self.posterior_):
            from ._dask_search import flag_candidates

            return flag_candidates(self.posterior_.chunks, self.candidates_)
        labels = np.ones(self.posterior_.shape[0], dtype=int)
        labels[self.candidates_] = -1
        return labels

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


def _expit(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _log_odds(p: float, sign: bool) -> float:
    """``±log((1 - p) / p)``: the log-likelihood ratio of an answer wrong with probability p."""
    log_odds = math.log1p(-p) - math.log(p)
    return log_odds if sign else -log_odds


def _check_bit(answer) -> bool:
    if isinstance(answer, (bool, np.bool_)) or answer in (0, 1):
        return bool(answer)
    raise ValueError(f"a 'bit' sensor must answer True/False (or 0/1), got {answer!r}.")


def _short_plan_message(est, n: int, plan: QueryPlan) -> str:
    """The warning of a plan shorter than Proposition 3's count: public quantities only."""
    head = (
        f"NoisyGroupSearch plans {plan.queries} queries over {n} items at "
        f"{plan.query_epsilon:.3g} each, fewer than the "
    )
    given = est.query_epsilon is not None
    if not math.isfinite(plan.proposition3):
        return (
            head + "queries Proposition 3 of Bittner, Sarwate and Wright needs: at this "
            "ε per query an answer carries no information. Widen the gap between `low` and "
            "`high`" + (", or raise `query_epsilon`." if given else ".")
        )
    need = math.ceil(plan.proposition3)
    advice = f"`epsilon={_round_up(plan.sufficient_epsilon):g}`"
    if given:
        advice += f" (at `query_epsilon={est.query_epsilon!r}`)"
    if est.max_queries < plan.sufficient_queries:
        advice += f" with `max_queries` >= {plan.sufficient_queries}"
    return (
        head + f"{need} that Proposition 3 of Bittner, Sarwate and Wright expects for its "
        f"error `delta={est.delta!r}`: `epsilon={est.epsilon!r}` (the total, "
        "anomaly-restricted) is too small for that guarantee, and a search that has not "
        f"concentrated within its plan reports 'not found'. {advice} would plan enough "
        "queries; a wider gap between `low` and `high` needs fewer."
    )


def _round_up(x: float, digits: int = 3) -> float:
    """``x`` rounded up to ``digits`` significant digits (a total that surely suffices)."""
    step = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return math.ceil(x / step * (1 - 1e-12)) * step


def _checked_sensor(sensor, epsilon: float):
    """A user sensor follows the protocol, at the ε the searcher charges per query."""
    response = getattr(sensor, "response", None)
    if response not in ("maxima", "bit"):
        raise naming(
            ValueError,
            "`The 'oracle' parameter`, a sensor object, must have response 'maxima' or 'bit'; "
            f"got {response!r}.",
        )
    declared = getattr(sensor, "epsilon", None)
    if not isinstance(declared, (int, float)) or not math.isclose(declared, epsilon, rel_tol=1e-12):
        raise naming(
            ValueError,
            f"`The 'oracle' parameter`, a sensor object, answers at epsilon={declared!r} but "
            f"the search charges `query_epsilon={epsilon!r}` per query; they must be equal.",
        )
    return sensor


def _check_maxima(answer) -> tuple[float, float]:
    if isinstance(answer, (str, bytes)):
        raise ValueError(
            f"a 'maxima' sensor must answer a pair of numbers, got the string {answer!r}."
        )
    try:
        y_in, y_out = (float(v) for v in answer)
    except (TypeError, ValueError):
        raise ValueError(
            "a 'maxima' sensor must answer a pair of numbers (noisy maximum in "
            f"the queried half, noisy maximum in the rest), got {answer!r}."
        ) from None
    if not (math.isfinite(y_in) and math.isfinite(y_out)):
        raise ValueError(f"a 'maxima' sensor answered non-finite values {answer!r}.")
    return y_in, y_out
