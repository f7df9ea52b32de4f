"""Privacy costs and their composition.

A :class:`PrivacyCost` names the guarantee a mechanism gives (pure ε-DP, (ε, δ)-DP,
anomaly-restricted ε-DP of Bittner et al., (ε, γ)-random DP of Mohammady et al.) and the
neighbouring relation it holds under (``"add_remove"`` or ``"replace"``; an add/remove ε is ``2ε``
under replace, not conversely). Composition keeps every relaxation of its parts. The notions are
tabled in ``docs/privacy.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from numbers import Real
from typing import Iterable

from ..exceptions import naming

#: The neighbouring relations a :class:`PrivacyCost` can name.
NEIGHBOURS = ("add_remove", "replace")

_RELATION_TEXT = {
    "add_remove": "add/remove-one-record neighbours",
    "replace": "replace-one-record neighbours (n public)",
}


def check_neighbours(neighbours, name: str = "neighbours") -> str:
    """``neighbours`` if it is one of :data:`NEIGHBOURS`, else a ValueError naming ``name``."""
    if neighbours not in NEIGHBOURS:
        raise naming(
            ValueError,
            f"`The {name!r} parameter` must be one of {NEIGHBOURS} (the neighbouring relation "
            f"the guarantee holds under); got {neighbours!r}.",
        )
    return neighbours


def relation_text(neighbours: str) -> str:
    """A neighbouring relation in words: ``"replace"`` -> "replace-one-record neighbours (n public)"."""
    return _RELATION_TEXT[check_neighbours(neighbours)]


def _check_nonneg(name: str, value: float, *, upper: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise naming(TypeError, f"`{name}` must be a real number, got {type(value).__name__}.")
    value = float(value)
    if math.isnan(value) or value < 0:
        raise naming(ValueError, f"`{name}` must be >= 0, got {value!r}.")
    if upper is not None and value > upper:
        raise naming(ValueError, f"`{name}` must be <= {upper}, got {value!r}.")
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
        (ε, γ)-random DP (Mohammady et al., Def. II.1): probability, over the
        draw of the neighbouring pair, that the ε bound does not hold.
    anomaly_restricted : bool, default=False
        The guarantee covers only anomaly-restricted neighbours (Bittner,
        Sarwate and Wright, Def. 1): the anomalous record is not protected.
    notes : tuple of str, default=()
        Human-readable remarks carried through composition.
    neighbours : {"add_remove", "replace"}
        Keyword-only, required: the relation the guarantee holds under
        (only :meth:`zero` needs none).

    Examples
    --------
    >>> from skdp_anomaly.privacy import PrivacyCost
    >>> PrivacyCost(0.5, neighbours="replace") + PrivacyCost(1.0, neighbours="replace")
    PrivacyCost(epsilon=1.5, delta=0, notion='pure ε-DP', neighbours='replace')
    >>> PrivacyCost.pure(1.0, neighbours="add_remove").under("replace").epsilon
    2.0
    >>> PrivacyCost.pure(1.0, neighbours="add_remove") + PrivacyCost.pure(1.0, neighbours="replace")
    Traceback (most recent call last):
    ...
    ValueError: cannot compose costs under different neighbouring relations ...
    """

    epsilon: float
    delta: float = 0.0
    gamma: float = 0.0
    anomaly_restricted: bool = False
    notes: tuple = field(default=(), compare=False)
    neighbours: str = field(kw_only=True)

    def __post_init__(self):
        for name, upper in (("epsilon", None), ("delta", 1.0), ("gamma", 1.0)):
            object.__setattr__(self, name, _check_nonneg(name, getattr(self, name), upper=upper))
        object.__setattr__(self, "anomaly_restricted", bool(self.anomaly_restricted))
        object.__setattr__(self, "notes", tuple(self.notes))
        check_neighbours(self.neighbours)

    # -- constructors named after the notions -----------------------------
    @classmethod
    def pure(cls, epsilon: float, *notes: str, neighbours: str) -> "PrivacyCost":
        """Pure ε-DP under ``neighbours``.

        Parameters
        ----------
        epsilon : float
            ε, ``>= 0``.
        *notes : str
            Free-text notes carried along.
        neighbours : {"add_remove", "replace"}
            The neighbouring relation the guarantee holds under.

        Returns
        -------
        PrivacyCost
        """
        return cls(epsilon, notes=notes, neighbours=neighbours)

    @classmethod
    def approx(cls, epsilon: float, delta: float, *notes: str, neighbours: str) -> "PrivacyCost":
        """(ε, δ)-DP under ``neighbours``.

        Parameters
        ----------
        epsilon : float
            ε, ``>= 0``.
        delta : float
            δ, in ``[0, 1]``.
        *notes : str
            Free-text notes carried along.
        neighbours : {"add_remove", "replace"}
            The neighbouring relation the guarantee holds under.

        Returns
        -------
        PrivacyCost
        """
        return cls(epsilon, delta=delta, notes=notes, neighbours=neighbours)

    @classmethod
    def anomaly_restricted_dp(cls, epsilon: float, *notes: str, neighbours: str) -> "PrivacyCost":
        """Anomaly-restricted ε-DP (Bittner, Sarwate and Wright, Def. 1–2) under ``neighbours``.

        Parameters
        ----------
        epsilon : float
            ε, ``>= 0``.
        *notes : str
            Free-text notes carried along.
        neighbours : {"add_remove", "replace"}
            The neighbouring relation the guarantee holds under.

        Returns
        -------
        PrivacyCost
        """
        return cls(epsilon, anomaly_restricted=True, notes=notes, neighbours=neighbours)

    @classmethod
    def random_dp(cls, epsilon: float, gamma: float, *notes: str, neighbours: str) -> "PrivacyCost":
        """(ε, γ)-random DP (Mohammady et al., Def. II.1) under ``neighbours``.

        Parameters
        ----------
        epsilon : float
            ε, ``>= 0``.
        gamma : float
            γ, the probability (over the draw of the neighbouring pair) that
            the ε bound fails, in ``[0, 1]``.
        *notes : str
            Free-text notes carried along.
        neighbours : {"add_remove", "replace"}
            The neighbouring relation the guarantee holds under.

        Returns
        -------
        PrivacyCost
        """
        return cls(epsilon, gamma=gamma, notes=notes, neighbours=neighbours)

    @classmethod
    def zero(cls) -> "PrivacyCost":
        """The cost of a step that does not look at the data (composes under either relation)."""
        return cls(0.0, neighbours="add_remove")

    @classmethod
    def infinite(cls, *notes: str, neighbours: str) -> "PrivacyCost":
        """The cost of a step that learns from the data without privacy.

        Parameters
        ----------
        *notes : str
            Free-text notes carried along.
        neighbours : {"add_remove", "replace"}
            The neighbouring relation the guarantee holds under.

        Returns
        -------
        PrivacyCost
            ε = ∞.
        """
        return cls(math.inf, notes=notes, neighbours=neighbours)

    # -- derived -----------------------------------------------------------
    @property
    def is_private(self) -> bool:
        """Whether the cost is finite."""
        return math.isfinite(self.epsilon)

    @property
    def is_zero(self) -> bool:
        """Whether the cost is 0 under add/remove neighbours, hence under every relation."""
        return self.epsilon == self.delta == self.gamma == 0 and self.neighbours == "add_remove"

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

    @property
    def relation(self) -> str:
        """The neighbouring relation in words, e.g. ``'add/remove-one-record neighbours'``."""
        return relation_text(self.neighbours)

    def with_notes(self, *notes: str) -> "PrivacyCost":
        """Return a copy with ``notes`` appended.

        Parameters
        ----------
        *notes : str
            Notes to append (empty strings are dropped).

        Returns
        -------
        PrivacyCost
        """
        return replace(self, notes=self.notes + tuple(n for n in notes if n))

    def under(self, neighbours: str) -> "PrivacyCost":
        """The same guarantee stated under the relation ``neighbours``.

        add/remove → replace is group privacy, ``(ε, δ) → (2ε, (1 + e^ε) δ)``;
        replace → add/remove raises (``n`` may be released), except for
        :meth:`zero`. Random-DP and anomaly-restricted costs do not convert.

        Parameters
        ----------
        neighbours : {"add_remove", "replace"}
            The target relation.

        Returns
        -------
        PrivacyCost
            With a note on the conversion.

        Raises
        ------
        ValueError
            When no true conversion exists.

        Examples
        --------
        >>> from skdp_anomaly.privacy import PrivacyCost
        >>> c = PrivacyCost.approx(1.0, 1e-6, neighbours="add_remove").under("replace")
        >>> c.epsilon, round(c.delta / 1e-6, 4), c.neighbours
        (2.0, 3.7183, 'replace')
        """
        check_neighbours(neighbours)
        if neighbours == self.neighbours or self.is_zero:
            return self if neighbours == self.neighbours else replace(self, neighbours=neighbours)
        if self.neighbours == "replace":
            raise ValueError(
                f"a cost under {self.relation} ({self}) implies nothing under "
                f"{relation_text(neighbours)}: the mechanism may release the dataset size n, "
                "which add/remove neighbours protect."
            )
        if self.gamma > 0 or self.anomaly_restricted:
            raise ValueError(
                f"{self.notion} has no group-privacy conversion from {self.relation} to "
                f"{relation_text(neighbours)}."
            )
        epsilon = 2.0 * self.epsilon
        if self.delta == 0:
            delta = 0.0
        elif self.epsilon > 700:  # e^ε overflows: the δ bound is vacuous
            delta = 1.0
        else:
            delta = min(1.0, (1.0 + math.exp(self.epsilon)) * self.delta)
        note = (
            f"group privacy: {self} under {self.relation} counts ε={epsilon:.4g}"
            + (f", δ={delta:.3g}" if delta else "")
            + f" under {relation_text(neighbours)}"
        )
        return replace(
            self, epsilon=epsilon, delta=delta, neighbours=neighbours, notes=self.notes + (note,)
        )

    def scale(self, times: int) -> "PrivacyCost":
        """Cost of running the same mechanism ``times`` times on the same data.

        Parameters
        ----------
        times : int
            Number of runs, ``>= 0`` (0 gives :meth:`zero`).

        Returns
        -------
        PrivacyCost
            The sequential composition of ``times`` copies.
        """
        if times < 0:
            raise naming(ValueError, f"`times` must be >= 0, got {times}.")
        if times == 0:
            return PrivacyCost.zero()
        return compose_sequential([self] * int(times))

    def __deepcopy__(self, memo) -> "PrivacyCost":  # immutable: a copy is the object itself
        return self

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
        parts.append(f"neighbours={self.neighbours!r}")
        return f"PrivacyCost({', '.join(parts)})"

    def __str__(self) -> str:
        text = f"ε={self.epsilon:.4g}"
        if self.delta:
            text += f", δ={self.delta:.3g}"
        if self.gamma:
            text += f", γ={self.gamma:.3g}"
        return f"{text} ({self.notion}, {self.relation})"


def _mixed_note(costs: list[PrivacyCost], result: PrivacyCost) -> tuple:
    notions = sorted({c.notion for c in costs if c.epsilon > 0 or c.delta > 0})
    if len(notions) <= 1:
        return ()
    return (
        f"composes different notions ({', '.join(notions)}); the result holds only "
        f"as the weakest of them: {result.notion}",
    )


def _common_relation(costs: list[PrivacyCost], neighbours: str | None) -> tuple[list, str]:
    """The costs converted to ``neighbours``, or checked to share one relation."""
    if neighbours is not None:
        check_neighbours(neighbours)
        return [c.under(neighbours) for c in costs], neighbours
    relations = {c.neighbours for c in costs if not c.is_zero}
    if len(relations) > 1:
        raise ValueError(
            "cannot compose costs under different neighbouring relations "
            f"({', '.join(sorted(relations))}): an ε under add/remove neighbours is 2ε under "
            "replace-one neighbours (group privacy), and a replace-one ε does not hold under "
            "add/remove neighbours at all. Convert with cost.under(...) or pass neighbours=."
        )
    relation = relations.pop() if relations else "add_remove"
    return [c.under(relation) for c in costs], relation


def _combine(costs: Iterable[PrivacyCost], eps_op, cap_op, neighbours) -> PrivacyCost:
    costs = list(costs)
    for c in costs:
        if not isinstance(c, PrivacyCost):
            raise TypeError(f"expected PrivacyCost, got {type(c).__name__}.")
    if not costs:
        return PrivacyCost.zero() if neighbours is None else PrivacyCost.zero().under(neighbours)
    costs, relation = _common_relation(costs, neighbours)
    result = PrivacyCost(
        eps_op(c.epsilon for c in costs),
        delta=min(1.0, cap_op(c.delta for c in costs)),
        gamma=min(1.0, cap_op(c.gamma for c in costs)),
        anomaly_restricted=any(c.anomaly_restricted for c in costs),
        neighbours=relation,
    )
    notes = tuple(dict.fromkeys(n for c in costs for n in c.notes))
    return result.with_notes(*notes, *_mixed_note(costs, result))


def compose_sequential(
    costs: Iterable[PrivacyCost], *, neighbours: str | None = None
) -> PrivacyCost:
    """Basic sequential composition: ε, δ and γ add up (γ by the union bound).

    Relaxations are kept: the result is the weakest notion of its parts.

    Parameters
    ----------
    costs : iterable of PrivacyCost
        The costs of the mechanisms run on the same records.
    neighbours : {"add_remove", "replace"}, default=None
        Convert every cost to this relation first
        (:meth:`PrivacyCost.under <skdp_anomaly.PrivacyCost.under>`). ``None``:
        the costs must share one relation, else ``ValueError``.

    Returns
    -------
    PrivacyCost
        The composed cost.

    Examples
    --------
    >>> from skdp_anomaly.privacy import PrivacyCost, compose_sequential
    >>> costs = [PrivacyCost(0.5, neighbours="replace"), PrivacyCost(1.0, neighbours="replace")]
    >>> compose_sequential(costs).epsilon
    1.5
    >>> mixed = [PrivacyCost(1.0, neighbours="add_remove"), PrivacyCost(1.0, neighbours="replace")]
    >>> compose_sequential(mixed, neighbours="replace").epsilon
    3.0
    """
    return _combine(costs, math.fsum, math.fsum, neighbours)


def compose_parallel(costs: Iterable[PrivacyCost], *, neighbours: str | None = None) -> PrivacyCost:
    """Parallel composition: the maximum of each field.

    Valid **only** when the mechanisms read provably disjoint sets of records
    (e.g. per-class histograms); this function cannot check it.

    Parameters
    ----------
    costs : iterable of PrivacyCost
        The costs of the mechanisms, each run on its own set of records.
    neighbours : {"add_remove", "replace"}, default=None
        As in :func:`compose_sequential`.

    Returns
    -------
    PrivacyCost
        The composed cost.

    Examples
    --------
    >>> from skdp_anomaly.privacy import PrivacyCost, compose_parallel
    >>> compose_parallel([PrivacyCost(0.5, neighbours="add_remove"),
    ...                   PrivacyCost(1.0, neighbours="add_remove")]).epsilon
    1.0
    """
    return _combine(costs, max, max, neighbours)
