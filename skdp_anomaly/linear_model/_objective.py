"""Objective perturbation for logistic and softmax regression, released on a certified grid.

Everything here works in *normalised units*: rows projected into the L2 ball
of radius ``data_norm``, a constant column ``kappa · data_norm`` appended when
there is an intercept, and every augmented row divided by its norm bound
``R_aug = data_norm · sqrt(1 + kappa²)`` so that ``‖z‖ ≤ 1``. scikit-learn's
``C`` (``C · Σ loss + ½‖coefficients‖²`` on the projected rows) is then the
mean-scaled regulariser ``Λ = 1 / (C · n · R_aug²)`` on the normalised
coefficients ``u``.

One fit (Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 2, with the
accounting of :func:`split_budget`):

1. draw ``b`` with density ``∝ exp(-ε'‖b‖/Δ)`` (``Δ`` bounds the change of
   one record's loss gradient: 2 for the logistic loss, 2√2 for softmax);
2. minimise ``J(u) = mean loss + Λ_tot/2 ‖u‖² + bᵀu / n`` until a rigorous
   bound on the exact gradient puts the exact minimiser within ``g/2`` of
   the computed one (:func:`solve_certified`; ``g`` a public power of two);
3. release ``g · (rint(u/g) + Z)`` with ``Z`` discrete Laplace noise worth a
   small share of ε (:func:`smooth_release`).

The released floats are ``g`` times integers for every input, so their bits
say nothing beyond the integers (no floating-point leak); the certificate
and the noise ``Z`` make those integers a post-processing of the ideal
mechanism up to ``e^{±ε_s/2}`` per neighbour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize
from scipy.special import expit, gammainccinv

from ..privacy._grid import MAX_STEPS, from_steps, to_steps, two_sided_geometric

__all__ = ["Plan", "design_matrix", "fit_objective_perturbation", "logistic_privacy_loss",
           "plan_fit", "split_budget"]

#: sup of the logistic loss' second derivative
C_LOGISTIC = 0.25
#: unit roundoff of float64
UNIT = 2.0 ** -53
#: share of ε that makes the release float-safe (the discrete Laplace smoothing)
SMOOTH_SHARE = 0.01
#: rows per block of the certified sums (each block summed in any order: error ≤ (BLOCK-1)u Σ|x|)
BLOCK = 64
#: the grid covers the certificate's error for all noise draws but this tail (data-independent)
NOISE_TAIL = 2.0 ** -200
#: sup over m of |m| σ'(m) for the logistic σ: a rounding of a margin moves σ by ≤ this × u
_MARGIN_SLOPE = 0.2241
#: relative error of scipy's expit and numpy's exp, in units of u (a generous bound)
_ELEMENTARY_ULPS = 4.0
_SQRT2 = math.sqrt(2.0)


# ---------------------------------------------------------------------------- data
def project_rows(X: np.ndarray, norm: float) -> np.ndarray:
    """Rows projected into the L2 ball of radius ``norm`` (rows inside are unchanged)."""
    # the norm of each row divided by its largest entry: no overflow of the squares
    peak = np.abs(X).max(axis=1)
    peak = np.where(peak > 0, peak, 1.0)
    r = np.linalg.norm(X / peak[:, None], axis=1) * peak
    scale = np.minimum(1.0, norm / np.maximum(r, np.finfo(float).tiny))
    return X * scale[:, None]


def design_matrix(X: np.ndarray, data_norm: float, fit_intercept: bool, kappa: float):
    """``(Z, R_aug)``: normalised rows with ``‖z‖ ≤ 1`` (a hair inside, against rounding)."""
    Xp = project_rows(np.asarray(X, dtype=np.float64), data_norm)
    if fit_intercept:
        const = kappa * data_norm
        r_aug = math.hypot(data_norm, const)
        Z = np.hstack([Xp, np.full((Xp.shape[0], 1), const)])
    else:
        r_aug, Z = float(data_norm), Xp
    return project_rows(Z / r_aug, 1.0 - 2.0 ** -40), r_aug


# ---------------------------------------------------------------------------- accounting
#: relative margin kept below ε_o when the noise's ε' is solved numerically (rounding)
_SOLVE_MARGIN = 1e-12


def jacobian_term(n: int, lam: float, n_classes: int) -> float:
    """Softmax (K ≥ 3): ``log`` of the largest ratio of the neighbours' Jacobian determinants.

    ``(K-1) log(1 + 1/(K n Λ))``: one record's Hessian has rank ≤ K-1 and
    eigenvalues summing to ≤ 1 - 1/K. (Two classes are charged jointly with
    the noise, by :func:`logistic_privacy_loss`.)
    """
    return (n_classes - 1) * math.log1p(1.0 / (n_classes * n * lam))


def logistic_privacy_loss(eps_noise: float, n: int, lam: float) -> float:
    """Binary objective perturbation's privacy loss: ``β + max_s [β s + log(1 + c s(1-s))]``.

    Parameters
    ----------
    eps_noise : float
        ε' = 2β: the noise ``b`` has density ``∝ exp(-ε'‖b‖/2)``.
    n : int
        The number of records.
    lam : float
        Λ, the regulariser of the mean loss in normalised units (rows of
        norm ≤ 1); ``c = 1/(nΛ)``.

    Returns
    -------
    float
        The largest log ratio of the output densities of two neighbours.

    Notes
    -----
    At an output ``u`` the record of one neighbour has ``s = σ(-y uᵀz)``:
    its loss gradient has norm ``≤ s`` and its Hessian is ``s(1-s) zzᵀ``, so
    the noise term moves by ``≤ β(s + 1)`` (the other record's gradient is
    ≤ 1) and the Jacobian by ``≤ log(1 + c s(1-s))`` *at the same s*. The sup
    over s is at most ``ε' + log(1 + c/4)`` (the bound that takes both sups
    apart, Chaudhuri et al. 2011) and at least ``3ε'/4 + log(1 + c/4)``
    (s = 1/2). The function of s is concave; its maximiser has a closed form.

    Examples
    --------
    >>> import math
    >>> from skdp_anomaly.linear_model import logistic_privacy_loss
    >>> round(logistic_privacy_loss(1.0, 100, 0.01), 4)  # ε' = 1, c = 1
    1.0485
    >>> round(1.0 + math.log1p(1 / 4), 4)  # the two sups apart
    1.2231
    >>> logistic_privacy_loss(1.0, 1000, 0.01)  # c = 0.1 ≤ β: the Jacobian is free
    1.0
    """
    beta, c = eps_noise / 2.0, 1.0 / (n * lam)
    if beta <= 0.0:
        return math.log1p(C_LOGISTIC * c)
    # f(s) = βs + log(1 + c s(1-s)) is concave; f'(s) = 0 is β s² + (2-β) s - (β/c + 1) = 0,
    # whose positive root is written in the form that is stable as β → 0
    q = beta / c + 1.0
    root = 2.0 * q / ((2.0 - beta) + math.sqrt((2.0 - beta) ** 2 + 4.0 * beta * q))
    s = min(1.0, max(0.0, root))
    return beta + max(beta * s + math.log1p(c * s * (1.0 - s)), beta)


def _logistic_noise(eps_o: float, n: int, lam: float) -> float:
    """The largest ε' whose :func:`logistic_privacy_loss` is ≤ ``ε_o`` (0 when none is)."""
    cap = eps_o * (1.0 - _SOLVE_MARGIN)
    if logistic_privacy_loss(0.0, n, lam) >= cap:
        return 0.0
    eps_noise = brentq(lambda e: logistic_privacy_loss(e, n, lam) - cap, 0.0, eps_o,
                       xtol=1e-15 * eps_o, rtol=1e-15)
    while logistic_privacy_loss(eps_noise, n, lam) > cap:  # the root's last ulps
        eps_noise *= 1.0 - 1e-12
    return eps_noise


def split_budget(epsilon: float, n: int, lam: float, n_classes: int):
    """``(ε', Λ_tot, ε_s)``: the noise's ε, the regulariser, the float-safety share.

    ``ε_o = ε - ε_s`` pays the ideal mechanism: for two classes
    ``logistic_privacy_loss(ε', n, Λ_tot) ≤ ε_o``; for K ≥ 3
    ``ε' + jacobian_term ≤ ε_o``. When that would leave ``ε' < ε_o/2``, the
    regulariser is raised until ``ε' = ε_o/2`` exactly (no dead zone where
    the noise gets almost nothing).
    """
    eps_smooth = SMOOTH_SHARE * epsilon
    eps_o = epsilon - eps_smooth
    if n_classes == 2:
        eps_noise = _logistic_noise(eps_o, n, lam)
        if eps_noise >= eps_o / 2.0:
            return eps_noise, lam, eps_smooth
        cap = eps_o * (1.0 - _SOLVE_MARGIN)
        # the loss at ε' = ε_o/2 grows with c = 1/(nΛ): the largest c it allows
        c_floor = brentq(lambda c: logistic_privacy_loss(cap / 2.0, n, 1.0 / (n * c)) - cap,
                         1e-300, 4.0 * math.expm1(eps_o), xtol=1e-300, rtol=1e-14)
        lam_total = max(lam, 1.0 / (n * c_floor))
        return _logistic_noise(eps_o, n, lam_total), lam_total, eps_smooth
    eps_noise = eps_o - jacobian_term(n, lam, n_classes)
    if eps_noise >= eps_o / 2.0:
        return eps_noise, lam, eps_smooth
    lam_total = 1.0 / (n_classes * n * math.expm1(eps_o / (2.0 * (n_classes - 1))))
    return eps_o / 2.0, max(lam, lam_total), eps_smooth


@dataclass(frozen=True)
class Plan:
    """The public quantities of one fit, fixed before the data are read (besides n)."""

    n: int
    n_classes: int
    dim: int              # coefficients: p (binary) or K·p (softmax)
    lam: float            # Λ_tot
    eps_noise: float      # ε'
    eps_smooth: float     # ε_s
    sensitivity: float    # Δ: 2 (logistic) or 2√2 (softmax)
    grid: float           # g
    target: float         # the certificate's bound on the exact gradient: Λ_tot · g / 2


def plan_fit(epsilon: float, n: int, n_features: int, n_classes: int, lam: float) -> Plan:
    """The budget split, noise scale and certified grid of a fit (public quantities only)."""
    eps_noise, lam_total, eps_smooth = split_budget(epsilon, n, lam, n_classes)
    dim = n_features if n_classes == 2 else n_classes * n_features
    sensitivity = 2.0 if n_classes == 2 else 2.0 * _SQRT2
    # all but a NOISE_TAIL of the draws have ‖b‖ ≤ t*; then every point whose gradient
    # is below the target has ‖u‖ ≤ (loss gradient bound + t*/n) / Λ_tot
    t_star = float(gammainccinv(dim, NOISE_TAIL)) * sensitivity / eps_noise
    u_max = ((1.0 if n_classes == 2 else _SQRT2) + t_star / n) / lam_total
    err = 2.0 * _error_budget(n_features, n_classes, u_max, lam_total, t_star / n)
    grid = _power_of_two_ceil(max(32.0 * err / lam_total, u_max / MAX_STEPS * 4.0, 2.0 ** -60))
    return Plan(n, n_classes, dim, lam_total, eps_noise, eps_smooth, sensitivity, grid,
                lam_total * grid / 2.0)


def _power_of_two_ceil(x: float) -> float:
    return math.ldexp(1.0, math.ceil(math.log2(x)))


def _gamma(k: int) -> float:
    """Higham's γ_k = k u / (1 - k u)."""
    return k * UNIT / (1.0 - k * UNIT)


def _error_budget(p: int, n_classes: int, u_max: float, lam: float, lin_max: float) -> float:
    """A priori bound on the certified gradient's float error at any ``‖hi + lo‖ ≤ u_max``."""
    if n_classes == 2:
        first = ((2.0 * _MARGIN_SLOPE + _ELEMENTARY_ULPS) * UNIT
                 + 0.25 * (_gamma(p) ** 2 + 1.01 * _gamma(p) * UNIT) * u_max)
        size = 1.0
    else:
        K = n_classes
        first = (((4.0 * K / math.e) * 1.01 + K + 8.0) * UNIT
                 + (4.0 * _gamma(2 * p) ** 2 + 4.04 * _gamma(p) * UNIT) * u_max)
        size = _SQRT2
    sums = (_gamma(BLOCK + 2) * size + UNIT * size) * 1.01
    # the double-doubles next to a solution of norm u_max are u²·u_max apart in each
    # coordinate: the gradient cannot be resolved below ‖∇²J‖ times that step
    width = p if n_classes == 2 else p * n_classes
    resolution = 4.0 * (0.5 + lam) * UNIT ** 2 * u_max * math.sqrt(width)
    return first + sums + 2.0 * UNIT * (lam * u_max + lin_max) + UNIT + resolution


# ---------------------------------------------------------------------------- noise
def perturbation(rng: np.random.Generator, plan: Plan) -> np.ndarray:
    """``b`` with density ``∝ exp(-ε'‖b‖/Δ)``: a Gamma(dim, Δ/ε') norm, a uniform direction."""
    direction = rng.standard_normal(plan.dim)
    direction /= np.linalg.norm(direction)
    return rng.gamma(plan.dim, plan.sensitivity / plan.eps_noise) * direction


def smooth_release(u, plan: Plan, rng: np.random.Generator) -> np.ndarray:
    """``g · (rint(u/g) + Z)``, ``Z`` i.i.d. discrete Laplace of rate ``ε_s / (2 dim)``.

    ``u`` is the solver's double-double point ``(hi, lo)``, rounded as the
    exact real ``hi + lo``. With ``‖u - u*‖ ≤ g/2`` the rounded vectors of the
    computed and the exact minimiser differ by at most one step in each
    coordinate (``dim`` steps in L1), which ``Z`` hides at ``e^{ε_s/2}``;
    twice (once per neighbour) makes ε_s.
    """
    hi, lo = u
    rate = plan.eps_smooth / (2.0 * plan.dim)
    steps = to_steps(hi, plan.grid)
    # hi/g - steps is exact (|·| ≤ 1/2, the bits below the integer); lo/g is exact
    remainder = hi / plan.grid - steps.astype(np.float64) + lo / plan.grid
    steps = steps + np.rint(remainder).astype(np.int64)
    return from_steps(steps + two_sided_geometric(rate, hi.shape, rng), plan.grid)


# ---------------------------------------------------------------------------- objectives
class _Logistic:
    """``mean log(1 + exp(-y uᵀz)) + Λ/2 ‖u‖² + lin·u`` with ``y ∈ {±1}``."""

    def __init__(self, Z, y_pm, lam, lin):
        self.Z, self.y, self.lam, self.lin = Z, y_pm, lam, lin

    def value_grad(self, u):
        Z, n = self.Z, self.Z.shape[0]
        m = self.y * (Z @ u)
        value = np.logaddexp(0.0, -m).mean() + 0.5 * self.lam * (u @ u) + self.lin @ u
        return value, Z.T @ (-self.y * expit(-m)) / n + self.lam * u + self.lin

    def newton_step(self, u, grad):
        Z = self.Z
        m = Z @ u
        w = expit(m) * expit(-m) / Z.shape[0]
        hess = (Z.T * w) @ Z
        hess.flat[:: hess.shape[0] + 1] += self.lam
        return np.linalg.solve(hess, grad)

    def certified_grad(self, hi, lo):
        """``(gradient, bound)`` at the point ``hi + lo``: ``‖gradient - exact‖₂ ≤ bound``.

        Margins in twice the working precision (so a margin's rounding moves
        σ by ``≤ 2·0.2241u + γ_p²‖hi‖/4 + γ_p‖lo‖/4`` whatever its size), sums
        by blocks and ``math.fsum`` (error independent of n).
        """
        Z, n = self.Z, self.Z.shape[0]
        p = Z.shape[1]
        s = -self.y * expit(-(self.y * (dot2_rows(Z, hi) + Z @ lo)))
        terms = Z * (s / n)[:, None]
        sums, sum_err = certified_column_sums(terms)
        grad, add_err = _add_regulariser(sums, self.lam, hi, lo, self.lin)
        per_margin = ((2.0 * _MARGIN_SLOPE + _ELEMENTARY_ULPS) * UNIT
                      + 0.25 * (_gamma(p) ** 2 * float(np.linalg.norm(hi))
                                + 1.01 * _gamma(p) * float(np.linalg.norm(lo))))
        first = per_margin * np.abs(Z).sum(axis=0) / n * 1.01
        return grad, float(np.linalg.norm(first + sum_err + add_err))


class _Softmax:
    """``mean (logsumexp(W z) - (W z)_y) + Λ/2 ‖W‖² + lin·W``, ``W`` of shape (K, p), flattened."""

    def __init__(self, Z, y_idx, n_classes, lam, lin):
        self.Z, self.y, self.K, self.lam, self.lin = Z, y_idx, n_classes, lam, lin
        self.Y = np.eye(n_classes)[y_idx]

    def _probabilities(self, w):
        """Scores, probabilities and log-sum-exp of each row (scipy's is slow on small rows)."""
        S = self.Z @ w.reshape(self.K, -1).T
        top = S.max(axis=1, keepdims=True)
        E = np.exp(S - top)
        total = E.sum(axis=1, keepdims=True)
        return S, E / total, (top + np.log(total)).ravel()

    def value_grad(self, w):
        n = self.Z.shape[0]
        S, P, lse = self._probabilities(w)
        value = (lse - (S * self.Y).sum(1)).mean() + 0.5 * self.lam * (w @ w) + self.lin @ w
        return value, ((P - self.Y).T @ self.Z).ravel() / n + self.lam * w + self.lin

    def newton_step(self, w, grad):
        from scipy.sparse.linalg import LinearOperator, cg

        Z, K, n = self.Z, self.K, self.Z.shape[0]
        _, P, _ = self._probabilities(w)

        def hess_vec(v):
            A = Z @ v.reshape(K, -1).T
            B = P * A - P * (P * A).sum(1, keepdims=True)
            return (B.T @ Z).ravel() / n + self.lam * v

        op = LinearOperator((w.size, w.size), matvec=hess_vec, dtype=np.float64)
        step, _ = cg(op, grad, rtol=1e-12, maxiter=10 * w.size)
        return step

    def certified_grad(self, hi, lo):
        """``(gradient, bound)`` at ``hi + lo``, as for the logistic loss.

        Each row's scores are taken relative to its largest one, in twice the
        working precision: then ``π_k |D_k| ≤ 1/e`` bounds how far the
        rounding of a score moves the probabilities, whatever the size of W.
        """
        Z, K, n = self.Z, self.K, self.Z.shape[0]
        p = Z.shape[1]
        W, W_lo = hi.reshape(K, p), lo.reshape(K, p)
        top = np.argmax(Z @ W.T, axis=1)
        D = (dot2_scores_minus_top(Z, W, W[top])
             + (Z @ W_lo.T - (Z * W_lo[top]).sum(axis=1, keepdims=True)))
        E = np.exp(D)
        P = E / E.sum(axis=1, keepdims=True)
        # a score's error: 2u|D| (Dot2, then adding the low part) + γ²·2‖W‖ + 2γ_p‖W_lo‖·1.01
        row_err = (4.0 * UNIT * (P * np.abs(D)).sum(axis=1) * 1.01 + (K + 8.0) * UNIT
                   + 4.0 * _gamma(2 * p) ** 2 * float(np.linalg.norm(W))
                   + 4.04 * _gamma(p) * float(np.linalg.norm(W_lo)))
        G = P - self.Y
        sums, sum_err = zip(*(certified_column_sums(Z * (G[:, k] / n)[:, None])
                              for k in range(K)))
        grad, add_err = _add_regulariser(np.concatenate(sums), self.lam, hi, lo, self.lin)
        first = np.abs(Z).T @ row_err / n * 1.01  # a row's L1 error bounds each class' share
        cross = np.linalg.norm(np.concatenate(sum_err) + add_err)
        return grad, float(np.linalg.norm(first) + cross)


def _add_regulariser(sums, lam, hi, lo, lin):
    """``sums + Λ(hi + lo) + lin`` correctly rounded, and its error beyond ``sums``'.

    ``Λ·hi`` is split exactly into two floats; ``Λ·lo`` is rounded once.
    """
    reg, reg_err = _two_prod(np.full_like(hi, lam), hi)
    low = lam * lo
    grad = np.array([math.fsum(t) for t in zip(sums, reg, reg_err, low, lin)])
    return grad, UNIT * (np.abs(low) + np.abs(grad)) * 1.01


# ---------------------------------------------------------------------------- exact-ish arithmetic
_SPLIT = 134217729.0  # 2**27 + 1 (Dekker's splitter)


def _two_prod(a, b):
    x = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return x, al * bl - (((x - ah * bh) - al * bh) - ah * bl)


def _two_sum(a, b):
    x = a + b
    z = x - a
    return x, (a - (x - z)) + (b - z)


def dot2_rows(Z: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``Z @ u`` as if in twice the working precision (Ogita, Rump and Oishi 2005, Dot2).

    Error ``≤ u|Z u| + γ_p² |Z| |u|`` per row.
    """
    s, c = _two_prod(Z[:, 0], u[0])
    for j in range(1, Z.shape[1]):
        h, r = _two_prod(Z[:, j], u[j])
        s, q = _two_sum(s, h)
        c = c + (q + r)
    return s + c


def dot2_scores_minus_top(Z: np.ndarray, W: np.ndarray, W_top: np.ndarray) -> np.ndarray:
    """``Z @ W.T - rowwise(Z · W_top)``, shape (n, K), in Dot2 over the 2p products.

    Error ``≤ u|result| + γ_{2p}² Σ_j |z_j| (|w_kj| + |W_top_j|)`` per entry;
    the entry of a row's own top class is exactly 0 (its products cancel).
    """
    shape = (Z.shape[0], W.shape[0])
    s, c = np.zeros(shape), np.zeros(shape)
    for j in range(Z.shape[1]):
        z = Z[:, j, None]
        for h, r in (_two_prod(z, W[None, :, j]), _two_prod(-z, W_top[:, j, None])):
            s, q = _two_sum(s, h)
            c = c + (q + r)
    return s + c


def certified_column_sums(terms: np.ndarray):
    """``(sums, bound)``: column sums and a bound on each one's float error, independent of n.

    Blocks of ``BLOCK`` rows are summed in any order (error ``≤ γ_{BLOCK-1} Σ|x|``,
    Higham 2002, §4.2); the block sums are added by ``math.fsum`` (correctly
    rounded). Up to three roundings made each term (a difference, a
    division, a product): ``γ_{BLOCK+2}`` covers them.
    """
    n, q = terms.shape
    n_blocks = -(-n // BLOCK)
    padded = np.zeros((n_blocks * BLOCK, q))
    padded[:n] = terms
    blocks = padded.reshape(n_blocks, BLOCK, q).sum(axis=1)
    sums = np.array([math.fsum(blocks[:, j]) for j in range(q)])
    magnitude = np.abs(terms).sum(axis=0) * (1.0 + _gamma(n))
    return sums, (_gamma(BLOCK + 2) * magnitude + UNIT * np.abs(sums)) * 1.01


# ---------------------------------------------------------------------------- solver
class CertificateError(RuntimeError):
    """The solver could not certify its minimiser (an event of the noise's far tail)."""


def _term_scale(objective, x: np.ndarray, value: float) -> float:
    """A bound on the size of the terms the objective's value sums at ``x``."""
    return (abs(value) + objective.lam * float(x @ x)
            + 2.0 * float(np.abs(objective.lin) @ np.abs(x)))


def solve_certified(objective, x0: np.ndarray, target: float, max_iter: int):
    """A point ``(hi, lo)`` whose exact gradient at ``hi + lo`` is provably ``≤ target``.

    L-BFGS-B, then Newton steps on the fast gradient, then Newton steps on the
    certified gradient until ``‖gradient‖ + bound ≤ target``; Λ_tot-strong
    convexity then puts the exact minimiser within ``target / Λ_tot``.
    """
    result = minimize(objective.value_grad, x0, jac=True, method="L-BFGS-B",
                      options={"maxiter": max_iter, "maxcor": 20, "gtol": 1e-10, "ftol": 1e-15})
    x = result.x
    value, grad = objective.value_grad(x)
    norm = float(np.linalg.norm(grad))
    for _ in range(100):  # damped Newton on the fast gradient
        if norm <= target / 8.0:
            break
        step = objective.newton_step(x, grad)
        slope = float(grad @ step)
        scale = _term_scale(objective, x, value)
        t, accepted = 1.0, False
        while t >= 1e-10:
            x_new = x - t * step
            value_new, grad_new = objective.value_grad(x_new)
            norm_new = float(np.linalg.norm(grad_new))
            # Armijo on the value; once the value no longer resolves the step (near the
            # optimum), a smaller gradient. The value's rounding is relative to the terms
            # it sums (loss, regulariser, linear term), which can cancel to a small value
            flat = abs(value_new - value) <= 16.0 * UNIT * max(
                scale, _term_scale(objective, x_new, value_new))
            if value_new <= value - 1e-4 * t * slope or (flat and norm_new < norm):
                accepted = True
                break
            t *= 0.5
        if not accepted:
            break  # the fast gradient has reached its rounding floor
        x, value, grad, norm = x_new, value_new, grad_new, norm_new
    # full Newton steps on the certified gradient, the iterate kept as an unevaluated
    # sum hi + lo: near a solution of large norm the floats are too far apart to
    # bring the gradient below the target, a double-double iterate is not
    hi, lo = x, np.zeros_like(x)
    for _ in range(12):
        grad, bound = objective.certified_grad(hi, lo)
        if float(np.linalg.norm(grad)) + bound <= target:
            return hi, lo
        top, low = _two_sum(hi, -objective.newton_step(hi, grad))
        hi, lo = _two_sum(top, low + lo)
    raise CertificateError(
        "the solver could not certify the minimiser to the release grid; this happens only "
        "for a noise draw in a far tail (probability below 2**-200) or a problem too "
        "ill-conditioned for double precision. Nothing was released.")


def fit_objective_perturbation(Z: np.ndarray, y_idx: np.ndarray, plan: Plan, max_iter: int,
                               rng: np.random.Generator) -> np.ndarray:
    """The released coefficients in normalised units: shape ``(1, p)`` or ``(K, p)``."""
    n, p = Z.shape
    noise_rng, smooth_rng = rng.spawn(2)
    lin = perturbation(noise_rng, plan) / n
    if plan.n_classes == 2:
        objective = _Logistic(Z, np.where(y_idx == 1, 1.0, -1.0), plan.lam, lin)
    else:
        objective = _Softmax(Z, y_idx, plan.n_classes, plan.lam, lin)
    point = solve_certified(objective, np.zeros(plan.dim), plan.target, max_iter)
    return smooth_release(point, plan, smooth_rng).reshape(-1, p)
