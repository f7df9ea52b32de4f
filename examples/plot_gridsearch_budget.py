"""
What a grid search over ε costs each record
===========================================

A hyperparameter search fits the model many times, and every fit that trains
on a record spends that record's privacy again.
:func:`skdp_anomaly.check_privacy_budget` prices a whole :class:`~sklearn.model_selection.GridSearchCV` from its
parameters, before anything is fitted: every training fold a record is in,
for every candidate, plus the refit of the winner.

Below: a :class:`skdp_anomaly.BudgetedPipeline` (public clipping, then
:class:`~skdp_anomaly.PrivateLogisticRegression`) searched over
its ε with 5-fold :class:`~sklearn.model_selection.KFold`. We print the
privacy report of one fit and of the whole search, draw what the search
costs one record against the ε of the model it returns, and show that a
budgeted pipeline refuses a fit over its budget before reading the data.
"""

# %%
# Data with public bounds
# -----------------------
# Four features, 5 % positives. The bounds [-4, 4] of every feature are
# public (domain knowledge), so clipping to them costs no ε and the
# classifier's ``data_norm`` is 8 = ‖(4, 4, 4, 4)‖₂.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.preprocessing import FunctionTransformer

from skdp_anomaly import (
    BudgetedPipeline,
    PrivacyBudgetError,
    PrivateLogisticRegression,
    check_privacy_budget,
)

X, y = make_classification(
    n_samples=4000,
    n_features=4,
    n_informative=3,
    n_redundant=0,
    weights=[0.95],
    random_state=0,
)


def clip(X):
    return np.clip(X, -4.0, 4.0)  # each record on its own: no ε


def make_pipeline(epsilon=1.0, budget=None):
    # a fixed random_state makes the example reproducible; never in deployment
    return BudgetedPipeline(
        [
            ("clip", FunctionTransformer(clip)),
            ("clf", PrivateLogisticRegression(epsilon=epsilon, data_norm=8.0, random_state=0)),
        ],
        budget=budget,
    )


# %%
# One fit
# -------
# The report of a single fit at ε = 1: one row per step, the total, and what
# the total takes as public without being able to check it.

print(check_privacy_budget(make_pipeline(1.0), budget=1.0).to_markdown())

# %%
# The whole search
# ----------------
# ``KFold`` assigns folds by position only, so one record's fold does not
# depend on the others: with 5 folds each record is in 4 training sets per
# candidate. The winner is refitted on all the data, and since which
# candidate wins depends on the data, the dearest candidate is charged.
# The report also flags what differential privacy does not cover at all:
# choosing the winner by raw validation scores. :class:`skdp_anomaly.PrivateGridSearchCV`
# makes that choice a private release, priced with no leak (see
# :ref:`sphx_glr_auto_examples_plot_private_model_selection.py`).

grid = [0.25, 0.5, 1.0, 2.0, 4.0]
search = GridSearchCV(
    make_pipeline(),
    {"clf__epsilon": grid},
    cv=KFold(5, shuffle=True, random_state=0),
    scoring="roc_auc",
)
report = check_privacy_budget(search, on_leak="ignore")  # "warn" or "raise" in real use
print(report.to_markdown())

folds = 4  # training folds per record with KFold(5)
per_candidate = [folds * e for e in grid]
refit = max(grid)
print(
    f"\nPer record: {folds} folds × (ε = {' + '.join(f'{e:g}' for e in grid)}) "
    f"+ refit {refit:g} = {sum(per_candidate) + refit:g}; "
    f"the report says {report.epsilon:g}."
)

# %%
# A label-dependent splitter is not a bound
# -----------------------------------------
# With ``StratifiedKFold`` (what ``cv=5`` means for a classifier) the folds
# depend on the labels of *other* records, so changing one record can move
# many others between folds: the fold count no longer bounds the cost, and
# the report says so instead of printing a number it cannot prove.

stratified = GridSearchCV(make_pipeline(), {"clf__epsilon": grid}, cv=StratifiedKFold(5))
for leak in check_privacy_budget(stratified, on_leak="ignore").leaks:
    print("leak:", leak)

# %%
# Fit the search and draw the bill
# --------------------------------
# Left: the validation ROC-AUC of each candidate (computed without privacy:
# these scores, and the choice they make, are the leak listed above). Right:
# what one record pays for the search, against the ε of the model the search
# returns.

search.fit(X, y)
best = search.best_params_["clf__epsilon"]
print(f"chosen ε = {best:g}; validation ROC-AUC {search.best_score_:.3f}")

fig, (ax_score, ax_cost) = plt.subplots(1, 2, figsize=(10, 3.8))
mean = search.cv_results_["mean_test_score"]
std = search.cv_results_["std_test_score"]
ax_score.errorbar(grid, mean, yerr=std, marker="o", capsize=3)
ax_score.set_xscale("log")
ax_score.set_xticks(grid, [f"{e:g}" for e in grid])
ax_score.minorticks_off()
ax_score.set_xlabel("ε of the candidate")
ax_score.set_ylabel("validation ROC-AUC (not DP)")
ax_score.set_title("Candidates")
ax_score.grid(alpha=0.3)

bottom = 0.0
colours = plt.cm.Blues(np.linspace(0.35, 0.9, len(grid)))
for e, cost, colour in zip(grid, per_candidate, colours):
    ax_cost.bar(0, cost, bottom=bottom, color=colour, label=f"4 folds × ε={e:g}")
    bottom += cost
ax_cost.bar(0, refit, bottom=bottom, color="#d62728", label=f"refit (dearest: {refit:g})")
ax_cost.bar(1, best, color="#2ca02c", label="the returned model alone")
ax_cost.set_xticks([0, 1], ["whole search", f"chosen model\n(ε = {best:g})"])
ax_cost.set_ylabel("ε per record (replace-one)")
ax_cost.set_title(f"Cost per record: {report.epsilon:g} vs {best:g}")
ax_cost.legend(fontsize=8, loc="upper right")
fig.tight_layout()

# %%
# A budget is checked before the data is read
# -------------------------------------------
# A ``BudgetedPipeline`` prices itself at every ``fit``: at ε = 2 with a
# budget of 1 it raises before any step sees a record.

try:
    make_pipeline(epsilon=2.0, budget=1.0).fit(X, y)
except PrivacyBudgetError as exc:
    print("refused:", str(exc).splitlines()[0])
