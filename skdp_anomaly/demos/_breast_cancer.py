"""Public description of the Wisconsin diagnostic breast-cancer data: feature bounds and loading.

Why the bounds are written here and not read off the data
---------------------------------------------------------
Every differentially private step of the demos calibrates its noise to the
range of the features: DPSMOTE's class sums, the ``data_norm`` of the private
logistic regression. If that range were the minimum and maximum of
the rows being trained on, it would be a release of those rows that no noise
protects (the largest tumour in the data sets the scale of everything else),
and the ε the demos print would not hold. Rounding such extremes outward does
not help: the rounded number still moves when the most extreme patient is
replaced. So the bounds below are public knowledge, fixed before any row is
seen: each follows from the *definition* of the measurement, as
scikit-learn's ``load_breast_cancer().DESCR`` states it after Street,
Wolberg and Mangasarian (1993), plus two stated assumptions about the
digitized images (the nucleus size in pixels and a rounded shape). The
summary table of that DESCR (min and max of the 569 rows) is data, and no
number below comes from it. Values outside the bounds are clipped; that
changes what a model sees, never the privacy guarantee.

How the 30 features follow from the 10 measurements
---------------------------------------------------
Each of the 10 measurements is computed per nucleus; an image holds several
nuclei, and the data set reports, per image, their mean (features 0-9), the
standard error of the mean (10-19) and the "worst" value, the mean of the
three largest (20-29). With a measurement in ``[0, B]``:

* the mean and the worst value lie in ``[0, B]`` (averages of values there);
* the standard error lies in ``[0, B/2]``: a population standard deviation of
  values in ``[0, B]`` is at most ``B/2`` (Popoviciu's inequality), and the
  standard error of ``m >= 2`` values, ``s/√m`` with ``s`` the sample standard
  deviation (``ddof=1``), equals the population one over ``√(m − 1)``, so at
  most ``B/2``.

References
----------
W. N. Street, W. H. Wolberg and O. L. Mangasarian, "Nuclear feature
extraction for breast tumor diagnosis", IS&T/SPIE International Symposium
on Electronic Imaging, vol. 1905, pp. 861-870, 1993 (the feature
definitions, quoted in ``sklearn.datasets.load_breast_cancer().DESCR``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "BREAST_CANCER_BOUNDS",
    "MEAN_FEATURES",
    "NUCLEUS_RADIUS_MAX",
    "load_imbalanced",
    "public_scaler",
]

# ---------------------------------------------------------------- assumptions
#: Assumption 1, the one number about the imaging: no point of a nucleus
#: outline lies more than 50 pixels from the nucleus centre in the digitized
#: images (a nucleus at most 100 pixels across, in frames that show several
#: nuclei each). A round number fixed from the imaging setup, not from the
#: rows; a deployment takes it from its own microscope and camera (the
#: largest nucleus diameter a cytologist outlines, in µm, times the camera's
#: pixels per µm, halved).
NUCLEUS_RADIUS_MAX = 50.0

# Assumption 2, about shape: cytology describes these nuclei as round to oval,
# so we take each outline to lie between the circles of radius ρ/2 and ρ about
# its centre (at most twice as long as wide) and to be convex apart from
# shallow indentations. Ratios below that use it say so.
_INNER_TO_OUTER = 0.5

# 8-bit gray levels of the digitized images
_GRAY_MAX = 255.0

# --------------------------------------------------------------- measurements
# (lower, upper) of each per-nucleus measurement, in the order of the data set.
# All ten are non-negative by definition (lengths, areas, standard deviations,
# counts and ratios of them), hence every lower bound 0.
_R = NUCLEUS_RADIUS_MAX
MEASUREMENT_BOUNDS = np.array([
    # radius: the mean distance from the centre to the outline, in pixels; each
    # distance is <= R (assumption 1), so their mean is too
    (0.0, _R),
    # texture: the standard deviation of the 8-bit gray values (0..255) inside
    # the outline; values in [a, b] have a standard deviation <= (b − a)/2
    # (Popoviciu), here 127.5
    (0.0, _GRAY_MAX / 2),
    # perimeter: a convex outline inside the disc of radius R is no longer than
    # the disc's circumference, 2πR (a convex set inside another has the
    # smaller perimeter); the shallow indentations of assumption 2 add little,
    # and any excess is clipped
    (0.0, 2.0 * math.pi * _R),
    # area: an outline within R of its centre encloses at most the disc, πR²
    (0.0, math.pi * _R**2),
    # smoothness: the local variation of radial lengths (a radial line minus the
    # mean of its neighbours), relative to the radius. Under assumption 2 two
    # radial lengths of one nucleus differ by at most ρ − ρ/2 = ρ/2 and the mean
    # radius is at least ρ/2, so the ratio is <= 1
    (0.0, 1.0),
    # compactness: perimeter² / (4π·area) − 1, the form in which a disc scores 0
    # (DESCR's "perimeter^2 / area - 1.0" leaves out the circle's 4π): >= 0 by
    # the isoperimetric inequality. The definition alone gives no upper bound (a
    # thin sliver is arbitrarily non-compact); under assumption 2 the perimeter
    # is <= 2πρ and the area >= π(ρ/2)², so perimeter² / (4π·area) <=
    # (2πρ)² / (4π·π(ρ/2)²) = 4 and compactness <= 3
    (0.0, 1.0 / _INNER_TO_OUTER**2 - 1.0),
    # concavity: the severity of the concave portions, the depths by which the
    # outline lies inside chords across it, summed, relative to the radius. Under
    # assumption 2 one indentation is at most ρ − ρ/2 = ρ/2 deep, i.e. at most one
    # mean radius (which is >= ρ/2); the definition does not bound how many there
    # are, and we allow the depth of two such indentations: <= 2. This is the one
    # bound here that is a judgement rather than a consequence of the definitions
    # and assumptions; values beyond it are clipped
    (0.0, 2.0),
    # concave points: the number of concave portions, published as a fraction
    # of the outline (not an integer count); a fraction of a whole is <= 1
    (0.0, 1.0),
    # symmetry: Σ|left − right| / Σ(left + right) over chords perpendicular to
    # the major axis; |a − b| <= a + b for lengths a, b >= 0, so <= 1
    (0.0, 1.0),
    # fractal dimension: the "coastline approximation" of the outline minus 1;
    # a planar curve has dimension between 1 and 2, so the value lies in [0, 1]
    (0.0, 1.0),
])
N_MEASUREMENTS = len(MEASUREMENT_BOUNDS)

#: Public (lower, upper) bounds of the 30 features, in the data set's order:
#: the 10 means (a measurement's bounds), the 10 standard errors (half its
#: upper bound, see the module docstring) and the 10 "worst" values (the mean
#: of the three largest: the measurement's bounds again).
BREAST_CANCER_BOUNDS = np.vstack([
    MEASUREMENT_BOUNDS,  # mean of the nuclei of an image
    MEASUREMENT_BOUNDS * [1.0, 0.5],  # standard error of that mean
    MEASUREMENT_BOUNDS,  # worst: mean of the three largest
])

# The ten "mean" features: a public, domain-level choice of columns (the other
# twenty are their standard errors and worst values). Fewer features mean less
# noise on DPSMOTE's DP mean (its Laplace scale grows with d) and, with the grid
# synopsis, a grid of 2^10 cells (2 per feature, as granularity="auto" chooses)
# instead of 2^30.
#: Indices of the ten "mean" features, the columns the demos use.
MEAN_FEATURES = tuple(range(N_MEASUREMENTS))


# ----------------------------------------------------------------------- data
def _public_scale(X, lower, upper):
    """Map each feature from its public [lower, upper] to [-1, 1], clipping outliers."""
    return np.clip(2.0 * (np.asarray(X, dtype=float) - lower) / (upper - lower) - 1.0, -1.0, 1.0)


def public_scaler(features=MEAN_FEATURES):
    """Scale features to [-1, 1] with the public bounds, clipping (costs no ε).

    Parameters
    ----------
    features : sequence of int, default=MEAN_FEATURES
        Columns of the 30-feature data set the scaler receives, in order.

    Returns
    -------
    sklearn.preprocessing.FunctionTransformer
        A stateless transformer: its map is fixed by :data:`BREAST_CANCER_BOUNDS`
        and learns nothing from the data it is fitted on.
    """
    from sklearn.preprocessing import FunctionTransformer

    lower, upper = BREAST_CANCER_BOUNDS[list(features)].T
    return FunctionTransformer(_public_scale, kw_args={"lower": lower, "upper": upper})


def load_imbalanced(ratio: float, rng: np.random.Generator, features=MEAN_FEATURES):
    """Load the breast-cancer data with malignant (label 1) under-sampled to ``ratio``.

    Every benign row is kept; malignant rows are drawn without replacement so
    that they make up the fraction ``ratio`` of the rows.

    Parameters
    ----------
    ratio : float
        Minority (malignant) fraction of the returned rows.
    rng : numpy.random.Generator
        Source of the under-sampling.
    features : sequence of int, default=MEAN_FEATURES
        Columns to return.

    Returns
    -------
    X : ndarray of shape (n_samples, len(features))
        The selected rows and columns.
    y : ndarray of shape (n_samples,)
        1 for malignant, 0 for benign.

    Raises
    ------
    ValueError
        If ``ratio`` asks for fewer than 6 or more malignant rows than exist.
    """
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    X = data.data[:, list(features)]
    y = (data.target == 0).astype(int)  # sklearn codes malignant as 0; make it the positive class
    idx0, idx1 = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
    n1 = int(round(ratio * idx0.size / (1.0 - ratio)))
    if not 6 <= n1 <= idx1.size:
        raise ValueError(
            f"ratio={ratio!r} asks for {n1} malignant rows; use a minority fraction between "
            f"{6 / (idx0.size + 6):.3f} and {idx1.size / (idx0.size + idx1.size):.3f}."
        )
    keep = np.sort(np.concatenate([idx0, rng.choice(idx1, n1, replace=False)]))
    return X[keep], y[keep]
