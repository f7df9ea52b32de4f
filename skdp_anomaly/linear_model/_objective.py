"""Objective perturbation for logistic and softmax regression, released on a certified grid.

Works in *normalised units*: projected rows with their constant column, divided by
``R_aug = data_norm · sqrt(1 + kappa²)`` so that ``‖z‖ ≤ 1``; scikit-learn's ``C`` becomes
``Λ = 1 / (C · n · R_aug²)``. One fit: :func:`split_budget`, :func:`perturbation`,
:func:`solve_certified`, :func:`smooth_release` (floats that are ``g`` times integers for every
input); the proof: :ref:`proofs-logistic-regression` on :doc:`/proofs`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize
from scipy.special import gammainccinv

from ..privacy._exact import two_sided_geometric
from ..privacy._grid import MAX_STEPS, from_steps, to_steps
from ._losses import (  # noqa: F401 (re-exported: the solver's arithmetic, tested here)
    _ELEMENTARY_ULPS,
    _MARGIN_SLOPE,
    BLOCK,
    UNIT,
    _gamma,
    _Logistic,
    _Softmax,
    _two_sum,
    certified_column_sums,
    dot2_rows,
    dot2_scores_minus_top,
)

#: sup of the logistic loss' second derivative
C_LOGISTIC = 0.25
#: share of ε that makes the release float-safe (the discrete Laplace smoothing)
SMOOTH_SHARE = 0.01
#: the grid covers the certificate's error for all noise draws but this tail (data-independent)
NOISE_TAIL = 2.0**-200
_SQRT2 = math.sqrt(2.0)


# ---------------------------------------------------------------------------- data
def project_rows(X: np.ndarray, norm: float) -> np.ndarray:
    """Rows projected into the L2 ball of radius ``norm`` (rows inside are unchanged)."""
    # the norm of each row divided by its largest entry: no overflow of the squares
    peak = np.abs(X[:, 0])
    for j in range(1, X.shape[1]):
        np.maximum(peak, np.abs(X[:, j]), out=peak)
    peak[peak == 0] = 1.0
    squares = X / peak[:, None]
    np.multiply(squares, squares, out=squares)  # in place: fewer arrays of a block's size
    r = np.sqrt(row_sums(squares))
    r *= peak
    scale = norm / np.maximum(r, np.finfo(float).tiny)
    np.minimum(scale, 1.0, out=scale)
    return X * scale[:, None]


def row_sums(S: np.ndarray) -> np.ndarray:
    """``S.sum(axis=1)`` of a C-contiguous array, in numpy's order, column by column. Reproduces
    numpy's pairwise order (8 interleaved partial sums up to 128 entries) for any memory layout;
    beyond 128, numpy's own on a C copy."""
    d = S.shape[1]
    if d > 128:
        return np.add.reduce(np.ascontiguousarray(S), axis=1)
    if d < 8:
        total = S[:, 0].copy()
        for j in range(1, d):
            total += S[:, j]
        return total
    r = [S[:, k].copy() for k in range(8)]
    j = 8
    while j + 8 <= d:
        for k in range(8):
            r[k] += S[:, j + k]
        j += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for k in range(j, d):
        total += S[:, k]
    return total


def augmented_norm(data_norm: float, fit_intercept: bool, kappa: float) -> float:
    """``R_aug``: the norm bound of a projected row with its constant column."""
    return math.hypot(data_norm, kappa * data_norm) if fit_intercept else float(data_norm)


def design_rows(X: np.ndarray, data_norm: float, fit_intercept: bool, kappa: float):
    """Normalised rows with ``‖z‖ ≤ 1`` (a hair inside, against rounding), Fortran order. Each row
    depends on that row alone: the same floats for any block or layout."""
    Xp = project_rows(np.asfortranarray(X, dtype=np.float64), data_norm)
    r_aug = augmented_norm(data_norm, fit_intercept, kappa)
    if fit_intercept:
        Z = np.empty((Xp.shape[0], Xp.shape[1] + 1), order="F")
        Z[:, :-1] = Xp
        Z[:, -1] = kappa * data_norm
    else:
        Z = Xp
    return project_rows(Z / r_aug, 1.0 - 2.0**-40)


def design_matrix(X: np.ndarray, data_norm: float, fit_intercept: bool, kappa: float):
    """``(Z, R_aug)``: :func:`design_rows` and the norm bound they were divided by."""
    return (
        design_rows(X, data_norm, fit_intercept, kappa),
        augmented_norm(data_norm, fit_intercept, kappa),
    )


# ---------------------------------------------------------------------------- accounting
#: relative margin kept below ε_o when the noise's ε' is solved numerically (rounding)
_SOLVE_MARGIN = 1e-12


def jacobian_term(n: int, lam: float, n_classes: int) -> float:
    """Softmax (K ≥ 3): ``log`` of the largest ratio of the neighbours' Jacobian determinants.

    ``(K-1) log(1 + 1/(K n Λ))``: one record's Hessian has rank ≤ K-1 and
    eigenvalues summing to ≤ 1 - 1/K.
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
        Λ, the regulariser of the mean loss in normalised units (rows of norm ≤ 1); ``c = 1/(nΛ)``.

    Returns
    -------
    float
        The largest log ratio of the output densities of two neighbours.

    Notes
    -----
    At an output ``u`` one neighbour's record has ``s = σ(-y uᵀz)``: the noise
    term moves by ``≤ β(s + 1)`` and the Jacobian by ``≤ log(1 + c s(1-s))``
    *at the same s*. The sup over s lies between ``3ε'/4 + log(1 + c/4)`` and
    ``ε' + log(1 + c/4)`` (both sups apart, Chaudhuri et al. 2011); the
    function of s is concave, its maximiser in closed form.

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
    eps_noise = brentq(
        lambda e: logistic_privacy_loss(e, n, lam) - cap, 0.0, eps_o, xtol=1e-15 * eps_o, rtol=1e-15
    )
    while logistic_privacy_loss(eps_noise, n, lam) > cap:  # the root's last ulps
        eps_noise *= 1.0 - 1e-12
    return eps_noise


def split_budget(epsilon: float, n: int, lam: float, n_classes: int):
    """``(ε', Λ_tot, ε_s)``: the noise's ε, the regulariser, the float-safety share.

    ``ε_o = ε - ε_s`` pays the ideal mechanism (two classes:
    ``logistic_privacy_loss ≤ ε_o``; K ≥ 3: ``ε' + jacobian_term ≤ ε_o``). When
    that leaves ``ε' < ε_o/2``, the regulariser is raised until ``ε' = ε_o/2``.
    """
    eps_smooth = SMOOTH_SHARE * epsilon
    eps_o = epsilon - eps_smooth
    if n_classes == 2:
        eps_noise = _logistic_noise(eps_o, n, lam)
        if eps_noise >= eps_o / 2.0:
            return eps_noise, lam, eps_smooth
        cap = eps_o * (1.0 - _SOLVE_MARGIN)

        def excess(c):  # the loss at ε' = ε_o/2 grows with c = 1/(nΛ): the largest c it allows
            return logistic_privacy_loss(cap / 2.0, n, 1.0 / (n * c)) - cap

        c_floor = brentq(excess, 1e-300, 4.0 * math.expm1(eps_o), xtol=1e-300, rtol=1e-14)
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
    dim: int  # coefficients: p (binary) or K·p (softmax)
    lam: float  # Λ_tot
    eps_noise: float  # ε'
    eps_smooth: float  # ε_s
    sensitivity: float  # Δ: 2 (logistic) or 2√2 (softmax)
    grid: float  # g
    target: float  # the certificate's bound on the exact gradient: Λ_tot · g / 2


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
    grid = _power_of_two_ceil(max(32.0 * err / lam_total, u_max / MAX_STEPS * 4.0, 2.0**-60))
    target = lam_total * grid / 2.0
    return Plan(n, n_classes, dim, lam_total, eps_noise, eps_smooth, sensitivity, grid, target)


def _power_of_two_ceil(x: float) -> float:
    return math.ldexp(1.0, math.ceil(math.log2(x)))


def _error_budget(p: int, n_classes: int, u_max: float, lam: float, lin_max: float) -> float:
    """A priori bound on the certified gradient's float error at any ``‖hi + lo‖ ≤ u_max``."""
    if n_classes == 2:
        first = (2.0 * _MARGIN_SLOPE + _ELEMENTARY_ULPS) * UNIT + 0.25 * (
            _gamma(p) ** 2 + 1.01 * _gamma(p) * UNIT
        ) * u_max
        size = 1.0
    else:
        K = n_classes
        first = ((4.0 * K / math.e) * 1.01 + K + 8.0) * UNIT + (
            4.0 * _gamma(2 * p) ** 2 + 4.04 * _gamma(p) * UNIT
        ) * u_max
        size = _SQRT2
    sums = (_gamma(BLOCK + 2) * size + UNIT * size) * 1.01
    # the double-doubles next to a solution of norm u_max are u²·u_max apart in each
    # coordinate: the gradient cannot be resolved below ‖∇²J‖ times that step
    width = p if n_classes == 2 else p * n_classes
    resolution = 4.0 * (0.5 + lam) * UNIT**2 * u_max * math.sqrt(width)
    return first + sums + 2.0 * UNIT * (lam * u_max + lin_max) + UNIT + resolution


# ---------------------------------------------------------------------------- noise
def perturbation(rng: np.random.Generator, plan: Plan) -> np.ndarray:
    """``b`` with density ``∝ exp(-ε'‖b‖/Δ)``: a Gamma(dim, Δ/ε') norm, a uniform direction."""
    direction = rng.standard_normal(plan.dim)
    direction /= np.linalg.norm(direction)
    return rng.gamma(plan.dim, plan.sensitivity / plan.eps_noise) * direction


def smooth_release(u, plan: Plan, rng: np.random.Generator) -> np.ndarray:
    """``g · (rint(u/g) + Z)``, ``Z`` i.i.d. discrete Laplace of rate ``ε_s / (2 dim)``.

    ``u = (hi, lo)`` is rounded as the exact real ``hi + lo``. With ``‖u - u*‖ ≤ g/2`` the computed
    and exact minimisers round at most one step apart per coordinate, which ``Z`` hides at
    ``e^{ε_s/2}``; once per neighbour makes ε_s.
    """
    hi, lo = u
    rate = plan.eps_smooth / (2.0 * plan.dim)
    steps = to_steps(hi, plan.grid)
    # hi/g - steps is exact (|·| ≤ 1/2, the bits below the integer); lo/g is exact
    remainder = hi / plan.grid - steps.astype(np.float64) + lo / plan.grid
    steps = steps + np.rint(remainder).astype(np.int64)
    return from_steps(steps + two_sided_geometric(rate, hi.shape, rng), plan.grid)


# ---------------------------------------------------------------------------- solver
class CertificateError(RuntimeError):
    """The solver could not certify its minimiser (an event of the noise's far tail)."""


def _term_scale(objective, x: np.ndarray, value: float) -> float:
    """A bound on the size of the terms the objective's value sums at ``x``."""
    return (
        abs(value) + objective.lam * float(x @ x) + 2.0 * float(np.abs(objective.lin) @ np.abs(x))
    )


def solve_certified(objective, x0: np.ndarray, target: float, max_iter: int):
    """A point ``(hi, lo)`` whose exact gradient at ``hi + lo`` is provably ``≤ target``.

    L-BFGS-B, then Newton on the fast gradient, then on the certified one until
    ``‖gradient‖ + bound ≤ target``; Λ_tot-strong convexity puts the exact
    minimiser within ``target / Λ_tot``.
    """
    options = {"maxiter": max_iter, "maxcor": 20, "gtol": 1e-10, "ftol": 1e-15}
    result = minimize(objective.value_grad, x0, jac=True, method="L-BFGS-B", options=options)
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
            # Armijo; near the optimum, where the value's rounding (relative to the terms
            # it sums, which can cancel) hides the step, a smaller gradient instead
            flat = abs(value_new - value) <= 16.0 * UNIT * max(
                scale, _term_scale(objective, x_new, value_new)
            )
            if value_new <= value - 1e-4 * t * slope or (flat and norm_new < norm):
                accepted = True
                break
            t *= 0.5
        if not accepted:
            break  # the fast gradient has reached its rounding floor
        x, value, grad, norm = x_new, value_new, grad_new, norm_new
    # Newton on the certified gradient with a double-double iterate hi + lo: near a
    # solution of large norm plain floats are too coarse to reach the target
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
        "ill-conditioned for double precision. Nothing was released."
    )


def fit_objective_perturbation(
    data, plan: Plan, max_iter: int, rng: np.random.Generator
) -> np.ndarray:
    """The released coefficients in normalised units: shape ``(1, p)`` or ``(K, p)``. ``data``: the
    backend's ``LabelledRows`` (numpy or dask) of normalised rows."""
    n, p = data.n_samples, data.n_features
    noise_rng, smooth_rng = rng.spawn(2)
    lin = perturbation(noise_rng, plan) / n
    # in memory the objective also holds the arrays (what the tests check it against)
    Z, labels = (None, None) if data.is_dask else (data.rows.data, data.labels)
    if plan.n_classes == 2:
        signs = None if labels is None else np.where(labels == 1, 1.0, -1.0)
        objective = _Logistic(Z, signs, plan.lam, lin, data=data)
    else:
        objective = _Softmax(Z, labels, plan.n_classes, plan.lam, lin, data=data)
    point = solve_certified(objective, np.zeros(plan.dim), plan.target, max_iter)
    return smooth_release(point, plan, smooth_rng).reshape(-1, p)
