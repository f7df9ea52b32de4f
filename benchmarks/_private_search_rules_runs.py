"""Data, candidates and runs of ``bench_private_search_rules.py`` (the work, no tables).

Candidates: ``PrivateLogisticRegression(epsilon=ε_c, data_norm=1, C=C)``,
C ∈ {0.01, 0.1, 1, 10, "auto"}. Data (:func:`load`; rows projected into the
unit ball with a public slice's statistics, ``_common.to_unit_ball``):

* synth: ``make_classification(6500, 10, n_informative=5, n_redundant=2,
  n_clusters_per_class=1, flip_y=0.05, random_state=0)``; 500 public rows
  (scaling only), 4 000 private rows, 2 000 test rows;
* cancer: scikit-learn's breast cancer set (569 × 30), shuffled with a fixed
  seed; 69 public rows, 400 private rows, 100 test rows.

:func:`reference_cell` computes one row of the true-CV-score table,
:func:`run_target` the timed target section (section 1) and
:func:`run_equal_total` one chunk of an equal-total cell (section 2); the
seeds of every run come from ``SeedSequence`` of the run's index, so a run
is deterministic whatever ``--jobs``. Tables: ``_private_search_rules_report.py``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import to_unit_ball  # noqa: E402
from sklearn.datasets import load_breast_cancer, make_classification  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold  # noqa: E402

from skdp_anomaly import PrivateLogisticRegression, check_privacy_budget  # noqa: E402
from skdp_anomaly.model_selection import PrivateGridSearchCV  # noqa: E402

NAME = "bench_private_search_rules"
GRID = (0.01, 0.1, 1.0, 10.0, "auto")
N_FOLDS = 5  # KFold(5): a record is in N_FOLDS - 1 training parts
TOLERANCE = 0.03  # "within 0.03" of the best true CV score
TARGET_FRACTION = 0.80
TARGET_TIME_RATIO = 1.2
SELECTION_EPSILON = 1.0  # the target's selection ε
TARGET_EPS_C = (0.5, 1.0)  # η = 1 (Liu–Talwar) and η = 0
TOTALS = (2.0, 5.0, 10.0)
DATASETS = ("synth", "cancer")
REF_SEEDS = {"synth": 10, "cancer": 20}
# runs per target ε_c and per equal-total cell: 100 and 50 (200 and 100 before the port) keep a
# reference run near 25 minutes on a shared 2-core machine
RUNS, EQUAL_RUNS = 100, 50
RULES = ("repeated", "holdout-noisy-max", "cv-noisy-max")
# equal total ε: (label, selection, refit, ε_c = T / divisor, selection ε = factor · ε_c)
EQUAL_TOTAL = (
    ("repeated (winner released)", "repeated", False, 3, 2.0),
    ("repeated + refit", "repeated", True, 4, 2.0),
    ("holdout-noisy-max", "holdout-noisy-max", False, len(GRID) + 1, 1.0),
    ("cv-noisy-max", "cv-noisy-max", False, (N_FOLDS - 1) * len(GRID) + 1, 1.0),
)
ANCHOR = "GridSearchCV"
NO_SEARCH = 'no search, C="auto" (ε = T)'


def c_label(C) -> str:
    return C if isinstance(C, str) else f"{C:g}"


CHOSEN_HEADER = "C = " + " / ".join(c_label(C) for C in GRID) + " chosen"


# ------------------------------------------------------------------ data
def load(name: str):
    """``X_private, y_private, X_test, y_test``, every row in the unit ball."""
    if name == "synth":
        X, y = make_classification(
            n_samples=6500,
            n_features=10,
            n_informative=5,
            n_redundant=2,
            n_clusters_per_class=1,
            flip_y=0.05,
            random_state=0,
        )
        pub, Xp, yp, Xt, yt = X[:500], X[500:4500], y[500:4500], X[4500:], y[4500:]
    else:
        X, y = load_breast_cancer(return_X_y=True)
        p = np.random.default_rng(12345).permutation(len(y))
        X, y = X[p], y[p]
        pub, Xp, yp, Xt, yt = X[:69], X[69:469], y[69:469], X[469:], y[469:]
    return to_unit_ball(Xp, pub), yp, to_unit_ball(Xt, pub), yt


def eps_key(eps: float) -> str:
    return repr(round(float(eps), 10))


def lr(eps: float, C=1.0, random_state=0) -> PrivateLogisticRegression:
    return PrivateLogisticRegression(
        epsilon=float(eps), data_norm=1.0, C=C, random_state=random_state
    )


class SharedStream(np.random.RandomState):
    """A seeded ``RandomState`` that ``clone`` (a deep copy) passes on as itself.

    Benchmark-only: every clone of the anchor's candidate draws its fit's seed
    from this one stream, so each fit inside ``GridSearchCV`` gets fresh,
    reproducible noise.
    """

    def __deepcopy__(self, memo):
        return self


def _setup() -> None:
    """Silence warnings (the scripts' tables carry what matters)."""
    warnings.filterwarnings("ignore")


# ------------------------------------------------------------------ reference
def reference_cell(data: str, eps: float, n_seeds: int):
    """True CV score of every C at ``eps``: mean 5-fold CV accuracy over ``n_seeds`` seeds."""
    _setup()
    cpu0 = time.process_time()
    X, y, _, _ = load(data)
    eps = round(float(eps), 10)
    rng = np.random.default_rng(int(eps * 1e6))
    singles = []
    for C in GRID:
        accs = []
        for s in range(n_seeds):
            for train, test in KFold(N_FOLDS, shuffle=True, random_state=s).split(X):
                model = lr(eps, C, int(rng.integers(2**31 - 1))).fit(X[train], y[train])
                accs.append(float(np.mean(model.predict(X[test]) == y[test])))
        singles.append(np.asarray(accs))
    row = [float(a.mean()) for a in singles]
    # the spread of single fits: a best-of-K choice over noisy fits favours wide candidates
    spread = {
        "sd": [float(a.std(ddof=1)) for a in singles],
        "p10": [float(np.percentile(a, 10)) for a in singles],
        "p90": [float(np.percentile(a, 90)) for a in singles],
        "share_above_best_mean": [float(np.mean(a > max(row))) for a in singles],
    }
    return data, eps_key(eps), row, time.process_time() - cpu0, spread


def within(table: dict, eps: float, chosen: int, against: int | None = None) -> bool:
    """Chosen C's true score ≥ (best C's, or ``against``'s, true score) − 0.03."""
    row = table[eps_key(eps)]
    ref = max(row) if against is None else row[against]
    return row[chosen] >= ref - TOLERANCE - 1e-12


def regret(table: dict, eps: float, chosen: int) -> float:
    row = table[eps_key(eps)]
    return max(row) - row[chosen]


# ------------------------------------------------------------------ searches
def private_search(eps_c: float, selection: str, sel_eps: float, refit: bool, seed: int):
    """The candidates' int random_state is replaced fit by fit from the search's stream."""
    return PrivateGridSearchCV(
        lr(eps_c),
        {"C": list(GRID)},
        epsilon=sel_eps,
        selection=selection,
        refit=refit,
        random_state=seed,
    )


def anchor_search(eps_c: float, noise_seed: int):
    return GridSearchCV(
        lr(eps_c, random_state=SharedStream(noise_seed)), {"C": list(GRID)}, cv=KFold(N_FOLDS)
    )


def timed_fit(search, X, y):
    t0 = time.perf_counter()
    search.fit(X, y)
    return time.perf_counter() - t0


def budget_row(search) -> dict:
    report = check_privacy_budget(search, on_leak="ignore")
    return {
        "epsilon": float(report.epsilon),
        "delta": float(report.delta),
        "notion": report.notion,
        "leaks": list(report.leaks),
        "is_private": bool(report.is_private),
    }


# ------------------------------------------------------------------ section 1
def target_configs(eps_c: float):
    """(name, factory(seed)) in the order of the first run; rotated run by run."""
    configs = [(ANCHOR, lambda seed, noise: anchor_search(eps_c, noise))]
    for rule in RULES:
        configs.append(
            (
                f"{rule}, refit=True",
                lambda seed, noise, r=rule: private_search(eps_c, r, SELECTION_EPSILON, True, seed),
            )
        )
    configs.append(
        (
            "repeated, refit=False",
            lambda seed, noise: private_search(eps_c, "repeated", SELECTION_EPSILON, False, seed),
        )
    )
    return configs


def run_target(eps_c: float, n_runs: int, data):
    X, y, Xt, yt = data
    configs = target_configs(eps_c)
    records = {name: {"choice": [], "test": [], "time": [], "spent": []} for name, _ in configs}
    for r in range(n_runs):
        seeds = np.random.SeedSequence([1, int(eps_c * 1000), r]).generate_state(2)
        search_seed, noise_seed = int(seeds[0]), int(seeds[1])
        shift = r % len(configs)
        for name, factory in configs[shift:] + configs[:shift]:
            search = factory(search_seed, noise_seed)
            dt = timed_fit(search, X, y)
            rec = records[name]
            rec["choice"].append(GRID.index(search.best_params_["C"]))
            rec["test"].append(float(search.score(Xt, yt)))
            rec["time"].append(dt)
            if name != ANCHOR:
                rec["spent"].append(float(search.privacy_spent_.epsilon))
        if (r + 1) % 25 == 0:
            print(f"  target ε_c={eps_c:g}: {r + 1}/{n_runs} runs", file=sys.stderr, flush=True)
    budgets = {name: budget_row(factory(0, 0)) for name, factory in configs}
    return records, budgets


# ------------------------------------------------------------------ section 2
def equal_total_configs(total: float):
    """(label, ε of the final model, factory(seed, noise seed)) for every rule, the single fit
    without a search, then the anchor."""
    out = []
    for label, selection, refit, divisor, factor in EQUAL_TOTAL:
        eps_c = total / divisor
        out.append(
            (
                label,
                eps_c,
                lambda seed, noise, s=selection, r=refit, e=eps_c, f=factor: private_search(
                    e, s, f * e, r, seed
                ),
            )
        )
    out.append((NO_SEARCH, total, lambda seed, noise: lr(total, "auto", noise)))
    out.append((f"{ANCHOR} (ε = T)", total, lambda seed, noise: anchor_search(total, noise)))
    return out


def _choice(model) -> int:
    """Index in GRID of the C a search chose (``"auto"`` for the single fit)."""
    params = getattr(model, "best_params_", None)
    return GRID.index(params["C"] if params is not None else model.C)


def run_equal_total(data_name: str, total: float, runs: range):
    """One chunk of runs of one (data, T) cell (a worker task)."""
    _setup()
    cpu0 = time.process_time()
    X, y, Xt, yt = load(data_name)
    configs = equal_total_configs(total)
    out = {label: {"choice": [], "test": [], "time": []} for label, _, _ in configs}
    for r in runs:
        seeds = np.random.SeedSequence([2, DATASETS.index(data_name), int(total * 10), r])
        search_seed, noise_seed = (int(s) for s in seeds.generate_state(2))
        shift = r % len(configs)
        for label, _, factory in configs[shift:] + configs[:shift]:
            search = factory(search_seed, noise_seed)
            dt = timed_fit(search, X, y)
            out[label]["choice"].append(_choice(search))
            out[label]["test"].append(float(search.score(Xt, yt)))
            out[label]["time"].append(dt)
    return data_name, total, out, time.process_time() - cpu0


def check_equal_totals(totals) -> dict:
    """The priced total of every rule (and of the single fit), asserted equal to T."""
    priced = {}
    for total in totals:
        for label, _, factory in equal_total_configs(total)[:-1]:
            b = budget_row(factory(0, 0))
            if b["leaks"] or abs(b["epsilon"] - total) > 1e-9:
                raise AssertionError(f"{label} at T={total}: priced {b}")
            priced[f"{total:g}/{label}"] = b["epsilon"]
    return priced
