"""The DP-FTRL update of :class:`PrivateOnlineActiveSVC`: windows, releases, iterate.

By default (active windows, :func:`active_windows`) the stream is cut into
rounds of a *labelled window* (every label read) and an *active window* (rows
selected); each releases its noisy class sums and positive count, pooled into
class centroids and a class prior by :mod:`._centroids`, whose balanced cut is
the intercept. With threshold windows (:func:`ftrl_windows`: ``class_weight=None``
or a given ``intercept_share``) a round is a *gradient window*, whose selected
rows release one noisy hinge-gradient sum, then a *threshold window*, whose
selected rows release a noisy histogram of their projections on the current
direction, one per class, and the intercept is a cut of those histograms.
Either way the iterate is follow-the-regularised-leader on the linearised
losses (Kairouz et al. 2021), from every release so far, so that the noise of
one release is averaged away by the next instead of accumulating step by step.

Every window length is a function of public parameters only (ε, the number of
features, the stream length when it is known), and every row lies in exactly
one window, hence in one release (or in one leaf of the tree: ``L`` nodes).
"""

from __future__ import annotations

import copy
import math

import numpy as np

from ..privacy import GeometricMechanism, LaplaceMechanism
from ..privacy._grid import to_steps
from . import _kernel as kernel
from ._centroids import CentroidPool

__all__ = [
    "ACTIVE_SHARE",
    "N_BINS",
    "ROWS_PER_FEATURE",
    "FtrlState",
    "active_windows",
    "count_weight",
    "first_window",
    "ftrl_windows",
    "gradient_sensitivity",
    "gradient_window",
    "known_length_rounds",
    "projection_reach",
    "released_size",
    "tree_levels",
]

#: A gradient window holds ``ROWS_PER_FEATURE · d / ε`` rows: its signal, about
#: ``rows·γ/√d`` per coordinate for a margin ``γ``, must beat the noise per
#: coordinate, ``2M√d/ε`` (see the user guide for the measurements).
ROWS_PER_FEATURE = 16
#: Bins of the threshold histograms over the projections, in ``[-R, R]``.
N_BINS = 16
#: Threshold windows bin projections in ``[-R, R]``, ``R = REACH · M/√d``
#: (:func:`projection_reach`).
REACH = 2.0
#: The fewest rows of a window.
MIN_WINDOW = 5
#: A stream of unknown length starts with a gradient window of
#: ``FIRST_ROWS_PER_FEATURE · d / ε`` rows, then doubles it round by round (the
#: rounds shorter than :data:`ROWS_PER_FEATURE` · d / ε_g take every row) up to
#: :data:`MAX_WINDOW_RULES` rule windows (see the user guide for the measurements).
FIRST_ROWS_PER_FEATURE = 4
#: The windows double up to this many rule windows: a window's rows wait in a
#: buffer until it is released, and so long a window holds 16 times the rule's signal.
MAX_WINDOW_RULES = 16
#: With active windows, the share of each round's rows in its active window (the
#: rows that are selected); the labelled window before it reads every label. At
#: ε = 2 (ε_s = 0.5) a round then reads at most 0.65 + 0.35·0.62 = 0.87 of its labels.
ACTIVE_SHARE = 0.35


def gradient_window(n_features: int, epsilon: float) -> int:
    """Rows of a gradient window, ``max(5, ceil(16·d/ε))``: public quantities only."""
    return max(MIN_WINDOW, math.ceil(ROWS_PER_FEATURE * n_features / epsilon))


def first_window(n_features: int, epsilon: float) -> int:
    """Rows of the first gradient window of a stream of unknown length,
    ``max(5, ceil(FIRST_ROWS_PER_FEATURE·d/ε))``: public quantities only."""
    return max(MIN_WINDOW, math.ceil(FIRST_ROWS_PER_FEATURE * n_features / epsilon))


def active_windows(n_features: int, epsilon: float, horizon: int | None,
                   batch_size: int | None = None, first_call: int | None = None) -> np.ndarray:
    """The window lengths of the kernel with active windows (``kernel.ACTIVE = 1``).

    Each round is a *labelled window* (every label read, one release at the
    whole ε) and an *active window* of :data:`ACTIVE_SHARE` of the round's
    rows (rows selected, one release at ``ε_g``). A stream of known length
    (``horizon``) is one round, ``⌈0.7·n⌉`` labelled rows and the rest
    active, unless the labelled window would exceed :data:`MAX_WINDOW_RULES`
    rule windows (:func:`gradient_window` at ε): then rounds of that length
    follow each other to the end. A stream of unknown length starts with a
    labelled window of :func:`first_window` rows and doubles its rounds up
    to that cap; when the first call brings more rows than that first round
    (``first_call``: a call of ``m`` rows is at least ``m`` rows of stream),
    the first round is planned as a stream of ``m`` rows would be, and the
    rounds double from it. A given ``batch_size`` is the length of every
    labelled window. Public quantities only (ε, ``d``, the stream length
    when known, the length of the first call).
    """

    def active(rows: int) -> int:
        return math.ceil(rows * ACTIVE_SHARE / (1.0 - ACTIVE_SHARE))

    cap = MAX_WINDOW_RULES * gradient_window(n_features, epsilon)
    if batch_size is not None:
        rows = int(batch_size)
        return np.array([rows, rows, active(rows), active(rows), 0, 0, 1], dtype=np.int64)
    if horizon is None:
        first = min(first_window(n_features, epsilon), cap)
        second = active(first)
        if first_call is not None and first_call > first + second:
            first = min(math.ceil((1.0 - ACTIVE_SHARE) * first_call), cap)
            second = min(first_call - first, active(cap)) if first < cap else active(cap)
        return np.array([first, cap, second, active(cap), 1, 0, 1], dtype=np.int64)
    labelled = math.ceil((1.0 - ACTIVE_SHARE) * horizon)
    if labelled <= cap:  # one round: the active window ends with the stream
        return np.array([labelled, labelled, horizon - labelled, horizon - labelled, 0, 0, 1],
                        dtype=np.int64)
    return np.array([cap, cap, active(cap), active(cap), 0, 0, 1], dtype=np.int64)


def ftrl_windows(n_features: int, eps_first: float, eps_later: float, intercept_share: float,
                 horizon: int | None, batch_size: int | None = None) -> np.ndarray:
    """The window lengths of the kernel with threshold windows (``kernel.ACTIVE = 0``).

    ``intercept_share`` is the share of a round's rows in its threshold
    window (0: no intercept). A given ``batch_size`` is the length of every
    gradient window. Without a ``horizon`` (a stream of unknown length) the
    windows grow geometrically: round ``r``'s are ``2^r`` times the first
    round's (:func:`first_window`), past the rule's (:func:`gradient_window`)
    up to :data:`MAX_WINDOW_RULES` times it, so that a stream of any length
    releases (its first release after a few ``d/ε`` rows), the rows waiting
    in an unreleased window are at most about the half of those seen, and a
    long stream releases few times (the noise of the pooled sums grows as
    the square root of the number of releases). With a known ``horizon`` (the stream length) the windows double
    too, from a first window at least the rule's at the whole ε, and end
    with the stream (:func:`known_length_rounds`); when no second round
    would fit, the first round takes the whole stream. The last entry is
    the number of leading rounds whose windows take every row and release
    at the whole ε: the first round, and without a ``horizon`` every round
    whose windows are still shorter than the rule's.
    """
    share = float(intercept_share)

    def threshold(rows: int) -> int:
        return math.ceil(rows * share / (1.0 - share)) if share else 0

    if batch_size is not None:
        rows = int(batch_size)
        return np.array([rows, rows, threshold(rows), threshold(rows), 0, 1, 0], dtype=np.int64)
    later = gradient_window(n_features, eps_later)
    if horizon is None:
        first = min(first_window(n_features, eps_first), later)
        # the rounds before the windows reach the rule's length take every row
        full = max(1, math.ceil(math.log2(later / first))) if later > first else 1
        # then the windows keep doubling up to MAX_WINDOW_RULES rule windows, as on a
        # stream of known length
        last = MAX_WINDOW_RULES * later
        return np.array([first, last, threshold(first), threshold(last), 1, full, 0],
                        dtype=np.int64)
    usable = (1.0 - share) * horizon
    rule = gradient_window(n_features, eps_first)
    rounds = known_length_rounds(usable, rule)
    if rounds == 1:  # the first round takes the whole stream
        cap = max(1, math.floor(usable))
        return np.array([cap, cap, max(horizon - cap, 1) if share else 0, threshold(cap), 0, 1,
                         0], dtype=np.int64)
    first = math.floor(usable / (2 ** rounds - 1))
    last = min(first << (rounds - 1), max(first, MAX_WINDOW_RULES * rule))
    return np.array([first, last, threshold(first), threshold(last), 1, 1, 0], dtype=np.int64)


def known_length_rounds(gradient_rows: float, rule: int) -> int:
    """Rounds of a stream of known length: ``K = max(1, ⌊log₂(G/rule + 1)⌋)``.

    ``G`` is the rows the gradient windows take, ``(1 - share)·horizon``.
    The K gradient windows double in length (``f, 2f, ..., 2^(K-1) f`` with
    ``f = ⌊G/(2^K - 1)⌋``) and end with the stream; the first is at least
    the rule's. On a long stream the doubling stops at
    :data:`MAX_WINDOW_RULES` rule windows (the windows after it keep that
    length): a window's rows wait in a buffer until it is released, and
    windows that long already hold 16 times the rule's signal. The noise of the pooled gradient sums grows as ``√K``, the
    number of releases, so a known length is best served by few windows:
    doubling keeps ``K`` logarithmic in the stream length, while the
    iterate (and the selection that follows it) still improves round by
    round.
    """
    return max(1, math.floor(math.log2(gradient_rows / rule + 1.0)))


def count_weight(n_features: int, data_norm: float) -> float:
    """``c = M``: the positive count enters the gradient release as ``c·n₊``.

    It adds ``1/(2√d)`` to the sums' noise, and the count's own noise,
    ``(2√d + 1)/ε`` rows, stays within ``(2√d + 1)/(16 d)`` (7 % at d = 5) of
    a window of :func:`gradient_window` rows.
    """
    return float(data_norm)


def gradient_sensitivity(n_features: int, data_norm: float) -> float:
    """L1 sensitivity of a window's release under replace-one: ``2M√d + c``.

    Replacing one row moves one class sum by at most ``2M`` in L2 norm (same
    label), or each of the two by at most ``M`` (labels differ): ``2M√d`` in
    L1 either way; and the positive count by at most 1.
    """
    return 2.0 * data_norm * math.sqrt(n_features) + count_weight(n_features, data_norm)


def released_size(n_features: int) -> int:
    """Coordinates of a gradient release: two class sums and the weighted count."""
    return 2 * n_features + 1


def tree_levels(windows: np.ndarray, horizon: int) -> int:
    """Levels ``L`` of the binary tree over the later gradient windows of a
    stream of ``horizon`` rows (each row's leaf is in at most ``L`` nodes)."""
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

    ``partial[i]`` is the true sum of the open node at level ``i`` and
    ``released[i]`` the noisy sum of the last closed one: private state, as
    the label buffer (the former is raw data).
    """

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

    def release_gradient(self, rows, signs, w, bias, data_norm: float, mech: LaplaceMechanism,
                         first: bool, rng) -> None:
        """Release the window's noisy per-class hinge-gradient sums and positive count.

        The vector is ``(Σ₊ x·a, Σ₋ x·a, c·n₊)`` over the window's rows, with
        ``a = [y(w·x+b) < 1]`` (the hinge is active) and ``c`` =
        :func:`count_weight`: its L1 sensitivity under replace-one is
        ``2M√d + c`` (:func:`gradient_sensitivity`).
        """
        d = rows.shape[1]
        active = signs * (rows @ w + bias) < 1.0
        positive = signs > 0
        sums = np.empty(released_size(d))
        sums[:d] = rows[active & positive].sum(axis=0)
        sums[d:2 * d] = rows[active & ~positive].sum(axis=0)
        sums[-1] = count_weight(d, data_norm) * np.count_nonzero(positive)
        leaf = to_steps(sums, mech.granularity)
        if first:  # a window of the leading rounds, at the whole ε
            self.first = self.first + leaf + mech.noise_steps(leaf.shape[0], rng)
        elif self.tree is not None:
            self.later = self.tree.add(leaf, mech, rng)
        else:
            self.later = self.later + leaf + mech.noise_steps(leaf.shape[0], rng)
        self.n_rows += rows.shape[0]

    def release_centroids(self, rows, signs, data_norm: float, mech: LaplaceMechanism,
                          in_tree: bool, rng) -> None:
        """Release a window's class sums and weighted positive count (every row), and pool.

        The vector is ``(Σ₊ x, Σ₋ x, c·n₊)`` (:func:`gradient_sensitivity`);
        its last coordinate is the window's share of the class prior. The
        release goes to :class:`CentroidPool` with its noise variance, or, with
        ``in_tree``, into the binary tree, whose noisy prefix is pooled as one
        window.
        """
        d = rows.shape[1]
        positive = signs > 0
        sums = np.empty(released_size(d))
        sums[:d] = rows[positive].sum(axis=0)
        sums[d:2 * d] = rows[~positive].sum(axis=0)
        sums[-1] = count_weight(d, data_norm) * np.count_nonzero(positive)
        leaf = to_steps(sums, mech.granularity)
        variance = 2.0 * mech.scale ** 2
        if in_tree:
            prefix = self.tree.add(leaf, mech, rng)
            self.tree_rows += rows.shape[0]
            nodes = self.tree.leaves.bit_count()  # the prefix sums this many nodes
            self.pool.set_tree(prefix * mech.granularity, self.tree_rows, nodes * variance,
                               count_weight(d, data_norm))
        else:
            noisy = (leaf + mech.noise_steps(leaf.shape[0], rng)) * mech.granularity
            self.pool.add(noisy, rows.shape[0], variance, count_weight(d, data_norm))
        self.n_rows += rows.shape[0]

    def iterate(self, granularity: float, lam: float, data_norm: float) -> np.ndarray:
        """The class-balanced FTRL iterate, projected on the ball of radius ``1/√λ``.

        ``w = (S₊/n₊ - S₋/n₋) / (2λ)`` from the noisy sums and the noisy
        positive count (kept within ``[1, n - 1]``): the minimiser of the
        linearised class-balanced hinge losses so far plus ``λ n ‖w‖²/2``,
        which for balanced classes is ``Σ y·x·a / (λ n)``. Post-processing.
        """
        total = (self.first + self.later).astype(np.float64) * granularity
        d = (total.shape[0] - 1) // 2
        n = max(self.n_rows, 2)
        n_pos = min(max(total[-1] / count_weight(d, data_norm), 1.0), n - 1.0)
        w = (total[:d] / n_pos - total[d:2 * d] / (n - n_pos)) / (2.0 * lam)
        norm, radius = float(np.linalg.norm(w)), 1.0 / math.sqrt(lam)
        return w * (radius / norm) if norm > radius else w

    def release_threshold(self, rows, signs, w, reach: float,
                          mech: GeometricMechanism, rng, selection=None,
                          balanced: bool = False) -> None:
        """Release the per-class histograms of ``w·x/‖w‖`` on ``[-R, R]``, and cut.

        ``R = reach`` (:func:`projection_reach`): projections beyond it are
        clipped into the outer bins.

        ``selection(d)`` is the probability that the window's selection took a
        row at distance ``d`` from the current hyperplane (None: every row
        was taken). Each bin's noisy counts are divided by it at the bin's
        centre (Horvitz–Thompson, post-processing): the selection favours rows
        near the hyperplane, and unweighted counts would misstate the class
        prior. The cut is the best one over the windows of the current and
        the previous epoch; epochs double in length (1, 2, 4, ... windows),
        so the oldest windows, projected on older directions, drop out while
        at least half of all windows stay pooled. ``balanced``: the cut
        minimises the balanced error (see :func:`best_cut`).
        """
        norm = float(np.linalg.norm(w))
        if norm == 0.0:
            return
        # N_BINS equal bins of [-R, R], by arithmetic (a public partition: the
        # projections are clipped into it)
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


def best_cut(negative, positive, edges, balanced: bool = False) -> float:
    """The bin edge that misclassifies the fewest counts (negatives below, positives
    above), the middle one of ties, among the edges inside the data.

    ``balanced`` (``class_weight="balanced"``): the midpoint of the two
    classes' noisy medians, the cut of equal error rates for two classes of
    the same shape. It does not depend on the class prior, and a median
    stays where the rows are (a cut that weighs each class's noisy counts by
    their noisy total was measured to follow the noise of the sparse bins).

    "Inside the data" is between the first and the last bin with a positive
    noisy total: the outer bins of ``[-M, M]`` hold only noise, and a cut
    there (every row on one side) would be chosen by the noise alone.
    Post-processing of the noisy counts.
    """
    if balanced:
        return (_median(negative, edges) + _median(positive, edges)) / 2.0
    correct = (np.concatenate([[0], np.cumsum(negative)])
               + np.concatenate([np.cumsum(positive[::-1])[::-1], [0]]))
    support = np.flatnonzero(negative + positive > 0)
    if support.size >= 2:  # edges between the first and the last bin with data
        inside = np.arange(support[0] + 1, support[-1] + 1)
    else:
        inside = np.arange(edges.size)
    best = inside[np.flatnonzero(correct[inside] == correct[inside].max())]
    return float(edges[best[best.size // 2]])


def projection_reach(n_features: int, data_norm: float) -> float:
    """``R = REACH · M/√d``: the threshold histograms bin the projections in ``[-R, R]``.

    A public bound, chosen because rows scaled by public bounds into the
    ball (each feature in ``[-M/√d, M/√d]``) project onto a direction far
    inside ``[-M, M]``: 16 bins of ``[-M, M]`` would hold them in one or two.
    """
    return min(REACH * data_norm / math.sqrt(n_features), data_norm)


def _median(counts, edges) -> float:
    """Where the noisy cumulative count first reaches half of the total, linear
    within its bin (the bin's right edge would bias both medians up)."""
    cumulative = np.cumsum(counts)
    total = cumulative[-1]
    if total <= 0:
        return 0.0
    k = int(np.argmax(cumulative >= total / 2.0))
    before = cumulative[k - 1] if k else 0.0
    share = (total / 2.0 - before) / counts[k] if counts[k] > 0 else 1.0
    return float(edges[k] + min(max(share, 0.0), 1.0) * (edges[k + 1] - edges[k]))
