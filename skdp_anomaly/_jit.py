"""numba compilation on first use, so that ``import skdp_anomaly`` does not import numba."""

from __future__ import annotations

import functools
import threading

__all__ = ["lazy_njit"]


class lazy_njit:  # noqa: N801 - used as a decorator, like numba.njit
    """A module's ``njit``: its functions compile, all at once, at the first call of one.

    ``njit = lazy_njit(globals())`` at the top of a module, then ``@njit`` or
    ``@njit(cache=True, ...)`` as with numba. Until the first call the module's
    names are Python wrappers; that call imports numba and rebinds every
    registered name in the module to its compiled dispatcher, so compiled
    functions calling each other through module globals see dispatchers when
    numba compiles them. A name imported elsewhere before that keeps the
    wrapper, which forwards each call to the dispatcher.

    Examples
    --------
    >>> from skdp_anomaly._jit import lazy_njit
    >>> njit = lazy_njit({})
    >>> callable(njit(cache=True))
    True
    """

    def __init__(self, namespace: dict):
        self._namespace = namespace
        self._functions: list = []
        self._lock = threading.Lock()
        self._compiled = False

    def __call__(self, func=None, **options):
        if func is None:
            return lambda f: self._register(f, options)
        return self._register(func, options)

    def _register(self, func, options: dict):
        self._functions.append((func, options))
        name = func.__name__

        @functools.wraps(func)
        def first_call(*args, **kwargs):
            self.compile()
            return self._namespace[name](*args, **kwargs)

        return first_call

    def compile(self) -> None:
        """Import numba and rebind every registered function to its dispatcher (once)."""
        with self._lock:
            if self._compiled:
                return
            from numba import njit

            for func, options in self._functions:
                self._namespace[func.__name__] = njit(**options)(func)
            self._compiled = True
