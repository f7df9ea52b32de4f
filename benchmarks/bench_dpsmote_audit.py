"""Empirical privacy audit of DPSMOTE's release (phase 1): histogram + class sizes + row count.

Neighbouring datasets: ``D`` and ``D' = D + one minority record`` (add/remove
one record, the relation DPSMOTE's Notes name). The added record lands in a
fixed cell ``c`` that already holds ``k`` minority rows of ``D``, so on ``D'``
cell ``c``, the minority class size and hence the number of synthetic rows
all move by one.

Everything DPSMOTE's output depends on besides the original rows is audited
at once with ``release_synopsis_batch`` (``tests/audit_scenarios/dpsmote.py``)
(batch mode, vectorised): the noisy class sizes, the number of synthetic rows
per class (post-processing of the sizes) and the dense noisy histogram of
the minority class (phase 2 is post-processing of these). Events are fixed
before any draw; the auditor (:func:`skdp_anomaly.audit`) returns a
Clopper–Pearson lower bound on ε at 95 % confidence.

* The joint event "noisy minority size ≥ n1 + 1 and noisy cell c ≥ k + 1"
  is the tight one: its probability ratio is exp(ε₁ + ε₂) = exp(ε), so the
  bound should come close to the claimed ε from below (≥ 0.8 ε).
* End to end (``--end-to-end-runs``): full ``fit_resample`` outputs, one fit
  per run, summarised by the number of synthetic rows and how many fall in
  cell c; not tight, but it would catch phase 2 reading the private data.
* Replace-one neighbours (``--relation``, rows "replace"): ``D`` and ``D''`` of
  equal size, one record of minority class 1 in cell a replaced by a record
  of minority class 2 in cell c (class 0 is the majority, so both minority
  classes are over-sampled and both histograms released). Two class sizes
  and two histogram cells move, so the claimed cost is the add/remove ε
  doubled (group privacy, ``PrivacyCost.under("replace")``) and the joint
  event of all four moving is tight: the bound should come close to 2ε and
  exceed ε, which shows the add/remove figure alone would be false there.
* Negative control: ``class_counts="public"`` is Algorithm 6 as written
  (exact ``α·n0 − n1`` rows): the number of synthetic rows differs between
  ``D`` and ``D'`` with certainty, so the bound must exceed the histogram's
  ε — the audit catches the leak the thesis's Theorem 3.1 overlooks.

Run from the repository root::

    nice python benchmarks/bench_dpsmote_audit.py                # 200 000 runs per input
    nice python benchmarks/bench_dpsmote_audit.py --runs 500000   # more memory at d = 3
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _common import print_table, write_json  # noqa: E402

from skdp_anomaly import audit  # noqa: E402


def neighbours(d=2, n0=60, n1=20, k_in_cell=3, seed=0):
    """(X, y) and the same plus one minority record in a cell holding ``k_in_cell`` rows."""
    rng = np.random.default_rng(seed)
    # majority anywhere; minority away from the corner cell used below
    X0 = rng.uniform(-1, 1, size=(n0, d))
    X1 = rng.uniform(0.0, 1.0, size=(n1 - k_in_cell, d))
    target = np.full(d, -0.9)  # centre region of cell (0, ..., 0) with ν = 0.25 on [-1, 1]
    X1 = np.vstack([X1, target + rng.uniform(0, 0.2, size=(k_in_cell, d))])
    X = np.vstack([X0, X1])
    y = np.concatenate([np.zeros(n0, int), np.ones(n1, int)])
    X_nb = np.vstack([X, target[None, :]])
    y_nb = np.concatenate([y, [1]])
    return (X, y), (X_nb, y_nb)


def replace_neighbours(d=2, n0=60, n_minority=20, k_in_cell=3, seed=0):
    """(X, y) with minority classes 1 and 2, and the same with one class-1 record in
    cell a = (0, ..., 0) replaced by a class-2 record in cell c = (3, 0, ..., 0)."""
    rng = np.random.default_rng(seed)
    X0 = rng.uniform(-1, 1, size=(n0, d))
    a = np.full(d, -0.9)
    c = np.r_[0.6, np.full(d - 1, -0.9)]  # cell (3, 0, ..., 0) with ν = 0.25 on [-1, 1]
    rest = n_minority - k_in_cell
    X1 = np.vstack(
        [a + rng.uniform(0, 0.2, size=(k_in_cell, d)), rng.uniform(0.0, 0.4, size=(rest, d))]
    )
    X2 = np.vstack(
        [c + rng.uniform(0, 0.2, size=(k_in_cell, d)), rng.uniform(0.0, 0.4, size=(rest, d))]
    )
    X = np.vstack([X0, X1, X2])
    y = np.concatenate([np.zeros(n0, int), np.ones(n_minority, int), np.full(n_minority, 2)])
    X_nb, y_nb = X.copy(), y.copy()
    X_nb[n0], y_nb[n0] = c, 2  # the first class-1 row (in cell a) becomes class 2 in cell c
    return (X, y), (X_nb, y_nb)


def mechanism_for(epsilon, class_counts, d, histogram_class=1):
    from skdp_anomaly.over_sampling import DPSMOTE
    from audit_scenarios.dpsmote import release_synopsis_batch

    est = DPSMOTE(
        epsilon=epsilon,
        bounds=(-1.0, 1.0),
        synopsis="grid",
        granularity=0.25,
        connectivity=2,
        class_counts=class_counts,
    )

    def mech(data, rng, n):
        X, y = data
        batch = release_synopsis_batch(
            est, X, y, n, histogram_class=histogram_class, random_state=rng
        )
        return batch.stacked()

    return est, mech


def run_replace_case(epsilon, d, n_runs, seed):
    """Replace-one audit: claimed cost 2ε (group privacy); the joint event is tight."""
    (X, y), (X_nb, y_nb) = replace_neighbours(d=d, seed=seed)
    _, mech = mechanism_for(epsilon, "private", d, histogram_class=[1, 2])
    n_cells = 4**d
    k, n_min = 3, 20
    # stacked: noisy sizes (3), n_synthetic (3), histogram of class 1, of class 2
    base = 6
    cell_a, cell_c = 0, 3 * 4 ** (d - 1)
    hist_1, hist_2 = base + cell_a, base + n_cells + cell_c
    events = {
        "sizes and cells all move (tight)": lambda o: (
            (o[:, 1] <= n_min - 1)
            & (o[:, 2] >= n_min + 1)
            & (o[:, hist_1] <= k - 1)
            & (o[:, hist_2] >= k + 1)
        ),
        "both cells move": lambda o: (o[:, hist_1] <= k - 1) & (o[:, hist_2] >= k + 1),
        "both sizes move": lambda o: (o[:, 1] <= n_min - 1) & (o[:, 2] >= n_min + 1),
    }
    t0 = time.perf_counter()
    res = audit(
        mech,
        ((X, y), (X_nb, y_nb)),
        events,
        n_runs=n_runs,
        batch=True,
        claimed_epsilon=2 * epsilon,
        random_state=seed,
        name=f"DPSMOTE ε={epsilon:g} replace-one d={d}",
    )
    return res, time.perf_counter() - t0, n_cells


def events_for(base, class_counts, cell_col, n_true, k_cell, n_new_true):
    """Events on the stacked release, fixed from the (known) neighbouring inputs."""
    ev = {}
    off = 0
    if class_counts == "private":
        size_col = 1  # column of class 1 in noisy_class_counts
        ev["minority size ≥ n1+1"] = lambda o: o[:, size_col] >= n_true + 1
        ev["minority size ≥ n1+1 & cell c ≥ k+1 (tight)"] = lambda o: (
            (o[:, size_col] >= n_true + 1) & (o[:, base + cell_col] >= k_cell + 1)
        )
        off = 2
    n_syn_col = off + 1  # n_synthetic of class 1
    ev["cell c ≥ k+1"] = lambda o: o[:, base + cell_col] >= k_cell + 1
    ev["cell c ≥ k+2"] = lambda o: o[:, base + cell_col] >= k_cell + 2
    ev["synthetic rows ≤ n0−n1−1"] = lambda o: o[:, n_syn_col] <= n_new_true - 1
    ev["synthetic rows ≤ n0−n1−1 & cell c ≥ k+1"] = lambda o: (
        (o[:, n_syn_col] <= n_new_true - 1) & (o[:, base + cell_col] >= k_cell + 1)
    )
    return ev


def run_case(epsilon, class_counts, d, n_runs, seed):
    (X, y), (X_nb, y_nb) = neighbours(d=d, seed=seed)
    _, mech = mechanism_for(epsilon, class_counts, d)
    n0, n1 = int(np.sum(y == 0)), int(np.sum(y == 1))
    n_cells = 4**d
    # stacked layout: [noisy sizes (2) if private] + n_synthetic (2) + histogram (n_cells)
    base = (2 if class_counts == "private" else 0) + 2
    cell_col = 0  # cell (0, ..., 0), row-major code 0
    k_cell = 3
    events = events_for(base, class_counts, cell_col, n1, k_cell, n0 - n1)
    claimed = epsilon
    t0 = time.perf_counter()
    res = audit(
        mech,
        ((X, y), (X_nb, y_nb)),
        events,
        n_runs=n_runs,
        batch=True,
        claimed_epsilon=claimed,
        random_state=seed,
        name=f"DPSMOTE ε={epsilon:g} class_counts={class_counts} d={d}",
    )
    elapsed = time.perf_counter() - t0
    return res, elapsed, n_cells


def run_end_to_end(epsilon, n_runs, seed):
    """Audit full ``fit_resample`` outputs (phase 2 included), one fit per run.

    Output summarised as (number of synthetic rows, synthetic rows inside the
    cell c = [-1, -0.5)^2 where the neighbour's extra record sits). Slower and
    not tight (phase 2 blurs the histogram), but it would catch phase 2
    reading the private data.
    """
    import warnings

    from diffprivlib.accountant import BudgetAccountant

    from skdp_anomaly.over_sampling import DPSMOTE

    (X, y), (X_nb, y_nb) = neighbours(d=2, seed=seed)
    n0, n1 = int(np.sum(y == 0)), int(np.sum(y == 1))

    def mech(data, rng):
        Xd, yd = data
        est = DPSMOTE(
            epsilon=epsilon,
            bounds=(-1.0, 1.0),
            synopsis="grid",
            granularity=0.25,
            connectivity=2,
            random_state=rng,
            accountant=BudgetAccountant(),
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            X_res, _ = est.fit_resample(Xd, yd)
        Z = X_res[len(yd) :]
        in_c = np.all(Z < -0.5, axis=1)
        return np.array([len(Z), int(in_c.sum())])

    events = {
        "synthetic rows ≤ n0−n1−1": lambda o: o[:, 0] <= n0 - n1 - 1,
        "≥ 1 synthetic row in cell c": lambda o: o[:, 1] >= 1,
        "≥ 5 synthetic rows in cell c": lambda o: o[:, 1] >= 5,
        "≥ 10 synthetic rows in cell c": lambda o: o[:, 1] >= 10,
    }
    t0 = time.perf_counter()
    res = audit(
        mech,
        ((X, y), (X_nb, y_nb)),
        events,
        n_runs=n_runs,
        batch=False,
        claimed_epsilon=epsilon,
        random_state=seed,
        name=f"DPSMOTE fit_resample end to end ε={epsilon:g} d=2",
    )
    return res, time.perf_counter() - t0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200_000, help="runs per neighbouring input")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--end-to-end-runs",
        type=int,
        default=20_000,
        help="runs per input of the full fit_resample audit (0: skip)",
    )
    args = parser.parse_args(argv)
    print(f"# DPSMOTE phase-1 audit: {args.runs} runs per input, batch mode, 95 % confidence")
    cases = [
        (0.5, "private", 2, "add_remove"),
        (1.0, "private", 2, "add_remove"),
        (2.0, "private", 2, "add_remove"),
        (1.0, "private", 3, "add_remove"),
        (0.5, "private", 2, "replace"),
        (1.0, "private", 2, "replace"),
        (2.0, "private", 2, "replace"),
        (1.0, "public", 2, "add_remove"),
    ]
    rows, payload = [], []
    for eps, cc, d, relation in cases:
        if relation == "replace":
            res, elapsed, n_cells = run_replace_case(eps, d, args.runs, args.seed)
        else:
            res, elapsed, n_cells = run_case(eps, cc, d, args.runs, args.seed)
        claimed = res.claimed_epsilon
        ok = res.epsilon_lower_bound <= claimed
        verdict = (
            ("≤ claimed ✓" if ok else "> claimed ✗")
            if cc == "private"
            else ("> ε: leak caught ✓" if not ok else "leak NOT caught ✗")
        )
        if relation == "replace" and res.epsilon_lower_bound > eps:
            verdict += "; > add/remove ε"
        rows.append(
            [
                f"{eps:g}",
                relation,
                f"{claimed:g}",
                cc,
                d,
                n_cells,
                f"{res.epsilon_lower_bound:.4f}",
                f"{res.ratio:.3f}" if np.isfinite(res.ratio) else "∞",
                res.best_event,
                verdict,
                f"{elapsed:.1f}",
            ]
        )
        payload.append(
            dict(
                epsilon=eps,
                neighbours=relation,
                claimed_epsilon=claimed,
                class_counts=cc,
                d=d,
                n_cells=n_cells,
                epsilon_lower_bound=res.epsilon_lower_bound,
                best_event=res.best_event,
                rows=res.rows,
                n_runs=res.n_runs,
                seconds=elapsed,
            )
        )
        print(f"\n{res}\n\n{res.to_markdown()}", flush=True)
    print_table(
        "DPSMOTE audit summary (lower bound must stay ≤ the claimed cost under the relation; "
        "tight event ≥ 0.8 × claimed)",
        [
            "ε",
            "neighbours",
            "claimed",
            "class_counts",
            "d",
            "cells",
            "ε lower bound",
            "bound / claimed",
            "best event",
            "verdict",
            "s",
        ],
        rows,
        align="rlrlrrrrlll",
    )
    if args.end_to_end_runs:
        res, elapsed = run_end_to_end(1.0, args.end_to_end_runs, args.seed)
        print(f"\n{res}\n\n{res.to_markdown()}\n({elapsed:.0f} s)", flush=True)
        payload.append(
            dict(
                epsilon=1.0,
                class_counts="private (end to end)",
                d=2,
                n_cells=16,
                epsilon_lower_bound=res.epsilon_lower_bound,
                best_event=res.best_event,
                rows=res.rows,
                n_runs=res.n_runs,
                seconds=elapsed,
                end_to_end=True,
            )
        )
    private = [p for p in payload if p["class_counts"] == "private"]
    sound = all(
        p["epsilon_lower_bound"] <= p.get("claimed_epsilon", p["epsilon"])
        for p in payload
        if p["class_counts"] != "public"
    )
    tight = all(p["epsilon_lower_bound"] >= 0.8 * p["claimed_epsilon"] for p in private)
    print(f"\nprivate releases within claimed ε: {sound}; tight (≥ 0.8 ε): {tight}")
    default = args.runs == 200_000 and args.end_to_end_runs == 20_000 and args.seed == 0
    write_json(
        "dpsmote_audit" + ("" if default else "_custom"),
        {"runs_per_input": args.runs, "cases": payload, "sound": sound, "tight": tight},
    )


if __name__ == "__main__":
    main()
