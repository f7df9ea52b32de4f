"""The methods of ``bench_dpsmote_baselines.py`` and the folds of one (set, ε).

:func:`build` returns the estimator of a method (A: dpLR(ε); B: dpLR(0.95 ε)
+ a noisy class prior; P and auto: the model ``DPImbalancedClassifier``
fits, with the benchmark's seeds; P½ and T: the thesis' grid DPSMOTE; the
``--variants`` probes), :func:`check_totals` prices each with
``check_privacy_budget`` before any fit, and :func:`run_cell` fits every method
on every fold of ``RepeatedStratifiedKFold(5, n_repeats, random_state=0)``,
each fold's dpLRs seeded alike (common random numbers). Data and constants:
:mod:`_dpsmote_baselines_data`.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
from _dpsmote_baselines_data import METHODS, TOTAL_FACTOR, VARIANTS, scale_fold


# -- the methods -------------------------------------------------------------------------
def dp_lr_settings(epsilon: float, d: int, c_mode: str) -> tuple[float, float]:
    """``(epsilon parameter, C)`` of diffprivlib's dpLR for a proven ``epsilon``.

    diffprivlib's objective perturbation (Chaudhuri, Monteleoni and Sarwate
    2011, Algorithm 2) keeps ``ε' = ε − 2 log(1 + data_norm·C/4)`` for the
    noise when that is positive, and otherwise ε/2 with extra regularisation;
    the proof charges ``log(1 + data_norm²·C/4)`` for the Jacobian, more than
    diffprivlib's term when ``data_norm = √d > 2``. "auto" is the rule
    ``DPImbalancedClassifier`` applies (``diffprivlib_logistic_settings``:
    both terms at most ε/2, the ``epsilon`` parameter lowered by what
    diffprivlib under-charges), which also avoids the dead zone of ``C = 1``
    (ε just above ``2 log(1 + √d/4)`` leaves ε' near 0). "1" keeps
    diffprivlib's default ``C = 1`` and lowers the ``epsilon`` parameter
    until the proven price is ``epsilon``. Functions of the public ε and d
    only: they cost no privacy.
    """
    from skdp_anomaly.privacy._diffprivlib import (
        diffprivlib_logistic_epsilon,
        diffprivlib_logistic_settings,
    )

    norm = math.sqrt(d)
    if c_mode != "1":
        return diffprivlib_logistic_settings(epsilon, norm, fit_intercept=False)
    charged, jacobian = 2.0 * math.log1p(norm / 4), math.log1p(norm * norm / 4)
    if epsilon > jacobian:  # diffprivlib's noise branch: proven = parameter − charged + jacobian
        return min(epsilon, epsilon - jacobian + charged), 1.0
    lo, hi = 0.0, min(epsilon, charged)  # its regularised branch: proven increases with it
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if diffprivlib_logistic_epsilon(mid, norm, 1.0, fit_intercept=False) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo, 1.0


def dp_lr(epsilon, d, seed, cfg):
    """The classifier of every method at a proven ``epsilon`` (replace-one neighbours).

    "private" (default): the package's ``PrivateLogisticRegression`` with its
    defaults (``C="auto"``, ``clip_norm="auto"``, an intercept) and
    ``data_norm = √d``, the classifier ``DPImbalancedClassifier`` builds by
    default. "diffprivlib": diffprivlib's ``LogisticRegression`` with the
    settings of :func:`dp_lr_settings`.
    """
    if cfg["classifier"] == "private":
        from skdp_anomaly import PrivateLogisticRegression

        return PrivateLogisticRegression(epsilon=epsilon, data_norm=math.sqrt(d), random_state=seed)
    from diffprivlib.models import LogisticRegression

    param, C = dp_lr_settings(epsilon, d, cfg["c_mode"])
    # fit_intercept=False: diffprivlib's unpenalised intercept is not DP (the budget
    # check below reports it as a leak)
    return LogisticRegression(
        epsilon=param,
        data_norm=math.sqrt(d),
        max_iter=cfg["max_iter"],
        C=C,
        random_state=seed,
        fit_intercept=False,
    )


def build(method: str, epsilon: float, d: int, seed: int, cfg: dict, n: int = 1000):
    """The estimator of ``method`` at total ``epsilon`` (replace-one; T: 1.5 ε), n training rows."""
    from imblearn.pipeline import Pipeline

    from skdp_anomaly import DPSMOTE, NoisyPriorThresholdClassifier

    bounds = ([-1.0] * d, [1.0] * d)
    if method == "A":
        return dp_lr(epsilon, d, seed, cfg)
    if method == "B":
        return NoisyPriorThresholdClassifier(
            dp_lr(0.95 * epsilon, d, seed, cfg), epsilon=0.025 * epsilon, random_state=seed + 1
        )
    if method in ("P", "auto"):
        # the model DPImbalancedClassifier fits on d features scaled to [-1, 1]^d (its
        # BoundsScaler is then the identity), built by the class itself, with the
        # benchmark's seeds: every dpLR of a fold draws its noise from the same seed
        # (common random numbers), so paired differences between methods show less
        # seed noise; auto gets P's or B's seeds and equals the method it picks
        clf = imbalanced_classifier(method, epsilon, cfg)
        strategy = clf._strategy_for(d, n)
        s_smote = int(np.random.default_rng(seed).integers(0, 2**31 - 1, size=2)[0])
        model = clf._build(strategy, d, (s_smote, seed, seed + 1))
        inner = model.named_steps["classifier"]
        if strategy == "oversample":
            return model.set_params(
                **_same_classifier(inner, dp_lr(epsilon / 2, d, seed, cfg), "classifier__", cfg)
            )
        from skdp_anomaly.imbalanced._strategy import PRIOR_SHARE

        assert math.isclose(inner.epsilon, PRIOR_SHARE * epsilon, rel_tol=1e-12)
        return model.set_params(
            **_same_classifier(
                inner.estimator,
                dp_lr((1 - PRIOR_SHARE) * epsilon, d, seed, cfg),
                "classifier__estimator__",
                cfg,
            )
        )
    if method in VARIANTS:  # probes of P's split, spread and ratio (not the package default)
        v = {"share": 0.25, **VARIANTS[method]}
        share = v.pop("share")
        # P's seeds (DPSMOTE: the child seed build() gives P's), so that a
        # probe differs from P by its parameter only, not by its noise draws
        s_smote = int(np.random.default_rng(seed).integers(0, 2**31 - 1, size=2)[0])
        sampler = DPSMOTE(epsilon=share * epsilon, bounds=bounds, random_state=s_smote, **v)
        return Pipeline(
            [("dpsmote", sampler), ("classifier", dp_lr((1 - 2 * share) * epsilon, d, seed, cfg))]
        )
    if method not in ("P½", "T"):  # never fall through to the thesis' 1.5 ε by a typo
        raise ValueError(f"unknown method {method!r}: one of {METHODS} or {tuple(VARIANTS)}")
    smote_eps = epsilon / 4 if method == "P½" else epsilon / 2
    sampler = DPSMOTE(
        epsilon=smote_eps, bounds=bounds, synopsis="grid", granularity=0.25, random_state=seed + 2
    )
    return Pipeline([("dpsmote", sampler), ("classifier", dp_lr(epsilon / 2, d, seed, cfg))])


def imbalanced_classifier(method: str, epsilon: float, cfg: dict):
    """``DPImbalancedClassifier`` on the public box [-1, 1]: forced to oversample (P), or auto."""
    from skdp_anomaly import DPImbalancedClassifier

    prototype = None  # the package's default, PrivateLogisticRegression
    if cfg["classifier"] != "private":
        from diffprivlib.models import LogisticRegression

        # data_norm is filled in (√d), and epsilon and C = 1 are replaced by the package's
        # proven settings, i.e. dp_lr_settings(share, d, "auto")
        prototype = LogisticRegression(max_iter=cfg["max_iter"], fit_intercept=False)
    return DPImbalancedClassifier(
        prototype,
        epsilon=epsilon,
        bounds=(-1.0, 1.0),
        strategy="oversample" if method == "P" else "auto",
    )


def _same_classifier(built, expected, prefix, cfg):
    """Parameters that make the recipe's classifier ``built`` the benchmark's ``expected``.

    Asserts that the recipe configured it as ``dp_lr`` does (its rule, checked),
    except for C = 1 (``--dplr-C 1``), which overrides the recipe's C.
    """
    keys = ("epsilon", "data_norm", "C", "clip_norm", "fit_intercept")
    got, want = built.get_params(deep=False), expected.get_params(deep=False)
    assert type(built) is type(expected), (type(built), type(expected))
    if cfg["c_mode"] == "auto":
        for k in keys:
            if k in want:
                a, b = got[k], want[k]
                assert math.isclose(a, b, rel_tol=1e-12) if isinstance(b, float) else a == b, (
                    k,
                    a,
                    b,
                )
    out = {prefix + "random_state": want["random_state"]}
    if cfg["c_mode"] != "auto":
        out.update({prefix + "epsilon": want["epsilon"], prefix + "C": want["C"]})
    return out


def check_totals(epsilon: float, d: int, methods, cfg: dict) -> dict:
    """Assert each method's total with the package's budget validator (before any fit)."""
    from skdp_anomaly import check_privacy_budget

    totals = {}
    for method in methods:
        est = build(method, epsilon, d, 0, cfg)
        want = TOTAL_FACTOR.get(method, 1.0) * epsilon
        report = check_privacy_budget(est, want)
        assert math.isclose(report.cost.epsilon, want, rel_tol=1e-9), (method, report.cost)
        assert report.cost.delta == 0 and not report.leaks, (method, report)
        if want > epsilon:  # the literal thesis split must fail a budget of ε
            from skdp_anomaly import PrivacyBudgetError

            try:
                check_privacy_budget(est, epsilon)
            except PrivacyBudgetError:
                pass
            else:
                raise AssertionError(f"{method} should exceed a budget of {epsilon}")
        if method in ("P", "auto"):  # the class itself, unfitted, prices the same total
            whole = check_privacy_budget(imbalanced_classifier(method, epsilon, cfg), epsilon)
            assert math.isclose(whole.cost.epsilon, epsilon, rel_tol=1e-9), whole.cost
        totals[method] = report.cost.epsilon
    return totals


def run_cell(name, X, y, epsilon, methods, n_repeats, cfg, set_index):
    """All folds of one (set, ε): per method, per-fold ROC-AUC, G-mean, seconds, warnings."""
    from imblearn.metrics import geometric_mean_score
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import RepeatedStratifiedKFold

    from skdp_anomaly.exceptions import DPSMOTENoiseWarning

    d = X.shape[1]
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=n_repeats, random_state=0)
    out = {
        m: {"auc": [], "gmean": [], "seconds": [], "noise_warnings": 0, "error": None}
        for m in methods
    }
    for fold, (train, test) in enumerate(cv.split(X, y)):
        X_train, X_test = scale_fold(X[train], X[test])
        seed = 100_000 * set_index + 1_000 * fold + round(10 * epsilon)
        for m in methods:
            rec = out[m]
            if rec["error"] is not None:
                continue
            est = build(m, epsilon, d, seed, cfg, len(train))
            t0 = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    est.fit(X_train, y[train])
                except (OverflowError, ValueError, MemoryError) as exc:
                    rec["error"] = f"{type(exc).__name__}: {exc}"
                    continue
                proba = est.predict_proba(X_test)[:, 1]
                pred = est.predict(X_test)
            rec["seconds"].append(time.perf_counter() - t0)
            rec["noise_warnings"] += sum(
                issubclass(w.category, DPSMOTENoiseWarning) for w in caught
            )
            rec["auc"].append(roc_auc_score(y[test], proba))
            rec["gmean"].append(geometric_mean_score(y[test], pred))
    return name, epsilon, out
