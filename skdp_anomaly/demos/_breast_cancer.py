"""Public description of the Wisconsin diagnostic breast-cancer data: feature bounds and loading.

The DP steps of the demos calibrate their noise to the features' range; a range read off the
rows (even rounded outward) would be an unprotected release, and the printed ε would not
hold. So every bound below follows from the *definition* of the measurement (scikit-learn's
``load_breast_cancer().DESCR``, after Street, Wolberg and Mangasarian 1993) plus two stated
assumptions about the images, never from the rows (nor from DESCR's summary table, which is
data). Values outside are clipped.

Each image reports, per measurement in ``[0, B]``, the mean over its nuclei (features 0-9), the
standard error (10-19) and the "worst" value, the mean of the three largest (20-29). Mean and worst
lie in ``[0, B]``; the standard error in ``[0, B/2]`` (Popoviciu: a population standard deviation is
at most ``B/2``, and ``s/√m`` with ``ddof=1`` is that over ``√(m − 1)``).

References
----------
W. N. Street, W. H. Wolberg and O. L. Mangasarian, "Nuclear feature extraction for breast tumor
diagnosis", IS&T/SPIE International Symposium on Electronic Imaging, vol. 1905, pp. 861-870, 1993
(the feature definitions, quoted in ``sklearn.datasets.load_breast_cancer().DESCR``).
"""

from __future__ import annotations

import math

import numpy as np

# ---------------------------------------------------------------- assumptions
#: Assumption 1: no point of a nucleus outline lies more than 50 pixels from its
#: centre (fixed from the imaging setup, not the rows; a deployment takes it from
#: its own microscope and camera).
NUCLEUS_RADIUS_MAX = 50.0

# Assumption 2: nuclei are round to oval, each outline between the circles of
# radius ρ/2 and ρ about its centre, convex apart from shallow indentations.
_INNER_TO_OUTER = 0.5

# 8-bit gray levels of the digitized images
_GRAY_MAX = 255.0

# --------------------------------------------------------------- measurements
# (lower, upper) of each per-nucleus measurement, in the data set's order; all are
# non-negative by definition.
_R = NUCLEUS_RADIUS_MAX
MEASUREMENT_BOUNDS = np.array(
    [
        # radius: mean centre-to-outline distance, each <= R (assumption 1)
        (0.0, _R),
        # texture: std of 8-bit gray values, <= 255/2 (Popoviciu)
        (0.0, _GRAY_MAX / 2),
        # perimeter: a convex outline inside the disc of radius R is at most 2πR (shallow
        # indentations add little; any excess is clipped)
        (0.0, 2.0 * math.pi * _R),
        # area: at most the disc, πR²
        (0.0, math.pi * _R**2),
        # smoothness: local variation of radial lengths over the radius; by assumption 2
        # at most ρ/2 over a mean radius >= ρ/2, so <= 1
        (0.0, 1.0),
        # compactness: perimeter² / (4π·area) − 1, >= 0 (isoperimetric inequality); by
        # assumption 2, <= (2πρ)² / (4π·π(ρ/2)²) − 1 = 3
        (0.0, 1.0 / _INNER_TO_OUTER**2 - 1.0),
        # concavity: summed indentation depths over the radius; one is at most ρ/2 deep
        # (assumption 2), and we allow two: <= 2 (the one judgement here; beyond, clipped)
        (0.0, 2.0),
        # concave points: published as a fraction of the outline, <= 1
        (0.0, 1.0),
        # symmetry: Σ|left − right| / Σ(left + right), and |a − b| <= a + b, so <= 1
        (0.0, 1.0),
        # fractal dimension: coastline dimension minus 1, in [0, 1] for a planar curve
        (0.0, 1.0),
    ]
)
N_MEASUREMENTS = len(MEASUREMENT_BOUNDS)

#: Public (lower, upper) bounds of the 30 features: means, standard errors (half the
#: upper bound, see the module docstring) and "worst" values.
BREAST_CANCER_BOUNDS = np.vstack(
    [
        MEASUREMENT_BOUNDS,  # mean of the nuclei of an image
        MEASUREMENT_BOUNDS * [1.0, 0.5],  # standard error of that mean
        MEASUREMENT_BOUNDS,  # worst: mean of the three largest
    ]
)

# a public choice of columns: fewer features mean less noise on DPSMOTE's DP mean
# (its Laplace scale grows with d) and a grid of 2^10 cells instead of 2^30
#: Indices of the ten "mean" features, the columns the demos use.
MEAN_FEATURES = tuple(range(N_MEASUREMENTS))


# ----------------------------------------------------------------------- data
def _public_scale(X, lower, upper):
    """Map each feature from its public [lower, upper] to [-1, 1], clipping outliers."""
    return np.clip(2.0 * (np.asarray(X, dtype=float) - lower) / (upper - lower) - 1.0, -1.0, 1.0)


def public_scaler(features=MEAN_FEATURES):
    """A stateless ``FunctionTransformer`` of the columns ``features`` (of the 30, in order)
    to [-1, 1], clipping: its map is fixed by :data:`BREAST_CANCER_BOUNDS`, so it learns
    nothing from the data it is fitted on and costs no ε."""
    from sklearn.preprocessing import FunctionTransformer

    lower, upper = BREAST_CANCER_BOUNDS[list(features)].T
    return FunctionTransformer(_public_scale, kw_args={"lower": lower, "upper": upper})


def load_imbalanced(ratio: float, rng: np.random.Generator, features=MEAN_FEATURES):
    """``(X, y)``: the breast-cancer data's columns ``features``, malignant (``y = 1``; benign
    0) under-sampled by ``rng`` to the minority fraction ``ratio``.

    Raises ValueError if ``ratio`` asks for fewer than 6 or more malignant rows than exist.
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
