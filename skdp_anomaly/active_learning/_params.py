"""Derived parameters of :class:`PrivateOnlineActiveSVC` (ε split, λ, slab) and their checks."""

from __future__ import annotations

import sys

from ..exceptions import naming
from ..privacy._mechanisms import MAX_GEOMETRIC_EPSILON
from ._selection import BERNOULLI_SLAB_SHARE, calibrated_slab
from ._stream import FTRL_SELECTION_SHARE, PAPER_ALPHA, PAPER_SELECTION_SHARE

#: Above this selection ε, 1 - 1/(1+e^ε) rounds to 1 (ε ≈ 36.7) or the exponential
#: selection probabilities underflow: an outcome becomes impossible on one side.
MAX_SELECTION_EPSILON = 30.0
#: Above this update ε the noise radius, ~d·2M/ε, falls within ~1e-6 of M and
#: towards double-precision rounding of the update.
MAX_UPDATE_EPSILON = 1e6


class ParamsMixin:
    """Derived parameters and the checks of :class:`PrivateOnlineActiveSVC`."""

    def _split(self) -> tuple[float, float]:
        """(ε_s, ε_g)."""
        if self.selection == "all":
            return 0.0, float(self.epsilon)
        eps_s = self._selection_share() * float(self.epsilon)
        return eps_s, float(self.epsilon) - eps_s

    def _selection_share(self) -> float:
        if self.selection_share is not None:
            return float(self.selection_share)
        return FTRL_SELECTION_SHARE if self.update == "ftrl" else PAPER_SELECTION_SHARE

    def _alpha(self, data_norm: float) -> float:
        """``λ``: ``alpha``, or its default (the paper's 0.01; ``M²/3`` for ftrl)."""
        if self.alpha is not None:
            return float(self.alpha)
        return data_norm**2 / 3.0 if self.update == "ftrl" else PAPER_ALPHA

    def _augmented(self) -> bool:
        """The paper's updates learn an intercept as the weight of a constant feature."""
        return bool(self.fit_intercept) and self.update != "ftrl"

    def _slab_fraction(self, eps_s: float) -> float:
        if self.slab is not None:
            return float(self.slab)
        if self.selection == "exponential":
            return calibrated_slab(eps_s, 1.0)  # the cost depends on b/M only
        return BERNOULLI_SLAB_SHARE

    def _more_validate_params(self) -> None:
        """The checks between parameters, and those floating point imposes."""
        name = type(self).__name__
        if self.selection == "exponential" and self.slab_schedule == "shrinking":
            raise naming(
                ValueError,
                f"`The 'slab_schedule' parameter of {name}` must be 'fixed' with "
                "`selection='exponential'`: 'shrinking' is defined for `selection='bernoulli'` "
                "only (a shrinking exponential slab would raise its cost). Got "
                "`slab_schedule='shrinking'`.",
            )
        eps_s, eps_g = self._split()
        if eps_s > MAX_SELECTION_EPSILON or eps_g > MAX_UPDATE_EPSILON:
            share = f" with `selection_share={self.selection_share!r}`"
            share = "" if self.selection == "all" else share
            raise naming(
                ValueError,
                f"`The 'epsilon' parameter of {name}` must leave at most ε_s = "
                f"{MAX_SELECTION_EPSILON:g} to the selection and ε_g = {MAX_UPDATE_EPSILON:g} "
                "to the updates: above them the selection probabilities round to 0 or 1 and "
                "the update noise falls below double precision, so the output would be "
                f"exact. Got `epsilon={self.epsilon!r}`{share} (ε_s={eps_s:.4g}, "
                f"ε_g={eps_g:.4g}); use a smaller `epsilon`.",
            )
        if self.selection == "exponential":
            try:
                self._slab_fraction(eps_s)
            except (ArithmeticError, ValueError):
                raise naming(
                    ValueError,
                    f"`The 'epsilon' parameter of {name}` leaves the exponential selection "
                    f"ε_s={eps_s:.3g}, too small to calibrate its slab in floating point. Got "
                    f"`epsilon={self.epsilon!r}`; use a larger `epsilon` (or `selection_share`) "
                    "or a fixed slab.",
                ) from None
        if self.update != "ftrl" and self.noise == "tree":
            raise naming(
                ValueError,
                f"`The 'noise' parameter of {name}` must be 'independent' with "
                f"`update={self.update!r}`: tree aggregation sums the released gradients of "
                "`update='ftrl'`. Got `noise='tree'`.",
            )
        ftrl_threshold = self.update == "ftrl" and self._threshold_share()
        if ftrl_threshold and float(self.epsilon) > 2 * MAX_GEOMETRIC_EPSILON:
            raise naming(
                ValueError,
                f"`The 'epsilon' parameter of {name}` goes whole to the threshold releases of "
                f"the first rounds, above {2 * MAX_GEOMETRIC_EPSILON:g}: their noise would "
                f"round to zero and release exact values. Got `epsilon={self.epsilon!r}`; use "
                "a smaller `epsilon`.",
            )
        if self.alpha is not None and float(self.alpha) < 1.0 / sys.float_info.max:
            raise naming(
                ValueError,
                f"`The 'alpha' parameter of {name}` must be at least "
                f"{1 / sys.float_info.max:.3g} (1/alpha is the default step size, and its square "
                f"root the radius of the iterate's ball). Got `alpha={self.alpha!r}`.",
            )
        # the cost does not depend on M: data_norm=None is checked on its value at fit
        self._update_setup(1.0 if self.data_norm is None else float(self.data_norm), 1)
