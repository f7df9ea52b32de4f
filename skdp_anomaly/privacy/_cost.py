"""Privacy costs and their composition.

A :class:`PrivacyCost` is a small immutable value ``(epsilon, delta, gamma,
anomaly_restricted)`` that names the guarantee a mechanism gives. The four
notions of this package are all special cases of it:

=================================  ==========================================
notion                             fields
=================================  ==========================================
pure ε-DP                          ``delta == 0``, ``gamma == 0``, not restricted
(ε, δ)-DP                          ``delta > 0``
anomaly-restricted ε-DP (seed 000)  ``anomaly_restricted=True`` (Def. 1–2)
(ε, γ)-random DP (seed 001)         ``gamma > 0`` (Def. II.1)
=================================  ==========================================

Each relaxation only *removes* neighbouring pairs (anomaly-restricted), or
allows the bound to fail with a small probability (δ over the mechanism's
coins, γ over the draw of the neighbouring pair). Composition therefore keeps
every relaxation either part has: the composed guarantee is the weakest one,
and :func:`compose_sequential` says so in the cost's ``notes``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from numbers import Real
from typing import Iterable

__all__ = ["PrivacyCost", "compose_sequential", "compose_parallel"]


def _check_nonneg(name: str, value: float, *, upper: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    value = float(value)
    if math.isnan(value) or value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}.")
    if upper is not None and value > upper:
        raise ValueError(f"{name} must be <= {upper}, got {value!r}.")
    return value


@dataclass(frozen=True)
class PrivacyCost:
    """The privacy cost of one mechanism, estimator or pipeline.

    Parameters
    ----------
    epsilon : float
        Privacy loss bound, ``>= 0`` (``inf`` for a non-private step).
    delta : float, default=0.0
        Probability (over the mechanism's randomness) that the ε bound fails.
    gamma : float, default=0.0
        (ε, γ)-random DP (seed 001, Def. II.1): probability, over the draw of
        the neighbouring pair, that the ε bound does not hold.
    anomaly_restricted : bool, default=False
        True when the guarantee covers only anomaly-restricted neighbours
        (seed 000, Def. 1): the anomalous record itself is not protected.
    notes : tuple of str, default=()
        Human-readable remarks carried through composition.

    Examples
    --------
    >>> from skdp_anomaly.privacy import PrivacyCost
    >>> PrivacyCost(0.5) + PrivacyCost(1.0)
    PrivacyCost(epsilon=1.5, delta=0, notion='pure ε-DP')
    >>> (PrivacyCost(1.0) + PrivacyCost(1.0, delta=1e-6)).notion
    '(ε, δ)-DP'
    """

    epsilon: float
    delta: float = 0.0
    gamma: float = 0.0
    anomaly_restricted: bool = False
    notes: tuple = field(default=(), compare=False)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_nonneg("epsilon", self.epsilon))
        object.__setattr__(self, "delta", _check_nonneg("delta", self.delta, upper=1.0))
        object.__setattr__(self, "gamma", _check_nonneg("gamma", self.gamma, upper=1.0))
        object.__setattr__(self, "anomaly_restricted", bool(self.anomaly_restricted))
        object.__setattr__(self, "notes", tuple(self.notes))

    # -- constructors named after the notions -----------------------------
    @classmethod
    def pure(cls, epsilon: float, *notes: str) -> "PrivacyCost":
        """Pure ε-DP."""
        return cls(epsilon, notes=notes)

    @classmethod
    def approx(cls, epsilon: float, delta: float, *notes: str) -> "PrivacyCost":
        """(ε, δ)-DP."""
        return cls(epsilon, delta=delta, notes=notes)

    @classmethod
    def anomaly_restricted_dp(cls, epsilon: float, *notes: str) -> "PrivacyCost":
        """Anomaly-restricted ε-DP (seed 000, Def. 1–2)."""
        return cls(epsilon, anomaly_restricted=True, notes=notes)

    @classmethod
    def random_dp(cls, epsilon: float, gamma: float, *notes: str) -> "PrivacyCost":
        """(ε, γ)-random DP (seed 001, Def. II.1)."""
        return cls(epsilon, gamma=gamma, notes=notes)

    @classmethod
    def zero(cls) -> "PrivacyCost":
        """The cost of a step that does not look at the data."""
        return cls(0.0)

    @classmethod
    def infinite(cls, *notes: str) -> "PrivacyCost":
        """The cost of a step that learns from the data without privacy."""
        return cls(math.inf, notes=notes)

    # -- derived -----------------------------------------------------------
    @property
    def is_private(self) -> bool:
        """Whether the cost is finite."""
        return math.isfinite(self.epsilon)

    @property
    def notion(self) -> str:
        """Name of the privacy notion, e.g. ``'pure ε-DP'``."""
        core = "(ε, δ)-DP" if self.delta > 0 else "ε-DP"
        if self.gamma > 0:
            core = "(ε, δ, γ)-random DP" if self.delta > 0 else "(ε, γ)-random DP"
        if self.anomaly_restricted:
            return f"anomaly-restricted {core}"
        if core == "ε-DP":
            return "pure ε-DP"
        return core

    def with_notes(self, *notes: str) -> "PrivacyCost":
        """Return a copy with ``notes`` appended."""
        return replace(self, notes=self.notes + tuple(n for n in notes if n))

    def scale(self, times: int) -> "PrivacyCost":
        """Cost of running the same mechanism ``times`` times on the same data."""
        if times < 0:
            raise ValueError(f"times must be >= 0, got {times}.")
        if times == 0:
            return PrivacyCost.zero()
        return compose_sequential([self] * int(times))

    def __add__(self, other: "PrivacyCost") -> "PrivacyCost":
        if not isinstance(other, PrivacyCost):
            return NotImplemented
        return compose_sequential([self, other])

    def __radd__(self, other):
        if other == 0:  # lets sum() start from 0
            return self
        return NotImplemented

    def __repr__(self) -> str:
        parts = [f"epsilon={self.epsilon:.6g}", f"delta={self.delta:.6g}"]
        if self.gamma:
            parts.append(f"gamma={self.gamma:.6g}")
        parts.append(f"notion={self.notion!r}")
        return f"PrivacyCost({', '.join(parts)})"

    def __str__(self) -> str:
        text = f"ε={self.epsilon:.4g}"
        if self.delta:
            text += f", δ={self.delta:.3g}"
        if self.gamma:
            text += f", γ={self.gamma:.3g}"
        return f"{text} ({self.notion})"


def _mixed_note(costs: list[PrivacyCost], result: PrivacyCost) -> tuple:
    notions = sorted({c.notion for c in costs if c.epsilon > 0 or c.delta > 0})
    if len(notions) <= 1:
        return ()
    return (
        f"composes different notions ({', '.join(notions)}); the result holds only "
        f"as the weakest of them: {result.notion}",
    )


def _combine(costs: Iterable[PrivacyCost], eps_op, cap_op) -> PrivacyCost:
    costs = list(costs)
    if not costs:
        return PrivacyCost.zero()
    for c in costs:
        if not isinstance(c, PrivacyCost):
            raise TypeError(f"expected PrivacyCost, got {type(c).__name__}.")
    result = PrivacyCost(
        eps_op(c.epsilon for c in costs),
        delta=min(1.0, cap_op(c.delta for c in costs)),
        gamma=min(1.0, cap_op(c.gamma for c in costs)),
        anomaly_restricted=any(c.anomaly_restricted for c in costs),
    )
    notes = tuple(dict.fromkeys(n for c in costs for n in c.notes))
    return result.with_notes(*notes, *_mixed_note(costs, result))


def compose_sequential(costs: Iterable[PrivacyCost]) -> PrivacyCost:
    """Basic sequential composition: ε, δ and γ add up.

    γ adds by the union bound over the events "the pair is bad for mechanism
    i"; relaxations (anomaly restriction) are kept, so the result is the
    weakest notion of its parts.

    Examples
    --------
    >>> from skdp_anomaly.privacy import PrivacyCost, compose_sequential
    >>> compose_sequential([PrivacyCost(0.5), PrivacyCost(1.0)]).epsilon
    1.5
    """
    return _combine(costs, math.fsum, math.fsum)


def compose_parallel(costs: Iterable[PrivacyCost]) -> PrivacyCost:
    """Parallel composition: the maximum of each field.

    Valid **only** when the mechanisms read provably disjoint sets of records
    (e.g. per-class histograms of a labelled dataset); the caller must know
    that, this function cannot check it.

    Examples
    --------
    >>> from skdp_anomaly.privacy import PrivacyCost, compose_parallel
    >>> compose_parallel([PrivacyCost(0.5), PrivacyCost(1.0)]).epsilon
    1.0
    """
    return _combine(costs, max, max)
