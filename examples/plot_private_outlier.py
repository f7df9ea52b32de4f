"""
Private outlier detection with scikit-learn's outlier API
=========================================================

:class:`skdp_anomaly.PrivateHBOS` is used like
:class:`~sklearn.ensemble.IsolationForest`: ``fit`` on unlabelled rows,
then ``score_samples`` (higher is more normal), ``decision_function`` and
``predict`` (+1 inlier, −1 outlier). What it learns is one histogram per
feature, released with ε-DP noise (Goldstein and Dengel's HBOS). This
example finds malignant tumours among benign ones in the breast cancer
data, draws the ROC-AUC against ε next to
:class:`~sklearn.ensemble.IsolationForest`, and flags a fixed share of the
rows with ``contamination``.

Every ``random_state`` below is fixed so that the example gives the same
numbers on every run; a deployment leaves them at ``None``.
"""

# %%
# Public bounds, then the detector
# --------------------------------
# The histograms are cut on public bounds. Here a 15 % slice of the rows
# stands for public knowledge (an earlier, published sample): its per-feature
# range fixes the bounds, and :class:`~skdp_anomaly.BoundsScaler` maps every
# other row onto [-1, 1] with them (clipping what lies outside). The slice is
# never fitted nor scored. Outliers: the benign rows plus a random tenth as
# many malignant ones.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from skdp_anomaly import BoundsScaler, PrivateHBOS, check_privacy_budget

X, y = load_breast_cancer(return_X_y=True)
rng = np.random.default_rng(0)
benign, malignant = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
keep = np.r_[benign, rng.choice(malignant, len(benign) // 10, replace=False)]
X, is_outlier = X[keep], y[keep] == 0
X_public, X_private, _, is_outlier = train_test_split(
    X, is_outlier, train_size=0.15, stratify=is_outlier, random_state=0
)
bounds = (X_public.min(axis=0), X_public.max(axis=0))

detector = make_pipeline(
    BoundsScaler(bounds=bounds), PrivateHBOS(epsilon=1.0, bounds=(-1, 1), random_state=0)
)
price = check_privacy_budget(detector, neighbours="add_remove")
print(
    f"{len(X_private)} rows, {is_outlier.sum()} outliers; priced before fitting: "
    f"ε = {price.epsilon:g} (add/remove one record)"
)
detector.fit(X_private)
hbos = detector[-1]
scores = detector.score_samples(X_private)
print(
    f"{hbos.n_bins_} bins per feature; ROC-AUC {roc_auc_score(is_outlier, -scores):.3f}; "
    f"ε spent {hbos.privacy_spent_.epsilon:g}"
)

# %%
# ROC-AUC against ε
# -----------------
# Twenty fits per ε, each with fresh noise (mean ± one standard error),
# against the non-private ``IsolationForest()`` on the same rows.

Z = detector[0].transform(X_private)
epsilons = [0.1, 0.3, 1.0, 3.0, 10.0]
auc = np.array(
    [
        [
            roc_auc_score(
                is_outlier,
                -PrivateHBOS(epsilon=e, bounds=(-1, 1), random_state=s).fit(Z).score_samples(Z),
            )
            for s in range(20)
        ]
        for e in epsilons
    ]
)
forest = roc_auc_score(is_outlier, -IsolationForest(random_state=0).fit(Z).score_samples(Z))
for e, row in zip(epsilons, auc):
    print(f"ε = {e:<4g} ROC-AUC {row.mean():.3f} ± {row.std(ddof=1) / np.sqrt(len(row)):.3f}")
print(f"IsolationForest(): {forest:.3f}")

# %%
# Flagging a share of the rows
# ----------------------------
# ``contamination=0.1`` sets ``offset_`` to a DP quantile of the training
# scores, paid from the same ε (a fifth of it); ``predict`` then flags about
# a tenth of the rows. With only a few hundred rows the quantile is coarse:
# its error is of the order of ``2 log(128) / (0.2 ε)`` rows.

flagging = PrivateHBOS(epsilon=1.0, bounds=(-1, 1), contamination=0.1, random_state=0).fit(Z)
flags = flagging.predict(Z) == -1
print(
    f"flagged {flags.mean():.3f} of the rows; {is_outlier[flags].mean():.2f} of them are "
    f"malignant (against {is_outlier.mean():.2f} of all rows)"
)

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
se = auc.std(axis=1, ddof=1) / np.sqrt(auc.shape[1])
left.errorbar(epsilons, auc.mean(axis=1), yerr=se, marker="o", capsize=3, label="PrivateHBOS")
left.axhline(forest, color="grey", linestyle="--", label=f"IsolationForest() ({forest:.2f})")
left.set_xscale("log")
left.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
left.minorticks_off()
left.set_xlabel("ε (add/remove one record)")
left.set_ylabel("ROC-AUC")
left.legend(loc="lower right")
left.grid(alpha=0.3)
shown = flagging.score_samples(Z)
bins = np.linspace(shown.min(), shown.max(), 30)
right.hist(shown[~is_outlier], bins=bins, alpha=0.6, label="benign")
right.hist(shown[is_outlier], bins=bins, alpha=0.6, label="malignant")
right.axvline(flagging.offset_, color="black", linestyle=":", label="offset_ (DP, q = 0.1)")
right.set_xlabel("score_samples at ε = 1")
right.set_ylabel("rows")
right.legend()
fig.tight_layout()

# %%
# What the figure says
# --------------------
# Malignant rows lie in the sparse bins of several features, so they score
# low: from ε = 1 on, the private detector ranks them better than the
# non-private forest does (about 0.92 against 0.90 here), at ε = 0.3 it
# still reaches about 0.87, and at ε = 0.1 the noise (scale d/ε = 300 per
# count) leaves little (about 0.56). The user guide page "Private outlier
# detection" has the benchmark on seventeen public sets and the speed on a
# million rows.
