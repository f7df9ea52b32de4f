"""A privacy budget shared by several fits: the package's own ledger."""

from __future__ import annotations

import math
import threading

from ..exceptions import BudgetExceededError, naming
from ._cost import PrivacyCost, compose_sequential

_RELATIONS = ("replace", "add_remove")


class BudgetAccountant:
    """A privacy budget shared by every fit given it as ``accountant``.

    A total ε (and δ) under one relation. A fit reserves its planned cost
    before reading data (refused, releasing nothing, if it does not fit) and is
    charged right before each release; threads cannot overspend. Shared by
    reference through ``clone``.

    Parameters
    ----------
    epsilon : float, default=inf
        The total ε (``inf``: only record).
    delta : float, default=0.0
        The total δ, in ``[0, 1)``.
    neighbours : {"replace", "add_remove"}, default="replace"
        The relation of the total. ``"replace"`` (n public) takes every
        estimator, an add/remove ε counting twice; ``"add_remove"`` refuses
        an estimator whose guarantee needs n public.

    See Also
    --------
    skdp_anomaly.check_privacy_budget : the price of estimators before any fit.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly import BudgetAccountant, PrivateHBOS
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(500, 3))
    >>> ledger = BudgetAccountant(epsilon=2.0, neighbours="add_remove")
    >>> _ = PrivateHBOS(epsilon=1.5, bounds=(0, 1), accountant=ledger, random_state=0).fit(X)
    >>> ledger.spent.epsilon, ledger.remaining
    (1.5, (0.5, 0.0))
    >>> PrivateHBOS(epsilon=1.0, bounds=(0, 1), accountant=ledger).fit(X)
    Traceback (most recent call last):
    ...
    skdp_anomaly.exceptions.BudgetExceededError: PrivateHBOS needs ε=1, ...
    """

    def __init__(
        self, epsilon: float = math.inf, delta: float = 0.0, *, neighbours: str = "replace"
    ):
        epsilon, delta = float(epsilon), float(delta)
        if not epsilon >= 0:
            raise naming(
                ValueError,
                f"`The 'epsilon' parameter` must be >= 0 (inf allowed); got {epsilon!r}.",
            )
        if not 0 <= delta < 1:
            raise naming(ValueError, f"`The 'delta' parameter` must be in [0, 1); got {delta!r}.")
        if neighbours not in _RELATIONS:
            raise naming(
                ValueError,
                f"`The 'neighbours' parameter` must be one of {_RELATIONS}; got {neighbours!r}.",
            )
        self.epsilon, self.delta, self.neighbours = epsilon, delta, neighbours
        self._lock = threading.RLock()
        self._history: list = []

    # -- the interface the estimators' protocol calls -----------------------------
    def check(self, epsilon: float, delta: float) -> bool:
        """Whether ``(epsilon, delta)`` more fits the total; raise if not.

        Raises
        ------
        BudgetExceededError
            When it does not.
        """
        with self._lock:
            spent_eps, spent_delta = self._totals()
            over = spent_eps + epsilon > self.epsilon * (1 + 1e-12)
            if over or spent_delta + delta > self.delta + 1e-15:
                left_eps, left_delta = self.remaining
                raise BudgetExceededError(
                    f"spending ε={epsilon:.6g}, δ={delta:.3g} would exceed the ledger's "
                    f"total (ε={self.epsilon:g}, δ={self.delta:g}, {self.neighbours} "
                    f"neighbours; remaining ε={left_eps:.6g}, δ={left_delta:.3g})."
                )
            return True

    def spend(self, epsilon: float, delta: float) -> BudgetAccountant:
        """Charge ``(epsilon, delta)`` under ``neighbours`` (checked first)."""
        with self._lock:
            self.check(epsilon, delta)
            self._history.append(_entry(epsilon, delta, self.neighbours))
        return self

    # -- reading it -----------------------------------------------------------------
    @property
    def history(self) -> tuple:
        """Every charge, in order, under ``neighbours``."""
        with self._lock:
            return tuple(self._history)

    @property
    def spent(self) -> PrivacyCost:
        """Everything charged, composed sequentially."""
        with self._lock:
            if not self._history:
                return PrivacyCost.zero()
            return compose_sequential(self._history, neighbours=self.neighbours)

    @property
    def remaining(self) -> tuple[float, float]:
        """``(ε, δ)`` still available."""
        with self._lock:
            eps, delta = self._totals()
            return max(self.epsilon - eps, 0.0), max(self.delta - delta, 0.0)

    def _totals(self) -> tuple[float, float]:
        history = self._history
        return math.fsum(c.epsilon for c in history), math.fsum(c.delta for c in history)

    # -- shared by reference, picklable ------------------------------------------------
    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        eps, delta = self._totals()
        return (
            f"BudgetAccountant(epsilon={self.epsilon:g}, delta={self.delta:g}, "
            f"neighbours={self.neighbours!r}; spent ε={eps:.6g}, δ={delta:.3g})"
        )


def _entry(epsilon: float, delta: float, neighbours: str) -> PrivacyCost:
    if delta == 0:
        return PrivacyCost.pure(epsilon, neighbours=neighbours)
    return PrivacyCost.approx(epsilon, delta, neighbours=neighbours)
