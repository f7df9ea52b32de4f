"""The losses of objective perturbation, as reductions over aligned blocks of rows.

Each statistic the solver reads is a module-level function of one block of normalised rows and
labels, added exactly over blocks (:func:`~skdp_anomaly._data.rows.block_fsums`): numpy and dask
rows, chunked any way, give the same bits. No BLAS touches the rows (its rounding depends on
position and thread count): dot products are accumulated column by column (:func:`rows_dot`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from .._data.rows import BlockSums, block_fsums, fsum_blocks, labelled_rows, numpy_rows

#: unit roundoff of float64
UNIT = 2.0**-53
#: rows per block of the certified sums (each block summed in any order: error ≤ (BLOCK-1)u Σ|x|)
BLOCK = 64
#: sup over m of |m| σ'(m) for the logistic σ: a rounding of a margin moves σ by ≤ this × u
_MARGIN_SLOPE = 0.2241
#: relative error of scipy's expit and numpy's exp, in units of u (a generous bound)
_ELEMENTARY_ULPS = 4.0


def _gamma(k: int) -> float:
    """Higham's γ_k = k u / (1 - k u)."""
    return k * UNIT / (1.0 - k * UNIT)


# ---------------------------------------------------------------------------- block arithmetic
def rows_dot(Z: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``Z @ u``, each row's products added in column order (the same floats in any block)."""
    m = Z[:, 0] * u[0]
    for j in range(1, Z.shape[1]):
        m += Z[:, j] * u[j]
    return m


def _scores(Z: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``Z @ W.T`` of shape (n, K), accumulated in column order as :func:`rows_dot`."""
    S = Z[:, 0, None] * W[:, 0]
    for j in range(1, Z.shape[1]):
        S += Z[:, j, None] * W[:, j]
    return S


def _weighted_sums(Z: np.ndarray, G: np.ndarray) -> np.ndarray:
    """``G.T @ Z`` flattened: for each column of ``G``, the rows of Z weighted and added."""
    return np.concatenate([(Z * G[:, k, None]).sum(axis=0) for k in range(G.shape[1])])


def _signs(t: np.ndarray) -> np.ndarray:
    """±1 labels from class indices (or from ±1 labels, unchanged)."""
    return np.where(t == 1, 1.0, -1.0)


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


def _block_column_sums(terms: np.ndarray):
    """One aligned block's share of :func:`certified_column_sums`: ``(sums, Σ|terms|)``."""
    n, q = terms.shape
    n_blocks = -(-n // BLOCK)
    padded = np.zeros((n_blocks * BLOCK, q))
    padded[:n] = terms
    blocks = padded.reshape(n_blocks, BLOCK, q).sum(axis=1)
    return fsum_blocks(blocks), np.abs(terms).sum(axis=0)


def _certified_total(parts: BlockSums, q: int, n: int):
    """``(sums, bound)`` from the aligned blocks' :func:`_block_column_sums`, added. ``parts`` holds
    ``q`` sums, then ``q`` magnitudes (the sums of absolute terms), then whatever else the caller's
    statistic returned."""
    total = parts.total[:q]
    magnitude = parts.total[q : 2 * q] * (1.0 + _gamma(n))
    # each aligned block's fsum is rounded once before the blocks are added (an error of
    # u per block's |sum|, and the correctly rounded sum of those within a relative u);
    # a single block's fsum is returned as it is, exactly
    across = UNIT * parts.magnitude[:q] * (1.0 + UNIT) if parts.n_blocks > 1 else 0.0
    return total, (_gamma(BLOCK + 2) * magnitude + across + UNIT * np.abs(total)) * 1.01


def certified_column_sums(terms: np.ndarray):
    """``(sums, bound)``: column sums and a bound on each one's float error, independent of n.

    Blocks of ``BLOCK`` rows are summed in any order (error ``≤ γ_{BLOCK-1} Σ|x|``,
    Higham 2002, §4.2), then added by ``math.fsum`` per aligned block and across
    them; ``γ_{BLOCK+2}`` also covers the up to three roundings of each term.
    """
    data = labelled_rows(numpy_rows(terms), None)
    parts = block_fsums(data, _column_sums_block, size=2 * terms.shape[1], magnitude=True)
    return _certified_total(parts, terms.shape[1], terms.shape[0])


def _column_sums_block(terms, labels):
    return np.concatenate(_block_column_sums(terms))


# ---------------------------------------------------------------------------- objectives
def _data(Z, labels, data):
    return labelled_rows(numpy_rows(Z), labels) if data is None else data


class _Logistic:
    """``mean log(1 + exp(-y uᵀz)) + Λ/2 ‖u‖² + lin·u``, ``y ∈ {±1}``, on ``Z`` or ``data``."""

    def __init__(self, Z, y_pm, lam, lin, data=None):
        self.Z, self.y, self.lam, self.lin = Z, y_pm, lam, lin
        self.data = _data(Z, y_pm, data)

    def value_grad(self, u):
        n = self.data.n_samples
        total = block_fsums(self.data, _logistic_value_grad, u, size=1 + u.size).total
        value = total[0] / n + 0.5 * self.lam * (u @ u) + self.lin @ u
        return value, total[1:] / n + self.lam * u + self.lin

    def newton_step(self, u, grad):
        p = u.size
        hess = block_fsums(
            self.data, _logistic_hessian, u, self.data.n_samples, size=p * p
        ).total.reshape(p, p)
        hess.flat[:: p + 1] += self.lam
        return np.linalg.solve(hess, grad)

    def certified_grad(self, hi, lo):
        """``(gradient, bound)`` at the point ``hi + lo``: ``‖gradient - exact‖₂ ≤ bound``. Margins
        in double-double (a margin's rounding moves σ by ``≤ 2·0.2241u + γ_p²‖hi‖/4 + γ_p‖lo‖/4``),
        sums by blocks and ``fsum``."""
        n, p = self.data.n_samples, hi.size
        parts = block_fsums(self.data, _logistic_certified, hi, lo, n, size=3 * p, magnitude=True)
        sums, sum_err = _certified_total(parts, p, n)
        grad, add_err = _add_regulariser(sums, self.lam, hi, lo, self.lin)
        per_margin = (2.0 * _MARGIN_SLOPE + _ELEMENTARY_ULPS) * UNIT + 0.25 * (
            _gamma(p) ** 2 * float(np.linalg.norm(hi))
            + 1.01 * _gamma(p) * float(np.linalg.norm(lo))
        )
        first = per_margin * parts.total[2 * p :] / n * 1.01
        return grad, float(np.linalg.norm(first + sum_err + add_err))


def _logistic_value_grad(Z, t, u):
    y = _signs(t)
    m = y * rows_dot(Z, u)
    return np.r_[np.logaddexp(0.0, -m).sum(), (Z * (-y * expit(-m))[:, None]).sum(axis=0)]


def _logistic_hessian(Z, t, u, n):
    m = rows_dot(Z, u)
    Zw = Z * (expit(m) * expit(-m) / n)[:, None]
    p = Z.shape[1]
    hess = np.empty((p, p))
    for j in range(p):  # the upper triangle, mirrored
        hess[j, j:] = (Zw[:, j:] * Z[:, j, None]).sum(axis=0)
        hess[j:, j] = hess[j, j:]
    return hess.ravel()


def _logistic_certified(Z, t, hi, lo, n):
    y = _signs(t)
    s = -y * expit(-(y * (dot2_rows(Z, hi) + rows_dot(Z, lo))))
    sums, magnitudes = _block_column_sums(Z * (s / n)[:, None])
    return np.concatenate([sums, magnitudes, np.abs(Z).sum(axis=0)])


class _Softmax:
    """``mean (logsumexp(W z) - (W z)_y) + Λ/2 ‖W‖² + lin·W``, ``W`` (K, p) flattened."""

    def __init__(self, Z, y_idx, n_classes, lam, lin, data=None):
        self.Z, self.y, self.K, self.lam, self.lin = Z, y_idx, n_classes, lam, lin
        self.data = _data(Z, y_idx, data)

    def value_grad(self, w):
        n = self.data.n_samples
        total = block_fsums(self.data, _softmax_value_grad, w, self.K, size=1 + w.size).total
        value = total[0] / n + 0.5 * self.lam * (w @ w) + self.lin @ w
        return value, total[1:] / n + self.lam * w + self.lin

    def newton_step(self, w, grad):
        from scipy.sparse.linalg import LinearOperator, cg

        n = self.data.n_samples

        def hess_vec(v):
            return (
                block_fsums(self.data, _softmax_hess_vec, w, v, self.K, size=w.size).total / n
                + self.lam * v
            )

        op = LinearOperator((w.size, w.size), matvec=hess_vec, dtype=np.float64)
        step, _ = cg(op, grad, rtol=1e-12, maxiter=10 * w.size)
        return step

    def certified_grad(self, hi, lo):
        """``(gradient, bound)`` at ``hi + lo``, as for the logistic loss. Scores relative to the
        row's largest, in double-double: ``π_k |D_k| ≤ 1/e`` bounds how far their rounding moves the
        probabilities, whatever W."""
        n, K, size = self.data.n_samples, self.K, hi.size
        p = size // K
        # a score's error beyond 2u|D|: γ²·2‖W‖ + 2γ_p‖W_lo‖·1.01 (twice, for the difference)
        scale = 4.0 * _gamma(2 * p) ** 2 * float(np.linalg.norm(hi)) + 4.04 * _gamma(p) * float(
            np.linalg.norm(lo)
        )
        parts = block_fsums(
            self.data, _softmax_certified, hi, lo, K, scale, n, size=2 * size + p, magnitude=True
        )
        sums, sum_err = _certified_total(parts, size, n)
        grad, add_err = _add_regulariser(sums, self.lam, hi, lo, self.lin)
        first = parts.total[2 * size :] / n * 1.01  # a row's L1 error bounds each class'
        cross = np.linalg.norm(sum_err + add_err)
        return grad, float(np.linalg.norm(first) + cross)


def _softmax_probabilities(Z, W):
    """Scores, probabilities and log-sum-exp of each row (scipy's is slow on small rows)."""
    S = _scores(Z, W)
    top = S.max(axis=1, keepdims=True)
    E = np.exp(S - top)
    total = E.sum(axis=1, keepdims=True)
    return S, E / total, (top + np.log(total)).ravel()


def _softmax_value_grad(Z, t, w, K):
    S, P, lse = _softmax_probabilities(Z, w.reshape(K, -1))
    Y = np.eye(K)[t]
    return np.r_[(lse - (S * Y).sum(1)).sum(), _weighted_sums(Z, P - Y)]


def _softmax_hess_vec(Z, t, w, v, K):
    _, P, _ = _softmax_probabilities(Z, w.reshape(K, -1))
    A = _scores(Z, v.reshape(K, -1))
    return _weighted_sums(Z, P * A - P * (P * A).sum(1, keepdims=True))


def _softmax_certified(Z, t, hi, lo, K, scale, n):
    p = Z.shape[1]
    W, W_lo = hi.reshape(K, p), lo.reshape(K, p)
    top = np.argmax(_scores(Z, W), axis=1)
    D = dot2_scores_minus_top(Z, W, W[top]) + (
        _scores(Z, W_lo) - (Z * W_lo[top]).sum(axis=1, keepdims=True)
    )
    E = np.exp(D)
    P = E / E.sum(axis=1, keepdims=True)
    row_err = 4.0 * UNIT * (P * np.abs(D)).sum(axis=1) * 1.01 + (K + 8.0) * UNIT + scale
    G = P - np.eye(K)[t]
    sums, magnitudes = zip(*(_block_column_sums(Z * (G[:, k] / n)[:, None]) for k in range(K)))
    return np.concatenate([*sums, *magnitudes, (np.abs(Z) * row_err[:, None]).sum(axis=0)])


def _add_regulariser(sums, lam, hi, lo, lin):
    """``sums + Λ(hi + lo) + lin`` correctly rounded, and its error beyond ``sums``'. ``Λ·hi`` is
    split exactly into two floats; ``Λ·lo`` is rounded once."""
    reg, reg_err = _two_prod(np.full_like(hi, lam), hi)
    low = lam * lo
    grad = np.array([math.fsum(t) for t in zip(sums, reg, reg_err, low, lin)])
    return grad, UNIT * (np.abs(low) + np.abs(grad)) * 1.01
