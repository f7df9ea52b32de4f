"""The recommended private pipeline for imbalanced classes: DPSMOTE, then a DP classifier."""

from __future__ import annotations


import numpy as np
from imblearn.pipeline import Pipeline
from sklearn.base import clone

from ..over_sampling import DPSMOTE
from ..privacy import check_epsilon, check_random_state

__all__ = ["PIPELINE_SPLIT", "dead_zone_free_C", "dp_imbalanced_pipeline"]

#: DPSMOTE's ε as a share of the total (add/remove neighbours). Under replace-one
#: neighbours, the relation of diffprivlib's classifiers, it counts twice (group
#: privacy), so DPSMOTE takes 2 · 0.25 = half of the total and the classifier the
#: other half (measured in the user guide, docs/dpsmote.md).
PIPELINE_SPLIT = 0.25


def dp_imbalanced_pipeline(classifier, *, epsilon: float, bounds, random_state=None) -> Pipeline:
    """The recommended private pipeline for an imbalanced classification problem.

    Returns the imblearn :class:`~imblearn.pipeline.Pipeline` ``DPSMOTE →
    classifier`` whose total cost is ``epsilon`` under replace-one neighbours
    (the relation of diffprivlib's classifiers, and the default of
    :func:`~skdp_anomaly.check_privacy_budget`):

    * ``DPSMOTE(epsilon=PIPELINE_SPLIT · epsilon, bounds=bounds)`` with its
      default (Gaussian) synopsis: pure ε-DP under add/remove neighbours,
      which counts ``2 · 0.25 · epsilon = epsilon / 2`` under replace-one
      neighbours;
    * a clone of ``classifier`` with ``epsilon / 2``, and, where the
      classifier has them and they are unset, its ``data_norm`` (the L2
      norm of the box ``bounds``) and ``bounds`` filled in from ``bounds``,
      so that no step reads a bound from the data;
    * for diffprivlib's ``LogisticRegression`` left at its default ``C = 1``,
      ``C = dead_zone_free_C(epsilon / 2, data_norm)``, which avoids the
      range of ε where objective perturbation keeps almost no ε for its
      noise (:func:`dead_zone_free_C`). Set ``C`` on the returned pipeline
      (``classifier__C``) to override it.

    Parameters
    ----------
    classifier : estimator with an ``epsilon`` parameter
        A diffprivlib classifier, e.g. ``diffprivlib.models.LogisticRegression()``.
    epsilon : float > 0
        The total budget, under replace-one neighbours.
    bounds : (lower, upper)
        Public bounds of the features (scalars or one value per feature).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds both steps (independent child seeds); ``None`` for deployment.

    Returns
    -------
    imblearn.pipeline.Pipeline
        Steps ``"dpsmote"`` and ``"classifier"``.

    Notes
    -----
    The split and DPSMOTE's defaults were chosen from evidence on public
    imbalanced sets (the user guide, docs/dpsmote.md, "When does private
    oversampling pay?", has the tables). DPSMOTE gets a quarter of the budget
    under add/remove neighbours, i.e. half under replace-one neighbours (the
    thesis' "ε/2 + ε/2" gives DPSMOTE ε/2 under add/remove, which is ε under
    replace-one, so it spends 1.5 ε in total). At a large budget the same
    classifier thresholded at a DP class prior
    (:class:`NoisyPriorThresholdClassifier`) can be the better choice; the
    user guide says where.

    Examples
    --------
    >>> from diffprivlib.models import LogisticRegression
    >>> from skdp_anomaly import check_privacy_budget, dp_imbalanced_pipeline
    >>> pipe = dp_imbalanced_pipeline(LogisticRegression(), epsilon=2.0,
    ...                               bounds=([-1] * 8, [1] * 8), random_state=0)
    >>> pipe.named_steps["dpsmote"].epsilon, pipe.named_steps["classifier"].epsilon
    (0.5, 1.0)
    >>> check_privacy_budget(pipe, 2.0).cost.epsilon
    2.0
    """
    epsilon = check_epsilon(epsilon)
    params = classifier.get_params(deep=False) if hasattr(classifier, "get_params") else {}
    if "epsilon" not in params:
        raise ValueError(
            "dp_imbalanced_pipeline needs a classifier with an 'epsilon' parameter (a "
            f"diffprivlib classifier); got {type(classifier).__name__}.")
    lower, upper = _bounds(bounds)
    seeds = _child_seeds(random_state)
    sampler = DPSMOTE(epsilon=PIPELINE_SPLIT * epsilon, bounds=bounds, random_state=seeds[0])
    updates = {"epsilon": epsilon * (1.0 - 2.0 * PIPELINE_SPLIT)}
    if "data_norm" in params and params["data_norm"] is None:
        if lower.size == 1 and np.ndim(bounds[0]) == 0 and np.ndim(bounds[1]) == 0:
            raise ValueError(
                f"{type(classifier).__name__} needs data_norm, the L2 norm bound of a row, which "
                "scalar bounds do not give (it depends on the number of features): pass bounds "
                "per feature, or set data_norm on the classifier.")
        updates["data_norm"] = float(np.linalg.norm(np.maximum(np.abs(lower), np.abs(upper))))
    norm = updates.get("data_norm", params.get("data_norm"))
    if _is_objective_perturbation(classifier) and params.get("C") == 1.0 and norm:
        updates["C"] = dead_zone_free_C(updates["epsilon"], float(norm))
    if "bounds" in params and params["bounds"] is None:
        updates["bounds"] = bounds
    if "random_state" in params:
        updates["random_state"] = seeds[1]
    return Pipeline([("dpsmote", sampler), ("classifier", clone(classifier).set_params(**updates))])


def dead_zone_free_C(epsilon: float, data_norm: float) -> float:
    """A regularisation ``C`` for diffprivlib's LogisticRegression that keeps ε' ≥ ε/2.

    diffprivlib's LogisticRegression is objective perturbation (Chaudhuri,
    Monteleoni and Sarwate 2011, Algorithm 2): it keeps
    ``ε' = ε − 2 log(1 + data_norm · C / 4)`` for the noise when that is
    positive, and otherwise ε/2 with extra regularisation. With its default
    ``C = 1`` an ε just above ``2 log(1 + data_norm / 4)`` leaves ε' near 0 and
    the noise explodes (at ``data_norm = √d``: ε ≈ 1.5 for d = 21, 3.1 for
    d = 212). ``C = min(1, (e^{ε/4} − 1) / (data_norm / 4))`` keeps ε' ≥ ε/2.
    A function of public parameters only: it costs no privacy.

    Parameters
    ----------
    epsilon : float > 0
        The classifier's ε.
    data_norm : float > 0
        The classifier's bound on the L2 norm of a row.

    Returns
    -------
    float
        ``C`` in (0, 1].

    Examples
    --------
    >>> from skdp_anomaly.imbalanced import dead_zone_free_C
    >>> round(dead_zone_free_C(1.0, 6.0), 4), dead_zone_free_C(10.0, 6.0)
    (0.1894, 1.0)
    """
    return float(min(1.0, np.expm1(epsilon / 4.0) / (data_norm / 4.0)))


def _is_objective_perturbation(classifier) -> bool:
    """diffprivlib's LogisticRegression (matched by name: diffprivlib stays optional)."""
    cls = type(classifier)
    return cls.__name__ == "LogisticRegression" and cls.__module__.startswith("diffprivlib")


def _bounds(bounds):
    try:
        lower, upper = bounds
    except (TypeError, ValueError):
        raise ValueError("The 'bounds' parameter must be a (lower, upper) pair of public "
                         f"bounds; got {bounds!r}.") from None
    lower, upper = np.atleast_1d(np.asarray(lower, float)), np.atleast_1d(np.asarray(upper, float))
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper)) and np.all(lower < upper)):
        raise ValueError("The 'bounds' parameter must be finite with lower < upper.")
    return lower, upper


def _child_seeds(random_state):
    """Two independent int seeds (diffprivlib takes ints), or None for deployment."""
    if random_state is None:
        return None, None
    rng = check_random_state(random_state)
    return tuple(int(s) for s in rng.integers(0, 2**31 - 1, size=2))
