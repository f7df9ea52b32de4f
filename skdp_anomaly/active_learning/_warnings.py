"""The warnings of :class:`PrivateOnlineActiveSVC`: nothing released yet, rows outside the ball.

Not releases: public facts only, or one local bit against a fixed public threshold.
"""

from __future__ import annotations

import numpy as np

from .._warn import warn
from ..exceptions import naming
from ..exceptions import NoSelectionWarning, NothingReleasedWarning
from . import _kernel as kernel

#: Rows above ``data_norm`` in more than this share of a call's rows raise a local
#: warning: a fixed public threshold, so that the warning says one bit, not a count.
OUTSIDE_BALL_SHARE = 0.1


class DiagnosticsMixin:
    """The estimator's warnings (see the module docstring)."""

    def _warn_rows_outside(self, X, data_norm: float) -> None:
        """A local diagnostic, never stored nor released: one bit, never a count."""
        if self.data_norm is None or X.shape[0] == 0:
            return  # M read from the data: no row lies outside
        # squared norms, no square root on the hot path (an overflow to inf compares right)
        with np.errstate(over="ignore"):
            outside = np.einsum("ij,ij->i", X, X) > np.square(np.float64(data_norm) * 1.000000001)
        if np.mean(outside) > OUTSIDE_BALL_SHARE:
            warn(
                naming(
                    UserWarning,
                    f"More than {OUTSIDE_BALL_SHARE:.0%} of the rows of this call have an L2 norm "
                    f"above `data_norm={self.data_norm!r}`; {type(self).__name__} projects them onto "
                    "the ball, which changes their direction relative to the others and can ruin "
                    "the model. Scale the features by public bounds (e.g. each to [-1, 1] from "
                    "its known range, then divide the rows by sqrt(n_features)), or pass a "
                    "`data_norm` from domain knowledge. (A local diagnostic: this bit is computed "
                    "on your rows and is part of no release.)",
                )
            )

    def _warn_nothing_released(self) -> None:
        if self.update == "ftrl":
            state = getattr(self, "_state", None)
            kind = "labelled" if state is not None and state.windows[kernel.ACTIVE] else "gradient"
            rows = (
                f"its first {kind} window is {int(state.windows[kernel.FIRST_GRADIENT])} rows"
                if state is not None
                else "its first window has not ended"
            )
        else:
            rows = f"an update needs a batch of {self._paper_batch_size()} selected rows"
        warn(
            naming(
                NothingReleasedWarning,
                f"{type(self).__name__} has released no update yet (n_updates_ == 0; {rows}, "
                f"{self.n_seen_} rows seen): coef_ is zero and every prediction is classes_[0]="
                f"{self.classes_[:1].tolist()[0]!r}. Stream more rows, or call fit on the whole "
                "stream (a stream of known length releases its last window).",
            )
        )

    def _warn_no_selection(self) -> None:
        """Say why a run read every label (all rows in labelled windows); public facts only."""
        state = getattr(self, "_state", None)
        if (
            self.update != "ftrl"
            or self.selection == "all"
            or state is None
            or not state.windows[kernel.ACTIVE]
            or self.n_seen_ == 0
            or int(state.ints[kernel.ROUND]) > 0
            or int(state.ints[kernel.PHASE]) != kernel.PHASE_GRADIENT
        ):
            return
        warn(
            naming(
                NoSelectionWarning,
                f"{type(self).__name__} has read every label so far ({self.n_seen_} rows): its "
                f"first labelled window is {int(state.windows[kernel.FIRST_GRADIENT])} rows, and "
                "only the active windows after it select rows. Pass `n_rows_hint` (a stream of "
                "known length is one round, 35 % of it active), call partial_fit with more rows "
                "at first, or set `batch_size` (the labelled windows' length).",
            )
        )
