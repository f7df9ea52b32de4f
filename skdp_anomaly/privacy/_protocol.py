"""The privacy-cost protocol every estimator of this package follows.

* ``privacy_cost()`` — the cost implied by the parameters, callable before
  fitting (the budget validator reads it, never an accountant);
* ``privacy_spent_`` — the cost actually spent by the last fit (may be lower
  when a mechanism stops early), set by :meth:`PrivacyCostMixin._spend`.

When the user passes a diffprivlib ``BudgetAccountant`` (``accountant``
parameter), the spent (ε, δ) is charged to it at fit, as diffprivlib's own
models do; ``None`` uses diffprivlib's default accountant. Note that
``sklearn.base.clone`` deep-copies parameters, so a cloned estimator charges a
*copy* of the accountant: this is why the budget validator works from
parameters, not accountants.
"""

from __future__ import annotations

from diffprivlib.accountant import BudgetAccountant

from ._cost import PrivacyCost

__all__ = ["PrivacyCostMixin"]


class PrivacyCostMixin:
    """Mixin implementing the spending side of the privacy-cost protocol."""

    def privacy_cost(self) -> PrivacyCost:  # pragma: no cover - abstract
        """Privacy cost implied by the current parameters (before fitting)."""
        raise NotImplementedError

    def _spend(self, cost: PrivacyCost) -> PrivacyCost:
        """Record ``cost`` as ``privacy_spent_`` and charge the accountant."""
        accountant = BudgetAccountant.load_default(getattr(self, "accountant", None))
        # diffprivlib accountants know (ε, δ) only; relaxed notions are charged
        # their (ε, δ) part and the notion is kept in privacy_spent_. A release
        # that spent nothing is not charged (diffprivlib refuses ε = δ = 0).
        if cost.epsilon > 0 or cost.delta > 0:
            accountant.spend(cost.epsilon, cost.delta)
        self.privacy_spent_ = cost
        return cost
