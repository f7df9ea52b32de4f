"""Running the showcase (``skdp-anomaly demo``): fits, tables, outputs.

On the breast-cancer data, malignant under-sampled to several fractions, the
models of :mod:`._showcase_pipelines` are fitted at each ε over repeated
stratified folds; :func:`run_showcase` prints their privacy reports, a
metrics table and an explanation, and writes ``metrics.json`` and a plot.
"""

from __future__ import annotations

import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from ..exceptions import naming
from ._breast_cancer import MEAN_FEATURES, load_imbalanced
from ._showcase_pipelines import (
    METHOD_LABELS,
    METHODS,
    METRIC_LABELS,
    METRICS,
    SYNOPSES,
    build_pipelines,
    mean_and_se,
    privacy_reports,
    score_pipeline,
)
from ._showcase_plot import plot_showcase

DEFAULT_EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
DEFAULT_RATIOS = (0.10, 0.05)
DEFAULT_REPEATS = 10


# ---------------------------------------------------------------- experiment
def _new_fit_stats(synopsis):
    """Counters of DPSMOTE fits: noise warnings and, for the grid, uniform fits and cells."""
    stats = {"synopsis": synopsis, "fits": 0, "noise_warnings": 0}
    if synopsis == "grid":
        stats.update(uniform=0, cells_per_feature={})
    return stats


def _count_fit(stats, sampler, caught):
    from ..exceptions import DPSMOTENoiseWarning

    stats["fits"] += 1
    stats["noise_warnings"] += any(issubclass(w.category, DPSMOTENoiseWarning) for w in caught)
    if stats["synopsis"] == "grid":
        stats["uniform"] += any("no cell" in str(w.message) for w in caught)
        cells = stats["cells_per_feature"]
        cells[str(sampler.n_cells_)] = cells.get(str(sampler.n_cells_), 0) + 1


def _evaluate(epsilons, ratios, n_repeats, n_folds, seed, file, synopsis="gaussian"):
    from sklearn.model_selection import StratifiedKFold

    results = {
        r: {m: {e: {k: [] for k in METRICS} for e in epsilons} for m in METHODS} for r in ratios
    }
    sizes = {}
    stats = _new_fit_stats(synopsis)
    for ratio in ratios:
        t0 = time.perf_counter()
        for rep in range(n_repeats):
            rng = np.random.default_rng([seed, rep, int(round(ratio * 1e6))])
            X, y = load_imbalanced(ratio, rng)
            sizes[ratio] = (len(y), int(y.sum()))
            fold_seed = int(rng.integers(2**31))
            folds = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=fold_seed)
            for train, test in folds.split(X, y):
                n1 = int(y[train].sum())
                for eps in epsilons:
                    pipe_seed = int(rng.integers(2**31))
                    pipes = build_pipelines(eps, n1, random_state=pipe_seed, synopsis=synopsis)
                    for method, pipe in pipes.items():
                        with warnings.catch_warnings(record=True) as caught:
                            warnings.simplefilter("always")  # recorded, not printed
                            pipe.fit(X[train], y[train])
                            scores = score_pipeline(pipe, X[test], y[test])
                        if method == "dpsmote":
                            _count_fit(stats, pipe.named_steps["resample"], caught)
                        for k, v in scores.items():
                            results[ratio][method][eps][k].append(v)
        n, n1 = sizes[ratio]
        print(
            f"  minority fraction {ratio:.0%}: {n} rows ({n1} malignant), "
            f"{n_repeats} repeats × {n_folds} folds × {len(epsilons)} ε × {len(METHODS)} models "
            f"in {time.perf_counter() - t0:.1f} s",
            file=file,
            flush=True,
        )
    return results, sizes, stats


# -------------------------------------------------------------------- tables
def _print_table(results, ratios, epsilons, file):
    header = "| minority | ε | pipeline | " + " | ".join(METRIC_LABELS[m] for m in METRICS) + " |"
    print("\n" + header, file=file)
    print("|---|---:|:---|" + "---:|" * len(METRICS), file=file)
    for ratio in ratios:
        for eps in epsilons:
            for method in METHODS:
                scores = [mean_and_se(results[ratio][method][eps][m]) for m in METRICS]
                cells = [f"{mean:.2f} ± {se:.2f}" for mean, se in scores]
                row = f"| {ratio:.0%} | {eps:g} | {METHOD_LABELS[method]} | " + " | ".join(cells)
                print(row + " |", file=file)


_SYNOPSIS_WORDS = {
    "gaussian": "the DP mean of the malignant rows",
    "grid": "a noisy grid histogram",
}
_SYNOPSIS_NOISE = {
    "gaussian": (
        "* With a few dozen malignant rows the DP mean is noisy at small ε (Laplace "
        "noise of about d/(ε·n) half-ranges per feature, ε being DPSMOTE's share): "
        "the synthetic rows then mostly tell the classifier *how much* of the rare "
        "class to expect, and at larger ε also *where* it lies. They never reveal a "
        "single patient."
    ),
    "grid": (
        "* With a few dozen malignant rows, most noisy cells are noise: the synthetic rows "
        "mostly tell the classifier *how much* of the rare class to expect, and only at "
        "larger ε *where* it lies. They never reveal a single patient."
    ),
}


def _explain(results, ratios, epsilons, reports, file, synopsis="gaussian"):
    eps_mid = 1.0 if 1.0 in epsilons else epsilons[len(epsilons) // 2]
    ratio = min(ratios)

    def mean(method, metric, eps=eps_mid):
        return mean_and_se(results[ratio][method][eps][metric])[0]

    top = max(epsilons)
    lines = [
        "",
        "What this shows",
        "---------------",
        (
            f"* At {ratio:.0%} malignant and ε = {eps_mid:g}, DPImbalancedClassifier (raw "
            "features, public bounds, one call) finds "
            f"{mean('recommended', 'recall'):.0%} of the malignant cases (ROC-AUC "
            f"{mean('recommended', 'roc_auc'):.2f}, G-mean {mean('recommended', 'g_mean'):.2f}); "
            f"at ε = {top:g}, {mean('recommended', 'recall', top):.0%} (G-mean "
            f"{mean('recommended', 'g_mean', top):.2f}). The non-private class-balanced "
            f"logistic regression finds {mean('balanced_lr', 'recall'):.0%} (ROC-AUC "
            f"{mean('balanced_lr', 'roc_auc'):.2f}, G-mean {mean('balanced_lr', 'g_mean'):.2f}) "
            "and protects no one."
        ),
        (
            f"* DP logistic regression alone, thresholded at 0.5, finds "
            f"{mean('none', 'recall'):.0%}; with DPSMOTE spending half of the same ε on "
            f"synthetic malignant rows, {mean('dpsmote', 'recall'):.0%} (G-mean "
            f"{mean('dpsmote', 'g_mean'):.2f}). DPSMOTE's rows come from "
            f"{_SYNOPSIS_WORDS[synopsis]} only: ε-DP end to end (Lut 2022, Theorem 3.3)."
        ),
        f"* SMOTE + DP-LR scores recall {mean('smote', 'recall'):.0%}, but its ε is not a "
        "real guarantee: SMOTE's rows interpolate single patients, so one record moves many "
        "training rows (Lut 2022, Theorem 3.2)"
        + (" — the privacy report above flags it as a leak." if reports.get("smote") else "."),
        _SYNOPSIS_NOISE[synopsis],
        (
            "* Scores are noisy at small ε and tiny minorities (± and the shaded bands are "
            "standard errors); the public feature bounds and data_norm are what make every ε "
            "above hold."
        ),
    ]
    print("\n".join(lines), file=file)


def _print_fit_stats(stats, file):
    fits = stats["fits"]
    if stats["synopsis"] == "gaussian":
        print(
            f"  DPSMOTE synopsis: the DP mean of the malignant rows, synthetic rows drawn "
            f"around it; fits warned that noise dominates the mean: "
            f"{stats['noise_warnings']}/{fits}",
            file=file,
        )
        return
    print(
        f"  DPSMOTE fits whose noisy histogram had no positive cell (synthetic rows then "
        f"drawn uniformly over the bounds, still ε-DP): {stats['uniform']}/{fits}",
        file=file,
    )
    counts = sorted(stats["cells_per_feature"].items())
    cells = ", ".join(f"{m} per feature: {n} fits" for m, n in counts)
    print(
        f"  DPSMOTE grid chosen by granularity='auto' from the DP minority size: {cells}; "
        f"fits warned that noise dominates the grid: {stats['noise_warnings']}/{fits}",
        file=file,
    )


# ------------------------------------------------------------------- outputs
def _write_metrics(path, results, sizes, stats, reports, eps_report, settings):
    payload = {
        **settings,
        "sizes": {f"{r:g}": {"n": n, "n_minority": n1} for r, (n, n1) in sizes.items()},
        "privacy_reports": {"epsilon": eps_report, **reports},
        "dpsmote_fits": stats,
        "metrics": {
            f"{r:g}": {
                m: {
                    f"{e:g}": {k: mean_and_se(v)[0] for k, v in res.items()}
                    for e, res in by_eps.items()
                }
                for m, by_eps in by_method.items()
            }
            for r, by_method in results.items()
        },
    }
    path.write_text(json.dumps(payload, indent=2) + "\n")


def _write_plot(results, path, file) -> bool:
    try:
        import matplotlib  # noqa: F401  (the package itself, not a cached submodule)
        from matplotlib.figure import Figure  # no pyplot: draws without a display
    except ImportError:
        print(
            "\nmatplotlib is not installed: skipping the plot. Install it with "
            '`pip install "skdp-anomaly[demo]"` (or `pip install matplotlib`).',
            file=file,
        )
        return False
    figure = plot_showcase(results, figure=Figure())
    figure.savefig(path, dpi=110)
    return True


def _check_settings(epsilons, ratios, n_repeats, n_folds, synopsis):
    if not epsilons or any(not (math.isfinite(e) and e > 0) for e in epsilons):
        raise ValueError(f"epsilons must be positive finite numbers, got {epsilons!r}.")
    if not ratios or any(not 0 < r < 0.5 for r in ratios):
        raise ValueError(f"ratios must be minority fractions in (0, 0.5), got {ratios!r}.")
    if int(n_repeats) < 1:
        raise ValueError(f"n_repeats must be >= 1, got {n_repeats!r}.")
    if int(n_folds) < 2:
        raise ValueError(f"n_folds must be >= 2, got {n_folds!r}.")
    if synopsis not in SYNOPSES:
        raise naming(ValueError, f"`synopsis` must be one of {SYNOPSES}, got {synopsis!r}.")


def run_showcase(
    output_dir,
    epsilons=DEFAULT_EPSILONS,
    ratios=DEFAULT_RATIOS,
    n_repeats: int = DEFAULT_REPEATS,
    n_folds: int = 3,
    random_state: int = 0,
    plot: bool = True,
    file=None,
    synopsis: str = "gaussian",
) -> dict:
    """Run the over-sampling showcase into ``output_dir`` (created if missing): ``metrics.json``
    and, with ``plot`` (needs matplotlib), ``dpsmote_demo.png``.

    Each pipeline is fitted at each total budget of ``epsilons`` on ``n_repeats`` under-samplings
    of the malignant class to each fraction of ``ratios``, with ``n_folds``-fold cross-validation;
    ``random_state`` seeds the demo (a deployment uses None), ``synopsis`` is DPSMOTE's, ``file``
    the stream printed to (None: standard output). Returns the metrics
    (``results[ratio][method][epsilon][metric]`` lists), the privacy reports, the paths written and
    the data sizes; raises ValueError for a setting out of range.
    """
    epsilons = tuple(sorted(float(e) for e in epsilons))
    ratios = tuple(float(r) for r in ratios)
    _check_settings(epsilons, ratios, n_repeats, n_folds, synopsis)
    file = sys.stdout if file is None else file
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    print(
        "skdp-anomaly demo: a private classifier for a rare label (DPImbalancedClassifier) "
        "beside the non-private class-balanced model, and private over-sampling (DP-SMOTE "
        f"after Lut 2022, ch. 3; synopsis: {_SYNOPSIS_WORDS[synopsis]})",
        file=file,
    )
    print(
        f"Data: sklearn breast cancer, malignant = rare class, under-sampled to "
        f"{', '.join(f'{r:.0%}' for r in ratios)}; the {len(MEAN_FEATURES)} 'mean' features "
        "scaled to [-1, 1] with public bounds that follow from the definitions of the "
        "measurements (not from the data).",
        file=file,
    )
    print(
        "Neighbouring datasets have the same size and differ in one patient's record "
        "(replace-one, n public: the relation the private logistic regression holds "
        "under). DPImbalancedClassifier and the 'none' and 'dpsmote' pipelines are pure "
        "ε-DP for that record at the ε shown; the 'smote' pipeline only claims it, and the "
        "class-balanced logistic regression is not private.",
        file=file,
    )

    eps_report = 1.0 if 1.0 in epsilons else epsilons[0]
    print(
        f"\n1) Privacy report of each pipeline at ε = {eps_report:g} "
        "(from parameters, before fitting):",
        file=file,
    )
    reports = privacy_reports(eps_report, file=file, synopsis=synopsis)

    print(
        f"\n2) Fitting {len(METHODS)} models × {len(epsilons)} ε × {len(ratios)} fractions "
        f"× {n_repeats} repeats × {n_folds} folds ...",
        file=file,
        flush=True,
    )
    from threadpoolctl import threadpool_limits  # a scikit-learn dependency

    # the matrices are tiny: one BLAS thread avoids oversubscription on busy machines
    with threadpool_limits(limits=1):
        results, sizes, stats = _evaluate(
            epsilons, ratios, int(n_repeats), int(n_folds), random_state, file, synopsis
        )
    _print_fit_stats(stats, file)

    print(
        "\n3) Test-set metrics (mean ± standard error over repeats × folds; each "
        "model's own predict: threshold 0.5, the model's own DP base rate for "
        "DPImbalancedClassifier):",
        file=file,
    )
    _print_table(results, ratios, epsilons, file)

    paths = {"metrics": str(out / "metrics.json")}
    settings = {
        "epsilons": list(epsilons),
        "ratios": list(ratios),
        "n_repeats": int(n_repeats),
        "n_folds": int(n_folds),
        "random_state": random_state,
    }
    _write_metrics(out / "metrics.json", results, sizes, stats, reports, eps_report, settings)
    if plot and _write_plot(results, out / "dpsmote_demo.png", file):
        paths["plot"] = str(out / "dpsmote_demo.png")
    print("\nWrote " + ", ".join(paths.values()), file=file)
    _explain(results, ratios, epsilons, reports, file, synopsis)
    print(f"\n(done in {time.perf_counter() - t0:.1f} s)", file=file)
    return {"results": results, "privacy_reports": reports, "paths": paths, "sizes": sizes}
