"""The stream engine of :class:`PrivateOnlineActiveSVC` (a mixin): set-up, loop, releases."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ..exceptions import naming
from ..privacy import GeometricMechanism, LaplaceMechanism
from ..privacy._rng import call_rng
from ..privacy._exact import bernoulli_logistic
from . import _kernel as kernel
from ._ftrl import active_windows, ftrl_windows, gradient_sensitivity, projection_reach
from ._ftrl import released_size, tree_levels

_SELECT = {
    "bernoulli": kernel.SELECT_BERNOULLI,
    "exponential": kernel.SELECT_EXPONENTIAL,
    "all": kernel.SELECT_ALL,
}
_UPDATE = {"flmb": kernel.UPDATE_FLMB, "flsw": kernel.UPDATE_FLSW, "ftrl": kernel.UPDATE_FTRL}
#: The paper's defaults for its updates: ``λ`` (§5) and the selection's share of ε.
PAPER_ALPHA, PAPER_SELECTION_SHARE, PAPER_BATCH_SIZE = 0.01, 0.5, 5
#: ftrl's selection share of ε (the user guide has the measurements).
FTRL_SELECTION_SHARE = 0.25
#: The threshold windows' share of a round with ``class_weight=None``.
NONE_WEIGHT_INTERCEPT_SHARE = 0.3
# update-noise vectors drawn at a time; unused ones are dropped at the end of a call
_NOISE_REFILL = 64
#: 1/√2: the paper's updates with an intercept see ``[x/√2, M/√2]``, of norm ``<= M``.
_HALF_SQRT2 = math.sqrt(0.5)


@dataclass(frozen=True)
class _FtrlSetup:
    """The public set-up of an ftrl run: window lengths, tree depth and mechanisms."""

    windows: np.ndarray
    levels: int
    first: LaplaceMechanism  # the leading rounds' gradient windows: every label, all of ε
    later: LaplaceMechanism  # later gradient windows (per tree node with noise="tree")
    threshold: GeometricMechanism | None  # the threshold histograms (later rounds)
    first_threshold: GeometricMechanism | None  # those of the leading rounds, at ε
    reach: float  # the histograms' range [-R, R]


class StreamMixin:
    """Runs a :class:`PrivateOnlineActiveSVC` run's rows (see the estimator's Notes)."""

    def _kernel_features(self, n_features: int) -> int:
        """Features of the rows the kernel sees (one more for a constant feature)."""
        return n_features + 1 if self._augmented() else n_features

    def _threshold_share(self) -> float:
        """The share of each round's rows in its threshold window (0: active windows)."""
        if not self.fit_intercept or self.update != "ftrl":
            return 0.0
        if self.intercept_share is not None:
            return float(self.intercept_share)
        return NONE_WEIGHT_INTERCEPT_SHARE if self.class_weight is None else 0.0

    def _paper_batch_size(self) -> int:
        return PAPER_BATCH_SIZE if self.batch_size is None else int(self.batch_size)

    def _project(self, X):
        """Rows projected onto the ball of radius ``M`` (``[x/√2, M/√2]`` if augmented)."""
        norms = np.linalg.norm(X, axis=1)
        scale = np.minimum(1.0, self.data_norm_ / np.maximum(norms, 1e-300))
        if not self._augmented():
            return X * scale[:, None]
        out = np.empty((X.shape[0], X.shape[1] + 1))
        out[:, :-1] = X * (scale * _HALF_SQRT2)[:, None]
        out[:, -1] = self.data_norm_ * _HALF_SQRT2
        return out

    # -------------------------------------------------------- the stream
    def _ftrl_setup(self, data_norm: float, n_features: int, horizon, first_call=None):
        """ftrl's windows and mechanisms (an :class:`_FtrlSetup`): public parameters only."""
        eps, (_, eps_g) = float(self.epsilon), self._split()
        share, d = self._threshold_share(), n_features
        if share:
            windows = ftrl_windows(d, eps, eps_g, share, horizon, self.batch_size)
        else:  # labelled and active windows, the cut from the class centroids
            windows = active_windows(d, eps, horizon, self.batch_size, first_call)
        tree = self.noise == "tree" and horizon is not None
        levels = tree_levels(windows, horizon) if tree else 0
        laplace = dict(sensitivity=gradient_sensitivity(d, data_norm), coordinates=released_size(d))
        return _FtrlSetup(
            windows,
            levels,
            LaplaceMechanism(eps, neighbours="replace", **laplace),
            LaplaceMechanism(eps_g / max(levels, 1), neighbours="replace", **laplace),
            GeometricMechanism(eps_g, 2.0, neighbours="replace") if share else None,
            GeometricMechanism(eps, 2.0, neighbours="replace") if share else None,
            projection_reach(d, data_norm),
        )

    def _update_setup(self, data_norm: float, n_features: int, horizon=None, first_call=None):
        """The kernel's parameters and the update mechanism at ``M = data_norm``.
        Raises ``ValueError`` naming ``data_norm`` when floating point cannot hold them."""
        eps_s, eps_g = self._split()
        sensitivity = 2.0 * data_norm * math.sqrt(n_features)
        try:
            if self.update == "ftrl":
                mech = self._ftrl_setup(data_norm, n_features, horizon, first_call)
                grid = mech.later.granularity
            else:
                mech = LaplaceMechanism(
                    eps_g, sensitivity, neighbours="replace", coordinates=n_features
                )
                grid = mech.granularity
            floats = self._kernel_floats(data_norm, self._slab_fraction(eps_s) * data_norm)
            floats[kernel.GRID] = grid
            usable = bool(np.all(np.isfinite(floats))) and floats[kernel.GRID] > 0
        except (ArithmeticError, ValueError):
            usable = False
        if not usable:
            got = f"`data_norm={self.data_norm!r}`"
            got += ", read from the data," if self.data_norm is None else ""
            raise naming(
                ValueError,
                f"`The 'data_norm' parameter of {type(self).__name__}` must keep the update "
                f"noise (L1 sensitivity 2·M·√{n_features} at ε_g={eps_g:.3g}, on a grid) and "
                f"the selection rate within floating point. Got {got} with {n_features} "
                "feature(s); rescale the data.",
            )
        return floats, mech

    def _kernel_floats(self, data_norm: float, slab: float) -> np.ndarray:
        eps_s, eps_g = self._split()
        floats = np.zeros(kernel.N_FLOATS)
        floats[kernel.P_FLIP] = float(expit(-eps_s)) if eps_s else 0.0  # 1/(1+e^ε_s)
        floats[kernel.DATA_NORM] = data_norm
        floats[kernel.SLAB] = slab
        if self.selection == "exponential":
            floats[kernel.EXP_RATE] = eps_s / (data_norm - slab)
        alpha = self._alpha(data_norm)
        floats[kernel.ALPHA] = alpha
        floats[kernel.ETA] = 1.0 / alpha if self.eta0 is None else self.eta0
        floats[kernel.RADIUS] = 1.0 / math.sqrt(alpha)  # the SVM optimum lies inside
        return floats

    def _stream(self, X, labels, skip, commit):
        """Run the call's rows from ``skip`` (None: not a retry, from row 0).
        With ``commit``, an exception after rows were used is committed and returned;
        before that, it propagates for the rollback."""
        state = self._state
        start = 0 if skip is None else skip
        state.ints[kernel.ROW] = start
        before = state.progress()
        state.interruption = None
        try:
            self._run(X, labels, start, retry=skip is not None)
        except BaseException as exc:
            if not commit or state.progress() == before:
                raise
            if labels.y is not None:
                try:  # read the pending rows' labels from this y, as at the end of a call
                    labels.fill(state)
                except Exception:  # noqa: BLE001 - the first error is the one raised
                    pass  # a retry with the same X reads them from its y
            state.drop_noise()
            position = state.record_interruption(X)
            self._publish(position - start, position)
            return exc
        self._publish(X.shape[0] - start, X.shape[0])
        return None

    def _run(self, X, labels, start, retry):
        state, n = self._state, X.shape[0]
        state.reserve(n - start)
        ints = state.ints
        if labels.y is not None and ints[kernel.LABELLED] < ints[kernel.BUF_N]:
            # rows an interrupted call selected wait for labels from its y
            if retry:
                labels.fill(state)
            else:
                state.drop_unlabelled(flmb=self.update == "flmb")
        X = self._project(X)
        sel_rng, noise_rng = call_rng(self.random_state, state.n_calls).spawn(2)
        state.n_calls += 1
        uniforms = np.empty(0)
        if self.selection != "all":
            # rows before start were consumed earlier; Bernoulli reads exact flips (1.0
            # with probability 1/(1+e^ε_s)), exponential compares uniforms
            uniforms = np.zeros(n)
            uniforms[start:] = (
                bernoulli_logistic(self._split()[0], n - start, sel_rng)
                if self.selection == "bernoulli"
                else sel_rng.random(n - start)
            )
        y, use_y = labels.kernel_view(self.classes_)
        floats, mech = self._update_setup(self.data_norm_, X.shape[1], state.horizon)
        floats[kernel.BIAS] = state.bias
        if use_y:
            floats[kernel.NEG], floats[kernel.POS] = self.classes_
        avg_start = 1 if self.average is True else int(self.average or 0)
        modes = (_SELECT[self.selection], _UPDATE[self.update], self._paper_batch_size())
        modes += (self.slab_schedule == "shrinking", state.windows)
        # arrays updated in place; only state.noise is replaced (NEED_NOISE)
        rows = (X, uniforms, y, use_y, state.w, state.average, avg_start)
        buffers = (state.buf, state.buf_idx, state.signs)
        while True:
            kernel.run_stream(*rows, *buffers, state.noise, ints, floats, *modes)
            status = ints[kernel.STATUS]
            if status == kernel.DONE:
                break
            if status == kernel.NEED_RELEASE:
                self._release_window(mech, floats, avg_start, noise_rng)
            elif status == kernel.NEED_NOISE:
                steps = mech.noise_steps((_NOISE_REFILL, X.shape[1]), noise_rng)
                state.noise = steps.astype(np.float64)
                ints[kernel.NOISE_POS] = 0
            elif status == kernel.NEED_LABELS:
                labels.fill(state)
            else:
                labels.refuse()
        if labels.y is not None:  # pending rows of this call: read their labels from this y
            labels.fill(state)
        ends = self._stream_ends(X.shape[0] - start) or self._call_closes_window()
        if ends and ints[kernel.BUF_N] > 0:
            labels.fill(state)  # the last window of a stream of known length is released
            if (
                ints[kernel.ROUND] > 0
                and state.windows[kernel.THRESHOLD] > 0
                and not state.windows[kernel.ACTIVE]
            ):
                # a tail too short for a round refines the cut (a new direction: stale cut)
                ints[kernel.PHASE] = kernel.PHASE_THRESHOLD
            self._release_window(mech, floats, avg_start, noise_rng)
        state.drop_noise()

    def _selection_probability(self, floats):
        """The probability that a row at distance ``d`` is selected (public)."""
        p_flip, slab, M = floats[kernel.P_FLIP], floats[kernel.SLAB], floats[kernel.DATA_NORM]
        if self.selection == "bernoulli":
            return lambda d: np.where(d <= slab, 1.0 - p_flip, p_flip)
        rate = floats[kernel.EXP_RATE]
        return lambda d: np.exp(-np.maximum(slab, np.minimum(d, M)) * rate)

    def _call_closes_window(self) -> bool:
        """Whether the call's end releases the open active window (half its length seen).
        Call boundaries are public (the caller's chunking), so windows stay public."""
        state = self._state
        if not state.windows[kernel.ACTIVE] or state.horizon is not None:
            return False
        planned = int(kernel.window_length(state.ints, state.windows))
        return 2 * int(state.ints[kernel.WINDOW_SEEN]) >= planned

    def _stream_ends(self, n_new: int) -> bool:
        """ftrl, and this call's rows complete a stream of known length."""
        horizon = self._state.horizon
        return self.update == "ftrl" and horizon is not None and self.n_seen_ + n_new >= horizon

    def _release_window(self, setup: _FtrlSetup, floats, avg_start: int, rng) -> None:
        """Release the buffered ftrl window (its rows are labelled) and move on."""
        state, M = self._state, self.data_norm_
        ints, ftrl = state.ints, state.ftrl
        rows, signs = state.buf[: ints[kernel.BUF_N]], state.signs[: ints[kernel.BUF_N]]
        # the leading rounds took every row: one release at the whole ε
        first = bool(ints[kernel.ROUND] < state.windows[kernel.FULL_ROUNDS])
        if state.windows[kernel.ACTIVE]:
            # a labelled window took every row: one release at the whole ε (in the
            # tree, every window but the first is a leaf at ε_g / L)
            whole = ints[kernel.PHASE] == kernel.PHASE_GRADIENT and (
                ftrl.tree is None or ints[kernel.ROUND] == 0
            )
            mech = setup.first if whole else setup.later
            ftrl.release_centroids(rows, signs, M, mech, ftrl.tree is not None and not whole, rng)
            w, ftrl.threshold = ftrl.pool.iterate(self._alpha(M), bool(self.fit_intercept))
            state.w[:] = w
            ints[kernel.N_UPDATES] += 1
        elif ints[kernel.PHASE] == kernel.PHASE_GRADIENT:
            mech = setup.first if first else setup.later
            ftrl.release_gradient(rows, signs, state.w, state.bias, M, mech, first, rng)
            state.w[:] = ftrl.iterate(setup.later.granularity, self._alpha(M), M)
            ints[kernel.N_UPDATES] += 1
        else:
            mech = setup.first_threshold if first else setup.threshold
            every = self.selection == "all" or first  # every label read: no selection to undo
            chance = None if every else self._selection_probability(floats)
            balanced = self.class_weight == "balanced"
            ftrl.release_threshold(rows, signs, state.w, setup.reach, mech, rng, chance, balanced)
        state.bias = -ftrl.threshold * float(np.linalg.norm(state.w))
        floats[kernel.BIAS] = state.bias
        state.n_released += 1
        if avg_start > 0 and state.n_released >= avg_start:
            k = state.n_released - avg_start + 1
            state.average += (state.w - state.average) / k
            state.average_bias += (state.bias - state.average_bias) / k
        else:
            state.average[:] = state.w
            state.average_bias = state.bias
        state.clear_rows(0, int(ints[kernel.BUF_N]))  # released: nothing of the window stays
        ints[kernel.BUF_N] = ints[kernel.LABELLED] = ints[kernel.PENDING] = 0
        kernel.advance_phase(ints, state.windows)

    def _publish(self, n_new: int, n_consumed: int) -> None:
        """The public attributes, from what the compiled loop did."""
        ints = self._state.ints
        self.n_seen_ += n_new
        self.n_seen_last_call_ = n_consumed
        self.n_updates_ = int(ints[kernel.N_UPDATES])
        self.n_labels_requested_ = int(ints[kernel.N_LABELS])
        average = self._state.average
        if self._augmented():  # the decision is w·[x/√2, M/√2]
            self.coef_ = average[None, :-1] * _HALF_SQRT2
            self.intercept_ = np.array([average[-1] * self.data_norm_ * _HALF_SQRT2])
        else:
            self.coef_ = average[None, :].copy()
            self.intercept_ = np.array([self._state.average_bias])
        if self.update == "ftrl":  # post-processing of the released positive counts
            self.class_prior_ = self._state.ftrl.pool.class_prior()
        self.privacy_spent_ = self._spent()
