"""Sections 1–3 of ``bench_dpoad.py``: the paper's Table III, Figures 8–9, sensitivities.

All three pin the paper's rule (``detector="kse"``) and judge each
mechanism's flags against the non-private detector's flags on the true counts
(:class:`_dpoad_data.Runner`). 1. ``table3``: precision and recall per
iteration (6 × 1000 records, ε = 1, γ = 0.05, T = 0.9, ``max_count`` = 200).
2. ``sweeps``: Figure 8 (ε ∈ {0.1 … 10} at γ = 0.3 and 0.05) and Figure 9
(T ∈ {0.5 … 0.95}). 3. ``sensitivity``: the Δ each mechanism used per
iteration and the cells above it (synthetic stream). Data: :mod:`_dpoad_data`.

Run them with ``nice python benchmarks/bench_dpoad.py --sections table3,sweeps,sensitivity``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, print_table, pyplot  # noqa: E402
from _dpoad_data import (  # noqa: E402
    BASE,
    EPSILONS,
    GAMMAS_FIG8,
    MAX_COUNT,
    MECHS,
    N_WINDOWS,
    N_WINDOWS_FIG8,
    SENS_CONFIGS,
    THRESHOLDS,
    _ratio,
    confusion,
    fmt_mse,
    max_windows,
    mean_se,
    pooled_metrics,
)


# ------------------------------------------------------------- section 1
def section_table3(runner, seeds):
    out = {}
    for source in runner.sources:
        rows_p, rows_r, record = [], [], {}
        ref_rows = []
        for mech in MECHS:
            per_p = [[] for _ in range(N_WINDOWS + 1)]
            per_r = [[] for _ in range(N_WINDOWS + 1)]
            deltas = []
            for seed in seeds:
                flags, delta = runner.run(source, seed, mech, **BASE)
                ref = runner.reference(source, seed, BASE["threshold"], MAX_COUNT)
                tp, fp, fn = confusion(flags, ref)
                for i in range(N_WINDOWS):
                    per_p[i].append(_ratio(tp[i], tp[i] + fp[i]))
                    per_r[i].append(_ratio(tp[i], tp[i] + fn[i]))
                per_p[-1].append(_ratio(tp.sum(), tp.sum() + fp.sum()))
                per_r[-1].append(_ratio(tp.sum(), tp.sum() + fn.sum()))
                deltas.append(delta)
            p = [mean_se(v) for v in per_p]
            r = [mean_se(v) for v in per_r]
            rows_p.append([f"Precision {mech}"] + [fmt_mse(m, s) for m, s, _ in p])
            rows_r.append([f"Recall {mech}"] + [fmt_mse(m, s) for m, s, _ in r])
            record[mech] = {
                "precision": p,
                "recall": r,
                "delta_mean": np.mean(deltas, axis=0).tolist(),
            }
        refs = np.array(
            [runner.reference(source, s, BASE["threshold"], MAX_COUNT).sum(1) for s in seeds]
        )
        ref_rows.append(
            ["reference flags per window (mean)"]
            + [f"{x:.2f}" for x in refs.mean(0)]
            + [f"{refs.sum(1).mean():.2f}"]
        )
        ref_rows.append(
            ["seeds whose reference flags ≥ 1 cell"]
            + [str(int(x)) for x in (refs > 0).sum(0)]
            + [str(int((refs.sum(1) > 0).sum()))]
        )
        headers = ["", *[str(i) for i in range(1, N_WINDOWS + 1)], "all"]
        print_table(
            f"Table III — {source}: precision / recall vs iteration (detector = kse, "
            f"ε = 1, γ = 0.05, T = 0.9, max_count = {MAX_COUNT}, {len(seeds)} seeds, "
            "mean ± s.e.)",
            headers,
            rows_p + rows_r + ref_rows,
        )
        record["reference_flags_per_window"] = refs.mean(0).tolist()
        record["seeds_with_reference_flags"] = (refs > 0).sum(0).tolist()
        out[source] = record
    return out


# ------------------------------------------------------------- section 2
def section_sweeps(runner, seeds):
    fig8, fig9 = [], []
    for source in runner.sources:
        rows = []
        for gamma in GAMMAS_FIG8:
            for mech in MECHS:
                cells = []
                for eps in EPSILONS:
                    m = pooled_metrics(
                        runner, source, seeds, mech, eps, gamma, 0.9, MAX_COUNT, N_WINDOWS_FIG8
                    )
                    fig8.append(
                        {"dataset": source, "gamma": gamma, "mechanism": mech, "epsilon": eps, **m}
                    )
                    cells.append(
                        f"{fmt_mse(m['precision'], m['precision_se'])} / "
                        f"{fmt_mse(m['recall'], m['recall_se'])}"
                    )
                if mech in ("laplace", "record") and gamma != GAMMAS_FIG8[0]:
                    continue  # the same runs as at the first γ
                n_used = min(N_WINDOWS_FIG8, max_windows(mech, gamma))
                rows.append(
                    [
                        f"{mech}" + ("" if mech in ("laplace", "record") else f", γ = {gamma}"),
                        n_used,
                        *cells,
                    ]
                )
        short = {g: max_windows("dpoad", g, N_WINDOWS_FIG8) for g in GAMMAS_FIG8}
        note = "; ".join(
            f"painfree/dpoad at γ = {g:g}: {k} (the most with n·γ < 1)"
            for g, k in short.items()
            if k < N_WINDOWS_FIG8
        )
        print_table(
            f"Figure 8 — {source}: precision / recall vs ε (detector = kse, T = 0.9, "
            f"{N_WINDOWS_FIG8} iterations"
            + (f", except {note}" if note else "")
            + f"; max_count = {MAX_COUNT}, {len(seeds)} seeds)",
            ["mechanism", "iterations", *[f"ε = {e:g}" for e in EPSILONS]],
            rows,
        )
        rows = []
        for mech in MECHS:
            cells = []
            for t in THRESHOLDS:
                m = pooled_metrics(runner, source, seeds, mech, 1.0, 0.05, t, MAX_COUNT, N_WINDOWS)
                fig9.append({"dataset": source, "mechanism": mech, "threshold": t, **m})
                cells.append(
                    f"{fmt_mse(m['precision'], m['precision_se'])} / "
                    f"{fmt_mse(m['recall'], m['recall_se'])}"
                )
            rows.append([mech, *cells])
        print_table(
            f"Figure 9 — {source}: precision / recall vs threshold T (detector = kse, "
            "ε = 1, γ = 0.05, "
            f"{N_WINDOWS} iterations, reference at the same T, {len(seeds)} seeds)",
            ["mechanism", *[f"T = {t:g}" for t in THRESHOLDS]],
            rows,
        )
    return {"figure8": fig8, "figure9": fig9}


# ------------------------------------------------------------- section 3
def section_sensitivity(runner, seeds):
    source = "synthetic"
    out, rows_delta, rows_acc, rows_exposed = [], [], [], []
    for eps, gamma, max_count in SENS_CONFIGS:
        entry = {"epsilon": eps, "gamma": gamma, "max_count": max_count, "mechanisms": {}}
        setting = f"ε = {eps:g}, γ = {gamma:g}, max_count = {max_count}"
        for mech in MECHS:
            deltas = np.array(
                [runner.run(source, s, mech, eps, gamma, 0.9, max_count)[1] for s in seeds]
            )
            # cells whose (clipped) true count exceeds Δ: ε-DP does not hold for them,
            # only ε·count/Δ (a benchmark-only diagnostic: it reads the true counts)
            exposed = np.array(
                [
                    (
                        np.minimum(runner.stream(source, s)[1][: d.size], max_count) > d[:, None]
                    ).mean(1)
                    for s, d in zip(seeds, deltas)
                ]
            )
            m = pooled_metrics(runner, source, seeds, mech, eps, gamma, 0.9, max_count, N_WINDOWS)
            entry["mechanisms"][mech] = {
                "delta_mean": deltas.mean(0).tolist(),
                "delta_sd": deltas.std(0).tolist(),
                "delta_per_seed": deltas.tolist(),
                "cells_above_delta": exposed.mean(0).tolist(),
                **m,
            }
            if mech in ("painfree", "dpoad"):
                floor = np.mean(deltas[:, 1:] <= 1.0)  # Δ at its floor of one count
                pad = ["–"] * (N_WINDOWS - deltas.shape[1])  # stopped at n·γ < 1
                rows_delta.append(
                    [
                        setting,
                        mech,
                        *[f"{d:.1f}" for d in deltas.mean(0)],
                        *pad,
                        f"{100 * floor:.0f} %",
                    ]
                )
                rows_exposed.append(
                    [setting, mech, *[f"{100 * x:.0f} %" for x in exposed.mean(0)], *pad]
                )
        rows_acc.append(
            [
                f"ε = {eps:g}, γ = {gamma:g}, max_count = {max_count}",
                *[
                    f"{fmt_mse(entry['mechanisms'][k]['precision'], entry['mechanisms'][k]['precision_se'])}"
                    f" / {fmt_mse(entry['mechanisms'][k]['recall'], entry['mechanisms'][k]['recall_se'])}"
                    for k in MECHS
                ],
            ]
        )
        out.append(entry)
    print_table(
        f"Sensitivity Δ per iteration, in counts (synthetic, detector = kse, T = 0.9, "
        f"mean over {len(seeds)} seeds; laplace: Δ = max_count, record: Δ = 1 "
        "throughout; γ = 0.3 streams stop after 3 windows, the most with n·γ < 1)",
        [
            "setting",
            "mechanism",
            *[str(i) for i in range(1, N_WINDOWS + 1)],
            "Δ = 1 (floor), iterations 2–6",
        ],
        rows_delta,
    )
    print_table(
        "Cells whose true count exceeds the Δ used (ε-DP fails for them: protected "
        f"only at ε·count/Δ), % of all cells per iteration (synthetic, {len(seeds)} seeds; "
        "laplace: 0 %)",
        ["setting", "mechanism", *[str(i) for i in range(1, N_WINDOWS + 1)]],
        rows_exposed,
    )
    print_table(
        f"Precision / recall over {N_WINDOWS} windows at those settings (synthetic, "
        f"detector = kse, {len(seeds)} seeds; painfree/dpoad at γ = 0.3: 3 windows)",
        ["setting", *MECHS],
        rows_acc,
    )
    return out


# ---------------------------------------------------------------- plots
def _error_bars(ax, rows, x_key, metric, title, xlabel):
    """One panel: ``metric`` (± s.e.) against ``x_key``, one line per mechanism."""
    for mech in MECHS:
        rs = [r for r in rows if r["mechanism"] == mech]
        ax.errorbar(
            [r[x_key] for r in rs],
            [r[metric] for r in rs],
            yerr=[r[f"{metric}_se"] for r in rs],
            marker="o",
            capsize=2,
            label=mech,
        )
    ax.set_ylim(-0.03, 1.03)
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(xlabel)


def _save(fig, axes, title, name, suffix):
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    path = RESULTS_DIR / f"{name}{suffix}.png"
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")


def plot_sweeps(sweeps, sources, suffix):
    plt = pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(len(sources), 4, figsize=(15, 3.2 * len(sources)), squeeze=False)
    for i, source in enumerate(sources):
        for j, (gamma, metric) in enumerate(
            [(g, m) for g in GAMMAS_FIG8 for m in ("precision", "recall")]
        ):
            rows = [r for r in sweeps["figure8"] if r["dataset"] == source and r["gamma"] == gamma]
            _error_bars(
                axes[i, j],
                rows,
                "epsilon",
                metric,
                f"{source}: {metric}, γ = {gamma}",
                "ε per window",
            )
            axes[i, j].set_xscale("log")
    _save(
        fig,
        axes,
        "Figure 8 analogue: precision/recall vs ε (detector = kse, T = 0.9, "
        "5 iterations; painfree/dpoad at γ = 0.3: 3, the most with n·γ < 1)",
        "dpoad_fig8",
        suffix,
    )
    fig, axes = plt.subplots(len(sources), 2, figsize=(8, 3.2 * len(sources)), squeeze=False)
    for i, source in enumerate(sources):
        for j, metric in enumerate(("precision", "recall")):
            rows = [r for r in sweeps["figure9"] if r["dataset"] == source]
            _error_bars(axes[i, j], rows, "threshold", metric, f"{source}: {metric}", "threshold T")
    _save(
        fig,
        axes,
        "Figure 9 analogue: precision/recall vs T (detector = kse, ε = 1, γ = 0.05, 6 iterations)",
        "dpoad_fig9",
        suffix,
    )


def plot_sensitivity(sens, suffix):
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(9.5, 4))
    iterations = np.arange(1, N_WINDOWS + 1)
    for entry in sens:
        if entry["max_count"] != MAX_COUNT:
            continue
        d = entry["mechanisms"]["dpoad"]["delta_mean"]
        (line,) = ax.plot(
            iterations[: len(d)],
            d,
            marker="o",
            label=f"dpoad ε = {entry['epsilon']:g}, γ = {entry['gamma']:g} (mean)",
        )
        if (entry["epsilon"], entry["gamma"]) == (BASE["epsilon"], BASE["gamma"]):
            per_seed = np.asarray(entry["mechanisms"]["dpoad"]["delta_per_seed"])
            jitter = np.random.default_rng(0).uniform(-0.15, 0.15, per_seed.shape)
            ax.scatter(
                (iterations + jitter).ravel(),
                per_seed.ravel(),
                s=6,
                alpha=0.4,
                color=line.get_color(),
                label="  the same, each seed",
            )
    for gamma in (0.05, 0.3):
        entry = next(e for e in sens if e["gamma"] == gamma and e["max_count"] == MAX_COUNT)
        d = entry["mechanisms"]["painfree"]["delta_mean"]
        ax.plot(
            iterations[: len(d)],
            d,
            "k--" if gamma == 0.05 else "k:",
            label=f"painfree γ = {gamma:g}",
        )
    ax.axhline(MAX_COUNT, color="grey", lw=0.8)
    ax.text(1, MAX_COUNT * 1.02, "laplace = max_count", fontsize=8)
    ax.set_xlabel("iteration")
    ax.set_ylabel("Δ (counts)")
    ax.set_ylim(0, MAX_COUNT * 1.12)
    ax.set_title(f"Sensitivity used per iteration (synthetic, max_count = {MAX_COUNT})")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    path = RESULTS_DIR / f"dpoad_sensitivity{suffix}.png"
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")
