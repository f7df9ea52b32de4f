"""Pricing of single (non-composite) steps, from their parameters only.

Rules, first match wins: this package's privacy-cost protocol, diffprivlib models, the allow-list of
data-independent transformers (exact classes: a subclass may learn), the tag ``requires_fit=False``
of third-party classes, samplers (``fit_resample``), anything else that fits. Prices are stated
under the report's relation: add/remove costs convert to replace-one (group privacy);
replace-one-only costs (every diffprivlib model) are leaks under add/remove, as their output can
reveal ``n``. What a price takes as public unchecked is an *assumption*, never silently priced 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from numbers import Real

from sklearn.base import is_classifier
from sklearn.feature_extraction import FeatureHasher
from sklearn.feature_extraction.image import PatchExtractor
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

from ..exceptions import ParameterError, naming
from ..privacy import PrivacyCost
from ..privacy._cost import relation_text
from ..privacy._diffprivlib import UNREGULARISED_INTERCEPT, diffprivlib_logistic_epsilon

#: Where the sampler leak comes from, in words (the thesis states it as a formula).
THESIS = "Lut, Privacy-Aware Data Analysis, PhD thesis, Columbia University, 2022"
THEOREM_32 = (
    f"{THESIS}, Theorem 3.2: every point a non-private resampler such as SMOTE adds is "
    "interpolated from single records, so one record can move many training rows; the "
    "privacy loss of each DP step after it then grows with the number of synthetic rows "
    "per minority record and exponentially with the number of features, and the ε stated "
    "for those steps does not hold. Use skdp_anomaly.DPSMOTE instead (Theorem 3.3: its ε "
    "simply adds to theirs)"
)
#: The one assumption every classifier that reads its label set from y rests on.
LABELS_PUBLIC = "the set of class labels is read from y and treated as public"


@dataclass(frozen=True)
class StepPrice:
    """The price of one leaf step, stated under the report's relation."""

    cost: PrivacyCost
    note: str
    kind: str  # "dp", "free", "learner"/"sampler" (non-private), "relation" (wrong relation)
    leaks: tuple = ()
    assumptions: tuple = ()

    @property
    def leak_row(self) -> bool:
        return self.kind in ("learner", "sampler", "relation")


def _where(path: str) -> str:
    return path or "(root)"


def _zero(neighbours: str) -> PrivacyCost:
    return PrivacyCost.zero().under(neighbours)


def check_instance(obj, where: str) -> None:
    """Raise a TypeError when ``obj`` is a class where an estimator instance is needed."""
    if isinstance(obj, type):
        name = obj.__name__
        raise TypeError(
            f"{where}: got the class {name}, not an estimator; pass an instance, e.g. {name}()."
        )


# -- the neighbouring relation ----------------------------------------------
def _conversion_note(before: PrivacyCost, after: PrivacyCost) -> str:
    if before.delta:
        change = (
            f"ε={before.epsilon:g}, δ={before.delta:.3g} → ε={after.epsilon:g}, δ={after.delta:.3g}"
        )
    else:
        change = f"ε={before.epsilon:g} → {after.epsilon:g}"
    return f"add/remove {change} under replace-one (group privacy)"


def _relation_leak(path: str, cls: str, cost: PrivacyCost, neighbours: str) -> str:
    if cost.neighbours == "replace":
        return (
            f"{_where(path)}: {cls}'s {cost.notion} holds only under replace-one neighbours, "
            "i.e. with the dataset size n public: its analysis fixes n, and its output can "
            "reveal n (e.g. diffprivlib GaussianNB's noisy class counts sum to n exactly), "
            "which add/remove neighbours protect. Price with neighbours='replace' (n public), "
            "or use a step whose cost holds under add/remove neighbours."
        )
    return (
        f"{_where(path)}: {cls}'s {cost.notion} under {cost.relation} has no group-privacy "
        f"conversion to {relation_text(neighbours)}, so it bounds nothing "
        f"in this report. Price with neighbours={cost.neighbours!r}."
    )


def _restate(price: StepPrice, neighbours: str, path: str, cls: str) -> StepPrice:
    """``price`` with its cost under ``neighbours``: converted, or a leak when impossible."""
    cost = price.cost
    if cost.neighbours == neighbours or cost.is_zero:
        return replace(price, cost=cost.under(neighbours))
    try:
        converted = cost.under(neighbours)
    except ValueError:
        return StepPrice(
            PrivacyCost.infinite(neighbours=neighbours),
            f"{cost.notion} under {cost.relation} only",
            "relation",
            price.leaks + (_relation_leak(path, cls, cost, neighbours),),
            price.assumptions,
        )
    # the conversion is said on the row; the cost keeps only the step's own notes
    return replace(
        price,
        cost=replace(converted, notes=cost.notes),
        note=f"{price.note}; {_conversion_note(cost, converted)}",
    )


# -- diffprivlib ------------------------------------------------------------
# parameters that diffprivlib computes from the data when they are None
# (a classifier's `classes` is the label-set assumption instead, see below)
_DIFFPRIVLIB_DATA_PARAMS = {
    "GaussianNB": ("bounds",),
    "LogisticRegression": ("data_norm",),
    "LinearRegression": ("bounds_X", "bounds_y"),
    "RandomForestClassifier": ("bounds",),
    "DecisionTreeClassifier": ("bounds",),
    "StandardScaler": ("bounds",),
    "PCA": ("data_norm", "bounds"),
    "KMeans": ("bounds",),
}
_GENERIC_DATA_PARAMS = ("bounds", "bounds_X", "bounds_y", "data_norm")
# every diffprivlib model holds under replace-one neighbours with n public
_DIFFPRIVLIB_NEIGHBOURS = "replace"


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
            f"{_where(path)}: {cls}.epsilon must be a positive finite number, got {value!r}."
        )
    return float(value)


def label_set_assumption(estimator, path: str) -> tuple:
    """The label-set assumption of a classifier reading its labels from ``y`` (else none).

    ``classes=[...]`` given in advance removes it where the class has that parameter.
    """
    if not is_classifier(estimator):
        return ()
    cls = type(estimator).__name__
    params = estimator.get_params(deep=False)
    if "classes" not in params:
        return (
            f"{_where(path)}: diffprivlib {cls}: {LABELS_PUBLIC} "
            f"({cls} has no `classes` parameter)",
        )
    if params["classes"] is None:
        return (
            f"{_where(path)}: diffprivlib {cls}(classes=None): {LABELS_PUBLIC}; "
            "pass classes=[...] to fix it in advance",
        )
    return ()


def _price_diffprivlib(estimator, path: str) -> StepPrice:
    cls = type(estimator).__name__
    params = estimator.get_params(deep=False)
    epsilon = _check_epsilon_param(
        params.get("epsilon", getattr(estimator, "epsilon", None)), path, cls
    )
    delta = float(params.get("delta", getattr(estimator, "delta", 0.0)) or 0.0)
    cost = PrivacyCost(epsilon, delta=delta, neighbours=_DIFFPRIVLIB_NEIGHBOURS)

    names = _DIFFPRIVLIB_DATA_PARAMS.get(cls, _GENERIC_DATA_PARAMS)
    if cls == "PCA" and params.get("centered", False):
        names = ("data_norm",)  # centered=True: no DP mean, bounds unused
    missing = [n for n in names if n in params and params[n] is None]
    leaks = tuple(
        f"{_where(path)}: diffprivlib {cls} has {name}=None, so `{name}` is computed from the "
        "data at fit (PrivacyLeakWarning): the step's ε does not hold for the records that "
        f"determine it. Pass {name} from domain knowledge."
        for name in missing
    )
    notes = ["diffprivlib `epsilon`" + (" and `delta`" if delta else "")]
    if cls == "LogisticRegression" and params.get("data_norm") is not None:
        cost, note = _price_diffprivlib_logistic(estimator, params, epsilon)
        notes += [note] if note else []
    if cls == "LogisticRegression" and params.get("fit_intercept", True):
        leaks += (f"{_where(path)}: {UNREGULARISED_INTERCEPT}",)
    if _is_fitted(estimator) and not missing and any(n in params for n in (*names, "classes")):
        notes.append(
            "already fitted: diffprivlib replaces None bounds/data_norm/classes by "
            "data-derived values at fit, so such a leak or assumption is no longer visible "
            "(validate before fit)"
        )
    return StepPrice(cost, "; ".join(notes), "dp", leaks, label_set_assumption(estimator, path))


def _price_diffprivlib_logistic(estimator, params, epsilon):
    """diffprivlib's LogisticRegression at the ε its noise provably gives (see privacy)."""
    classes = getattr(estimator, "classes_", None)
    n_classes = len(classes) if classes is not None else 2
    norm, c = float(params["data_norm"]), float(params.get("C", 1.0))
    intercept = bool(params.get("fit_intercept", True))
    proven = diffprivlib_logistic_epsilon(epsilon, norm, c, intercept, n_classes)
    note = ""
    if proven > epsilon:
        note = (
            f"its noise proves ε={proven:.4g}, not {epsilon:g}: its Jacobian charge "
            "grows with data_norm, the proof's with data_norm² (Chaudhuri et al. 2011)"
        )
        if classes is None:
            note += "; priced for two classes (K one-vs-rest fits at ε/K once fitted)"
    return PrivacyCost(proven, neighbours=_DIFFPRIVLIB_NEIGHBOURS), note


# -- this package's protocol -----------------------------------------------
def _protocol_cost(estimator, path: str, cls: str) -> PrivacyCost:
    # a meta-estimator prices its own release here; the walker adds its members
    own = getattr(estimator, "own_privacy_cost", None)
    try:
        cost = own() if callable(own) else estimator.privacy_cost()
    except (TypeError, ValueError) as exc:  # e.g. epsilon=0: say which step
        error = ValueError if isinstance(exc, ValueError) else TypeError
        failed = f"{_where(path)}: {cls}.privacy_cost() failed: "
        template = getattr(exc, "settings_template", None)
        if template is None and isinstance(exc, ParameterError):  # it names one setting
            subject = f"The '{exc.parameter}' parameter of {exc.estimator}"
            template = str(exc).replace(subject, f"`{subject}`", 1)
        issue = error(failed + str(exc)) if template is None else naming(error, failed + template)
        raise issue from exc
    if not isinstance(cost, PrivacyCost):
        raise TypeError(
            f"{_where(path)}: {cls}.privacy_cost() must return a PrivacyCost, got "
            f"{type(cost).__name__}."
        )
    return cost


def _stated(estimator, method: str, path: str) -> tuple:
    # third-party protocol objects may predate privacy_leaks() and privacy_assumptions()
    stated = getattr(estimator, method, None)
    return tuple(f"{_where(path)}: {x}" for x in (stated() if callable(stated) else ()))


def _price_protocol(estimator, path: str) -> StepPrice:
    cost = _protocol_cost(estimator, path, type(estimator).__name__)
    leaks = _stated(estimator, "privacy_leaks", path)
    assumptions = _stated(estimator, "privacy_assumptions", path)
    kind = "dp" if cost.epsilon > 0 or cost.delta > 0 else "free"
    return StepPrice(cost, "privacy_cost()", kind, leaks, assumptions)


# -- data-independent transformers -----------------------------------------
# A rule returns (verdict, text): "free" (why), "assume" (what is taken as public,
# unchecked) or "learns" (what it learns).
def _always(note):
    return lambda est, neighbours: ("free", note)


def _function_transformer(est, neighbours):
    given = [name for name in ("func", "inverse_func") if getattr(est, name) is not None]
    if not given:
        return "free", "identity"
    subject = " and ".join(f"`{n}`" for n in given) + (" both map" if len(given) == 2 else " maps")
    text = (
        f"{subject} each record on its own (not checked: a function of the whole X, such "
        "as X − X.mean(0), learns from the data)"
    )
    if len(given) == 2 and est.check_inverse:
        text += (
            "; `inverse_func` inverts `func` on every record (check_inverse=True warns at "
            "fit when it does not on a sample of the records)"
        )
    return "assume", text


def _encoder(est, neighbours):
    if isinstance(est.categories, str):  # 'auto'
        return "learns", "categories='auto' learns the categories present in the data"
    if est.min_frequency is not None or est.max_categories is not None:
        return "learns", "min_frequency/max_categories count category frequencies in the data"
    if est.handle_unknown == "error":
        other = "ignore" if isinstance(est, OneHotEncoder) else "use_encoded_value"
        return "assume", (
            "every value lies in the declared categories: with handle_unknown='error' fit "
            f"raises on any other value, quoting it (use handle_unknown='{other}')"
        )
    return "free", "explicit categories"


def _spline(est, neighbours):
    if isinstance(est.knots, str):
        return "learns", f"knots='{est.knots}' places the knots from the data's range/quantiles"
    return "free", "explicit knots"


def _missing_indicator(est, neighbours):
    if est.features != "all":
        return "learns", "features='missing-only' learns which features have missing values"
    return "free", "features='all'"


def _simple_imputer(est, neighbours):
    if not (isinstance(est.strategy, str) and est.strategy == "constant"):
        return "learns", f"strategy={est.strategy!r} imputes a statistic of the data"
    if est.add_indicator:
        return "learns", "add_indicator=True learns which features have missing values"
    if not est.keep_empty_features:
        return "learns", (
            "keep_empty_features=False: whether a feature is entirely missing decides a "
            "warning at fit (and, from scikit-learn 1.8, whether the feature is dropped)"
        )
    return "free", "strategy='constant', keep_empty_features=True"


def _random_projection(est, neighbours):
    if not isinstance(est.n_components, str):
        return "free", "random matrix from parameters and n_features only"
    if neighbours == "replace":
        return "free", (
            "n_components='auto' derives the dimension from n_samples, public "
            "under replace-one neighbours"
        )
    return "learns", (
        "n_components='auto' derives the dimension from n_samples, which "
        "add/remove neighbours protect"
    )


def _rbf_sampler(est, neighbours):
    if isinstance(est.gamma, str):  # 'scale'
        return "learns", f"gamma={est.gamma!r} sets the kernel width from the variance of X"
    return "free", "random features from gamma, n_components and n_features only"


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
    RBFSampler: _rbf_sampler,
    SkewedChi2Sampler: _always("random features from parameters and n_features only"),
    PolynomialCountSketch: _always("random sketch from parameters and n_features only"),
    AdditiveChi2Sampler: _always("stateless, per record"),
    GaussianRandomProjection: _random_projection,
    SparseRandomProjection: _random_projection,
    FeatureHasher: _always("stateless hashing"),
    HashingVectorizer: _always("stateless hashing"),
    PatchExtractor: _always("stateless, per image"),
}


def _apply_rule(rule, estimator, path: str, cls: str, neighbours: str) -> StepPrice:
    verdict, text = rule(estimator, neighbours)
    if verdict == "free":
        return StepPrice(_zero(neighbours), text, "free")
    if verdict == "assume":
        return StepPrice(
            _zero(neighbours),
            "0 if the assumption listed below the table holds",
            "free",
            assumptions=(f"{_where(path)}: {cls}: {text}",),
        )
    leak = _learner_leak(path, cls, text)
    return StepPrice(PrivacyCost.infinite(neighbours=neighbours), text, "learner", (leak,))


def _declared_stateless(estimator) -> bool:
    # sklearn's tag is not trusted: GaussianProcessRegressor has requires_fit=False
    # yet learns at fit (its stateless classes are in the allow-list)
    if type(estimator).__module__.split(".")[0] == "sklearn":
        return False
    try:
        return get_tags(estimator).requires_fit is False
    except Exception:  # noqa: BLE001 - third-party tags may be broken; then not trusted
        return False


def _tag_rule(est, neighbours):
    return "assume", (
        "declares the scikit-learn tag requires_fit=False, taken to mean that its fit learns "
        "nothing from the data (not checked: the tag only says it can be used unfitted)"
    )


def _learner_leak(path: str, cls: str, why: str = "") -> str:
    why = f" ({why})" if why else ""
    return (
        f"{_where(path)}: {cls} learns from the data without differential privacy"
        f"{why}; its fitted state, and everything fitted or predicted downstream of "
        "it, depends on single records."
    )


def price_step(estimator, path: str, neighbours: str = "replace") -> StepPrice:
    """Price a leaf step (not a Pipeline, union, column transformer or search).

    The cost is stated under ``neighbours``, the relation of the report.
    """
    if estimator is None or (isinstance(estimator, str) and estimator in ("passthrough", "drop")):
        return StepPrice(_zero(neighbours), f"{estimator!s}: does not look at the data", "free")
    check_instance(estimator, _where(path))
    cls = type(estimator).__name__
    if callable(getattr(estimator, "privacy_cost", None)):
        return _restate(_price_protocol(estimator, path), neighbours, path, cls)
    if _is_diffprivlib(estimator) and hasattr(estimator, "epsilon"):
        return _restate(_price_diffprivlib(estimator, path), neighbours, path, cls)
    rule = _DATA_INDEPENDENT.get(type(estimator))
    if rule is not None:
        return _apply_rule(rule, estimator, path, cls, neighbours)
    if hasattr(estimator, "fit") and _declared_stateless(estimator):
        return _apply_rule(_tag_rule, estimator, path, cls, neighbours)
    infinite = PrivacyCost.infinite(neighbours=neighbours)
    if hasattr(estimator, "fit_resample"):
        # the leak text depends on what follows; the walker writes it
        return StepPrice(infinite, "non-private resampling", "sampler")
    if hasattr(estimator, "fit"):
        return StepPrice(infinite, "learns without DP", "learner", (_learner_leak(path, cls),))
    leak = f"{_where(path)}: {cls} is not an estimator the validator can price."
    return StepPrice(infinite, "not an estimator", "learner", (leak,))


def sampler_leak(path: str, cls: str, dp_after: list) -> str:
    """Leak text of a non-private sampler; cites Theorem 3.2 when DP steps follow it."""
    where = _where(path)
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
        f"for a DP over-sampler ({THESIS}, Theorems 3.1–3.3)."
    )
