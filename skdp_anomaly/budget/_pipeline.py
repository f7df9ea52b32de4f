"""A pipeline that carries a privacy budget and checks it at every fit."""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

from imblearn.pipeline import Pipeline
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if

from ..privacy import PrivacyCost
from ._validator import check_privacy_budget, validate_budget


def _final_estimator_can_fit_predict(pipeline) -> bool:
    return hasattr(pipeline._final_estimator, "fit_predict")


class BudgetedPipeline(Pipeline):
    """An imblearn :class:`~imblearn.pipeline.Pipeline` that validates its privacy budget at fit.

    Before any step is fitted, :func:`check_privacy_budget` prices the
    pipeline from its parameters; the fit stops with
    :class:`PrivacyBudgetError` when the total exceeds ``budget``, and leaks
    are handled according to ``on_leak``. Samplers are accepted, as in imblearn.

    Parameters
    ----------
    steps : list of (str, estimator) tuples
        As in :class:`imblearn.pipeline.Pipeline`.
    budget : None, float, PrivacyCost or (epsilon, delta), default=None
        Maximum privacy cost of **one** fit of this pipeline, under
        ``neighbours``. None only reports.
    neighbours : {"replace", "add_remove"}, default="replace"
        The relation of the budget and the report: "replace" (n public, as
        diffprivlib's models) or "add_remove" (n hidden too).
    on_leak : {"warn", "raise", "ignore"} or None, default=None
        See :func:`check_privacy_budget`: None raises on a leak when a
        ``budget`` is given and warns otherwise.
    transform_input : list of str, default=None
        As in :class:`imblearn.pipeline.Pipeline` (metadata routing).
    memory : str or object with the joblib.Memory interface, default=None
        As in :class:`imblearn.pipeline.Pipeline`: caches fitted transformers.
    verbose : bool, default=False
        As in :class:`imblearn.pipeline.Pipeline`: print the time of each step.

    Attributes
    ----------
    privacy_report_ : PrivacyReport
        The report of the last fit (parameters only; never fitted data).

    Notes
    -----
    The budget is per fit: under ``GridSearchCV`` price the whole search with
    ``check_privacy_budget(search)``. The check runs before fitting because
    diffprivlib overwrites ``bounds=None`` / ``data_norm=None`` during fit,
    hiding that leak on a refit. Every step's cost is stated under
    ``neighbours`` (or reported as a leak); notions compose sequentially (see
    :func:`check_privacy_budget`).

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib.models import GaussianNB, StandardScaler
    >>> from skdp_anomaly.budget import BudgetedPipeline
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.uniform(0, 1, (60, 2)), np.repeat([0, 1], 30)
    >>> pipe = BudgetedPipeline(
    ...     [("scale", StandardScaler(epsilon=0.5, bounds=(0, 1), random_state=0)),
    ...      ("nb", GaussianNB(epsilon=1.0, bounds=(-5, 5), random_state=0))],
    ...     budget=2.0,
    ... ).fit(X, y)
    >>> pipe.privacy_report_.epsilon, pipe.privacy_report_.neighbours
    (1.5, 'replace')
    """

    _parameter_constraints: ClassVar[dict] = {
        **Pipeline._parameter_constraints,
        "budget": [None, Interval(Real, 0, None, closed="neither"), PrivacyCost, tuple, list],
        "neighbours": [StrOptions({"add_remove", "replace"})],
        "on_leak": [StrOptions({"warn", "raise", "ignore"}), None],
    }

    def __init__(
        self,
        steps,
        *,
        budget=None,
        neighbours="replace",
        on_leak=None,
        transform_input=None,
        memory=None,
        verbose=False,
    ):
        super().__init__(steps, transform_input=transform_input, memory=memory, verbose=verbose)
        self.budget = budget
        self.neighbours = neighbours
        self.on_leak = on_leak

    def _check_privacy(self):
        self._validate_params()
        # finiteness, (ε, δ) shape and relation, beyond the constraints
        validate_budget(self.budget, neighbours=self.neighbours)
        self.privacy_report_ = check_privacy_budget(
            self, budget=self.budget, neighbours=self.neighbours, on_leak=self.on_leak
        )

    def _unchecked_report(self):
        return check_privacy_budget(self, neighbours=self.neighbours, on_leak="ignore")

    def privacy_cost(self) -> PrivacyCost:
        """Total cost of one fit under ``neighbours``, from the parameters (leaks not included)."""
        return self._unchecked_report().cost

    def privacy_assumptions(self) -> tuple:
        """What :meth:`privacy_cost` takes as public without checking it."""
        return tuple(self._unchecked_report().assumptions)

    def fit(self, X, y=None, **params):
        """Check the privacy budget (sets ``privacy_report_``), then fit the steps.

        Parameters
        ----------
        X : iterable
            Training data, as the first step takes it.
        y : iterable, default=None
            Training targets.
        **params : dict
            Fit parameters of the steps, as in
            :meth:`imblearn.pipeline.Pipeline.fit`.

        Returns
        -------
        self : BudgetedPipeline
            The fitted pipeline.
        """
        self._check_privacy()
        return super().fit(X, y, **params)

    @available_if(Pipeline._can_fit_transform)
    def fit_transform(self, X, y=None, **params):
        """Check the budget (sets ``privacy_report_``), then imblearn's ``fit_transform``."""
        self._check_privacy()
        return super().fit_transform(X, y, **params)

    @available_if(Pipeline._can_fit_resample)
    def fit_resample(self, X, y=None, **params):
        """Check the budget (sets ``privacy_report_``), then imblearn's ``fit_resample``."""
        self._check_privacy()
        return super().fit_resample(X, y, **params)

    @available_if(_final_estimator_can_fit_predict)
    def fit_predict(self, X, y=None, **params):
        """Check the budget (sets ``privacy_report_``), then imblearn's ``fit_predict``."""
        self._check_privacy()
        return super().fit_predict(X, y, **params)
