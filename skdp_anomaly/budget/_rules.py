"""Pricing of single (non-composite) steps, from their parameters only.

Order of the rules (first match wins): this package's privacy-cost protocol,
diffprivlib models, the allow-list of data-independent transformers, sklearn's
``requires_fit=False`` tag, samplers (``fit_resample``), anything else that
fits. Allow-list entries match the exact class, so a subclass that learns
from the data is not mistaken for its data-independent parent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

from sklearn.feature_extraction import FeatureHasher
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.impute import MissingIndicator, SimpleImputer
from sklearn.kernel_approximation import (
    AdditiveChi2Sampler,
    PolynomialCountSketch,
    RBFSampler,
    SkewedChi2Sampler,
)
from sklearn.preprocessing import (
    Binarizer,
    FunctionTransformer,
    Normalizer,
    OneHotEncoder,
    OrdinalEncoder,
    PolynomialFeatures,
    SplineTransformer,
)
from sklearn.random_projection import GaussianRandomProjection, SparseRandomProjection
from sklearn.utils import get_tags

from ..privacy import PrivacyCost

__all__ = ["StepPrice", "price_step"]

THEOREM_32 = (
    "thesis (seed 004) Theorem 3.2: the points a non-private resampler such as SMOTE "
    "adds depend on single records, which inflates the sensitivity of every downstream "
    "ε-DP algorithm; it is then only (ε', δ)-DP with ε' growing like "
    "l(d,k)·(α·n0 − n1)/(n1·k) (l(d,k) ≥ 2^(0.2075·d), Lemma 3.1), so the ε of the DP "
    "steps after it does not hold. Use skdp_anomaly.DPSMOTE instead (Theorem 3.3: "
    "its ε simply adds to theirs)"
)


@dataclass(frozen=True)
class StepPrice:
    """The price of one leaf step."""

    cost: PrivacyCost
    note: str
    kind: str  # "dp", "free", "learner" (non-private), "sampler" (non-private)
    leaks: tuple = ()

    @property
    def leak_row(self) -> bool:
        return self.kind in ("learner", "sampler")


# -- diffprivlib ------------------------------------------------------------
# parameters that diffprivlib computes from the data when they are None
_DIFFPRIVLIB_DATA_PARAMS = {
    "GaussianNB": ("bounds",),
    "LogisticRegression": ("data_norm",),
    "LinearRegression": ("bounds_X", "bounds_y"),
    "RandomForestClassifier": ("bounds", "classes"),
    "DecisionTreeClassifier": ("bounds", "classes"),
    "StandardScaler": ("bounds",),
    "PCA": ("data_norm", "bounds"),
    "KMeans": ("bounds",),
}
_GENERIC_DATA_PARAMS = ("bounds", "bounds_X", "bounds_y", "data_norm", "classes")
# diffprivlib classifiers that take the label set from np.unique(y) without noise
_LABELS_FROM_DATA = {"GaussianNB", "LogisticRegression"}


def _is_diffprivlib(estimator) -> bool:
    return type(estimator).__module__.startswith("diffprivlib.")


def _is_fitted(estimator) -> bool:
    # diffprivlib sets some fitted attributes to None in __init__ (LogisticRegression's
    # classes_, KMeans' cluster_centers_), which check_is_fitted takes for fitted
    return any(
        k.endswith("_") and not k.startswith("__") and v is not None
        for k, v in vars(estimator).items()
    )


def _check_epsilon_param(value, path: str, cls: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, Real)
        or not (math.isfinite(value) and value > 0)
    ):
        raise ValueError(
            f"{path or cls}: {cls}.epsilon must be a positive finite number, got {value!r}."
        )
    return float(value)


def _price_diffprivlib(estimator, path: str) -> StepPrice:
    cls = type(estimator).__name__
    params = estimator.get_params(deep=False)
    epsilon = _check_epsilon_param(
        params.get("epsilon", getattr(estimator, "epsilon", None)), path, cls
    )
    delta = float(params.get("delta", getattr(estimator, "delta", 0.0)) or 0.0)
    cost = PrivacyCost(epsilon, delta=delta)

    names = _DIFFPRIVLIB_DATA_PARAMS.get(cls, _GENERIC_DATA_PARAMS)
    if cls == "PCA" and params.get("centered", False):
        names = ("data_norm",)  # centered=True: no DP mean, bounds unused
    missing = [n for n in names if n in params and params[n] is None]
    leaks = []
    for name in missing:
        what = "the set of labels" if name == "classes" else f"`{name}`"
        leaks.append(
            f"{path or '(root)'}: diffprivlib {cls} has {name}=None, so {what} is computed "
            "from the data at fit (PrivacyLeakWarning): the step's ε does not hold for "
            f"the records that determine it. Pass {name} from domain knowledge."
        )
    notes = ["diffprivlib `epsilon`" + (" and `delta`" if delta else "")]
    if cls in _LABELS_FROM_DATA:
        notes.append("label set taken from y without noise, as in diffprivlib")
    if _is_fitted(estimator) and not missing and any(n in params for n in names):
        notes.append(
            "already fitted: diffprivlib replaces None bounds/data_norm by data-derived "
            "values at fit, so such a leak is no longer visible (validate before fit)"
        )
    return StepPrice(cost, "; ".join(notes), "dp", tuple(leaks))


# -- this package's protocol -----------------------------------------------
_PROTOCOL_DATA_PARAMS = ("bounds", "bounds_X", "bounds_y", "data_norm")


def _price_protocol(estimator, path: str) -> StepPrice:
    cls = type(estimator).__name__
    cost = estimator.privacy_cost()
    if not isinstance(cost, PrivacyCost):
        raise TypeError(
            f"{path or cls}: {cls}.privacy_cost() must return a PrivacyCost, got "
            f"{type(cost).__name__}."
        )
    try:
        params = estimator.get_params(deep=False)
    except Exception:  # noqa: BLE001 - a protocol object need not be an estimator
        params = {}
    leaks = tuple(
        f"{path or '(root)'}: {cls} has {name}=None, so it is computed from the data at "
        f"fit (PrivacyLeakWarning, stored in `{name}_`): the step's ε does not hold for the "
        f"records that determine it. Pass {name} from domain knowledge."
        for name in _PROTOCOL_DATA_PARAMS
        if name in params and params[name] is None
    )
    kind = "dp" if cost.epsilon > 0 or cost.delta > 0 else "free"
    return StepPrice(cost, "privacy_cost()", kind, leaks)


# -- data-independent transformers -----------------------------------------
def _always(note):
    return lambda est: (True, note)


def _encoder(est):
    if isinstance(est.categories, str):  # 'auto'
        return False, "categories='auto' learns the categories present in the data"
    if est.min_frequency is not None or est.max_categories is not None:
        return (
            False,
            "min_frequency/max_categories count category frequencies in the data",
        )
    return True, "explicit categories"


def _spline(est):
    if isinstance(est.knots, str):
        return (
            False,
            f"knots='{est.knots}' places the knots from the data's range/quantiles",
        )
    return True, "explicit knots"


def _missing_indicator(est):
    if est.features != "all":
        return (
            False,
            "features='missing-only' learns which features have missing values",
        )
    return True, "features='all'"


def _simple_imputer(est):
    if est.strategy != "constant":
        return False, f"strategy='{est.strategy}' imputes a statistic of the data"
    if est.add_indicator:
        return False, "add_indicator=True learns which features have missing values"
    return True, "strategy='constant'"


def _random_projection(est):
    if isinstance(est.n_components, str):
        return False, "n_components='auto' derives the dimension from n_samples"
    return True, "random matrix from parameters and n_features only"


def _function_transformer(est):
    if est.func is None and est.inverse_func is None:
        return True, "identity"
    return True, "assumes `func` maps each record on its own (not checked)"


_DATA_INDEPENDENT = {
    FunctionTransformer: _function_transformer,
    Normalizer: _always("stateless, per record"),
    Binarizer: _always("stateless, per record"),
    PolynomialFeatures: _always("learns only the number of features"),
    SplineTransformer: _spline,
    OneHotEncoder: _encoder,
    OrdinalEncoder: _encoder,
    MissingIndicator: _missing_indicator,
    SimpleImputer: _simple_imputer,
    RBFSampler: _always("random features from parameters and n_features only"),
    SkewedChi2Sampler: _always("random features from parameters and n_features only"),
    PolynomialCountSketch: _always("random sketch from parameters and n_features only"),
    AdditiveChi2Sampler: _always("stateless, per record"),
    GaussianRandomProjection: _random_projection,
    SparseRandomProjection: _random_projection,
    FeatureHasher: _always("stateless hashing"),
    HashingVectorizer: _always("stateless hashing"),
}


def _stateless_by_tags(estimator) -> bool:
    try:
        return get_tags(estimator).requires_fit is False
    except Exception:  # noqa: BLE001 - third-party tags may be broken; then not trusted
        return False


def _learner_leak(path: str, cls: str, why: str = "") -> str:
    why = f" ({why})" if why else ""
    return (
        f"{path or '(root)'}: {cls} learns from the data without differential privacy"
        f"{why}; its fitted state, and everything fitted or predicted downstream of "
        "it, depends on single records."
    )


def price_step(estimator, path: str) -> StepPrice:
    """Price a leaf step (not a Pipeline, union, column transformer or search)."""
    if estimator is None or (isinstance(estimator, str) and estimator in ("passthrough", "drop")):
        return StepPrice(PrivacyCost.zero(), f"{estimator!s}: does not look at the data", "free")
    cls = type(estimator).__name__
    if callable(getattr(estimator, "privacy_cost", None)):
        return _price_protocol(estimator, path)
    if _is_diffprivlib(estimator) and hasattr(estimator, "epsilon"):
        return _price_diffprivlib(estimator, path)
    rule = _DATA_INDEPENDENT.get(type(estimator))
    if rule is not None:
        ok, note = rule(estimator)
        if ok:
            return StepPrice(PrivacyCost.zero(), note, "free")
        return StepPrice(PrivacyCost.infinite(), note, "learner", (_learner_leak(path, cls, note),))
    if hasattr(estimator, "fit") and _stateless_by_tags(estimator):
        return StepPrice(PrivacyCost.zero(), "stateless (sklearn tag requires_fit=False)", "free")
    if hasattr(estimator, "fit_resample"):
        # the leak text depends on what follows; the walker writes it
        return StepPrice(PrivacyCost.infinite(), "non-private resampling", "sampler")
    if hasattr(estimator, "fit"):
        return StepPrice(
            PrivacyCost.infinite(),
            "learns without DP",
            "learner",
            (_learner_leak(path, cls),),
        )
    return StepPrice(
        PrivacyCost.infinite(),
        "not an estimator",
        "learner",
        (f"{path or '(root)'}: {cls} is not an estimator the validator can price.",),
    )


def sampler_leak(path: str, cls: str, dp_after: list) -> str:
    """Leak text of a non-private sampler; cites Theorem 3.2 when DP steps follow it."""
    where = path or "(root)"
    if dp_after:
        shown = ", ".join(p or "(root)" for p in dp_after[:5])
        more = "" if len(dp_after) <= 5 else f" and {len(dp_after) - 5} more"
        return (
            f"{where}: {cls} resamples without differential privacy before the DP step(s) "
            f"{shown}{more}. By {THEOREM_32}."
        )
    return (
        f"{where}: {cls} resamples without differential privacy (which rows are kept, "
        "duplicated or synthesised depends on single records). Use skdp_anomaly.DPSMOTE "
        "for a DP over-sampler (thesis seed 004, Theorems 3.1–3.3)."
    )
