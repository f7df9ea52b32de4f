"""The runs of ``bench_online_svc_paper.py``: one stream order, the budget runs, tuning.

:func:`run_curve` streams the training rows once in a given order and records
(labels requested, test error of the last iterate and of ``average=True``) at
each checkpoint; :func:`run_budget` streams FLMB-Bernoulli until exactly a
label budget (Figure 4); :func:`_one_order` runs every method of ``MAIN`` and
every batch size on one order (orders and estimator seeds from
``default_rng([seed, r])``); :func:`tune` chooses η/λ (and LinearSVC's C) on a
fixed 75/25 inner split of the training set. Data: ``_online_svc_paper_data.py``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import parallel_map  # noqa: E402
from _online_svc_paper_data import (  # noqa: E402
    BATCH_SIZES,
    C_GRID,
    EPSILON,
    ETA_FACTORS,
    LAMBDA_GRID,
    MAIN,
    NO_AVERAGE,
)
from sklearn.svm import LinearSVC  # noqa: E402

from skdp_anomaly import PrivateOnlineActiveSVC  # noqa: E402


def _estimator(params: dict, eta_factor: float, lam: float, seed: int, average=False):
    p = dict(params)
    eps = p.pop("epsilon", EPSILON)
    # the paper's updates and setting, pinned: the estimator's defaults are ftrl with an intercept
    update = p.pop("update")
    assert update in ("flmb", "flsw"), update
    return PrivateOnlineActiveSVC(
        epsilon=eps,
        update=update,
        fit_intercept=False,
        batch_size=p.pop("batch_size", 5),
        alpha=lam,
        eta0=eta_factor / lam,
        average=average,
        random_state=seed,
        **p,
    )


def _error(est, X, y):
    return float(np.mean(est.predict(X) != y))


def run_curve(params, data, order, seed, eta_factor, lam, checkpoints, with_average):
    """One pass in ``order``; (rows, labels, error, error_avg) at each checkpoint."""
    X, y = data["X_train"][order], data["y_train"][order]
    last = _estimator(params, eta_factor, lam, seed)
    avg = _estimator(params, eta_factor, lam, seed, average=True) if with_average else None
    labels, err, err_avg, start = [], [], [], 0
    for stop in checkpoints:
        for est in (last, avg):
            if est is not None:
                est.partial_fit(X[start:stop], y[start:stop], classes=data["classes"])
        start = stop
        labels.append(last.n_labels_requested_)
        err.append(_error(last, data["X_test"], data["y_test"]))
        err_avg.append(_error(avg, data["X_test"], data["y_test"]) if avg is not None else math.nan)
    if avg is not None:  # post-processing only: the same selections and noise
        assert avg.n_labels_requested_ == last.n_labels_requested_
    return np.array(labels), np.array(err), np.array(err_avg)


def _labels(est) -> int:
    return getattr(est, "n_labels_requested_", 0)


def run_budget(batch, data, order, seed, eta_factor, lam, budget):
    """FLMB-Bernoulli until exactly ``budget`` labels (each row adds ≤ 1 label)."""
    X, y = data["X_train"][order], data["y_train"][order]
    ests = [
        _estimator(
            dict(update="flmb", selection="bernoulli", batch_size=batch),
            eta_factor,
            lam,
            seed,
            average=a,
        )
        for a in (False, True)
    ]
    start = 0
    while _labels(ests[0]) < budget and start < len(y):
        stop = start + budget - _labels(ests[0])
        for est in ests:
            est.partial_fit(X[start:stop], y[start:stop], classes=data["classes"])
        start = stop
    if _labels(ests[0]) < budget:
        return math.nan, math.nan
    return tuple(_error(e, data["X_test"], data["y_test"]) for e in ests)


def _one_order(data, r, seed0, eta_factor, lam, checkpoints, budget):
    order = np.random.default_rng([seed0, r]).permutation(len(data["y_train"]))
    seed = int(np.random.default_rng([seed0, r, 1]).integers(2**31))
    curves = {
        name: run_curve(
            params, data, order, seed, eta_factor, lam, checkpoints, name not in NO_AVERAGE
        )
        for name, params in MAIN.items()
    }
    batches = {b: run_budget(b, data, order, seed, eta_factor, lam, budget) for b in BATCH_SIZES}
    return curves, batches


def tune(data, orders, seed0, jobs):
    """(η factor, λ, C) on a fixed 75/25 inner split of the training set."""
    n = len(data["y_train"])
    idx = np.random.default_rng([seed0, 99]).permutation(n)
    fit, val = idx[: int(0.75 * n)], idx[int(0.75 * n) :]
    inner = dict(
        data,
        X_train=data["X_train"][fit],
        y_train=data["y_train"][fit],
        X_test=data["X_train"][val],
        y_test=data["y_train"][val],
    )
    params = dict(update="flmb", selection="bernoulli")

    def score(lam, f):
        errs = []
        for r in range(orders):
            order = np.random.default_rng([seed0, 7, r]).permutation(len(fit))
            _, e, _ = run_curve(params, inner, order, 10_000 + r, f, lam, [len(fit)], False)
            errs.append(e[-1])
        return float(np.mean(errs))

    grid = [(lam, f) for lam in LAMBDA_GRID for f in ETA_FACTORS]
    scores = parallel_map(jobs, lambda g: score(*g), grid)
    table = {f"λ={lam:g}, η={f:g}/λ": s for (lam, f), s in zip(grid, scores)}
    lam, f = grid[int(np.argmin(scores))]
    c_err = {
        C: float(
            np.mean(
                LinearSVC(C=C, fit_intercept=False)
                .fit(inner["X_train"], inner["y_train"])
                .predict(inner["X_test"])
                != inner["y_test"]
            )
        )
        for C in C_GRID
    }
    C = min(C_GRID, key=lambda c: (c_err[c], abs(math.log10(c))))  # ties: closest to C = 1
    return f, lam, C, table, c_err
