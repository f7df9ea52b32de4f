"""
Outsourcing burst detection on private counts (DPOAD)
=====================================================

:class:`skdp_anomaly.DPOAD` (Mohammady et al., *DPOAD: Differentially
Private Outsourcing of Anomaly Detection through Iterative Sensitivity
Learning*) splits anomaly detection between two parties:

* the **data owner** holds the records. For each time window it counts them
  over the analyst's public bins and releases only noisy counts, at ε per
  window;
* the **analyst** sees only those releases. It flags the cells (window ×
  bin) whose count is too high or too low for that bin, at a false-alarm
  level that it chooses.

The default detector (``detector="baseline"``) learns each bin's share of a
window, and how much the shares vary between windows, from the first three
windows (``learning_windows=3``), taking out the release noise, whose
distribution it knows exactly. It then tests every later window's noisy
counts against its share of that window's noisy total (so a busier window is
not an anomaly), with the learnt variation and the noise added back in. Holm's correction
across the window's bins means that a window with no anomaly is flagged with
probability at most ``alpha`` (0.05). All of this is post-processing of the
releases, so it costs no ε.

Below: a stream of 10 windows of 1 000 records over 40 bins. The background
is the same two-mode mixture in every window. Bursts of 150 and 80 records
fall into one bin of window 4 and window 7. Each window is released at
ε = 1 with the default ``mechanism="record"`` (noise calibrated to one
record) and the public ``max_count=1000``, the window size. The default
detector is compared with the paper's rule (``detector="kse"``: Kim's KSE
score over the pooled counts, against ``threshold``). Last, we show the
smallest burst each release mechanism lets the analyst detect at ε = 1.
"""

# %%
# The stream and what the owner sees
# ----------------------------------
# Only the owner ever holds the true counts. They are computed here with
# :func:`~skdp_anomaly.dpoad.window_histogram` (the owner's own first step)
# for illustration only.

import warnings

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from skdp_anomaly import DPOAD
from skdp_anomaly.dpoad import window_histogram
from skdp_anomaly.exceptions import DPOADNoiseWarning

n_windows, n_records, epsilon, max_count = 10, 1000, 1.0, 1000
edges = np.linspace(0.0, 1.0, 41)  # the analyst's 40 public bins
bursts = {4: (150, 31), 7: (80, 12)}  # window: (records, bin)

rng = np.random.default_rng(0)  # a fixed seed: for the example only
windows = []
for i in range(n_windows):
    low = rng.random(n_records) < 0.5  # two modes, near 0.3 and near 0.75
    x = np.where(low, rng.beta(2.0, 5.0, n_records), rng.beta(8.0, 3.0, n_records))
    if i in bursts:
        size, b = bursts[i]
        x[:size] = (b + rng.random(size)) / 40  # a burst inside bin b
    windows.append(x)
true_counts = np.array([window_histogram(w, edges) for w in windows])
burst_cells = np.zeros_like(true_counts, dtype=bool)
for i, (_, b) in bursts.items():
    burst_cells[i, b] = True

# %%
# The default detector
# --------------------
# Each ``partial_fit`` call is one window: the owner releases, the analyst
# answers. Windows 0-2 are the learning windows, so they are not tested. The kse
# run below uses the same mechanism and ``random_state``, so it gets the same
# releases. Only the analyst's rule differs.

runs = {}
for detector in ("baseline", "kse"):
    det = DPOAD(
        edges, epsilon=epsilon, max_count=max_count, detector=detector, random_state=1
    )  # a fixed seed: for the example only
    for w in windows:
        det.partial_fit(w)
    runs[detector] = det
det = runs["baseline"]
noisy = np.array([r.values for r in det.releases_])  # what the analyst received
# each tested window's expected counts: learnt shares x its noisy total (post-processing)
expected = [r.expected_counts for r in det.reports_]
learning = np.isnan(det.p_values_).all(axis=1)  # rows never tested

fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
image = axes[0].imshow(true_counts, aspect="auto", cmap="viridis")
fig.colorbar(image, ax=axes[0], label="true count")
axes[0].set_title("the owner's true counts (never released)")
# 0: not flagged, 1: flagged, 2: learning window (not tested)
code = np.where(learning[:, None], 2, det.anomalies_.astype(int))
axes[1].imshow(
    code,
    aspect="auto",
    interpolation="nearest",
    cmap=ListedColormap(["white", "tab:red", "lightgrey"]),
    vmin=0,
    vmax=2,
)
rows, cols = np.nonzero(burst_cells)
axes[1].scatter(
    cols, rows, marker="o", s=90, facecolors="none", edgecolors="black", label="injected burst"
)
axes[1].legend(loc="lower left", fontsize=8)
axes[1].set_title("flags of the default detector (red; grey: learning)")
for ax in axes:
    ax.set_xlabel("bin")
    ax.grid(False)
axes[0].set_ylabel("window")
fig.tight_layout()

# %%
# Inside the burst windows
# ------------------------
# What the analyst works with: each bin's noisy count (noise of scale
# 1/ε = 1 count) against the count it expects for that bin. A bin is flagged
# when its noisy count is further from the expected count than the learnt
# variation between windows plus the noise explain, after the correction for
# testing 40 bins.

fig, axes = plt.subplots(1, len(bursts), figsize=(11, 3.4), sharey=True)
centres = np.arange(edges.size - 1)
for ax, i in zip(axes, bursts):
    flagged = det.anomalies_[i]
    ax.bar(
        centres,
        noisy[i],
        color=np.where(flagged, "tab:red", "tab:blue"),
        label="noisy count (released)",
    )
    ax.step(centres, expected[i], where="mid", color="black", label="expected count")
    ax.set_title(f"window {i}: flagged bin(s) {np.flatnonzero(flagged).tolist()}")
    ax.set_xlabel("bin")
axes[0].set_ylabel("count")
axes[0].legend(fontsize=8)
fig.tight_layout()

# %%
# The paper's rule flags windows with no burst
# --------------------------------------------
# ``detector="kse"`` scores all the cells released so far and flags the top of
# the score range. So it always finds something: before the first burst it
# flags the ordinary extremes of the first windows. The default detector
# flags only the two burst windows.
#
# Right: the burst a typical bin must hold to be flagged about half the time
# (``detectable_excess_``), for each release mechanism at ε = 1. The paper's
# mechanisms protect a whole count cell, so their noise is calibrated to up to
# ``max_count`` records. At ε = 1 they would need more than ``max_count``
# extra records, so the detector cannot decide. DPOAD then emits a
# :class:`~skdp_anomaly.exceptions.DPOADNoiseWarning`. The example silences that
# warning because it is the point of the panel. In a deployment, keep it.

excess = {}
for mechanism in ("record", "laplace", "painfree", "dpoad"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DPOADNoiseWarning)  # expected: the panel shows it
        run = DPOAD(
            edges,
            epsilon=epsilon,
            gamma=0.05,
            mechanism=mechanism,
            max_count=max_count,
            random_state=1,
        )  # a fixed seed: for the example only
        for w in windows:  # 10 windows at γ = 0.05: n γ = 0.5 < 1, accepted
            run.partial_fit(w)
    excess[mechanism] = run.detectable_excess_

fig, axes = plt.subplots(1, 2, figsize=(11, 3.4), gridspec_kw={"width_ratios": [1.3, 1]})
is_burst = np.isin(np.arange(n_windows), list(bursts))
for row, (name, run) in enumerate(runs.items()):
    got = run.anomalous_windows_
    # 0: quiet, 1: burst window flagged, 2: burst-free window flagged, 3: burst missed,
    # 4: learning window (the baseline's windows 0-2; kse tests every window)
    code = np.where(got & is_burst, 1, np.where(got, 2, np.where(is_burst, 3, 0)))
    if name == "baseline":
        code = np.where(learning, 4, code)
    axes[0].imshow(
        code[None, :],
        extent=(-0.5, n_windows - 0.5, row + 0.5, row - 0.5),
        cmap=ListedColormap(["white", "tab:green", "tab:red", "black", "lightgrey"]),
        vmin=0,
        vmax=4,
        interpolation="nearest",
        aspect="auto",
    )
    for i in np.flatnonzero(got):  # how many cells of the window are flagged
        axes[0].text(
            i, row, f"{int(run.anomalies_[i].sum())} cell(s)", ha="center", va="center", fontsize=7
        )
for i in np.flatnonzero(learning):
    axes[0].text(i, 0, "learning", ha="center", va="center", fontsize=7)
axes[0].axhline(0.5, color="black", linewidth=0.8)
axes[0].set(
    xlim=(-0.5, n_windows - 0.5),
    ylim=(1.5, -0.5),
    xlabel="window",
    xticks=range(n_windows),
    yticks=[0, 1],
    yticklabels=list(runs),
)
axes[0].grid(False)
axes[0].set_title("flagged windows (green: a burst, red: none)")

names = list(excess)
axes[1].bar(
    names,
    [excess[m] for m in names],
    color=["tab:green" if excess[m] <= max_count else "tab:red" for m in names],
)
axes[1].axhline(max_count, color="black", linestyle="--", label=f"max_count = {max_count}")
for x, m in enumerate(names):
    axes[1].text(x, excess[m], f"{excess[m]:.0f}", ha="center", va="bottom", fontsize=8)
axes[1].set_yscale("log")
axes[1].set_ylim(10, 1e5)
axes[1].set_ylabel("detectable excess (records)")
axes[1].set_title(f"detectable burst, ε = {epsilon:g} per window")
axes[1].legend(fontsize=8)
fig.tight_layout()

# %%
# What the analyst reports
# ------------------------
# The noisy counts and the expected counts are both DP releases or their
# post-processing, so printing them leaks nothing more.

for name, run in runs.items():
    print(f"{name:8s} flags windows {np.flatnonzero(run.anomalous_windows_).tolist()}")
    for i, b in np.argwhere(run.anomalies_):
        reference = (
            "learning window, no expected count yet"
            if learning[i]
            else f"expected {expected[i][b]:5.1f}"
        )
        print(f"    window {i} bin {b:2d}: noisy count {noisy[i, b]:4d}, {reference}")
print(
    "detectable excess at ε = 1 (records; max_count = 1000):",
    {m: round(float(v)) for m, v in excess.items()},
)
# One record belongs to one window, so with mechanism="record" one record is
# protected at ε = 1 over the whole stream. The 10 ε below is the bound for a
# person with a record in every window.
print("privacy spent:", det.privacy_spent_)
