"""Privacy audit of the change-point detector on worst-case neighbouring series.

Neighbouring relation (the estimator's Notes, Theorems 2.3/2.5 of Lut 2022):
two series/streams of the same length differing in the value of one element.
Worst case used here (``move_one_element``): all other values equal (0), the
element ``t`` at −1 (below all others) vs +1 (above all others). Then every
statistic containing ``t`` moves by the largest amount possible, in opposite
directions on the two sides of ``t``: V(k) (k < t) drops by 1/(n−k), V(k)
(k ≥ t) rises by 1/k; online, U of each window flips between 0 and 2/n
depending on which half holds ``t``.

Audits (``skdp_anomaly.audit``, Clopper–Pearson at 95 %, events fixed in
advance, ``--runs`` = 10⁵ runs per input in batch mode):

1. Offline PNCPD (report-noisy-max), ``pncpd_batch`` on one series, events
   ``k̃ = k`` for every candidate ``k`` (and the reported direction for
   ``direction="both"``). Claimed ε.
2. The same through the estimator itself (``fit`` in a loop, fewer runs).
3. Online ONLINEPNCPD on a short stream (window 4), ``online_pncpd_batch``:
   the AboveThreshold alarm position (claimed ε/2, its share) and the
   reported change point (claimed ε in total).

The lower bound must stay ≤ the claimed ε (otherwise the claim is false).
Report-noisy-max with scale 2Δ/ε is not tight on these inputs (the score
shifts are < Δ at most candidates), so bounds well below ε are expected;
the ratio column shows how close each gets.

Usage: ``nice python benchmarks/bench_changepoint_audit.py [--runs 100000]``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from audit_scenarios.changepoint import move_one_element  # noqa: E402

from skdp_anomaly import audit  # noqa: E402
from skdp_anomaly.exceptions import ChangePointNoiseWarning  # noqa: E402
from skdp_anomaly.changepoint import (  # noqa: E402
    PrivateChangePointDetector,
    online_pncpd_batch,
    pncpd_batch,
)
from skdp_anomaly.changepoint._core import candidate_range  # noqa: E402

from _cp_common import md_table, write_json  # noqa: E402

ROWS: list = []
RESULTS: list = []


def _record(label, res, claimed, extra=""):
    ROWS.append(
        [
            label,
            extra,
            claimed,
            res.epsilon_lower_bound,
            res.epsilon_lower_bound / claimed,
            res.best_event,
            "ok" if res.epsilon_lower_bound <= claimed else "VIOLATION",
        ]
    )
    RESULTS.append(
        dict(
            label=label,
            setting=extra,
            claimed_epsilon=claimed,
            epsilon_lower_bound=res.epsilon_lower_bound,
            best_event=res.best_event,
            rows=res.rows,
            n_runs=res.n_runs,
        )
    )
    print(
        f"  {label} [{extra}]: lb {res.epsilon_lower_bound:.3f} / claimed {claimed:g}",
        file=sys.stderr,
    )


def offline_batch(runs, seed):
    for n, gamma, t in ((10, 0.4, 4), (20, 0.1, 2), (200, 0.1, 20)):
        lo, hi = move_one_element(np.zeros(n), t)
        k_lo, k_hi = candidate_range(n, gamma)
        for direction in ("decrease", "both"):
            for eps in (0.5, 1.0, 2.0):

                def mech(x, rng, m, eps=eps, direction=direction):
                    k, inc = pncpd_batch(
                        x,
                        epsilon=eps,
                        gamma=gamma,
                        direction=direction,
                        n_runs=m,
                        random_state=rng,
                        return_direction=True,
                    )
                    return k + 100_000 * inc  # encode (k̃, direction_) in one int

                events = {}
                for k in range(k_lo, k_hi + 1):
                    if direction == "both":
                        events[f"k̃={k},decrease"] = lambda o, k=k: o == k
                        events[f"k̃={k},increase"] = lambda o, k=k: o == k + 100_000
                    else:
                        events[f"k̃={k}"] = lambda o, k=k: o == k
                if len(events) > 40:  # keep Bonferroni power: the candidates near t
                    keep = [e for e in events if abs(int(e.split("=")[1].split(",")[0]) - t) <= 3]
                    events = {e: events[e] for e in keep}
                res = audit(
                    mech,
                    (lo, hi),
                    events,
                    n_runs=runs,
                    batch=True,
                    claimed_epsilon=eps,
                    random_state=seed,
                    name="PNCPD",
                )
                _record(
                    "offline PNCPD (pncpd_batch)", res, eps, f"n={n}, γ={gamma}, t={t}, {direction}"
                )


def offline_estimator(runs, seed):
    # a 10-point series, too short for "auto" (refused: nothing could be found), so one
    # change point with min_size 5: one split, its scores E(5) and -E(5) (Δ = 1); the output
    # encodes the direction, as in tests/test_changepoint_audit.py
    n, gamma, t, eps = 10, 0.45, 0, 1.0
    lo, hi = move_one_element(np.arange(n, dtype=float)[::-1], t)
    k_lo, k_hi = candidate_range(n, gamma)
    est = PrivateChangePointDetector(epsilon=eps, n_change_points=1, min_size=5)

    def mech(x, rng):
        d = est.set_params(random_state=int(rng.integers(2**32))).fit(x)
        return d.change_point_ + n * (d.direction_ == "increase")

    events = {}
    for k in range(k_lo, k_hi + 1):
        events[f"k̃={k}, decrease"] = lambda o, k=k: o == k
        events[f"k̃={k}, increase"] = lambda o, k=k: o == k + n
    res = audit(
        mech,
        (lo, hi),
        events,
        n_runs=runs,
        batch=False,
        claimed_epsilon=eps,
        random_state=seed,
        name="estimator",
    )
    _record(
        "offline PrivateChangePointDetector.fit",
        res,
        eps,
        f"n={n}, one change point, min_size 5, t={t}, both, {runs} runs",
    )


def online_batch(runs, seed):
    window, T, gamma = 4, 0.25, 0.1
    for eps in (1.0, 2.0, 4.0):
        for m, t in ((12, 5), (16, 9)):
            lo, hi = move_one_element(np.zeros(m), t)

            online = {"window": window, "threshold": T, "gamma": gamma, "direction": "decrease"}

            def alarm_mech(x, rng, r, eps=eps):  # the alarm times of r runs
                return online_pncpd_batch(x, epsilon=eps, n_runs=r, random_state=rng, **online)[0]

            def cp_mech(x, rng, r, eps=eps):  # the change points of r runs
                return online_pncpd_batch(x, epsilon=eps, n_runs=r, random_state=rng, **online)[1]

            centres = range(window // 2, m - window // 2 + 1)
            ev = {f"alarm at {c}": (lambda o, c=c: o == c) for c in centres}
            ev["no alarm"] = lambda o: o == -1
            res = audit(
                alarm_mech,
                (lo, hi),
                ev,
                n_runs=runs,
                batch=True,
                claimed_epsilon=eps / 2,
                random_state=seed,
                name="AboveThreshold",
            )
            _record(
                "online AboveThreshold stage (alarm_index_)",
                res,
                eps / 2,
                f"stream {m}, t={t}, n=4, T={T}, ε_total={eps:g}",
            )
            ev = {f"k̃={j}": (lambda o, j=j: o == j) for j in range(1, m)}
            ev["no detection"] = lambda o: o == -1
            res = audit(
                cp_mech,
                (lo, hi),
                ev,
                n_runs=runs,
                batch=True,
                claimed_epsilon=eps,
                random_state=seed + 1,
                name="ONLINEPNCPD",
            )
            _record(
                "online ONLINEPNCPD (change_point_)", res, eps, f"stream {m}, t={t}, n=4, T={T}"
            )


def online_estimator(runs, seed):
    # the estimator takes a threshold in (0.5, 1) (the batch helper above any real one)
    window, T, gamma, eps, m, t = 4, 0.6, 0.1, 4.0, 12, 5
    lo, hi = move_one_element(np.zeros(m), t)
    est = PrivateChangePointDetector(
        epsilon=eps, gamma=gamma, window=window, threshold=T, direction="decrease"
    )

    def mech(x, rng):
        d = est.set_params(random_state=int(rng.integers(2**32))).fit(x)
        return d.alarm_index_ if d.alarm_index_ is not None else -1

    ev = {f"alarm at {c}": (lambda o, c=c: o == c) for c in range(2, m - 1)}
    ev["no alarm"] = lambda o: o == -1
    res = audit(
        mech,
        (lo, hi),
        ev,
        n_runs=runs,
        batch=False,
        claimed_epsilon=eps / 2,
        random_state=seed,
        name="estimator online",
    )
    _record(
        "online PrivateChangePointDetector.fit (alarm_index_)",
        res,
        eps / 2,
        f"stream {m}, t={t}, n=4, T={T}, ε_total={eps:g}, {runs} runs",
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=100_000)
    p.add_argument("--estimator-runs", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=4)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    offline_batch(args.runs, args.seed)
    online_batch(args.runs, args.seed)
    if args.estimator_runs:
        with warnings.catch_warnings():  # the worst cases are tiny series: noise dominates
            warnings.simplefilter("ignore", ChangePointNoiseWarning)
            offline_estimator(args.estimator_runs, args.seed)
            online_estimator(args.estimator_runs, args.seed)
    print(
        f"# Change-point privacy audit — {args.runs} runs per input (batch), 95 % "
        "Clopper–Pearson, worst-case neighbours (one element moved across all others)\n"
    )
    print(
        md_table(
            [
                "mechanism",
                "setting",
                "claimed ε",
                "ε lower bound",
                "lb / claimed",
                "best event",
                "verdict",
            ],
            ROWS,
            ".3f",
        )
    )
    ok = all(r[-1] == "ok" for r in ROWS)
    print(f"\nAll lower bounds ≤ claimed ε: {ok}")
    path = write_json(
        "changepoint_audit",
        dict(
            runs=args.runs,
            estimator_runs=args.estimator_runs,
            seed=args.seed,
            all_within_claim=ok,
            wall_seconds=time.perf_counter() - t0,
            audits=RESULTS,
        ),
    )
    print("wrote", path)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
