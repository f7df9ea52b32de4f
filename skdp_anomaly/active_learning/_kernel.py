"""The compiled (numba) stream loop of :class:`PrivateOnlineActiveSVC`.

Selection depends on the current iterate, so the stream is sequential; the loop
returns to Python only for oracle labels, update noise, or a window's release
(``NEED_RELEASE``, made float-safe by ``_ftrl.py``). State lives in small arrays.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import lazy_njit

njit = lazy_njit(globals())  # compiled at the first call: importing needs no numba

# selection and update modes
SELECT_BERNOULLI, SELECT_EXPONENTIAL, SELECT_ALL = 0, 1, 2
UPDATE_FLMB, UPDATE_FLSW, UPDATE_FTRL = 0, 1, 2

# positions in the int64 state array (numba freezes module constants)
ROW, BUF_N, WINDOW_SEEN, N_UPDATES, NOISE_POS, N_LABELS = range(6)
STATUS, PENDING, BAD_ROW, LABELLED, PHASE, ROUND = range(6, 12)
N_INTS = 12
# positions in the float64 parameter array (BIAS: the current intercept)
P_FLIP, DATA_NORM, SLAB, EXP_RATE, ALPHA, ETA, RADIUS, POS, NEG, GRID, BIAS = range(11)
N_FLOATS = 11
# ftrl window lengths (observed rows), first round's and later ones' (0: none);
# GROWTH = 1: round r's windows are min(later, first·2^r); FULL_ROUNDS: leading
# rounds that take every row; ACTIVE = 1: labelled then active windows
FIRST_GRADIENT, GRADIENT, FIRST_THRESHOLD, THRESHOLD, GROWTH, FULL_ROUNDS, ACTIVE = range(7)
N_WINDOWS = 7
# ftrl phases
PHASE_GRADIENT, PHASE_THRESHOLD = 0, 1
# |gradient / grid| is clamped here before rounding (as privacy._grid.to_steps)
MAX_STEPS = float(2**52)
# why the kernel returned (ints[STATUS])
DONE, NEED_LABELS, NEED_NOISE, BAD_LABEL, NEED_RELEASE = range(5)


@njit(cache=True)
def _update(w, buf, signs, B, noise_row, grid, alpha, eta_t, radius):
    """Eq. (10) on the batch ``buf[:B]`` (labels ``signs``, ±1), projected; the noisy
    gradient is a multiple of the power-of-two ``grid`` whatever the data (float-safe)."""
    d = w.shape[0]
    grad = np.zeros(d)
    for k in range(B):
        margin = 0.0
        for j in range(d):
            margin += buf[k, j] * w[j]
        if signs[k] * margin < 1.0:  # u of eq. (9): the hinge loss is positive
            for j in range(d):
                grad[j] += signs[k] * buf[k, j]
    norm2 = 0.0
    for j in range(d):
        steps = min(max(grad[j] / grid, -MAX_STEPS), MAX_STEPS)
        noisy = (np.rint(steps) + noise_row[j]) * grid
        w[j] = w[j] - eta_t * (alpha * w[j] - noisy / B)
        norm2 += w[j] * w[j]
    norm = math.sqrt(norm2)
    if norm > radius:
        for j in range(d):
            w[j] *= radius / norm
        norm = radius
    return norm


@njit(cache=True)
def window_length(ints, windows):
    """Length in observed rows of the current ftrl window: public, from the round alone."""
    if ints[PHASE] == PHASE_GRADIENT:
        first, later = windows[FIRST_GRADIENT], windows[GRADIENT]
    else:
        first, later = windows[FIRST_THRESHOLD], windows[THRESHOLD]
    if ints[ROUND] == 0:
        return first
    if windows[GROWTH] == 0:
        return later
    return min(later, first << min(ints[ROUND], 40))


@njit(cache=True)
def advance_phase(ints, windows):
    """Move to the next ftrl window (and round, after its last window)."""
    if ints[PHASE] == PHASE_GRADIENT and windows[THRESHOLD] > 0:
        ints[PHASE] = PHASE_THRESHOLD
    else:
        ints[PHASE] = PHASE_GRADIENT
        ints[ROUND] += 1
    ints[WINDOW_SEEN] = 0


@njit(cache=True)
def clear_rows(buf, buf_idx, signs, first, last):
    """Zero the buffered rows ``first .. last-1``, their row numbers and labels."""
    for k in range(first, last):
        for j in range(buf.shape[1]):
            buf[k, j] = 0.0
        buf_idx[k] = 0
        signs[k] = 0.0


@njit(cache=True)
def run_stream(
    X,
    uniforms,
    y,
    use_y,
    w,
    average,
    avg_start,
    buf,
    buf_idx,
    signs,
    noise,
    ints,
    floats,
    select_mode,
    update_mode,
    batch_size,
    shrinking,
    windows,
):
    """Run the stream from row ``ints[ROW]`` until the end or until Python is needed.
    ``buf[:BUF_N]``: pending selected rows, ``signs[:LABELLED]`` their labels (±1);
    ``y`` is read at selected rows only."""
    n, d = X.shape
    M, slab = floats[DATA_NORM], floats[SLAB]
    exp_rate, alpha, eta, radius = floats[EXP_RATE], floats[ALPHA], floats[ETA], floats[RADIUS]
    grid, bias = floats[GRID], floats[BIAS]
    pos, neg = floats[POS], floats[NEG]
    wnorm = 0.0
    for j in range(d):
        wnorm += w[j] * w[j]
    wnorm = math.sqrt(wnorm)
    while True:
        if ints[PENDING] == 1:  # a full batch waits for its update
            if ints[LABELLED] < ints[BUF_N]:
                ints[STATUS] = NEED_LABELS
                return
            if update_mode == UPDATE_FTRL:
                ints[STATUS] = NEED_RELEASE
                return
            if ints[NOISE_POS] >= noise.shape[0]:
                ints[STATUS] = NEED_NOISE
                return
            B = ints[BUF_N]
            t = ints[N_UPDATES] + 1
            wnorm = _update(w, buf, signs, B, noise[ints[NOISE_POS]], grid, alpha, eta / t, radius)
            ints[NOISE_POS] += 1
            ints[N_UPDATES] = t
            clear_rows(buf, buf_idx, signs, 0, B)  # the batch is used: nothing of it stays
            ints[BUF_N] = 0
            ints[LABELLED] = 0
            ints[PENDING] = 0
            if avg_start > 0 and t >= avg_start:
                k = t - avg_start + 1
                for j in range(d):
                    average[j] += (w[j] - average[j]) / k
            else:
                for j in range(d):
                    average[j] = w[j]
        i = ints[ROW]
        if i >= n:
            ints[STATUS] = DONE
            return
        # ftrl's leading rounds and labelled windows read every label
        every = ints[ROUND] < windows[FULL_ROUNDS] or (
            windows[ACTIVE] == 1 and ints[PHASE] == PHASE_GRADIENT
        )
        if select_mode == SELECT_ALL or (update_mode == UPDATE_FTRL and every):
            chosen = True
        else:
            dist = 0.0
            if wnorm > 0.0:
                dot = bias
                for j in range(d):
                    dot += X[i, j] * w[j]
                dist = min(abs(dot) / wnorm, M)
            if select_mode == SELECT_BERNOULLI:
                width = M / (ints[N_UPDATES] + 1) if shrinking else slab
                chosen = (dist <= width) != (uniforms[i] != 0.0)  # uniforms: exact flips
            else:
                chosen = uniforms[i] < math.exp(-max(slab, dist) * exp_rate)
        if chosen:
            b = ints[BUF_N]
            for j in range(d):
                buf[b, j] = X[i, j]
            buf_idx[b] = i
            if use_y:  # only the label of a selected row is read
                label = y[i]
                if label == pos:
                    signs[b] = 1.0
                elif label == neg:
                    signs[b] = -1.0
                else:
                    ints[BAD_ROW] = i
                    ints[STATUS] = BAD_LABEL
                    return
                ints[N_LABELS] += 1
                ints[LABELLED] = b + 1
            ints[BUF_N] = b + 1
        ints[ROW] = i + 1
        due = False
        if update_mode == UPDATE_FLMB:
            due = ints[BUF_N] == batch_size
        elif update_mode == UPDATE_FTRL:
            ints[WINDOW_SEEN] += 1
            if ints[WINDOW_SEEN] >= window_length(ints, windows):
                if ints[BUF_N] > 0:
                    due = True  # Python releases the window and moves to the next
                else:
                    advance_phase(ints, windows)  # nothing selected: nothing to release
        else:
            ints[WINDOW_SEEN] += 1
            if ints[WINDOW_SEEN] == batch_size:
                ints[WINDOW_SEEN] = 0
                due = ints[BUF_N] > 0  # an empty window publishes the state unchanged
        if due:
            ints[PENDING] = 1


@njit(cache=True)
def record_labels(signs, ints, first, values):
    """Store and count the labels ``values`` (±1) of buffered rows from ``first``.
    Compiled, hence atomic for a Ctrl-C: labels are never stored but not counted."""
    for k in range(values.shape[0]):
        signs[first + k] = values[k]
    ints[LABELLED] = first + values.shape[0]
    ints[N_LABELS] += values.shape[0]
