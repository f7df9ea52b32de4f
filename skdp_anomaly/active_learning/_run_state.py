"""The private state of a :class:`PrivateOnlineActiveSVC` run, and its label sources.

The state (iterate, label buffer, loop counters) travels between calls; after an
interruption it records the rows consumed and their fingerprint, so that a retry
resumes after them and no row is used twice.
"""

from __future__ import annotations

import hashlib

import numpy as np
from sklearn.utils.validation import column_or_1d

from ..exceptions import naming
from ..privacy._stream_state import StreamState
from . import _kernel as kernel


def fingerprint(rows: np.ndarray) -> bytes:
    """BLAKE2b of the rows' float64 bytes and shape (private state, never released)."""
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    digest = hashlib.blake2b(np.asarray(rows.shape, np.int64).tobytes(), digest_size=32)
    digest.update(rows.tobytes())
    return digest.digest()


class RunState(StreamState):
    """The private state of a run: the iterate and the label buffer (no generator)."""

    def __init__(self, n_features: int, batch_size: int, params: dict, windows=None, ftrl=None):
        self.batch_size = int(batch_size)  # the most rows a batch or window can hold
        self.w = np.zeros(n_features)
        self.average = np.zeros(n_features)  # the released coef_ (running mean if averaging)
        self.bias = 0.0  # the current intercept (ftrl)
        self.average_bias = 0.0  # the released intercept_
        self.n_released = 0  # releases so far (ftrl: gradient and threshold windows)
        # grown by reserve: no memory for rows the stream may never bring
        self.buf = np.zeros((0, n_features))
        self.buf_idx = np.zeros(0, np.int64)
        self.signs = np.zeros(0)
        # ftrl: the window lengths (public) and the released sums and tree (private)
        self.windows = np.zeros(kernel.N_WINDOWS, np.int64) if windows is None else windows
        self.ftrl = ftrl
        self.noise = np.zeros((0, n_features))
        self.ints = np.zeros(kernel.N_INTS, np.int64)
        self.n_calls = 0  # calls so far: picks each call's generator (call_rng)
        self.source = None  # "y" or "label_oracle", fixed by the first call
        self.params = params  # the parameters the run was charged for
        # (rows of the interrupted call consumed, fingerprint of those rows), or None
        self.interruption = None

    def progress(self) -> tuple:
        """What a call can have used: rows, labels, updates."""
        ints = self.ints
        return int(ints[kernel.ROW]), int(ints[kernel.N_LABELS]), int(ints[kernel.N_UPDATES])

    def drop_noise(self) -> None:
        """Forget the unused update noise, so that a pickle holds none."""
        self.noise = np.zeros((0, self.w.shape[0]))
        self.ints[kernel.NOISE_POS] = 0

    def changed_params(self, params: dict) -> list:
        """``(name, at the start of the run, now)`` for each parameter changed since."""
        return [(k, self.params[k], v) for k, v in params.items() if v != self.params[k]]

    # -- interruptions ---------------------------------------------------------
    def record_interruption(self, X: np.ndarray) -> int:
        """Remember the rows of ``X`` consumed so far; their number."""
        position = int(self.ints[kernel.ROW])
        self.interruption = (position, fingerprint(X[:position]))
        return position

    def resume_position(self, X: np.ndarray) -> int | None:
        """Rows of ``X`` an interrupted call consumed, when ``X`` starts with them
        byte for byte (a retry); else None."""
        if self.interruption is None:
            return None
        position, digest = self.interruption
        if X.shape[0] >= position and fingerprint(X[:position]) == digest:
            return position
        return None

    def reserve(self, n_rows: int) -> None:
        """Room in the buffer for the pending rows and ``n_rows`` more (at most a batch)."""
        need = min(self.batch_size, int(self.ints[kernel.BUF_N]) + int(n_rows))
        have = self.buf.shape[0]
        if need <= have:
            return
        size = min(self.batch_size, max(need, 2 * have))
        grown = [np.zeros((size, self.buf.shape[1])), np.zeros(size, np.int64), np.zeros(size)]
        for new, old in zip(grown, (self.buf, self.buf_idx, self.signs)):
            new[:have] = old
            old[...] = 0  # the old arrays hold no row once copied
        self.buf, self.buf_idx, self.signs = grown

    def clear_rows(self, first: int = 0, last: int | None = None) -> None:
        """Zero the buffered rows ``first .. last-1`` (all by default), their labels and indices."""
        last = self.buf.shape[0] if last is None else last
        kernel.clear_rows(self.buf, self.buf_idx, self.signs, first, last)

    def close(self) -> None:
        """The stream is over: zero every buffer, forget the pending batch and the fingerprint.
        Rows of a batch that never filled are used by no update (as in Algorithm 3)."""
        if self.ftrl is not None and self.ftrl.holds_sums():
            self.left_out = "the true sums of its noise tree's open nodes"
            self.ftrl = self.ftrl.without_sums()
        self.clear_rows()
        ints = self.ints
        ints[kernel.BUF_N] = ints[kernel.LABELLED] = ints[kernel.PENDING] = 0
        self.interruption = None
        self.drop_noise()

    def _without_data(self) -> tuple[dict, str]:
        """A pickle leaves out the open batch, the fingerprint and the tree's true sums."""
        n_rows = int(self.ints[kernel.BUF_N])
        sums = self.ftrl is not None and self.ftrl.holds_sums()
        replacements = {
            "buf": np.zeros_like(self.buf),
            "buf_idx": np.zeros_like(self.buf_idx),
            "signs": np.zeros_like(self.signs),
            "interruption": None,
            "noise": np.zeros((0, self.w.shape[0])),
        }
        if self.ftrl is not None:
            replacements["ftrl"] = self.ftrl.without_sums()
        what = [
            f"{n_rows} rows of its open batch" if n_rows else "",
            "the true sums of its noise tree's open nodes" if sums else "",
            "the fingerprint of an interrupted call's rows" if self.interruption else "",
        ]
        return replacements, ", ".join(filter(None, what))

    def drop_unlabelled(self, flmb: bool) -> None:
        """Forget buffered rows waiting for labels from an interrupted ``y``.
        For a next call that is not a retry; the rows stay counted in ``n_seen_``."""
        ints = self.ints
        self.clear_rows(int(ints[kernel.LABELLED]), int(ints[kernel.BUF_N]))
        ints[kernel.BUF_N] = ints[kernel.LABELLED]
        if ints[kernel.PENDING] and (flmb or ints[kernel.BUF_N] == 0):
            ints[kernel.PENDING] = 0
            if self.ftrl is not None:  # the window closed empty: on to the next one
                kernel.advance_phase(ints, self.windows)


def check_label_source(y, label_oracle):
    """``y`` as the stream loop reads it, once exactly one label source is given."""
    if y is None and label_oracle is None:
        raise ValueError(
            "PrivateOnlineActiveSVC requires y to be passed, but the target y "
            "is None and no label_oracle was given."
        )
    if y is not None and label_oracle is not None:
        raise ValueError(
            "Pass either y or label_oracle, not both (the labels of the "
            "selected rows come from one of them)."
        )
    if label_oracle is not None and not callable(label_oracle):
        raise ValueError(f"label_oracle must be callable, got {type(label_oracle).__name__}.")
    if isinstance(y, np.ndarray) and y.ndim == 2:
        return column_or_1d(y, warn=True)
    if y is not None and not (hasattr(y, "__getitem__") and hasattr(y, "__len__")):
        return np.asarray(y)  # an object that can only be read whole
    return y


def check_y_length(y, X) -> None:
    if y is not None and len(y) != X.shape[0]:
        raise ValueError(f"y has {len(y)} labels but X has {X.shape[0]} rows.")


class Labels:
    """Labels of selected rows: from ``y`` (read at those rows only) or the oracle."""

    def __init__(self, y, oracle, classes):
        self.y, self.oracle, self.classes = y, oracle, classes

    def kernel_view(self, classes):
        """``(y, True)`` when the compiled loop can read ``y``, else ``(placeholder, False)``."""
        numeric = isinstance(self.y, np.ndarray) and self.y.dtype.kind in "biuf"
        if numeric and np.asarray(classes).dtype.kind in "biuf":
            return self.y, True
        return np.zeros(1), False

    def fill(self, state: RunState) -> None:
        """Labels of the buffered rows that have none yet (``signs`` as ±1)."""
        ints = state.ints
        first, last = int(ints[kernel.LABELLED]), int(ints[kernel.BUF_N])
        if last == first:
            return
        if self.y is not None:
            values = self._read(state.buf_idx[first:last])
        else:
            values = self._ask(state.buf[first:last])
        kernel.record_labels(
            state.signs, ints, first, np.where(values == self.classes[1], 1.0, -1.0)
        )

    def refuse(self):
        labels = self.classes.tolist()
        raise naming(ValueError, f"a label of a selected row is not one of `classes` {labels!r}.")

    def _read(self, rows):
        if isinstance(self.y, np.ndarray):
            values = self.y[rows]
        elif hasattr(self.y, "iloc"):
            values = self.y.iloc[rows].to_numpy()
        else:
            values = np.asarray([self.y[int(i)] for i in rows])
        return self._check(values)

    def _ask(self, X_rows):
        values = np.asarray(self.oracle(X_rows.copy()))
        if values.shape != (X_rows.shape[0],):
            raise ValueError(
                f"label_oracle returned {values.shape} labels for "
                f"{X_rows.shape[0]} rows; it must return one label per row."
            )
        return self._check(values)

    def _check(self, values):
        if not np.all(np.isin(values, self.classes)):
            self.refuse()
        return values
