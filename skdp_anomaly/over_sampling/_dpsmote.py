"""DP-SMOTE: differentially private synthetic minority over-sampling (thesis 004, §3.3)."""

from __future__ import annotations

import math
import numbers
from collections import OrderedDict
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from imblearn.over_sampling.base import BaseOverSampler
from imblearn.utils import check_sampling_strategy, check_target_type
from imblearn.utils._validation import ArraysTransformer
from sklearn.base import _fit_context
from sklearn.preprocessing import label_binarize
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from .._dask import is_dask_collection
from .._warn import warn
from ..privacy import (
    MAX_GEOMETRIC_EPSILON,
    GeometricMechanism,
    PrivacyCost,
    PrivacyCostMixin,
    check_bounds,
    check_epsilon,
    check_random_state,
)
from ._gaussian import (
    BoxScale,
    check_exact_sum_rows,
    chunk_seeds,
    class_fixed_sums,
    fill_gaussian,
    mean_noise_scale,
    release_means,
    unit_fixed_sum,
)
from ._grid import (
    Grid,
    SparseHistogram,
    ball_offsets,
    choose_n_cells,
    choose_threshold,
    dense_true_counts,
    expected_positive_noise,
    expected_spurious_mass,
    release_dense,
    release_sparse,
    sample_synthetic,
)

__all__ = ["DPSMOTE", "DPSMOTENoiseWarning", "SparseHistogram"]

# `histogram="auto"` uses the dense grid up to this many cells: the paper's own
# setting (ν = 0.25, d <= 8) stays exactly Algorithm 6.
_DENSE_AUTO_MAX_CELLS = 1 << 16
# `histogram="dense"` is refused above this many cells (1 GiB of int64 counts)
_DENSE_MAX_CELLS = 1 << 27
# the dense histogram is an array with one axis per feature
_DENSE_MAX_DIMS = 32
# the sparse release warns when it keeps less than this share of the class size
_SPARSE_MIN_MASS_SHARE = 0.5

_NON_NUMERIC = (
    "DPSMOTE supports numeric features only; {what}. Categorical data is out of "
    "scope: encode it numerically (with public bounds) or use a sampler for "
    "categorical data."
)


def _n_cells(granularity: float) -> int:
    # 1/ν cells per feature; the tolerance absorbs float error (1/0.1 -> 10)
    return max(1, math.ceil(1.0 / granularity - 1e-9))


def _n_synthetic(sampling_strategy, classes, counts):
    """Rows to generate per class from (noisy) class sizes, imblearn semantics.

    ``counts`` has shape (n_runs, n_classes) (classes sorted); negative noisy
    sizes count as 0. Returns ``(n_new, targeted)``: int64 array of the same
    shape and a bool mask of the classes the strategy targets (as in
    ``sampling_strategy_``). Post-processing of the counts only. Where exact
    counts would make imblearn raise (a ratio or a dict asking for fewer rows
    than a class has), the noisy version asks for 0 rows instead.
    """
    counts = np.maximum(np.atleast_2d(np.asarray(counts, dtype=np.int64)), 0)
    n_runs, n_classes = counts.shape
    rows = np.arange(n_runs)
    top = counts.max(axis=1, keepdims=True)
    deficit = top - counts
    targeted = np.ones_like(counts, dtype=bool)
    if isinstance(sampling_strategy, str):
        kind = "not majority" if sampling_strategy == "auto" else sampling_strategy
        if kind == "not majority":
            targeted[rows, counts.argmax(axis=1)] = False
        elif kind == "not minority":
            targeted[rows, counts.argmin(axis=1)] = False
        elif kind == "minority":
            targeted[:] = False
            targeted[rows, counts.argmin(axis=1)] = True
        elif kind != "all":
            raise ValueError(f"unknown sampling_strategy {sampling_strategy!r}.")
        n_new = np.where(targeted, deficit, 0)
    elif isinstance(sampling_strategy, numbers.Real):
        if n_classes != 2:
            raise ValueError(
                '"sampling_strategy" can be a float only when the type of target is '
                "binary. For multi-class, use a dict."
            )
        targeted[rows, counts.argmax(axis=1)] = False
        wanted = np.trunc(top * float(sampling_strategy) - counts).astype(np.int64)
        n_new = np.where(targeted, wanted, 0)
    elif isinstance(sampling_strategy, Mapping):
        n_new, targeted = _n_synthetic_dict(sampling_strategy, classes, counts)
    elif callable(sampling_strategy):
        parts = []
        for run in counts:  # a callable needs a label vector: give it a surrogate
            surrogate = np.repeat(np.asarray(classes), run)
            parts.append(_n_synthetic_dict(sampling_strategy(surrogate), classes, run[None]))
        n_new = np.concatenate([p[0] for p in parts])
        targeted = np.concatenate([p[1] for p in parts])
    else:
        raise ValueError(f"unsupported sampling_strategy {sampling_strategy!r}.")
    return np.maximum(n_new, 0), targeted


def _n_synthetic_dict(wanted: Mapping, classes, counts):
    index = {c: i for i, c in enumerate(np.asarray(classes).tolist())}
    unknown = set(wanted) - set(index)
    if unknown:
        raise ValueError(f"The {unknown} target class is/are not present in the data.")
    if any(v < 0 for v in wanted.values()):
        raise ValueError(
            "The number of samples in a class cannot be negative. 'sampling_strategy' "
            f"contains some negative value: {dict(wanted)}"
        )
    target = np.zeros(counts.shape[1], np.int64)
    targeted = np.zeros(counts.shape[1], bool)
    for cls, value in wanted.items():
        target[index[cls]] = int(value)
        targeted[index[cls]] = True
    n_new = np.where(targeted, target - counts, 0)
    return n_new, np.broadcast_to(targeted, counts.shape).copy()


class SynopsisBatch(NamedTuple):
    """``n_runs`` independent phase-1 releases (see :func:`_release_synopsis_batch`)."""

    classes: np.ndarray
    """Class labels, sorted; columns of the two per-class arrays."""
    noisy_class_counts: np.ndarray | None
    """(n_runs, n_classes) DP class sizes, or None with ``class_counts='public'``."""
    n_synthetic: np.ndarray
    """(n_runs, n_classes) synthetic rows each run would generate per class."""
    noisy_counts: np.ndarray
    """(n_runs, n_cells**d · k) dense noisy histograms of the k ``histogram_class`` labels,
    each row-major
    (padded with ``-2**63`` when the runs' grids differ, ``granularity="auto"``)."""
    n_cells: np.ndarray
    """(n_runs,) cells per feature of each run's grid."""
    auto_granularity: bool = False
    """Whether the grid was chosen per run (``granularity="auto"``)."""

    def stacked(self) -> np.ndarray:
        """All released numbers of each run side by side: shape (n_runs, ·), int64.

        Noisy class sizes (if private), synthetic rows per class, the histogram,
        and, with ``granularity="auto"``, ``n_cells`` as the last column.
        """
        parts = [self.n_synthetic, self.noisy_counts]
        if self.noisy_class_counts is not None:
            parts.insert(0, self.noisy_class_counts)
        if self.auto_granularity:
            parts.append(self.n_cells[:, None])
        return np.hstack(parts).astype(np.int64)


class DPSMOTE(PrivacyCostMixin, BaseOverSampler):
    """Differentially private synthetic minority over-sampling (DP-SMOTE).

    Phase 1 releases, for each class to over-sample, a DP synopsis of its
    rows; phase 2 draws the synthetic rows from the synopsis only. The
    default synopsis is the class mean (``synopsis="gaussian"``: d numbers,
    so it keeps its signal in high dimensions); ``synopsis="grid"`` is the
    thesis' noisy grid histogram with SMOTE between noisy cells (thesis 004,
    §3.3, Algorithm 6). The original rows pass through unchanged and the
    synthetic rows are appended, as with :class:`imblearn.over_sampling.SMOTE`.

    Numeric features only: categorical data is out of scope.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget of the synthetic rows: pure ε-DP under
        add/remove-one-record neighbours (``2·epsilon`` under replace-one
        neighbours; see Notes). At most 30 per release (the share of
        ``epsilon`` that one release gets), beyond which geometric noise
        rounds to zero.
    sampling_strategy : float, str, dict or callable, default="auto"
        As in imblearn, but evaluated on the *noisy* class sizes when
        ``class_counts="private"``: a float (binary only) is the wanted ratio
        minority/majority after resampling; "auto" = "not majority",
        "minority", "not minority", "all"; a dict gives the wanted size per
        class; a callable receives a surrogate label vector built from the
        noisy sizes (never the true ``y``) and returns such a dict. Where the
        noisy sizes already meet the request, 0 rows are generated instead of
        imblearn's error.
    bounds : None or (lower, upper), default=None
        Data range, per feature (arrays of length n_features) or for all
        features (scalars). Rows outside are clipped into the edge cells.
        ``None`` computes them from the data with a
        :class:`~skdp_anomaly.privacy.PrivacyLeakWarning` (the guarantee then does
        not hold); they are stored in ``bounds_``.
    synopsis : {"gaussian", "grid"}, default="gaussian"
        What phase 1 releases per over-sampled class. "gaussian": the class
        mean, from a Laplace release of the class sum in the unit box of
        ``bounds`` (L1 sensitivity d); synthetic rows are drawn from
        ``N(mean, spread²)`` per feature and clipped to ``bounds``. "grid":
        the noisy grid histogram of Algorithm 6 (``granularity``,
        ``connectivity`` and ``histogram`` apply to it only). The default was
        chosen on ten public imbalanced sets (see Notes).
    spread : float > 0, default=0.8
        ``synopsis="gaussian"``: the standard deviation of the synthetic rows
        per feature, as a fraction of the feature's half-range
        ``(upper − lower) / 2``, before clipping to the bounds. Public, never
        read from the data. The default was the best of 0.45 to 1.0 on public
        sets (see Notes).
    granularity : float in (0, 1] or "auto", default=0.25
        ν (``synopsis="grid"``): cell width as a fraction of each feature's range; the grid has
        ``ceil(1/ν)`` equal-width cells per feature (paper: 0.25). "auto"
        chooses ``m = 1/ν`` cells per feature (2 to 4) from the DP class size
        so that noise does not swamp the grid (see Notes); recommended unless
        the minority class has tens of thousands of rows.
    connectivity : int >= 0, default=2
        ℓ: the neighbour cell is drawn among cells at most ℓ grid edges away
        (Manhattan distance), the centre cell itself included (paper: 2).
    class_counts : {"private", "public"}, default="private"
        "private": class sizes are estimated with ``count_share * epsilon``
        and the number of synthetic rows derives from these estimates.
        "public": the class sizes are declared public; the exact sizes are
        used (imblearn's semantics and errors exactly) and the whole
        ``epsilon`` goes to the cell histograms. The guarantee then does not
        cover the class sizes.
    count_share : float in (0, 1), default=0.1
        Share of ``epsilon`` spent on the class sizes when
        ``class_counts="private"``.
    histogram : {"auto", "dense", "sparse"}, default="auto"
        "dense" noises every one of the ``ceil(1/ν)**d`` cells (Algorithm 6
        as written, refused above 2**27 cells); "sparse" never materialises
        empty cells and reports noisy counts below a threshold θ as 0 (see
        Notes); "auto" uses "dense" up to 65 536 cells (ν = 0.25, d <= 8;
        the paper's setting) and at most 32 features, "sparse" beyond.
    classes : array-like of shape (n_classes,), default=None
        The public set of class labels (at least 2). When given, every class
        is handled alike whether or not ``y`` contains it (a class with no rows
        gets its noisy size released, and its histogram if it is
        over-sampled), the keys of the fitted attributes depend on
        ``classes`` and DP outputs only, and errors come from parameters only
        (a label of ``y`` outside ``classes`` is refused without being named).
        ``None``: the labels present in ``y`` are used and treated as public
        (see :meth:`privacy_assumptions`): a label carried by a single record
        would reveal its presence. Note that a string ``sampling_strategy``
        such as "auto" then also over-samples a class absent from ``y``, from
        a histogram of pure noise; name the classes to over-sample in a dict
        when some may be absent.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        ``None`` draws from OS entropy (the only safe choice in deployment);
        fixed seeds are for tests and experiments. The noise and the synthetic
        rows come from two independent child streams of it.
    accountant : diffprivlib.accountant.BudgetAccountant, default=None
        Checked for the whole cost before the data are read, and charged each
        part right before its release; ``None`` charges no accountant (pass
        ``BudgetAccountant.load_default(None)`` to share diffprivlib's default
        one). The accountant's ledger is kept under replace-one neighbours
        (the relation of diffprivlib's models that share it), so it is charged
        ``2·epsilon`` per fit (group privacy). Any object with
        ``spend(epsilon, delta)`` (and optionally ``check``) works.

    Attributes
    ----------
    bounds_ : tuple of ndarray
        ``(lower, upper)`` used for the synopsis.
    synopsis_ : {"gaussian", "grid"}
        The synopsis released.
    noisy_means_ : dict
        ``synopsis="gaussian"``: class -> its DP mean (in the units of X,
        inside ``bounds_``), for every class with synthetic rows.
    n_cells_ : int
        ``synopsis="grid"``: cells per feature, ``ceil(1/granularity)`` or
        the "auto" choice.
    granularity_ : float
        ``synopsis="grid"``: the ν used, ``1 / n_cells_``.
    histogram_ : {"dense", "sparse"}
        ``synopsis="grid"``: the representation used.
    noisy_class_counts_ : dict
        Class -> DP class size (only with ``class_counts="private"``), for
        every class of ``classes`` (or of ``y`` when ``classes=None``).
    sampling_strategy_ : dict
        Class -> number of synthetic rows generated, derived from the DP
        class sizes (or from the public ones).
    noisy_counts_ : dict
        ``synopsis="grid"``: class -> its released histogram, for every class
        with synthetic rows:
        an int64 array of shape ``(n_cells_,) * n_features`` (dense) or a
        :class:`~skdp_anomaly.over_sampling.SparseHistogram` ``(cells,
        counts)`` of the cells whose noisy count reached ``threshold``.
    privacy_spent_ : PrivacyCost
        What the last fit spent, under add/remove neighbours.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string feature names.

    See Also
    --------
    imblearn.over_sampling.SMOTE : the non-private algorithm (thesis Alg. 5).

    Notes
    -----
    **Privacy.** Neighbouring datasets differ by adding or removing one
    record (features and label). The synthetic rows, ``sampling_strategy_``,
    ``noisy_class_counts_`` and ``noisy_counts_`` together are pure
    ``epsilon``-DP given public ``bounds`` and a public label set: the
    ``classes`` parameter, or, when it is None, the labels present in ``y``,
    which the guarantee then takes as public schema
    (:meth:`privacy_assumptions`; the budget validator lists it):

    * the class sizes are one histogram over disjoint classes, so one
      geometric release with ``ε_c = count_share·ε`` (sensitivity 1);
    * each over-sampled class's synopsis is released with
      ``ε_h = (1 − count_share)·ε``; classes are disjoint record sets, so the
      per-class releases compose in parallel (ε_h in total). The Gaussian
      synopsis releases the class sum of the rows mapped to the unit box
      ``[-1, 1]^d`` of ``bounds`` (a row moves it by at most d in L1) with
      Laplace noise of scale ``d/ε_h`` per coordinate; the grid synopsis
      releases cell counts with geometric noise (sensitivity 1);
    * everything else is post-processing (the mean is the noisy sum divided
      by the DP class size, clipped to the box); total ``ε_c + ε_h = ε``.

    Under replace-one neighbours (datasets of equal size differing in one
    record) a replacement is a removal and an addition, so the same release
    is ``2·epsilon``-DP (group privacy); moving a record between two classes
    changes two class sizes and two histograms, so the factor 2 is attained
    (audited in ``benchmarks/bench_dpsmote_audit.py``). The budget
    validator applies this conversion when it adds DPSMOTE to diffprivlib
    models, which hold under replace-one neighbours.

    This corrects Theorem 3.1 as written: Algorithm 6 outputs
    ``α·n0 − n1`` rows computed from the exact class sizes, which reveals them
    under add/remove-one neighbours. ``class_counts="public"`` restores the
    paper's behaviour for users whose class sizes are public. Noise is
    two-sided geometric (integer counts) instead of the paper's Laplace.

    The returned dataset also contains the original rows, so it is *not* DP:
    a DP model trained on it with ``ε₁`` costs ``ε₁ + ε₂`` in total with
    ``ε₂ = epsilon`` (Theorem 3.3, sequential composition over the same
    records), which the budget validator adds up.
    Non-private SMOTE instead inflates the downstream model's sensitivity
    (Theorem 3.2).

    **Why the Gaussian synopsis is the default.** A grid of ``m^d`` cells
    spreads a minority class of tens or hundreds of rows over more cells than
    it has rows once d exceeds a handful, and the noise of every cell then
    swamps it (the grid warnings below fire in most fits at d ≥ 10). The
    mean needs d numbers, each with noise of scale ``d/(ε_h n)`` half-ranges.
    For a linear classifier trained on the output, the class means carry
    most of what matters, and the synthetic rows also enlarge the training
    set, which lowers the noise of an objective-perturbation classifier such
    as diffprivlib's. On 14 public imbalanced sets (d from 7 to 212; 2×5-fold
    CV, features scaled to [−1, 1]; benchmarks/bench_dpsmote_baselines.py)
    with diffprivlib's LogisticRegression after it, at the same total ε, the
    Gaussian synopsis gave a higher mean ROC-AUC than the grid (ν = 0.25) at
    every ε from 0.5 to 10 (by 0.01 to 0.05) and a higher mean G-mean at
    ε ≥ 2 (by 0.03 to 0.13); at ε ≤ 1 the grid's G-mean was higher by 0.01
    to 0.02, within the standard error. ``spread`` 0.8 beat 0.45 and 0.6 by
    0.01 to 0.03 in G-mean at every total ε from 0.5 to 5 (paired over the
    sets; level at ε = 10), and 1.0 by as much at ε = 10 where 1.0 was
    ahead at small ε: wide synthetic rows mostly move the decision threshold
    and the intercept towards the minority, with the DP mean giving the
    direction; narrow ones bend the boundary towards a noisy mean. On the
    1 617 features of hiva the grid cannot be used at all (its connectivity
    ball is too large).

    **Exact sums and chunked draws.** The class sums are computed in fixed
    point (each unit-box coordinate rounded to a multiple of ``2^-32``,
    summed as int64; a row's contribution stays in ``[-1, 1]^d``, so the
    sensitivity is unchanged; exact for up to ``2^30`` rows per fit, which is
    checked on the rows passed before anything is released) and the synthetic rows are drawn in chunks of
    65 536 rows from generators spawned in order from the sampling stream.
    Both make the result independent of how the data are split into blocks:
    ``fit_resample`` on dask collections returns the same rows, bit for bit
    (see the user guide's Dask page).

    **Phase 2 of the grid** (Algorithm 6, post-processing): a centre cell is drawn with
    probability ∝ its noisy count (negative counts count as 0), a neighbour
    among the ℓ-connected cells (Definition 3.2; the centre itself is at
    distance 0 and counts, so ``connectivity=0`` samples noisy cell centres)
    with probability ∝ its noisy count, and ``z_j = q_ij + u_j (q_kj − q_ij)``
    with one uniform ``u_j`` per coordinate, as Algorithm 6 writes it. If no
    cell has a positive noisy count, cells are drawn uniformly.

    **Sparse histogram** (grid). The dense grid has ``(1/ν)^d`` cells. The sparse
    release gives exactly the distribution of "noise every cell, then zero the
    cells below θ": non-empty cells are noised and filtered; the number of
    empty cells passing θ is drawn from a binomial and they are placed at
    distinct uniform empty cells with values from the noise conditioned on
    ``Z >= θ`` (Cormode, Procopiuc, Srivastava, Tran, ICDT 2012), so the
    release stays pure ε-DP. Only when the number of empty cells exceeds
    int64 (``n_cells**d > 2**63``) is the binomial replaced by the Poisson of
    the same mean, at total-variation distance ``<= p = P(Z >= θ)``
    (Barbour–Hall; below 1e-10 for classes of up to 10^9 rows there), which
    we neglect. θ is the smallest integer >= 1 for which
    the expected spurious mass of empty cells is at most a tenth of the DP
    (or public) class size; it depends on DP outputs only. Thresholding also
    removes most of the noise mass a dense grid spreads over empty cells
    (at d = 8 the 65 536 dense cells carry ~0.5 noise unit each at ε = 1).

    **granularity="auto"** (grid). A dense grid of ``M = m^d`` cells lifts every
    empty cell by noise: the expected positive noise mass is
    ``M·a/((1+a)(1−a))``, ``a = exp(−ε_h)`` (≈ 0.49 per cell at ε_h = 0.9,
    so ≈ 3.2·10⁴ for the paper's ν = 0.25 at d = 8, against a few hundred
    minority rows in the thesis's experiments). "auto" takes the largest
    integer ``2 <= m <= 4`` (never finer than the paper's ν = 0.25) whose
    expected positive noise mass is at most the size of the *smallest
    over-sampled class*, so that in expectation at least half of the positive
    mass phase 2 samples from is real; ``m = 2`` when none qualifies. The
    floor is 2, not 1, because a single cell collapses phase 2 to one point
    (the centre of the bounds), which did worse than a noise-dominated 2-cell
    grid in every case we measured (docs/dpsmote.md). The class size used is
    the DP estimate ``noisy_class_counts_`` (the exact size only with
    ``class_counts="public"``, where it is public), and the rule reads
    nothing else but ``ε_h = (1 − count_share)·epsilon`` and ``d``: the grid is
    post-processing of the class-size release, so the total privacy cost is
    unchanged (``epsilon``). One grid serves all classes; larger classes only
    get a smaller noise share. The same bound holds for the sparse release
    (thresholding only removes noise mass). For example at ε = 1 and d = 8:
    ``m = 2`` up to ~3 200 rows (below ~125 rows even that grid is
    noise-dominated, and a warning says so), ``m = 3`` up to ~32 000,
    ``m = 4`` beyond. At d = 30, ``m = 2`` (2³⁰ cells, sparse release): with
    fewer than millions of rows almost no real cell reaches θ, the released
    cells are spurious, and the sparse warning below says so.

    **Warnings** (:class:`DPSMOTENoiseWarning`, built from DP outputs and
    parameters only): when the DP mean's noise scale ``d/(ε_h n)`` exceeds
    0.5 half-ranges (Gaussian synopsis), when a dense grid's expected positive noise mass exceeds
    the (noisy or public) class size, and when a sparse release keeps a total
    count below half of it (typically a few spurious cells: the synthetic
    rows then carry no signal), besides the uniform fallback when no cell is
    positive.

    :meth:`fit` performs the same release (and spends the same budget) as
    :meth:`fit_resample`; imblearn's ``fit`` would compute
    ``sampling_strategy_`` from the exact class sizes.

    Choices where the paper is unclear: ``ceil(1/ν)`` cells when ``1/ν`` is
    not an integer; the last cell of each feature is closed (Section 3.3's
    grid); the cell itself is ℓ-connected; synthetic rows are appended
    grouped by centre cell.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from skdp_anomaly.over_sampling import DPSMOTE
    >>> X, y = make_classification(n_samples=2000, n_features=4, weights=[0.9],
    ...                            random_state=0)
    >>> sampler = DPSMOTE(epsilon=1.0, bounds=(-6, 6), random_state=0)
    >>> X_res, y_res = sampler.fit_resample(X, y)
    >>> sampler.synopsis_, sampler.noisy_means_[1].shape, sampler.privacy_spent_.epsilon
    ('gaussian', (4,), 1.0)
    >>> grid = DPSMOTE(epsilon=1.0, bounds=(-6, 6), synopsis="grid", random_state=0)
    >>> X_grid, y_grid = grid.fit_resample(X, y)
    >>> grid.histogram_, grid.n_cells_
    ('dense', 4)
    >>> auto = DPSMOTE(epsilon=1.0, bounds=(-6, 6), synopsis="grid", granularity="auto",
    ...                random_state=0)
    >>> X_auto, y_auto = auto.fit_resample(X, y)
    >>> auto.n_cells_, auto.granularity_                # from the noisy minority size
    (4, 0.25)
    >>> n_new = sampler.sampling_strategy_[1]          # from the noisy class sizes
    >>> X_res.shape[0] == X.shape[0] + n_new
    True
    """

    _parameter_constraints: dict = {
        **BaseOverSampler._parameter_constraints,
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither")],
        "bounds": ["array-like", None],
        "synopsis": [StrOptions({"gaussian", "grid"})],
        "spread": [Interval(numbers.Real, 0, np.inf, closed="neither")],  # finite
        "granularity": [Interval(numbers.Real, 0, 1, closed="right"), StrOptions({"auto"})],
        "connectivity": [Interval(numbers.Integral, 0, None, closed="left")],
        "class_counts": [StrOptions({"private", "public"})],
        "count_share": [Interval(numbers.Real, 0, 1, closed="neither")],
        "histogram": [StrOptions({"auto", "dense", "sparse"})],
        "classes": ["array-like", None],
        "random_state": [
            None,
            Interval(numbers.Integral, 0, None, closed="left"),
            np.random.RandomState,
            np.random.Generator,
        ],
        "accountant": [None, HasMethods(["spend"])],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        sampling_strategy="auto",
        bounds=None,
        synopsis="gaussian",
        spread=0.8,
        granularity=0.25,
        connectivity=2,
        class_counts="private",
        count_share=0.1,
        histogram="auto",
        classes=None,
        random_state=None,
        accountant=None,
    ):
        super().__init__(sampling_strategy=sampling_strategy)
        self.epsilon = epsilon
        self.bounds = bounds
        self.synopsis = synopsis
        self.spread = spread
        self.granularity = granularity
        self.connectivity = connectivity
        self.class_counts = class_counts
        self.count_share = count_share
        self.histogram = histogram
        self.classes = classes
        self.random_state = random_state
        self.accountant = accountant

    # -- privacy protocol ---------------------------------------------------
    def _budget_split(self):
        """(ε for class sizes, ε for cell histograms)."""
        epsilon = check_epsilon(self.epsilon)
        if self.class_counts == "public":
            split = 0.0, epsilon
        else:
            share = float(self.count_share)
            if not 0 < share < 1:
                raise ValueError(f"count_share must be in (0, 1), got {self.count_share!r}.")
            split = share * epsilon, (1.0 - share) * epsilon
        if max(split) > MAX_GEOMETRIC_EPSILON:
            raise ValueError(
                f"DPSMOTE: epsilon={self.epsilon!r} puts ε={max(split):.4g} on one release, above "
                f"{MAX_GEOMETRIC_EPSILON:g}, where geometric noise rounds to zero in double "
                "precision and exact counts would be released; use a smaller epsilon."
            )
        return split

    def privacy_cost(self) -> PrivacyCost:
        """Pure ε-DP under add/remove-one-record neighbours, ``ε = epsilon``.

        Covers the synthetic rows and every fitted attribute; the original
        rows in the output are not covered (Theorem 3.3). Under replace-one
        neighbours the same release costs ``2·epsilon`` (group privacy), which
        :meth:`PrivacyCost.under` and the budget validator apply.

        Examples
        --------
        >>> from skdp_anomaly.over_sampling import DPSMOTE
        >>> cost = DPSMOTE(epsilon=1.0).privacy_cost()
        >>> cost.epsilon, cost.neighbours, cost.under("replace").epsilon
        (1.0, 'add_remove', 2.0)
        """
        eps_counts, eps_hist = self._budget_split()
        what = ("per-class sums (Gaussian synopsis)" if self.synopsis == "gaussian"
                else "per-class cell histograms")
        if self.class_counts == "public":
            note = (f"DPSMOTE: ε={eps_hist:g} on the {what}; class sizes declared "
                    "public (class_counts='public')")
        else:
            note = (f"DPSMOTE: ε={eps_counts:g} on the class sizes + ε={eps_hist:g} on the "
                    f"{what} (parallel over classes)")
        return PrivacyCost.pure(
            check_epsilon(self.epsilon), note,
            "DPSMOTE output includes the original rows: a model trained on it composes "
            "sequentially with DPSMOTE (Lut 2022, Theorem 3.3)",
            neighbours="add_remove",
        )

    def privacy_assumptions(self) -> tuple:
        """What :meth:`privacy_cost` takes as public without protecting it.

        * ``classes=None``: the set of class labels is read from ``y`` and
          treated as public schema (a label carried by one record reveals
          that record's presence otherwise);
        * ``class_counts="public"``: the exact class sizes are declared
          public, so they are used as they are and not protected.

        Examples
        --------
        >>> from skdp_anomaly.over_sampling import DPSMOTE
        >>> DPSMOTE(classes=[0, 1]).privacy_assumptions()
        ()
        >>> len(DPSMOTE(class_counts="public").privacy_assumptions())
        2
        """
        out = []
        if self.classes is None:
            out.append("DPSMOTE(classes=None): the set of class labels is read from y and "
                       "treated as public; pass classes=[...] to fix it in advance")
        if self.class_counts == "public":
            out.append("DPSMOTE(class_counts='public'): the exact class sizes are declared "
                       "public and are not protected")
        return tuple(out)

    # -- input checks -------------------------------------------------------
    def _check_X_y(self, X, y, accept_sparse=None):
        dtypes = getattr(X, "dtypes", None)
        if dtypes is not None and hasattr(dtypes, "__iter__"):
            bad = [str(col) for col, dt in zip(X.columns, dtypes)
                   if not (getattr(dt, "kind", "O") in "biuf")]
            if bad:
                raise ValueError(_NON_NUMERIC.format(what=f"non-numeric columns {bad[:5]}"))
        elif not hasattr(X, "toarray"):
            kind = getattr(np.asarray(X), "dtype", np.dtype(float)).kind
            if kind in "OUSV":
                try:
                    np.asarray(X, dtype=np.float64)
                except ValueError:  # unparsable strings: their text is data, keep it out
                    raise ValueError(_NON_NUMERIC.format(what="X has non-numeric values")) from None
                except TypeError as exc:  # numpy names only the offending type
                    raise TypeError(
                        _NON_NUMERIC.format(what=f"X has non-numeric values ({exc})")
                    ) from None
            if kind in "USV":
                raise ValueError(_NON_NUMERIC.format(what="X is an array of strings"))
        if _integer_labels(y):  # type_of_target's sort of y is not needed for these
            binarize_y = False
        else:
            y, binarize_y = check_target_type(y, indicate_one_vs_all=True)
        X, y = validate_data(self, X=X, y=y, reset=True, accept_sparse=False,
                             dtype=[np.float64, np.float32])
        return X, y, binarize_y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags

    def _more_tags(self):  # pragma: no cover - imblearn < 0.13 / old sklearn
        return {"X_types": ["2darray", "dataframe"]}

    # -- fitting --------------------------------------------------------------
    def fit(self, X, y, **params):
        """Run the private release as :meth:`fit_resample` does and discard the rows.

        Spends the same budget as :meth:`fit_resample`; prefer that method.

        Returns
        -------
        self : object
        """
        self.fit_resample(X, y, **params)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_resample(self, X, y, **params):
        """Resample the dataset: the original rows plus DP synthetic rows.

        The accountant is checked for the whole ``epsilon`` before the data
        are read, and charged each part right before its release: a refused
        fit (:class:`diffprivlib.utils.BudgetError`) computes nothing and
        leaves the sampler unfitted.

        Dask arrays, or a dask DataFrame and Series, are read in one
        blockwise pass (class sizes and exact class sums, added on the
        client); the noise is added once on the client and dask collections
        are returned, whose synthetic rows are drawn on the workers. Same
        data and ``random_state``: the same rows as in memory, bit for bit
        (Gaussian synopsis only).

        Parameters
        ----------
        X : {array-like, dataframe, dask array, dask dataframe} of shape (n_samples, n_features)
            Numeric features.
        y : {array-like, dask array, dask series} of shape (n_samples,)
            Class labels (in ``classes`` when that is given).

        Returns
        -------
        X_resampled : {ndarray, dataframe, dask array, dask dataframe} of shape (n_samples_new, n_features)
        y_resampled : {ndarray, series, dask array, dask series} of shape (n_samples_new,)
        """
        # Same template as imblearn's SamplerMixin.fit_resample, except that
        # sampling_strategy_ is never computed from the exact class sizes
        # unless they are declared public: imblearn's check (and its error
        # messages) would read them.
        self._start_private_fit(self.privacy_cost())
        self._warn_ignored_params()
        classes = self._check_classes()
        if is_dask_collection(X) or is_dask_collection(y):
            from ._dask_resample import fit_resample_dask

            return fit_resample_dask(self, X, y, classes)
        if not _integer_labels(y):  # 1-D integer labels are always binary or multiclass
            check_classification_targets(y)
        arrays_transformer = ArraysTransformer(X, y)
        X, y, binarize_y = self._check_X_y(X, y)
        classes, y_codes = _encode_labels(y, classes)
        public_strategy = None
        if self.class_counts == "public" and self.classes is None:
            strategy = check_sampling_strategy(self.sampling_strategy, y, self._sampling_type)
            public_strategy = OrderedDict(
                (getattr(c, "item", lambda c=c: c)(), int(n)) for c, n in strategy.items()
            )
        X_res, y_res = self._fit_resample(X, y, classes=classes, y_codes=y_codes,
                                          public_strategy=public_strategy)
        if binarize_y:
            y_res = label_binarize(y_res, classes=classes)
        return arrays_transformer.transform(X_res, y_res)

    #: parameters that only one synopsis reads, with their defaults
    _SYNOPSIS_PARAMS = {"grid": {"granularity": 0.25, "connectivity": 2, "histogram": "auto"},
                        "gaussian": {"spread": 0.8}}

    def _warn_ignored_params(self):
        """Warn when a parameter of the other synopsis is set: it has no effect."""
        other = "grid" if self.synopsis == "gaussian" else "gaussian"
        changed = [name for name, default in self._SYNOPSIS_PARAMS[other].items()
                   if getattr(self, name) != default]
        if changed:
            verb = "applies" if len(changed) == 1 else "apply"
            warn(f"DPSMOTE: {', '.join(changed)} {verb} only to synopsis={other!r}, so "
                 f"ignored with synopsis={self.synopsis!r}.", UserWarning)

    def _check_classes(self):
        """The public label set (sorted), or None; checked against the strategy.

        Only parameters are read, so every error here is data-independent.
        """
        if self.classes is None:
            return None
        classes = np.asarray(self.classes)
        if classes.ndim != 1 or classes.size < 2:
            raise ValueError(
                "The 'classes' parameter must be a 1-D array-like of at least 2 class labels; "
                f"got {self.classes!r}."
            )
        unique = np.unique(classes)
        if unique.size != classes.size:
            raise ValueError(f"The 'classes' parameter has repeated labels: {self.classes!r}.")
        strategy = self.sampling_strategy
        if isinstance(strategy, numbers.Real) and not isinstance(strategy, bool):
            if unique.size != 2:
                raise ValueError(
                    "sampling_strategy can be a float only for a binary target; 'classes' "
                    f"lists {unique.size} labels. Use a dict."
                )
        elif isinstance(strategy, Mapping):
            unknown = [c for c in strategy if c not in set(unique.tolist())]
            if unknown:
                raise ValueError(
                    f"sampling_strategy names labels {unknown!r} that are not in 'classes'."
                )
        return unique

    def _prepare(self, X, y_codes, n_classes):
        """Parameters and private intermediates shared by fit and the batch release."""
        eps_counts, eps_hist = self._budget_split()
        lower, upper = check_bounds(self.bounds, X, n_features=X.shape[1])
        if self.histogram == "dense" and X.shape[1] > _DENSE_MAX_DIMS:
            raise ValueError(
                f"histogram='dense' supports at most {_DENSE_MAX_DIMS} features (numpy array "
                f"dimensions), got {X.shape[1]}; use histogram='sparse' or 'auto'."
            )
        true_sizes = np.bincount(y_codes, minlength=n_classes)  # private, never stored
        return true_sizes, eps_counts, eps_hist, (lower, upper)

    def _grid(self, bounds, eps_hist, class_size=None):
        """The grid and histogram kind; ``class_size`` (DP or public) drives ``"auto"``."""
        lower, upper = bounds
        d = lower.shape[0]
        if isinstance(self.granularity, str):  # "auto": post-processing of class_size
            cap = _DENSE_MAX_CELLS if self.histogram == "dense" else None
            n_cells = choose_n_cells(class_size, eps_hist, d, max_total_cells=cap)
        else:
            n_cells = _n_cells(self.granularity)
        grid = Grid(lower, upper, n_cells)
        if self.histogram == "dense" and grid.size > _DENSE_MAX_CELLS:
            raise ValueError(
                f"histogram='dense' needs {grid.n_cells}**{grid.n_features} cells (limit "
                f"{_DENSE_MAX_CELLS}); use histogram='sparse' or 'auto', or a larger granularity."
            )
        kind = self.histogram
        if kind == "auto":
            small = grid.size <= _DENSE_AUTO_MAX_CELLS and grid.n_features <= _DENSE_MAX_DIMS
            kind = "dense" if small else "sparse"
        return grid, kind

    def _fit_resample(self, X, y, *, classes, y_codes, public_strategy=None):
        if self.synopsis == "gaussian":
            check_exact_sum_rows(X.shape[0])  # before any release
        true_sizes, eps_counts, eps_hist, bounds = self._prepare(X, y_codes, classes.size)
        self.bounds_ = bounds
        if self.synopsis == "gaussian":
            box = BoxScale(*bounds)
            plan, n_new, over_sampled = self._release_gaussian_plan(
                classes, true_sizes, box, X.shape[1],
                lambda wanted: class_fixed_sums(X, y_codes, classes.size, wanted, box)[0],
                public_strategy)
            X_res, y_res = _write_gaussian(X, y, plan, float(self.spread), box)
        else:
            # the noise has a stream of its own: the raw uniforms of phase 2 end up in
            # the released rows and must not expose the stream that hid the counts
            noise_rng, sample_rng = check_random_state(self.random_state).spawn(2)
            n_new, class_sizes = self._release_sizes(classes, true_sizes, eps_counts, noise_rng,
                                                     public_strategy)
            over_sampled = np.flatnonzero(n_new > 0)
            self.synopsis_ = self.synopsis
            parts = self._release_grid(X, y, classes, y_codes, bounds, eps_hist, class_sizes,
                                       n_new, over_sampled, noise_rng, sample_rng)
            X_res, y_res = np.concatenate([X] + parts[0]), np.concatenate([y] + parts[1])
        self._finish_fit(n_new, over_sampled)
        return X_res, y_res

    def _release_gaussian_plan(self, classes, true_sizes, box, n_features, class_sums,
                               public_strategy=None):
        """Everything the Gaussian synopsis releases, from the private class statistics.

        ``class_sums(wanted)`` returns the exact fixed-point unit-box sums
        (:func:`class_fixed_sums`) of the classes ``wanted``. The in-memory and
        the Dask paths both call this, so they draw the same noise in the same
        order. Returns ``(plan, n_new, over_sampled)``.
        """
        # the noise has a stream of its own: the raw normals of phase 2 end up in
        # the released rows and must not expose the stream that hid the sums
        noise_rng, sample_rng = check_random_state(self.random_state).spawn(2)
        eps_counts, eps_hist = self._budget_split()
        n_new, class_sizes = self._release_sizes(classes, true_sizes, eps_counts, noise_rng,
                                                 public_strategy)
        over_sampled = np.flatnonzero(n_new > 0)
        self.synopsis_ = self.synopsis
        sums = class_sums(over_sampled)  # private
        plan = self._release_gaussian(classes, box, eps_hist, class_sizes, n_new, over_sampled,
                                      noise_rng, sample_rng, n_features, lambda j: sums[j])
        return plan, n_new, over_sampled

    def _release_sizes(self, classes, true_sizes, eps_counts, noise_rng, public_strategy=None):
        """The DP (or declared public) class sizes and the synthetic rows per class.

        Returns ``(n_new, class_sizes)``; sets ``noisy_class_counts_`` and
        ``sampling_strategy_``. ``true_sizes`` are private and never stored.
        ``public_strategy``: imblearn's sampling strategy from the exact sizes
        (``class_counts="public"`` without ``classes``), used as it is.
        """
        if self.class_counts == "private":
            self._charge(PrivacyCost.pure(eps_counts, neighbours="add_remove"))
            noisy_sizes = GeometricMechanism(eps_counts).randomise(true_sizes, noise_rng)
            self.noisy_class_counts_ = dict(zip(classes.tolist(), noisy_sizes.tolist()))
            n_new, targeted = _n_synthetic(self.sampling_strategy, classes, noisy_sizes)
            self.sampling_strategy_ = OrderedDict(
                (c, int(n)) for c, n, t in zip(classes.tolist(), n_new[0], targeted[0]) if t
            )
            return n_new[0], np.maximum(noisy_sizes, 1)
        if public_strategy is None:  # public sizes over the public label set
            n_new, targeted = _n_synthetic(self.sampling_strategy, classes, true_sizes)
            self.sampling_strategy_ = OrderedDict(
                (c, int(n)) for c, n, t in zip(classes.tolist(), n_new[0], targeted[0]) if t
            )
            n_new = n_new[0]
        else:
            index = {c: i for i, c in enumerate(classes.tolist())}
            n_new = np.zeros(classes.size, np.int64)
            self.sampling_strategy_ = public_strategy
            for c, n in public_strategy.items():
                n_new[index[c]] = n
        return n_new, np.maximum(true_sizes, 1)  # public by the user's declaration

    def _finish_fit(self, n_new, over_sampled):
        eps_counts = self._budget_split()[0]
        if n_new.sum() == 0:
            warn(
                "DPSMOTE generated no synthetic rows: the (noisy) class sizes already meet "
                "sampling_strategy.", UserWarning,
            )
        cost = self.privacy_cost()
        self.privacy_spent_ = (cost if over_sampled.size
                               else PrivacyCost.pure(eps_counts, *cost.notes, neighbours="add_remove"))

    def _release_gaussian(self, classes, box, eps_hist, class_sizes, n_new, over_sampled,
                          noise_rng, sample_rng, n_features, fixed_sum):
        """Phase 1 of the Gaussian synopsis: a DP mean per over-sampled class.

        ``fixed_sum(j)`` is class ``j``'s exact unit-box sum
        (:func:`unit_fixed_sum`, private). Sets ``noisy_means_``; returns the
        plan of phase 2, one ``(label, mean in the unit box, chunk seeds,
        rows)`` per over-sampled class, which the in-memory and the Dask
        paths both draw from (:func:`fill_gaussian`).
        """
        labels = classes.tolist()
        self.noisy_means_ = {}
        if over_sampled.size:
            self._charge(PrivacyCost.pure(eps_hist, neighbours="add_remove"))
        plan = []
        for j in over_sampled:
            _warn_mean_noise(n_features, eps_hist, class_sizes[j], labels[j], self.class_counts)
            mean = release_means(fixed_sum(j), class_sizes[j], eps_hist,
                                 noise_rng)
            self.noisy_means_[labels[j]] = box.from_unit(mean)
            plan.append((classes[j], mean, chunk_seeds(sample_rng, int(n_new[j])),
                         int(n_new[j])))
        return plan

    def _release_grid(self, X, y, classes, y_codes, bounds, eps_hist, class_sizes, n_new,
                      over_sampled, noise_rng, sample_rng):
        """Phase 1 and 2 of Algorithm 6: a noisy grid histogram per over-sampled class."""
        grid, kind = self._grid(bounds, eps_hist, _auto_class_size(class_sizes, n_new)[0])
        self.n_cells_ = grid.n_cells
        self.granularity_ = 1.0 / grid.n_cells
        self.histogram_ = kind

        labels = classes.tolist()
        offsets = None
        self.noisy_counts_ = {}
        X_parts, y_parts = [], []
        if over_sampled.size:
            self._charge(PrivacyCost.pure(eps_hist, neighbours="add_remove"))
        for j in over_sampled:
            coords = grid.coordinates(X[y_codes == j])
            if kind == "dense":
                _warn_dense_noise(grid, eps_hist, class_sizes[j], labels[j], self.class_counts,
                                  isinstance(self.granularity, str))
                hist = release_dense(dense_true_counts(grid, coords), eps_hist, noise_rng)
                hist = hist.reshape((grid.n_cells,) * grid.n_features)
            else:
                theta = choose_threshold(grid.size, eps_hist, class_sizes[j])
                hist = release_sparse(grid, coords, eps_hist, theta, noise_rng)
            self.noisy_counts_[labels[j]] = hist
            if not np.any((hist.counts if kind == "sparse" else hist) > 0):
                warn(
                    f"DPSMOTE: no cell of the noisy histogram of class {labels[j]!r} is "
                    "positive; its synthetic rows are drawn uniformly over the bounds. "
                    "Use a larger epsilon, granularity='auto' or a larger granularity.",
                    DPSMOTENoiseWarning,
                )
            elif kind == "sparse":
                _warn_sparse_mass(grid, eps_hist, hist, class_sizes[j], labels[j],
                                  self.class_counts, isinstance(self.granularity, str))
            if offsets is None:
                offsets = ball_offsets(grid.n_features, self.connectivity, grid.n_cells)
            Z = sample_synthetic(grid, hist, int(n_new[j]), self.connectivity, sample_rng,
                                 offsets)
            X_parts.append(Z.astype(X.dtype, copy=False))
            y_parts.append(np.full(len(Z), classes[j], dtype=y.dtype))
        return X_parts, y_parts


def _write_gaussian(X, y, plan, spread: float, box: BoxScale):
    """The resampled set, filled in place: the original rows, then each plan's rows."""
    n = X.shape[0]
    total = n + sum(rows for *_, rows in plan)
    X_res = np.empty((total, X.shape[1]), dtype=X.dtype)
    y_res = np.empty(total, dtype=y.dtype)
    X_res[:n], y_res[:n] = X, y
    start = n
    for label, mean, seeds, rows in plan:
        fill_gaussian(mean, spread, box, seeds, X_res[start:start + rows])
        y_res[start:start + rows] = label
        start += rows
    return X_res, y_res


def _encode_labels(y, classes):
    """``(classes, codes)``: the public label set and each row's index in it, or
    (``classes=None``) the labels present in ``y``."""
    if classes is None:
        classes, codes = _unique_codes(y)
        if classes.size <= 1:
            raise ValueError(
                f"The target 'y' needs to have more than 1 class. Got {classes.size} class "
                "instead. Pass the public label set as 'classes' to fit when a class may be "
                "absent."
            )
        return classes, codes
    try:
        codes = np.searchsorted(classes, y)
        known = classes[np.minimum(codes, classes.size - 1)] == y
    except (TypeError, ValueError):  # labels of another type than `classes`
        known = np.zeros(1, bool)
    if not np.all(known):
        raise ValueError(
            "y contains at least one label that is not in the 'classes' parameter (the labels "
            "are not listed here, to keep them out of logs)."
        )
    return classes, codes


def _integer_labels(y) -> bool:
    """True for a 1-D numpy array of integers: binary or multiclass, nothing to infer."""
    return isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "iu"


# integer labels spanning at most this many values are encoded by a table, in O(n)
_TABLE_LABEL_SPAN = 1 << 16


def _unique_codes(y):
    """``np.unique(y, return_inverse=True)``, in one O(n) pass for small integer labels."""
    y = np.asarray(y)
    if y.dtype.kind in "iu" and y.size:
        low, high = int(y.min()), int(y.max())
        if high - low < _TABLE_LABEL_SPAN:
            offset = y - low if low else y
            present = np.bincount(offset, minlength=high - low + 1) > 0
            table = np.cumsum(present) - 1
            classes = (np.flatnonzero(present) + low).astype(y.dtype)
            return classes, table[offset]
    classes, codes = np.unique(y, return_inverse=True)
    return classes, codes.reshape(-1)


class DPSMOTENoiseWarning(UserWarning):
    """The released synopsis (mean or histogram) is dominated by noise.

    The message holds DP outputs and parameters only.
    """


def _auto_class_size(class_sizes, n_new):
    """Size driving ``granularity="auto"``: the smallest over-sampled class, per run.

    ``class_sizes`` and ``n_new`` have shape (n_classes,) or (n_runs, n_classes)
    and must be DP outputs (or public). When no class is over-sampled, the
    smallest class (the grid is then unused).
    """
    sizes = np.atleast_2d(np.asarray(class_sizes, dtype=np.float64))
    n_new = np.atleast_2d(n_new)
    over = np.where(n_new > 0, sizes, np.inf).min(axis=1)
    return np.where(np.isfinite(over), over, sizes.min(axis=1))


def _who(label, class_counts) -> str:
    kind = "noisy" if class_counts == "private" else "public"
    return f"the {kind} size of class {label!r}"


#: the DP mean's Laplace scale per coordinate (in half-ranges of the bounds) above
#: which the Gaussian synopsis warns: noise of a quarter of the range or more
_MEAN_NOISE_WARN = 0.5


def _warn_mean_noise(d, eps_hist, class_size, label, class_counts):
    """Warn when the DP mean's noise is a large share of the bounds."""
    scale = mean_noise_scale(d, eps_hist, class_size)
    if scale > _MEAN_NOISE_WARN:
        warn(
            f"DPSMOTE: the noisy mean of class {label!r} has Laplace noise of scale "
            f"{scale:.3g} half-ranges per feature (d={d}, epsilon_hist={eps_hist:.3g}, "
            f"{_who(label, class_counts)} {int(class_size)}): the synthetic rows are centred "
            "far from the class. Use a larger epsilon or fewer features.",
            DPSMOTENoiseWarning,
        )


def _warn_dense_noise(grid, eps_hist, class_size, label, class_counts, auto):
    """Warn when the dense grid's expected positive noise mass exceeds the class size."""
    mass = grid.size * expected_positive_noise(eps_hist)
    if mass > class_size:
        advice = ("granularity='auto' uses at least 2 cells per feature; only a larger epsilon "
                  "or fewer features help" if auto
                  else "Use granularity='auto' or a larger granularity")
        warn(
            f"DPSMOTE: the dense grid has {grid.size} cells ({grid.n_cells} per feature); at "
            f"epsilon_hist={eps_hist:.3g} their expected positive noise mass is about {mass:.3g}, "
            f"above {_who(label, class_counts)} ({int(class_size)}): most synthetic rows will "
            f"come from empty cells lifted by noise. {advice}.",
            DPSMOTENoiseWarning,
        )


def _warn_sparse_mass(grid, eps_hist, hist, class_size, label, class_counts, auto):
    """Warn when the sparse release keeps far less mass than the class size."""
    released = int(np.maximum(hist.counts, 0).sum())
    if released < _SPARSE_MIN_MASS_SHARE * class_size:
        spurious = expected_spurious_mass(grid.size, eps_hist, hist.threshold)
        advice = ("A grid histogram cannot carry this class at this size: use a larger "
                  "epsilon or fewer features" if auto
                  else "Use granularity='auto', a larger granularity or a larger epsilon")
        warn(
            f"DPSMOTE: the sparse histogram of class {label!r} released {len(hist.counts)} "
            f"cells of total count {released} (threshold {hist.threshold}; about "
            f"{min(spurious, released):.3g} of it expected from empty cells), far below "
            f"{_who(label, class_counts)} ({int(class_size)}): the synthetic rows come from "
            f"few, possibly spurious cells. {advice}.", DPSMOTENoiseWarning,
        )


def _class_codes(classes, wanted, name: str) -> list:
    """Indices in ``classes`` of a label or a list of labels named by the caller."""
    wanted = wanted if isinstance(wanted, (list, tuple)) else [wanted]
    codes = []
    for label in wanted:
        hits = np.flatnonzero(classes == label)
        if hits.size == 0:
            raise ValueError(f"{name} {label!r} is not one of the classes.")
        codes.append(int(hits[0]))
    return codes


def _release_synopsis_batch(estimator: DPSMOTE, X, y, n_runs: int, *, histogram_class,
                            random_state=None) -> SynopsisBatch:
    """``n_runs`` independent phase-1 releases of ``estimator`` on ``(X, y)``, vectorised.

    Runs the same code as :meth:`DPSMOTE.fit_resample` up to the end of phase
    1 (dense histogram): the noisy class sizes, the number of synthetic rows
    they imply, the grid they imply with ``granularity="auto"``, and the noisy
    histogram of ``histogram_class`` (a label, or a list of labels whose
    histograms are placed side by side), released in every run whether or not
    that class is over-sampled (a superset of what a fit reveals). For privacy
    audits and benchmarks only (the caller names the class, so nothing here is
    chosen by an exact count); ``estimator`` is not fitted or modified and no
    accountant is charged.

    With ``granularity="auto"`` the grid may differ between runs: each row of
    ``noisy_counts`` then holds its run's ``n_cells**d`` counts followed by
    padding ``-2**63`` up to the largest grid, and ``n_cells`` gives each
    run's cells per feature.

    Returns
    -------
    SynopsisBatch
    """
    if not isinstance(estimator, DPSMOTE):
        raise TypeError("estimator must be a DPSMOTE instance.")
    estimator._validate_params()
    X, y, _ = estimator._check_X_y(X, y)
    classes, y_codes = _encode_labels(y, estimator._check_classes())
    true_sizes, eps_counts, eps_hist, bounds = estimator._prepare(X, y_codes, classes.size)
    rng = check_random_state(random_state)
    codes = _class_codes(classes, histogram_class, "histogram_class")
    if estimator.class_counts == "private":
        mech = GeometricMechanism(eps_counts)
        noisy_sizes = true_sizes + mech.noise((n_runs, classes.size), rng)
        n_new, _ = _n_synthetic(estimator.sampling_strategy, classes, noisy_sizes)
        class_sizes = np.maximum(noisy_sizes, 1)
    else:
        noisy_sizes = None
        if estimator.classes is None:
            strategy = check_sampling_strategy(estimator.sampling_strategy, y, "over-sampling")
            row = np.array([strategy.get(c, 0) for c in classes.tolist()], np.int64)
        else:
            row = _n_synthetic(estimator.sampling_strategy, classes, true_sizes)[0][0]
        n_new = np.tile(row, (n_runs, 1))
        class_sizes = np.tile(np.maximum(true_sizes, 1), (n_runs, 1))  # public by declaration
    auto_sizes = _auto_class_size(class_sizes, n_new)
    # one grid per distinct driving size (a single grid unless granularity="auto")
    sizes, inverse = np.unique(auto_sizes, return_inverse=True)
    if not isinstance(estimator.granularity, str):
        sizes, inverse = sizes[:1], np.zeros(n_runs, np.intp)
    grids = [estimator._grid(bounds, eps_hist, float(s))[0] for s in sizes]
    n_cells = np.array([g.n_cells for g in grids], np.int64)[inverse]
    width = max(g.size for g in grids)
    if width > _DENSE_MAX_CELLS // max(1, n_runs):
        raise ValueError("release_synopsis_batch needs n_runs * n_cells**d <= 2**27.")
    parts = []
    for j in codes:
        hist = np.full((n_runs, width), np.iinfo(np.int64).min, np.int64)
        X_j = X[y_codes == j]
        for g_index, grid in enumerate(grids):
            runs = np.flatnonzero(inverse == g_index)
            if runs.size:
                true_hist = dense_true_counts(grid, grid.coordinates(X_j))
                hist[runs, :grid.size] = release_dense(true_hist, eps_hist, rng,
                                                       n_runs=runs.size)
        parts.append(hist)
    hist = np.hstack(parts)
    return SynopsisBatch(classes, noisy_sizes, n_new, hist, n_cells,
                         isinstance(estimator.granularity, str))


def _release_gaussian_batch(estimator: DPSMOTE, X, y, n_runs: int, *, mean_class,
                            random_state=None):
    """``n_runs`` independent phase-1 releases of the Gaussian synopsis, vectorised.

    Returns ``(noisy_class_counts, noisy_means)``: the DP class sizes, shape
    (n_runs, n_classes) (None with ``class_counts="public"``), and the DP mean
    of ``mean_class`` in the unit box of the bounds, shape (n_runs, d),
    released in every run whether or not the class is over-sampled (a
    superset of what a fit reveals). A list of k labels gives their means
    side by side, shape (n_runs, k·d), all divided by the same run's DP
    sizes as in one fit. For privacy audits and benchmarks only;
    ``estimator`` is not fitted and no accountant is charged.
    """
    if not isinstance(estimator, DPSMOTE):
        raise TypeError("estimator must be a DPSMOTE instance.")
    estimator._validate_params()
    X, y, _ = estimator._check_X_y(X, y)
    classes, y_codes = _encode_labels(y, estimator._check_classes())
    true_sizes, eps_counts, eps_hist, bounds = estimator._prepare(X, y_codes, classes.size)
    codes = _class_codes(classes, mean_class, "mean_class")
    rng = check_random_state(random_state)
    if estimator.class_counts == "private":
        noisy_sizes = true_sizes + GeometricMechanism(eps_counts).noise((n_runs, classes.size),
                                                                        rng)
        sizes = np.maximum(noisy_sizes, 1)
    else:
        noisy_sizes = None
        sizes = np.tile(np.maximum(true_sizes, 1), (n_runs, 1))  # public by declaration
    box = BoxScale(*bounds)
    means = [release_means(np.broadcast_to(unit_fixed_sum(X[y_codes == j], box),
                                           (n_runs, X.shape[1])), sizes[:, j], eps_hist, rng)
             for j in codes]
    return noisy_sizes, np.hstack(means)
