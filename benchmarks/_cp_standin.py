"""Brute-force stand-in for ``PrivateChangePointDetector`` (development only).

Used by the change-point benchmark scripts with ``--stand-in`` to test them
before/independently of the package estimator. O(n²) statistic, plain
Algorithms 3 and 4 of seed 004; no validation, no accounting. Never used for
the published numbers.
"""

from __future__ import annotations

import numpy as np

from _cp_common import k_range, mw_statistic_bruteforce


class StandInDetector:
    def __init__(self, *, epsilon=1.0, gamma=0.1, direction="both", window=None,
                 threshold=None, random_state=None, accountant=None):
        self.epsilon, self.gamma, self.direction = epsilon, gamma, direction
        self.window, self.threshold, self.random_state = window, threshold, random_state

    def _rng(self):
        if not hasattr(self, "_rng_"):
            self._rng_ = np.random.default_rng(self.random_state)
        return self._rng_

    def _pncpd(self, x, eps):
        n = len(x)
        ks = k_range(n, self.gamma)
        v = mw_statistic_bruteforce(x)[ks - 1]
        # package convention: "increase" = values rise after the change = argmin V
        score = {"increase": -v, "decrease": v, "both": np.abs(v - 0.5)}[self.direction]
        if np.isfinite(eps):
            score = score + self._rng().laplace(0, 2 / (eps * self.gamma * n), size=ks.size)
        return int(ks[np.argmax(score)])

    def fit(self, X, y=None):
        self.change_point_ = self._pncpd(np.ravel(X), self.epsilon)
        return self

    def partial_fit(self, chunk, y=None):
        rng, n, eps = self._rng(), self.window, self.epsilon
        if not hasattr(self, "buf_"):
            self.buf_ = np.empty(0)
            noise = rng.laplace(0, 8 / (eps * n)) if np.isfinite(eps) else 0.0
            self.noisy_t_ = self.threshold + noise
            self.detected_, self.alarm_ = False, None
        if self.detected_:
            return self
        self.buf_ = np.concatenate([self.buf_, np.ravel(chunk)])
        h, g = n // 2, int(np.ceil(self.gamma * n))
        while True:
            if self.alarm_ is None:
                k = getattr(self, "next_k_", h)  # centre: window x[k-h:k+h]
                if k + h > len(self.buf_):
                    return self
                w = self.buf_[k - h:k + h]
                u = np.mean(w[:h, None] > w[None, h:])
                z = rng.laplace(0, 16 / (eps * n)) if np.isfinite(eps) else 0
                self.next_k_ = k + 1
                if u + z > self.noisy_t_:
                    self.alarm_ = k
                continue
            k = self.alarm_
            if k + h + g > len(self.buf_):
                return self
            start = k - h + g
            self.change_point_ = start + self._pncpd(self.buf_[start:start + n], eps / 2)
            self.detected_ = True
            return self
