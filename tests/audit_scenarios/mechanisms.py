"""Worst-case audit scenarios for every mechanism of :mod:`skdp_anomaly.privacy`.

Shared by the test suite (few runs) and ``benchmarks/bench_audit_mechanisms.py``
(10⁶ runs). Each scenario fixes the neighbouring inputs and the events in
advance, as the auditor requires.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

import numpy as np

from skdp_anomaly.auditing import AuditResult, audit
from skdp_anomaly.privacy import (
    AboveThreshold,
    BernoulliSelection,
    ExponentialSelection,
    GeometricMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
)

__all__ = ["AuditScenario", "mechanism_scenarios", "run_scenario"]


@dataclass(frozen=True)
class AuditScenario:
    """One audit: mechanism, worst-case neighbours, events, claimed ε.

    ``tight`` marks mechanisms whose worst case attains ε exactly on one of
    the events, so a lower bound far below ε means over-noising.

    Attributes
    ----------
    name : str
        Label of the mechanism and its setting.
    mechanism : callable
        ``mechanism(x, rng, n)`` (``batch=True``) or ``mechanism(x, rng)``,
        as :func:`~skdp_anomaly.audit` takes it.
    neighbours : tuple
        The worst-case pair of neighbouring inputs.
    events : dict
        Event name -> callable on the array of outputs, fixed in advance.
    claimed_epsilon : float
        The ε the mechanism claims.
    tight : bool
        Whether the bound must come close to ``claimed_epsilon``.
    batch : bool, default=True
        Whether ``mechanism`` draws ``n`` outputs per call.
    relation : str, default=""
        The neighbouring relation of the pair, in words.

    Examples
    --------
    >>> from audit_scenarios.mechanisms import mechanism_scenarios
    >>> [s.name for s in mechanism_scenarios(1.0)][:2]
    ['geometric (count)', 'Laplace']
    """

    name: str
    mechanism: Callable
    neighbours: tuple
    events: dict
    claimed_epsilon: float
    tight: bool
    batch: bool = True
    relation: str = ""


def _above_threshold_run(queries, rng, *, epsilon):
    at = AboveThreshold(threshold=0.5, epsilon=epsilon, rng=rng)
    hit = at.feed(queries, rng)
    return -1 if hit is None else hit


def mechanism_scenarios(epsilon: float = 1.0) -> list[AuditScenario]:
    """The audit scenario of each mechanism at privacy level ``epsilon``.

    Parameters
    ----------
    epsilon : float, default=1.0
        The ε every mechanism is built with.

    Returns
    -------
    list of AuditScenario
        One scenario per mechanism of :mod:`skdp_anomaly.privacy`.
    """
    geo = GeometricMechanism(epsilon)
    lap = LaplaceMechanism(epsilon)
    rr = RandomizedResponse(epsilon)
    rnm = ReportNoisyMax(epsilon)
    lap3 = LaplaceMechanism(epsilon, 3.0, coordinates=3)
    ber = BernoulliSelection(epsilon)
    exp_sel = ExponentialSelection(epsilon, b=0.2, M=1.0)
    at_queries = (np.zeros(3), np.ones(3))
    return [
        AuditScenario(
            "geometric (count)",
            lambda c, rng, n: geo.randomise(np.full(n, c), rng),
            (0, 1),
            {"out <= 0": lambda o: o <= 0, "out >= 1": lambda o: o >= 1},
            epsilon,
            True,
            relation="add/remove one record: count changes by 1",
        ),
        AuditScenario(
            "Laplace",
            lambda v, rng, n: lap.randomise(np.full(n, float(v)), rng),
            (0.0, 1.0),
            {"out >= 1": lambda o: o >= 1.0, "out <= 0": lambda o: o <= 0.0},
            epsilon,
            True,
            relation="query of sensitivity 1 changes by 1",
        ),
        AuditScenario(
            "randomized response",
            lambda b, rng, n: rr.randomise(np.full(n, b), rng),
            (True, False),
            {"reports 1": lambda o: o},
            epsilon,
            True,
            relation="replace the bit",
        ),
        AuditScenario(
            "report-noisy-max",
            lambda s, rng, n: rnm.select(np.tile(s, (n, 1)), rng),
            (np.array([0.0, 0.0, 0.0]), np.array([1.0, -1.0, -1.0])),
            {"picks 0": lambda o: o == 0, "picks 1": lambda o: o == 1},
            epsilon,
            False,
            relation="each score moves by at most 1, in opposite directions",
        ),
        AuditScenario(
            "AboveThreshold",
            partial(_above_threshold_run, epsilon=epsilon),
            at_queries,
            {"no answer": lambda o: o == -1, "answers 0": lambda o: o == 0},
            epsilon,
            False,
            batch=False,
            relation="every query moves by 1",
        ),
        AuditScenario(
            "Laplace d=3 (one coordinate moves)",
            lambda v, rng, n: lap3.randomise(np.tile(v, (n, 1)), rng)[:, 0],
            (np.zeros(3), np.array([3.0, 0.0, 0.0])),
            {"out_0 >= 3": lambda o: o >= 3.0},
            epsilon,
            True,
            relation="L1 sensitivity 3, all on one coordinate",
        ),
        AuditScenario(
            "Laplace d=3 (every coordinate moves)",
            lambda v, rng, n: lap3.randomise(np.tile(v, (n, 1)), rng)[:, 0],
            (np.zeros(3), np.ones(3)),
            {"out_0 >= 1": lambda o: o >= 1.0},
            epsilon,
            False,
            relation="L1 sensitivity 3 spread over the coordinates",
        ),
        AuditScenario(
            "Bernoulli selection",
            lambda inf, rng, n: ber.select(np.full(n, inf), rng),
            (True, False),
            {"selected": lambda o: o, "not selected": lambda o: ~o},
            epsilon,
            True,
            relation="replace one stream element",
        ),
        AuditScenario(
            "exponential selection (b=0.2, M=1)",
            lambda d, rng, n: exp_sel.select(np.full(n, d), rng),
            (0.0, 1.0),
            {"selected": lambda o: o, "not selected": lambda o: ~o},
            exp_sel.cost.epsilon,
            True,
            relation="replace one stream element; ε is the corrected cost, not the paper's",
        ),
    ]


def run_scenario(
    scenario: AuditScenario, n_runs: int, *, random_state=0, alpha: float = 0.05
) -> AuditResult:
    """Run one scenario through :func:`~skdp_anomaly.audit`.

    Parameters
    ----------
    scenario : AuditScenario
        The mechanism, neighbours, events and claim.
    n_runs : int
        Runs per input.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the audit's draws.
    alpha : float, default=0.05
        The bound holds with probability at least ``1 - alpha``.

    Returns
    -------
    AuditResult
        The audit's outcome.

    Examples
    --------
    >>> from audit_scenarios.mechanisms import mechanism_scenarios, run_scenario
    >>> laplace = mechanism_scenarios(1.0)[1]
    >>> result = run_scenario(laplace, n_runs=100_000)
    >>> bool(0.9 < result.epsilon_lower_bound <= 1.0)
    True
    """
    return audit(
        scenario.mechanism,
        scenario.neighbours,
        scenario.events,
        n_runs=n_runs,
        batch=scenario.batch,
        claimed_epsilon=scenario.claimed_epsilon,
        random_state=random_state,
        alpha=alpha,
        name=scenario.name,
    )
