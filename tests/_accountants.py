"""A minimal accountant for tests that must run without diffprivlib.

It has the interface of diffprivlib's ``BudgetAccountant`` that the package
uses (``check``, ``spend``, ``total``); tests of the real diffprivlib
accountant live in ``tests/test_dependencies.py``.
"""

import math


class LedgerRefused(ValueError):
    """Raised like diffprivlib's ``BudgetError`` (also a ValueError)."""


class Ledger:
    def __init__(self, epsilon=math.inf, delta=1.0):
        self.epsilon, self.delta = epsilon, delta
        self.spent = []

    def total(self):
        return (math.fsum(e for e, _ in self.spent), math.fsum(d for _, d in self.spent))

    def check(self, epsilon, delta):
        eps, dlt = self.total()
        if eps + epsilon > self.epsilon * (1 + 1e-12) or dlt + delta > self.delta:
            raise LedgerRefused(f"spending ε={epsilon}, δ={delta} would exceed the budget")
        return True

    def spend(self, epsilon, delta):
        self.check(epsilon, delta)
        self.spent.append((epsilon, delta))
        return self
