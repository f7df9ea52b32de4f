"""
Auditing a mechanism: catching noise that is too small
======================================================

A differential-privacy proof can be wrong, and so can the code that follows
it: a noise scale off by a factor of two does not crash anything, it only
makes every release twice as revealing. :func:`skdp_anomaly.audit` checks a
claim empirically: it runs a mechanism many times on two neighbouring inputs,
counts how often events *fixed in advance* happen on each, and turns the
counts into a Clopper–Pearson lower bound on ε that holds with 95 %
confidence. A bound above the claimed ε proves the claim false; a bound close
to it, for a mechanism known to be tight, shows that it adds no more noise
than it needs.

Below: a counting query (sensitivity 1) released with the package's
:class:`~skdp_anomaly.privacy.LaplaceMechanism`, and with a broken copy that
draws noise of half the scale (Δ/(2ε)) while still claiming ε, audited at
several ε on the worst-case neighbouring counts 0 and 1.
"""

# %%
# The two mechanisms and the events
# ---------------------------------
# For Laplace noise on inputs 0 and 1, the output ranges "≥ 1" and "≤ 0" are
# where the likelihood ratio is largest (exactly e^ε for a correct
# mechanism), so they are the events to count. They are chosen from the
# mechanism's form, before any output is drawn.

import matplotlib.pyplot as plt
import numpy as np

from skdp_anomaly import audit
from skdp_anomaly.privacy import LaplaceMechanism


def correct(epsilon):
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=1.0)
    return lambda count, rng, n: mech.randomise(np.full(n, count), rng)


def broken(epsilon):
    # the bug: a scale of Δ/(2ε), as if the sensitivity were 1/2; the true ε is 2ε
    return lambda count, rng, n: count + rng.laplace(0.0, 1.0 / (2 * epsilon), size=n)


events = {"output >= 1": lambda out: out >= 1.0, "output <= 0": lambda out: out <= 0.0}

# %%
# The audit
# ---------
# 10⁶ runs per input; ``batch=True`` lets each mechanism draw all of them in
# one vectorised call.

claims = [0.25, 0.5, 1.0, 2.0, 4.0]
bounds = {"correct": [], "broken": []}
for eps in claims:
    for label, factory in (("correct", correct), ("broken", broken)):
        result = audit(
            factory(eps),
            (0, 1),
            events,
            n_runs=10**6,
            batch=True,
            claimed_epsilon=eps,
            random_state=0,
            name=f"{label} Laplace, ε={eps:g}",
        )
        bounds[label].append(result.epsilon_lower_bound)
        verdict = "VIOLATES the claim" if result.epsilon_lower_bound > eps else "within the claim"
        print(
            f"{label:>7} Laplace, claimed ε = {eps:<4g}: lower bound "
            f"{result.epsilon_lower_bound:.3f} ({result.ratio:.2f} × claim): "
            f"{verdict}"
        )

# %%
# One audit in full: the counts behind the last bound.
print(result)
print(result.to_markdown())

# %%
# Lower bound against the claimed ε
# ---------------------------------
# The correct mechanism's bound sits just under the diagonal (the claim): it
# is tight, so it is not over-noised either. The broken one's bound is near
# 2ε, far above its claim at every ε: the audit catches the bug.

fig, (ax_dist, ax_bound) = plt.subplots(1, 2, figsize=(10, 4))
rng = np.random.default_rng(0)
grid = np.linspace(-4, 5, 181)
for label, factory, colour in (
    ("correct", correct, "#1f77b4"),
    ("broken", broken, "#d62728"),
):
    for count, style in ((0, "-"), (1, "--")):
        draws = factory(1.0)(count, rng, 200_000)
        ax_dist.hist(
            draws,
            bins=grid,
            density=True,
            histtype="step",
            ls=style,
            color=colour,
            label=f"{label}, count = {count}",
        )
ax_dist.axvspan(1.0, 5.0, color="#cccccc", alpha=0.4, label='event "output ≥ 1"')
ax_dist.set_xlabel("released count at ε = 1")
ax_dist.set_ylabel("density")
ax_dist.set_title("Outputs on the neighbouring counts 0 and 1")
ax_dist.legend(fontsize=7)

ax_bound.plot(claims, claims, color="#555555", lw=1, label="claimed ε")
ax_bound.plot(
    claims,
    2 * np.array(claims),
    color="#555555",
    lw=1,
    ls=":",
    label="2ε (true ε of the broken one)",
)
ax_bound.plot(claims, bounds["correct"], "o-", color="#1f77b4", label="correct Laplace")
ax_bound.plot(claims, bounds["broken"], "s-", color="#d62728", label="broken Laplace (half scale)")
ax_bound.set_xscale("log")
ax_bound.set_yscale("log")
ticks = claims + [8.0]
ax_bound.set_xticks(claims, [f"{e:g}" for e in claims])
ax_bound.set_yticks(ticks, [f"{e:g}" for e in ticks])
ax_bound.minorticks_off()
ax_bound.set_xlabel("claimed ε")
ax_bound.set_ylabel("audited lower bound on ε (95 %)")
ax_bound.set_title("Audit: lower bound against the claim")
ax_bound.legend(fontsize=8)
fig.tight_layout()
