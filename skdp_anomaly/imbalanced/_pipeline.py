"""The former constructor of the private imbalanced learner, kept for one release."""

from __future__ import annotations

from .._warn import warn
from ._classifier import DPImbalancedClassifier

__all__ = ["dp_imbalanced_pipeline"]


def dp_imbalanced_pipeline(classifier=None, *, epsilon: float, bounds=None,
                           strategy: str = "auto", random_state=None) -> DPImbalancedClassifier:
    """Deprecated: use :class:`DPImbalancedClassifier`, which this now returns.

    ``dp_imbalanced_pipeline(classifier, epsilon=ε, bounds=b, strategy=s,
    random_state=r)`` is ``DPImbalancedClassifier(classifier, epsilon=ε,
    bounds=b, strategy=s, random_state=r)``, with a ``FutureWarning``; it
    will be removed in a future release.

    Parameters
    ----------
    classifier : classifier with ``epsilon`` and ``predict_proba``, default=None
        As in :class:`DPImbalancedClassifier`.
    epsilon : float > 0
        The total budget, under replace-one neighbours.
    bounds : (lower, upper) or None, default=None
        Public bounds of the raw features (scalars or per feature).
    strategy : {"auto", "threshold", "oversample"}, default="auto"
        As in :class:`DPImbalancedClassifier`.
    random_state : None, int or numpy.random.Generator, default=None
        As in :class:`DPImbalancedClassifier`.

    Returns
    -------
    DPImbalancedClassifier
        Unfitted; the same type at every ε (before, an imblearn ``Pipeline``
        or a :class:`NoisyPriorThresholdClassifier` depending on ε and d).
        The fitted steps are in ``model_.named_steps``.

    Notes
    -----
    Deprecated rather than kept as a second way to build the same model: a
    function cannot be cloned or searched over, and the type it returned
    changed with ε. Replace ``dp_imbalanced_pipeline(...)`` by
    ``DPImbalancedClassifier(...)`` with the same arguments; code that read
    ``named_steps["classifier"]`` reads ``model_.named_steps["classifier"]``
    after ``fit``, and ``classifier__C`` still sets the classifier's ``C``.

    Examples
    --------
    >>> import warnings
    >>> from skdp_anomaly import dp_imbalanced_pipeline
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     clf = dp_imbalanced_pipeline(epsilon=2.0, bounds=(-1, 1))
    >>> type(clf).__name__
    'DPImbalancedClassifier'
    """
    warn("dp_imbalanced_pipeline is deprecated and will be removed in a future release: "
         "use DPImbalancedClassifier(classifier, epsilon=..., bounds=..., strategy=...) "
         "with the same arguments (this call returns one).", FutureWarning)
    clf = DPImbalancedClassifier(classifier, epsilon=epsilon, bounds=bounds, strategy=strategy,
                                 random_state=random_state)
    clf.privacy_cost()  # a bad argument is refused now, as before, not at fit
    return clf
