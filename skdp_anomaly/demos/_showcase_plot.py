"""The over-sampling showcase's plot: each metric against ε, one row per minority fraction."""

from __future__ import annotations

import numpy as np

from ._showcase_pipelines import METHOD_LABELS, METHODS, METRIC_LABELS, METRICS, mean_and_se

_COLOURS = {
    "recommended": "#2ca02c",
    "balanced_lr": "#000000",
    "none": "#7f7f7f",
    "smote": "#d62728",
    "dpsmote": "#1f77b4",
}
_STYLES = {"recommended": "-", "balanced_lr": "-.", "none": ":", "smote": "--", "dpsmote": "-"}


def plot_showcase(results: dict, metrics=METRICS, figure=None):
    """The figure of each metric of the showcase against ε, mean ± one standard error: one row of
    axes per minority fraction of ``results`` (:func:`run_showcase`'s ``"results"``), one column
    per metric. ``figure=None`` opens one with pyplot (one made without pyplot needs no display).
    """
    ratios = list(results)
    epsilons = sorted(results[ratios[0]][METHODS[0]])
    legend_columns = 3 if len(metrics) >= 3 else 1  # a narrow figure stacks the legend
    legend_height = 0.35 * (len(METHODS) // legend_columns) + 0.2  # inches
    width, height = 3.6 * len(metrics), 3.0 * len(ratios) + 0.6 + legend_height
    if figure is None:
        import matplotlib.pyplot as plt

        figure = plt.figure(figsize=(width, height))
    else:
        figure.set_size_inches(width, height)
    axes = figure.subplots(len(ratios), len(metrics), sharex=True, sharey=True, squeeze=False)
    for i, ratio in enumerate(ratios):
        for j, metric in enumerate(metrics):
            _draw_metric(axes[i, j], results[ratio], epsilons, metric)
            if i == 0:
                axes[i, j].set_title(METRIC_LABELS[metric])
            if j == 0:
                axes[i, j].set_ylabel(f"minority {ratio:.0%}\nscore")
            if i == len(ratios) - 1:
                axes[i, j].set_xlabel("total privacy budget ε")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=legend_columns, frameon=False)
    title = (
        "Breast cancer, malignant under-sampled: DP logistic regression pipelines",
        "(mean ± standard error over repeats × folds)",
    )
    one_line = legend_columns == 3  # a wide figure has room for the title on one line
    figure.suptitle((" " if one_line else "\n").join(title), fontsize=11)
    title_height = 0.35 if one_line else 0.6  # inches
    figure.tight_layout(rect=(0, legend_height / height, 1, 1 - title_height / height))
    return figure


def _draw_metric(ax, by_method, epsilons, metric):
    for method in METHODS:
        mean, se = np.array([mean_and_se(by_method[method][e][metric]) for e in epsilons]).T
        colour, label = _COLOURS[method], METHOD_LABELS[method]
        ax.plot(epsilons, mean, _STYLES[method], marker="o", ms=4, color=colour, label=label)
        ax.fill_between(epsilons, mean - se, mean + se, color=colour, alpha=0.15)
    ax.set_xscale("log")
    ax.set_xticks(epsilons)
    ax.set_xticklabels([f"{e:g}" for e in epsilons])
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
