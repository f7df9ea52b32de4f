"""The DP-FTRL update of :class:`PrivateOnlineActiveSVC`: windows, releases, iterate.

Active windows (:func:`active_windows`) release noisy class sums and counts,
pooled by :mod:`._centroids`; threshold windows (:func:`ftrl_windows`) alternate a
gradient release and noisy projection histograms that set the intercept.
Window lengths depend on public quantities only (ε, d, the stream length when
known), and each row lies in one window, hence one release (or ``L`` tree nodes).
"""

from __future__ import annotations

import copy
import math

import numpy as np

from ..privacy import GeometricMechanism, LaplaceMechanism
from ..privacy._grid import to_steps
from . import _kernel as kernel
from ._centroids import CentroidPool

#: A gradient window holds ``ROWS_PER_FEATURE · d / ε`` rows: its signal, about
#: ``rows·γ/√d`` per coordinate, must beat the noise per coordinate, ``2M√d/ε``.
ROWS_PER_FEATURE = 16
#: Bins of the threshold histograms over the projections, in ``[-R, R]``.
N_BINS = 16
#: Threshold windows bin projections in ``[-R, R]``, ``R = REACH · M/√d``.
REACH = 2.0
#: The fewest rows of a window.
MIN_WINDOW = 5
#: A stream of unknown length starts with a window of ``FIRST_ROWS_PER_FEATURE · d / ε``
#: rows, then doubles it.
FIRST_ROWS_PER_FEATURE = 4
#: The windows double up to this many rule windows (their rows wait in a buffer).
MAX_WINDOW_RULES = 16
#: With active windows, the share of each round's rows in its active window.
ACTIVE_SHARE = 0.35


def _lengths(*windows) -> np.ndarray:
    """The window-length array the kernel reads (positions in ``_kernel``)."""
    return np.array(windows, dtype=np.int64)


def gradient_window(n_features: int, epsilon: float) -> int:
    """Rows of a gradient window, ``max(5, ceil(16·d/ε))``: public quantities only."""
    return max(MIN_WINDOW, math.ceil(ROWS_PER_FEATURE * n_features / epsilon))


def first_window(n_features: int, epsilon: float) -> int:
    """Rows of the first window of a stream of unknown length: public quantities only."""
    return max(MIN_WINDOW, math.ceil(FIRST_ROWS_PER_FEATURE * n_features / epsilon))


def active_windows(
    n_features: int,
    epsilon: float,
    horizon: int | None,
    batch_size: int | None = None,
    first_call: int | None = None,
) -> np.ndarray:
    """Window lengths with active windows (``kernel.ACTIVE = 1``), from public quantities.
    A known ``horizon`` is one round (capped); otherwise rounds double from
    :func:`first_window`, or from the plan for a ``first_call`` of ``m`` rows."""

    def active(rows: int) -> int:
        return math.ceil(rows * ACTIVE_SHARE / (1.0 - ACTIVE_SHARE))

    cap = MAX_WINDOW_RULES * gradient_window(n_features, epsilon)
    if batch_size is not None:
        rows = int(batch_size)
        return _lengths(rows, rows, active(rows), active(rows), 0, 0, 1)
    if horizon is None:
        first = min(first_window(n_features, epsilon), cap)
        second = active(first)
        if first_call is not None and first_call > first + second:
            first = min(math.ceil((1.0 - ACTIVE_SHARE) * first_call), cap)
            second = min(first_call - first, active(cap)) if first < cap else active(cap)
        return _lengths(first, cap, second, active(cap), 1, 0, 1)
    labelled = math.ceil((1.0 - ACTIVE_SHARE) * horizon)
    if labelled <= cap:  # one round: the active window ends with the stream
        return _lengths(labelled, labelled, horizon - labelled, horizon - labelled, 0, 0, 1)
    return _lengths(cap, cap, active(cap), active(cap), 0, 0, 1)


def ftrl_windows(
    n_features: int,
    eps_first: float,
    eps_later: float,
    intercept_share: float,
    horizon: int | None,
    batch_size: int | None = None,
) -> np.ndarray:
    """Window lengths with threshold windows (``kernel.ACTIVE = 0``), doubling.
    ``intercept_share``: a round's share in its threshold window (0: no intercept)."""
    share = float(intercept_share)

    def threshold(rows: int) -> int:
        return math.ceil(rows * share / (1.0 - share)) if share else 0

    if batch_size is not None:
        rows = int(batch_size)
        return _lengths(rows, rows, threshold(rows), threshold(rows), 0, 1, 0)
    later = gradient_window(n_features, eps_later)
    if horizon is None:
        first = min(first_window(n_features, eps_first), later)
        # the rounds before the windows reach the rule's length take every row
        full = max(1, math.ceil(math.log2(later / first))) if later > first else 1
        last = MAX_WINDOW_RULES * later
        return _lengths(first, last, threshold(first), threshold(last), 1, full, 0)
    usable = (1.0 - share) * horizon
    rule = gradient_window(n_features, eps_first)
    rounds = known_length_rounds(usable, rule)
    if rounds == 1:  # the first round takes the whole stream
        cap = max(1, math.floor(usable))
        return _lengths(cap, cap, max(horizon - cap, 1) if share else 0, threshold(cap), 0, 1, 0)
    first = math.floor(usable / (2**rounds - 1))
    last = min(first << (rounds - 1), max(first, MAX_WINDOW_RULES * rule))
    return _lengths(first, last, threshold(first), threshold(last), 1, 1, 0)


def known_length_rounds(gradient_rows: float, rule: int) -> int:
    """Rounds ``K = max(1, ⌊log₂(G/rule + 1)⌋)`` of a stream of known length (``G``
    gradient rows): doubling windows, so the pooled noise grows as ``√K`` only."""
    return max(1, math.floor(math.log2(gradient_rows / rule + 1.0)))


def count_weight(n_features: int, data_norm: float) -> float:
    """``c = M``: the positive count enters the gradient release as ``c·n₊``."""
    return float(data_norm)


def gradient_sensitivity(n_features: int, data_norm: float) -> float:
    """L1 sensitivity of a window's release under replace-one: ``2M√d + c``.
    The class sums move by ``2M`` in L2 (``2M√d`` in L1), the count by 1."""
    return 2.0 * data_norm * math.sqrt(n_features) + count_weight(n_features, data_norm)


def released_size(n_features: int) -> int:
    """Coordinates of a gradient release: two class sums and the weighted count."""
    return 2 * n_features + 1


def tree_levels(windows: np.ndarray, horizon: int) -> int:
    """Levels ``L`` of the binary tree over the later windows (a leaf is in ``L`` nodes)."""
    ints = np.zeros(kernel.N_INTS, np.int64)

    def round_rows(r: int) -> int:
        ints[kernel.ROUND] = r
        rows = 0
        for phase in (kernel.PHASE_GRADIENT, kernel.PHASE_THRESHOLD):
            ints[kernel.PHASE] = phase
            rows += int(kernel.window_length(ints, windows))
        return rows

    seen, r = round_rows(0), 1  # the first round is not a leaf
    full = int(windows[kernel.GRADIENT] + windows[kernel.THRESHOLD])
    while seen < horizon and round_rows(r) < full:  # the growing rounds, one by one
        seen, r = seen + round_rows(r), r + 1
    leaves = r - 1 + max(0, math.ceil((horizon - seen) / full))
    if windows[kernel.ACTIVE]:  # every window but the first labelled one is a leaf
        leaves = 2 * leaves + (1 if windows[kernel.FIRST_THRESHOLD] else 0)
    return max(1, leaves).bit_length()  # floor(log2(leaves)) + 1


class _BinaryTree:
    """The binary mechanism over leaves (Chan, Shi and Song 2011), in grid steps.
    ``partial`` holds true sums (raw data, private); ``released`` the noisy ones."""

    def __init__(self, levels: int, n_features: int):
        self.partial = np.zeros((levels, n_features), np.int64)
        self.released = np.zeros((levels, n_features), np.int64)
        self.leaves = 0

    def without_sums(self) -> "_BinaryTree":
        """A copy whose true sums are zeroed (the released ones kept)."""
        tree = copy.copy(self)
        tree.partial = np.zeros_like(self.partial)
        return tree

    def add(self, leaf: np.ndarray, mech: LaplaceMechanism, rng) -> np.ndarray:
        """Add one leaf; the noisy prefix sum of all leaves so far."""
        t = self.leaves + 1
        if t.bit_length() > self.partial.shape[0]:
            raise RuntimeError("the stream outgrew the tree it was charged for.")
        level = (t & -t).bit_length() - 1  # the node that closes at leaf t
        self.partial[level] = self.partial[:level].sum(axis=0) + leaf
        self.partial[:level] = 0
        self.released[level] = self.partial[level] + mech.noise_steps(leaf.shape[0], rng)
        self.released[:level] = 0
        self.leaves = t
        bits = [i for i in range(t.bit_length()) if t >> i & 1]
        return self.released[bits].sum(axis=0)


class FtrlState:
    """The private state of an ftrl run besides the kernel's: released sums, tree."""

    def __init__(self, n_features: int, levels: int):
        size = released_size(n_features)
        self.first = np.zeros(size, np.int64)  # noisy first window's sums, in steps
        self.later = np.zeros(size, np.int64)  # noisy prefix of the later ones
        self.n_rows = 0  # rows in gradient releases (public: from the selections)
        self.threshold = 0.0  # the intercept's cut on the unit direction
        # noisy class histograms of the threshold windows, in epochs of doubling
        # length (1, 2, 4, ... windows): [previous epoch, current epoch]
        self.histograms = np.zeros((2, 2, N_BINS))
        self.epoch_windows, self.epoch_length = 0, 1
        self.tree = _BinaryTree(levels, size) if levels else None
        self.pool = CentroidPool(n_features)  # active windows: centroids and prior
        self.tree_rows = 0  # rows in the tree's leaves (public)

    def holds_sums(self) -> bool:
        """Whether the tree holds true (raw) sums of closed leaves not yet released whole."""
        return self.tree is not None and bool(self.tree.partial.any())

    def without_sums(self) -> "FtrlState":
        """A copy that holds no true sum: every value in it is a DP release."""
        state = copy.copy(self)
        if self.tree is not None:
            state.tree = self.tree.without_sums()
        return state

    def release_gradient(
        self, rows, signs, w, bias, data_norm: float, mech: LaplaceMechanism, first: bool, rng
    ) -> None:
        """Release ``(Σ₊ x·a, Σ₋ x·a, c·n₊)``, ``a`` the active hinge.
        L1 sensitivity under replace-one: :func:`gradient_sensitivity`."""
        active = signs * (rows @ w + bias) < 1.0
        leaf = _class_sums(rows, signs > 0, active, data_norm, mech.granularity)
        if first:  # a window of the leading rounds, at the whole ε
            self.first = self.first + leaf + mech.noise_steps(leaf.shape[0], rng)
        elif self.tree is not None:
            self.later = self.tree.add(leaf, mech, rng)
        else:
            self.later = self.later + leaf + mech.noise_steps(leaf.shape[0], rng)
        self.n_rows += rows.shape[0]

    def release_centroids(
        self, rows, signs, data_norm: float, mech: LaplaceMechanism, in_tree: bool, rng
    ) -> None:
        """Release ``(Σ₊ x, Σ₋ x, c·n₊)`` (:func:`gradient_sensitivity`), and pool it.
        Into :class:`CentroidPool`, or with ``in_tree`` into the tree (prefix pooled)."""
        leaf = _class_sums(rows, signs > 0, True, data_norm, mech.granularity)
        variance, c = 2.0 * mech.scale**2, count_weight(rows.shape[1], data_norm)
        if in_tree:
            prefix = self.tree.add(leaf, mech, rng)
            self.tree_rows += rows.shape[0]
            nodes = self.tree.leaves.bit_count()  # the prefix sums this many nodes
            self.pool.set_tree(prefix * mech.granularity, self.tree_rows, nodes * variance, c)
        else:
            noisy = (leaf + mech.noise_steps(leaf.shape[0], rng)) * mech.granularity
            self.pool.add(noisy, rows.shape[0], variance, c)
        self.n_rows += rows.shape[0]

    def iterate(self, granularity: float, lam: float, data_norm: float) -> np.ndarray:
        """The class-balanced FTRL iterate, projected on the ball of radius ``1/√λ``.
        ``w = (S₊/n₊ - S₋/n₋) / (2λ)`` from the noisy sums; post-processing."""
        total = (self.first + self.later).astype(np.float64) * granularity
        d = (total.shape[0] - 1) // 2
        n = max(self.n_rows, 2)
        n_pos = min(max(total[-1] / count_weight(d, data_norm), 1.0), n - 1.0)
        w = (total[:d] / n_pos - total[d : 2 * d] / (n - n_pos)) / (2.0 * lam)
        norm, radius = float(np.linalg.norm(w)), 1.0 / math.sqrt(lam)
        return w * (radius / norm) if norm > radius else w

    def release_threshold(
        self,
        rows,
        signs,
        w,
        reach: float,
        mech: GeometricMechanism,
        rng,
        selection=None,
        balanced: bool = False,
    ) -> None:
        """Release the per-class histograms of ``w·x/‖w‖`` on ``[-R, R]``, and cut.
        ``selection(d)``: probability a row at distance ``d`` was selected (None:
        all); counts are divided by it (Horvitz–Thompson, post-processing). The
        cut pools the current and previous epochs (doubling lengths)."""
        norm = float(np.linalg.norm(w))
        if norm == 0.0:
            return
        # N_BINS equal bins of [-R, R]: a public partition, projections clipped into it
        position = (rows @ w) * (N_BINS / (2.0 * reach * norm)) + N_BINS / 2.0
        bins = np.clip(position, 0, N_BINS - 1).astype(np.int64)
        cells = np.where(signs > 0, N_BINS, 0) + bins
        counts = np.bincount(cells, minlength=2 * N_BINS).reshape(2, N_BINS)
        edges = np.linspace(-reach, reach, N_BINS + 1)
        weights = np.ones(N_BINS)
        if selection is not None:  # undo the selection's weights (post-processing)
            weights = 1.0 / selection(np.abs((edges[:-1] + edges[1:]) / 2 - self.threshold))
        self.histograms[1] += (counts + mech.noise(counts.shape, rng)) * weights
        self.epoch_windows += 1
        pooled = self.histograms.sum(axis=0)
        if self.epoch_windows == self.epoch_length:
            self.histograms[0] = self.histograms[1]
            self.histograms[1] = 0.0
            self.epoch_windows, self.epoch_length = 0, 2 * self.epoch_length
        self.threshold = best_cut(pooled[0], pooled[1], edges, balanced)


def _class_sums(rows, positive, used, data_norm: float, granularity: float) -> np.ndarray:
    """``(Σ₊ x, Σ₋ x, c·n₊)`` over the ``used`` rows (``n₊`` over all), in grid steps."""
    d = rows.shape[1]
    sums = np.empty(released_size(d))
    sums[:d] = rows[used & positive].sum(axis=0)
    sums[d : 2 * d] = rows[used & ~positive].sum(axis=0)
    sums[-1] = count_weight(d, data_norm) * np.count_nonzero(positive)
    return to_steps(sums, granularity)


def best_cut(negative, positive, edges, balanced: bool = False) -> float:
    """The bin edge with the fewest errors, among edges inside the noisy data.
    ``balanced``: the midpoint of the two classes' noisy medians (prior-free).
    Outer bins hold only noise, so edges outside the data are excluded."""
    if balanced:
        return (_median(negative, edges) + _median(positive, edges)) / 2.0
    correct = np.concatenate([[0], np.cumsum(negative)]) + np.concatenate(
        [np.cumsum(positive[::-1])[::-1], [0]]
    )
    support = np.flatnonzero(negative + positive > 0)
    if support.size >= 2:  # edges between the first and the last bin with data
        inside = np.arange(support[0] + 1, support[-1] + 1)
    else:
        inside = np.arange(edges.size)
    best = inside[np.flatnonzero(correct[inside] == correct[inside].max())]
    return float(edges[best[best.size // 2]])


def projection_reach(n_features: int, data_norm: float) -> float:
    """``R = REACH · M/√d`` (at most ``M``), a public bound on the binned projections."""
    return min(REACH * data_norm / math.sqrt(n_features), data_norm)


def _median(counts, edges) -> float:
    """Noisy median, linear within its bin (the right edge would bias it up)."""
    cumulative = np.cumsum(counts)
    total = cumulative[-1]
    if total <= 0:
        return 0.0
    k = int(np.argmax(cumulative >= total / 2.0))
    before = cumulative[k - 1] if k else 0.0
    share = (total / 2.0 - before) / counts[k] if counts[k] > 0 else 1.0
    return float(edges[k] + min(max(share, 0.0), 1.0) * (edges[k + 1] - edges[k]))
