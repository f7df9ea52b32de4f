"""The analyst's default baseline: each cell's share of the window's noisy total, over-dispersed.

Reads DP releases and their public noise parameters only. A cell's count is negative binomial
with mean ``p_b T`` (learnt proportion times the window's noisy total, as volume swings move
every cell together) and variance ``phi p_b T`` (``phi`` learnt with the noise variance
subtracted); the noise is convolved in, Holm's procedure sets the window-wise level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from ._baseline import HolmTest, ReleaseNoise

# noise tails summed to here, the rest bounded conservatively: sets tightness only
_NOISE_TAIL = 1e-10
# count support around the mean, in sds; beyond it the tail is added whole (conservative)
_COUNT_SPAN = 20.0
# dispersion ratios this close to 1 are Poisson (the negative binomial's size diverges)
_POISSON_TOLERANCE = 1e-9
# cells x support points evaluated at once: bounds the memory of a 10^4-bin window
_CHUNK = 2_000_000


def _count_log_pmf(c, mu, phi):
    """Log pmf of the NB1 count (mean ``mu``, variance ``phi mu``), Poisson where phi is 1."""
    poisson = phi <= 1.0 + _POISSON_TOLERANCE
    safe_phi = np.where(poisson, 2.0, phi)
    size = mu / (safe_phi - 1.0)
    nb = (
        special.gammaln(c + size)
        - special.gammaln(size)
        - special.gammaln(c + 1.0)
        - size * np.log(safe_phi)
        + c * np.log1p(-1.0 / safe_phi)
    )
    return np.where(poisson, special.xlogy(c, mu) - mu - special.gammaln(c + 1.0), nb)


def _count_cdf(k, mu, phi):
    """``P(C <= k)``, 0 for k < 0."""
    poisson = phi <= 1.0 + _POISSON_TOLERANCE
    safe_phi = np.where(poisson, 2.0, phi)
    kk = np.maximum(k, 0.0)
    nb = special.betainc(mu / (safe_phi - 1.0), kk + 1.0, 1.0 / safe_phi)
    return np.where(k < 0, 0.0, np.where(poisson, special.pdtr(kk, mu), nb))


def _count_sf(k, mu, phi):
    """``P(C >= k)``, 1 for k <= 0."""
    poisson = phi <= 1.0 + _POISSON_TOLERANCE
    safe_phi = np.where(poisson, 2.0, phi)
    kk = np.maximum(k, 1.0)
    nb = special.betainc(kk, mu / (safe_phi - 1.0), 1.0 - 1.0 / safe_phi)
    return np.where(k <= 0, 1.0, np.where(poisson, special.pdtrc(kk - 1.0, mu), nb))


def _noise_sf(t, noise: ReleaseNoise):
    """``P(Z >= t)`` (t an integer for lattice noise)."""
    a, delta = noise._edge
    q = noise.decay
    with np.errstate(over="ignore"):
        return np.where(
            t > 0, a * q ** np.maximum(t, 0.0), 1.0 - a * q ** (np.maximum(-t, 0.0) + delta)
        )


def _noise_tails(t, noise: ReleaseNoise):
    """``P(Z >= t)`` and ``P(Z <= t)`` with one exponential for both (the hot loop)."""
    a, delta = noise._edge
    q = noise.decay
    edge = a * np.exp(np.abs(t) * math.log(q))
    far = 1.0 - q**delta * edge
    return np.where(t > 0, edge, far), np.where(t < 0, edge, far)


def noisy_count_tails(x, mu, phi, noise: ReleaseNoise) -> tuple[np.ndarray, np.ndarray]:
    """``P(C + Z >= x)`` and ``P(C + Z <= x)`` for an NB1 count ``C`` and the release noise ``Z``.

    ``C`` has mean ``mu > 0`` and variance ``phi mu`` (``phi >= 1``). The
    convolution is summed near ``x`` and the rest bounded: never too small.

    Examples
    --------
    >>> from skdp_anomaly.dpoad._baseline import ReleaseNoise, noisy_poisson_sf
    >>> from skdp_anomaly.dpoad._proportions import noisy_count_tails
    >>> noise = ReleaseNoise.of_scale(1.0, lattice=True)
    >>> sf, _ = noisy_count_tails([0, 10, 20], [5.0] * 3, [1.0] * 3, noise)
    >>> sf.round(4).tolist(), noisy_poisson_sf([0, 10, 20], 5.0, noise).round(4).tolist()
    ([0.9886, 0.0493, 0.0], [0.9886, 0.0493, 0.0])
    """
    x, mu, phi = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (x, mu, phi)))
    sd = np.sqrt(phi * mu)
    reach = math.ceil(math.log(_NOISE_TAIL) / math.log(noise.decay))
    lo = np.maximum(np.floor(mu - _COUNT_SPAN * sd) - 10.0, 0.0)
    hi = np.ceil(mu + _COUNT_SPAN * phi * sd) + 10.0  # right-skewed: more room above
    start = np.maximum(lo, np.ceil(x - reach))
    stop = np.maximum(np.minimum(hi, np.floor(x + reach)), start - 1.0)
    width = int(np.max(stop - start + 1.0, initial=0.0))
    sf = np.empty(x.size)
    cdf = np.empty(x.size)
    step = max(1, _CHUNK // max(width, 1))
    for s in range(0, x.size, step):
        part = slice(s, s + step)
        sf[part], cdf[part] = _summed_tails(
            x[part], mu[part], phi[part], start[part], stop[part], width, noise
        )
    return np.clip(sf, 0.0, 1.0), np.clip(cdf, 0.0, 1.0)


def _summed_tails(x, mu, phi, start, stop, width, noise):
    offsets = np.arange(width)[None, :]
    c = start[:, None] + offsets
    inside = c <= stop[:, None]
    # the pmf by its ratio f(c+1)/f(c): one log per point instead of three log-gammas
    poisson = phi <= 1.0 + _POISSON_TOLERANCE
    safe_phi = np.where(poisson, 2.0, phi)
    size = np.where(poisson, 1.0, mu / (safe_phi - 1.0))[:, None]
    with np.errstate(divide="ignore"):
        log_ratio = np.where(
            poisson[:, None],
            np.log(mu[:, None]) - np.log1p(c),
            np.log((c + size) / (c + 1.0)) + np.log1p(-1.0 / safe_phi)[:, None],
        )
    log_pmf = _count_log_pmf(start, mu, phi)[:, None] + np.cumsum(log_ratio, axis=1) - log_ratio
    with np.errstate(under="ignore"):
        pmf = np.where(inside, np.exp(log_pmf), 0.0)
    if noise.lattice:  # integer offsets: look the tails up instead of exponentiating
        base = (x - start).astype(np.int64)
        first = int(base.min()) - width
        up_table, down_table = _noise_tails(np.arange(first, int(base.max()) + 1.0), noise)
        index = (base - first)[:, None] - offsets
        up, down = up_table[index], down_table[index]
    else:
        up, down = _noise_tails(x[:, None] - c, noise)
    below, above = _count_cdf(start - 1.0, mu, phi), _count_sf(stop + 1.0, mu, phi)
    sf = (pmf * up).sum(axis=1) + below * _noise_sf(x - start + 1.0, noise) + above
    cdf = (pmf * down).sum(axis=1) + below + above * _noise_sf(stop + 1.0 - x, noise)
    return sf, cdf


def _t_inflation(df: float, level: float) -> float:
    """``(t_df / z)^2`` at the two-sided level (Student's t for a plug-in dispersion)."""
    if not math.isfinite(df):
        return 1.0
    z = stats.norm.isf(level / 2.0)
    return float((stats.t.isf(level / 2.0, df) / z) ** 2)


@dataclass(frozen=True, eq=False)  # arrays: compared by identity, like an estimator
class ProportionBaseline(HolmTest):
    """Cells' shares of the window total and their dispersion, from the learning windows."""

    proportions: np.ndarray  # (n_cells,) share of the summed noisy counts (floored at 0)
    expected: np.ndarray  # proportions times the learning windows' mean noisy total
    dispersion: float  # estimated ratio phi to the multinomial variance; 1 when not estimated
    dispersion_df: float  # its degrees of freedom (Satterthwaite); inf when not estimated
    count_dispersion: float  # the phi the test uses (Student-t inflated, at least 1)
    learnt_total: float  # the learning windows' summed noisy total (at least its noise's sd)
    learnt_noise_variance: float  # sum of the learning windows' noise variances per cell
    alpha: float  # the window-wise false-alarm level

    @classmethod
    def learn(
        cls, counts, noises, alpha: float, *, estimate_dispersion: bool = True
    ) -> "ProportionBaseline":
        """Fit from the learning windows' noisy counts (shape (n_windows, n_cells)).

        Raises ``ValueError`` for ``estimate_dispersion`` with one learning window.
        """
        counts = np.asarray(counts, dtype=np.float64)
        n_windows, n_cells = counts.shape
        totals = counts.sum(axis=1)
        variances = np.array([z.variance for z in noises])
        # noisy totals can be near or below 0: floored at the noise's sd, which keeps
        # later tests honest (and powerless)
        grand = max(float(totals.sum()), math.sqrt(n_cells * variances.sum()))
        kept = np.maximum(counts.sum(axis=0), 0.0)
        proportions = kept / kept.sum() if kept.sum() > 0 else np.full(n_cells, 1.0 / n_cells)
        if estimate_dispersion:
            if n_windows < 2:
                raise ValueError("estimating the dispersion takes at least 2 learning windows.")
            phi, df = _dispersion(counts, totals, proportions, variances)
            count_phi = max(phi * _t_inflation(df, alpha / n_cells), 1.0)
        else:
            phi, df, count_phi = 1.0, math.inf, 1.0
        expected, noise_variance = proportions * grand / n_windows, float(variances.sum())
        return cls(proportions, expected, phi, df, count_phi, grand, noise_variance, alpha)

    def expected_counts(self, x) -> np.ndarray:
        """The learnt proportions times the window's noisy total."""
        return self.proportions * max(float(np.sum(x)), 0.0)

    def _moments(self, total: float, noise: ReleaseNoise):
        """Each cell's count mean and variance-to-mean ratio in a window of this noisy total."""
        p = self.proportions
        share = total / self.learnt_total
        mu = p * total
        # the estimated mean's own variance (learning counts and noise, this total's noise)
        mean_variance = (
            self.count_dispersion * mu * share
            + share**2 * self.learnt_noise_variance
            + p**2 * p.size * noise.variance
        )
        # a rate within one standard error of 0 cannot be told from 0: take it there
        mu = np.maximum(mu, np.sqrt(mean_variance) + 1e-12)
        return mu, self.count_dispersion + mean_variance / mu

    def p_values(self, x, noise: ReleaseNoise) -> np.ndarray:
        """Each cell's two-sided p-value: ``2 min(P(C + Z >= x), P(C + Z <= x))``."""
        x = np.asarray(x, dtype=np.float64)
        mu, phi = self._moments(max(float(x.sum()), 0.0), noise)
        sf, cdf = noisy_count_tails(x, mu, phi, noise)
        return np.minimum(2.0 * np.minimum(sf, cdf), 1.0)

    def detectable_excess(self, noise: ReleaseNoise) -> float:
        """Counts above expected at which a median cell is flagged half the time (public: reads
        the baseline and the noise scale only)."""
        n_cells = self.proportions.size
        mu_all, phi_all = self._moments(float(self.expected.sum()), noise)
        cell = int(np.argsort(self.expected)[n_cells // 2])
        mu, phi = mu_all[cell : cell + 1], phi_all[cell : cell + 1]
        # from the learnt expected count: the test's mean is floored at its standard error
        start = self.expected[cell]
        level = self.alpha / n_cells / 2.0
        lo, hi = 0.0, 60.0 * (noise.scale + math.sqrt(phi[0] * mu[0]) + 1.0)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            x = np.array([start + mid])
            sf, _ = noisy_count_tails(np.ceil(x) if noise.lattice else x, mu, phi, noise)
            lo, hi = (lo, mid) if sf[0] <= level else (mid, hi)
        return float(hi)


def _dispersion(counts, totals, proportions, variances) -> tuple[float, float]:
    """Moment estimate ``sum(e^2 - n) / sum(h)`` of ``phi`` (``h`` multinomial residual variance,
    ``n`` the noise's share) and its degrees of freedom (Satterthwaite)."""
    n_windows, n_cells = counts.shape
    totals = np.maximum(totals, 1.0)  # noise-dominated totals: phi comes out large, the safe side
    grand = totals.sum()
    weight = totals / grand  # each window's share of the learning data
    fitted = proportions[None, :] * totals[:, None]
    residual = counts - fitted
    noise_part = (variances * (1.0 - weight) ** 2 + weight**2 * (variances.sum() - variances))[
        :, None
    ]
    multinomial = fitted * (1.0 - proportions)[None, :] * (1.0 - weight)[:, None]
    phi = float(np.sum(residual**2 - noise_part) / max(np.sum(multinomial), 1e-12))
    phi = max(phi, 1e-3)
    # per observation, before the fit takes its share
    count_var = max(phi, 1.0) * proportions[None, :] * totals[:, None]
    total_var = count_var + variances[:, None]
    fourth = np.sum(total_var**2 + 0.5 * max(phi, 1.0) ** 2 * count_var)
    df = (n_windows - 1) * (n_cells - 1) * np.sum(total_var) ** 2 / (n_windows * n_cells * fourth)
    return phi, float(max(df, 1.0))
