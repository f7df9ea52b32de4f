"""
Finding one anomaly with noisy group queries
============================================

:class:`skdp_anomaly.NoisyGroupSearch` (Bittner, Sarwate and Wright, *Using
Noisy Binary Search for Differentially Private Anomaly Detection*) looks for
the single anomaly among ``n`` items without reading any item's score: it
asks a sensor for the noisy maxima of two halves of the items and updates its
belief about where the anomaly is by Bayes' rule. The search is
anomaly-restricted ε-DP: the non-anomalous items are protected, the anomaly
is not (finding it is the point). ``epsilon`` is the most it spends in all;
``query_epsilon`` fixes the ε of one query, as in the paper.

Below: 2 000 scores drawn from a mixture of normals (the non-anomalous
scores lie below ``low``), one anomaly above ``high``. We compare the three
ways of answering and using a query over 25 searches each, at several ε per
query (within a total of 100): the error rate (the anomaly is not among the 4
reported candidates) and the total ε the search spent.
"""

import matplotlib.pyplot as plt
import numpy as np

from skdp_anomaly import NoisyGroupSearch

rng = np.random.default_rng(0)
n = 2000
scores = np.abs(np.concatenate([rng.normal(0.3, 0.1, n // 2), rng.normal(0.6, 0.1, n // 2)]))
scores = np.minimum(scores, 0.95)
low, high = 1.0, 1.6

epsilons = [0.5, 1.0, 2.0]
oracles = ["randomized_response", "binarized", "direct"]
results = {o: ([], []) for o in oracles}
for oracle in oracles:
    for eps in epsilons:
        errors, spent = [], []
        for run in range(25):
            x = scores.copy()
            anomaly = np.random.default_rng(run).integers(n)
            x[anomaly] = 1.8
            search = NoisyGroupSearch(
                epsilon=100.0,
                query_epsilon=eps,
                oracle=oracle,
                low=low,
                high=high,
                random_state=run,
            )
            search.fit(x.reshape(-1, 1))
            errors.append(anomaly not in search.candidates_)
            spent.append(search.privacy_spent_.epsilon)
        results[oracle][0].append(np.mean(errors))
        results[oracle][1].append(np.mean(spent))

fig, (ax_err, ax_eps) = plt.subplots(1, 2, figsize=(9, 3.5))
for oracle, (err, spent) in results.items():
    ax_err.plot(epsilons, err, marker="o", label=oracle)
    ax_eps.plot(epsilons, spent, marker="o", label=oracle)
ax_err.set_xscale("log")
ax_eps.set_xscale("log")
ax_err.set_xlabel("ε per query")
ax_eps.set_xlabel("ε per query")
ax_err.set_ylabel("error rate (anomaly not in 4 candidates)")
ax_eps.set_ylabel("total ε spent (anomaly-restricted)")
ax_err.legend()
fig.suptitle("Noisy group search, 2 000 items, mean over 25 searches")
fig.tight_layout()

for oracle, (err, spent) in results.items():
    print(oracle, "error:", np.round(err, 3).tolist(), "total ε:", np.round(spent, 1).tolist())
