"""The privacy-cost protocol every estimator of this package follows.

* ``privacy_cost()`` — the cost implied by the parameters, callable before
  fitting, with its neighbouring relation (the budget validator reads it,
  never an accountant);
* ``privacy_assumptions()`` — what the guarantee takes as public without
  checking it (e.g. the set of class labels when it is read from ``y``);
  the budget validator lists these in its report;
* ``privacy_spent_`` — the cost actually spent by the last fit (may be lower
  when a mechanism stops early).

Accounting happens **before** release: a fit first forgets any earlier fit
and checks that the accountant can pay the whole planned cost
(:meth:`PrivacyCostMixin._start_private_fit`), then charges each part right
before the mechanism that releases it (:meth:`PrivacyCostMixin._charge`). A
refused fit therefore computes nothing and leaves the estimator unfitted.

When the user passes an accountant (``accountant`` parameter: a diffprivlib
``BudgetAccountant``, or any object with ``spend(epsilon, delta)`` and
optionally ``check(epsilon, delta)``) it is charged as diffprivlib's own
models charge theirs. ``None`` charges no accountant: this package does not
import diffprivlib (which does not import on every scikit-learn); to share
diffprivlib's default accountant pass ``BudgetAccountant.load_default(None)``.
The accountant keeps one ledger of (ε, δ)
for diffprivlib's models, whose guarantees hold under replace-one neighbours
(n public), so this package charges it every cost **under replace-one
neighbours** (:data:`ACCOUNTANT_NEIGHBOURS`): an add/remove ε counts 2ε there
(group privacy), and the ledger's total stays true. ``privacy_spent_`` keeps
the estimator's own relation. Note that ``sklearn.base.clone`` deep-copies
parameters, so a cloned estimator charges a *copy* of the accountant: this is
why the budget validator works from parameters, not accountants.
"""

from __future__ import annotations

from ._cost import PrivacyCost

__all__ = ["ACCOUNTANT_NEIGHBOURS", "PrivacyCostMixin"]

#: The neighbouring relation of the (ε, δ) a diffprivlib ``BudgetAccountant`` is charged.
ACCOUNTANT_NEIGHBOURS = "replace"


class PrivacyCostMixin:
    """Mixin implementing the accounting side of the privacy-cost protocol."""

    def privacy_cost(self) -> PrivacyCost:  # pragma: no cover - abstract
        """Privacy cost implied by the current parameters (before fitting)."""
        raise NotImplementedError

    def privacy_assumptions(self) -> tuple:
        """What the guarantee of :meth:`privacy_cost` takes as public, in words.

        Empty when the guarantee rests on the parameters alone.
        """
        return ()

    # -- accounting, in this order: start, then charge before each release -----
    def _start_private_fit(self, planned: PrivacyCost) -> None:
        """Forget any earlier fit, then check that the accountant can pay ``planned``.

        Call before reading the data: when the budget is refused (the
        accountant's error, diffprivlib's ``BudgetError``) nothing has been
        computed and the estimator is unfitted.
        """
        self._forget()
        accountant = getattr(self, "accountant", None)
        epsilon, delta = self._ledger_entry(planned)
        if accountant is None or not hasattr(accountant, "check") or epsilon == delta == 0:
            return
        try:
            accountant.check(epsilon, delta)
        except ValueError as exc:  # diffprivlib's BudgetError is a ValueError
            raise type(exc)(
                f"{type(self).__name__} needs ε={epsilon:.6g}, δ={delta:.3g} from the "
                f"accountant ({planned} is charged under replace-one neighbours, the "
                f"relation of diffprivlib's accountant): {exc}"
            ) from None

    #: private attributes that hold the state of a run (forgotten with the fitted ones)
    _private_state: tuple = ()

    def _forget(self) -> None:
        """Drop every fitted attribute and the private state of a run."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, name)
        for name in self._private_state:
            self.__dict__.pop(name, None)

    def _charge(self, cost: PrivacyCost) -> None:
        """Charge ``cost`` to the accountant; call right before the release it pays for.

        A release that spends nothing is not charged (diffprivlib refuses
        ε = δ = 0). A refusal (an accountant without ``check`` refuses only
        here) forgets the run, so that nothing half-fitted survives it.
        """
        accountant = getattr(self, "accountant", None)
        epsilon, delta = self._ledger_entry(cost)
        if accountant is not None and (epsilon > 0 or delta > 0):
            try:
                accountant.spend(epsilon, delta)
            except Exception:
                self._forget()
                raise

    @staticmethod
    def _ledger_entry(cost: PrivacyCost) -> tuple[float, float]:
        # diffprivlib accountants know (ε, δ) only; relaxed notions are charged
        # their (ε, δ) part and the notion is kept in privacy_spent_
        ledger = cost.under(ACCOUNTANT_NEIGHBOURS)
        return ledger.epsilon, ledger.delta
