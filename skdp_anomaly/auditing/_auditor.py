"""Empirical privacy auditing: a Clopper–Pearson lower bound on ε.

Run a mechanism many times on two neighbouring inputs, count events fixed in
advance, and bound ε from below; a bound above the claimed ε refutes the claim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from scipy.stats import beta

from ..exceptions import naming
from ..privacy._rng import check_random_state


def clopper_pearson(k, n, alpha: float):
    """One-sided Clopper–Pearson bounds, each at level ``alpha``.

    Parameters
    ----------
    k : int or array-like of int
        Numbers of successes (vectorised).
    n : int
        Number of trials.
    alpha : float
        Level of each one-sided bound, in ``(0, 1)``.

    Returns
    -------
    lower, upper : ndarray of float64
        ``P(p >= lower) >= 1 - alpha`` and ``P(p <= upper) >= 1 - alpha``,
        shaped like ``k``.

    Examples
    --------
    >>> from skdp_anomaly.auditing import clopper_pearson
    >>> lo, hi = clopper_pearson(50, 100, 0.025)
    >>> bool(0.39 < lo < 0.5 < hi < 0.61)
    True
    """
    k = np.asarray(k, dtype=np.float64)
    lower = np.where(k > 0, beta.ppf(alpha, np.maximum(k, 1), n - k + 1), 0.0)
    upper = np.where(k < n, beta.ppf(1 - alpha, k + 1, np.maximum(n - k, 1)), 1.0)
    return lower, upper


@dataclass
class AuditResult:
    """Outcome of :func:`audit`.

    Attributes
    ----------
    epsilon_lower_bound : float
        With probability ``>= 1 - alpha`` the mechanism is not ε'-DP (at the
        given δ) for any smaller ε'.
    best_event : str
        Event and direction of the bound (``"A>B"``: more likely on the first input).
    rows : list of dict
        Per event: counts, estimated probabilities, bounds in each direction.
    n_runs : int
        Runs per input.
    alpha : float
        The bound holds with probability at least ``1 - alpha``.
    delta : float
        The δ of the audited (ε, δ) claim (0: pure ε-DP).
    claimed_epsilon : float or None
        The ε the mechanism claims, for reports (``ratio``).
    name : str
        Label for reports.
    extras : dict
        Free-form details a caller attaches.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly import audit
    >>> from skdp_anomaly.privacy import LaplaceMechanism
    >>> lap = LaplaceMechanism(epsilon=1.0)
    >>> result = audit(lambda c, rng, n: lap.randomise(np.full(n, c), rng), (0, 1),
    ...                {"output >= 1": lambda out: out >= 1}, n_runs=100_000, batch=True,
    ...                claimed_epsilon=1.0, random_state=0, name="Laplace")
    >>> bool(0.9 < result.ratio <= 1.0)  # within the claim, and close to it
    True
    >>> print(result.to_markdown().splitlines()[0])
    | event | count A | count B | ε lb (A>B) | ε lb (B>A) |
    """

    epsilon_lower_bound: float
    best_event: str
    rows: list
    n_runs: int
    alpha: float
    delta: float = 0.0
    claimed_epsilon: float | None = None
    name: str = ""
    extras: dict = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        """``epsilon_lower_bound / claimed_epsilon`` (nan if no claim)."""
        if not self.claimed_epsilon:
            return math.nan
        return self.epsilon_lower_bound / self.claimed_epsilon

    def to_markdown(self) -> str:
        """The per-event counts and bounds as a markdown table (a str)."""
        head = "| event | count A | count B | ε lb (A>B) | ε lb (B>A) |\n|---|---:|---:|---:|---:|"
        body = [
            f"| {r['event']} | {r['count_a']} | {r['count_b']} | "
            f"{r['eps_ab']:.4f} | {r['eps_ba']:.4f} |"
            for r in self.rows
        ]
        return "\n".join([head, *body])

    def __str__(self) -> str:
        claim = "" if self.claimed_epsilon is None else f" (claimed ε={self.claimed_epsilon:g})"
        return (
            f"{self.name or 'audit'}: ε lower bound {self.epsilon_lower_bound:.4f}{claim}, "
            f"{self.n_runs} runs per input, confidence {1 - self.alpha:.3g}, via {self.best_event}"
        )


def _draw(mechanism, x, rng, n_runs, batch):
    if batch:
        out = np.asarray(mechanism(x, rng, n_runs))
        if out.shape[:1] != (n_runs,):
            raise naming(
                ValueError,
                f"a batch mechanism must return `n_runs={n_runs}` outputs along axis 0, "
                f"got shape {out.shape}.",
            )
        return out
    return np.asarray([mechanism(x, rng) for _ in range(n_runs)])


def _as_named_events(events) -> list[tuple[str, Callable]]:
    if isinstance(events, Mapping):
        items = list(events.items())
    else:
        items = [(getattr(e, "__name__", f"event {i}"), e) for i, e in enumerate(events)]
    if not items:
        raise naming(ValueError, "`events` must contain at least one event.")
    for name, event in items:
        if not callable(event):
            raise TypeError(f"event {name!r} is not callable.")
    return [(str(name), event) for name, event in items]


def _count(event, outputs, name) -> int:
    hits = np.asarray(event(outputs))
    if hits.shape != (len(outputs),):
        raise ValueError(
            f"event {name!r} must map the array of outputs to one bool per run "
            f"(shape ({len(outputs)},)), got shape {hits.shape}."
        )
    return int(np.count_nonzero(hits))


def _log_ratio(p_hi_lower, p_lo_upper, delta):
    num = p_hi_lower - delta
    if num <= 0 or p_lo_upper <= 0:
        return 0.0 if num <= 0 else math.inf
    return max(0.0, math.log(num / p_lo_upper))


def audit(
    mechanism: Callable,
    neighbours: Sequence[Any],
    events,
    *,
    n_runs: int = 100_000,
    alpha: float = 0.05,
    delta: float = 0.0,
    batch: bool = False,
    claimed_epsilon: float | None = None,
    random_state=None,
    name: str = "",
) -> AuditResult:
    """Empirical lower bound on ε for ``mechanism`` on two neighbouring inputs.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(x, rng)`` returns one output; with ``batch=True``,
        ``mechanism(x, rng, n)`` returns ``n`` outputs along axis 0.
    neighbours : pair
        The two neighbouring inputs ``(a, b)`` (the relation's worst case).
    events : sequence of callables or mapping name -> callable
        Each maps the outputs (runs along axis 0) to one bool per run. Fix
        them before seeing outputs, or the bound is invalid.
    n_runs : int, default=100_000
        Runs per input.
    alpha : float, default=0.05
        The bound holds with probability ``>= 1 - alpha`` (Bonferroni over
        events and directions).
    delta : float, default=0.0
        Audit an (ε, δ) claim: the bound is ``log((p_A - δ) / p_B)``.
    batch : bool, default=False
        See ``mechanism``.
    claimed_epsilon : float, optional
        Stored on the result for reporting (``result.ratio``).
    random_state : None, int or numpy.random.Generator
        One generator drives both inputs' runs.
    name : str
        Label for reports.

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly import audit
    >>> from skdp_anomaly.privacy import RandomizedResponse
    >>> rr = RandomizedResponse(epsilon=1.0)
    >>> mech = lambda bit, rng, n: rr.randomise(np.full(n, bit), rng)
    >>> res = audit(mech, (True, False), {"reports 1": lambda out: out},
    ...             n_runs=200_000, batch=True, random_state=0, claimed_epsilon=1.0)
    >>> bool(0.9 < res.epsilon_lower_bound <= 1.0)
    True
    """
    if len(neighbours) != 2:
        raise naming(
            ValueError, f"`neighbours` must be a pair of inputs, got {len(neighbours)} items."
        )
    if not (isinstance(n_runs, (int, np.integer)) and n_runs >= 1):
        raise naming(ValueError, f"`n_runs` must be a positive int, got {n_runs!r}.")
    if not (0 < alpha < 1):
        raise naming(ValueError, f"`alpha` must be in (0, 1), got {alpha!r}.")
    if not (0 <= delta < 1):
        raise naming(ValueError, f"`delta` must be in [0, 1), got {delta!r}.")
    named = _as_named_events(events)
    rng = check_random_state(random_state)
    out_a = _draw(mechanism, neighbours[0], rng, n_runs, batch)
    out_b = _draw(mechanism, neighbours[1], rng, n_runs, batch)

    level = alpha / (4 * len(named))
    rows = []
    best, best_event = 0.0, named[0][0]
    for ev_name, event in named:
        k_a, k_b = _count(event, out_a, ev_name), _count(event, out_b, ev_name)
        (lo_a, lo_b), (hi_a, hi_b) = clopper_pearson([k_a, k_b], n_runs, level)
        eps_ab, eps_ba = _log_ratio(lo_a, hi_b, delta), _log_ratio(lo_b, hi_a, delta)
        counts = dict(event=ev_name, count_a=k_a, count_b=k_b, p_a=k_a / n_runs, p_b=k_b / n_runs)
        rows.append(dict(counts, eps_ab=eps_ab, eps_ba=eps_ba))
        for eps, direction in ((eps_ab, "A>B"), (eps_ba, "B>A")):
            if eps > best:
                best, best_event = eps, f"{ev_name} ({direction})"
    return AuditResult(
        epsilon_lower_bound=best,
        best_event=best_event,
        rows=rows,
        n_runs=int(n_runs),
        alpha=alpha,
        delta=delta,
        claimed_epsilon=claimed_epsilon,
        name=name,
    )
