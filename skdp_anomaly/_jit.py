"""numba compilation on first use, so that ``import skdp_anomaly`` does not import numba."""

from __future__ import annotations

import functools
import threading


class lazy_njit:  # noqa: N801 - used as a decorator, like numba.njit
    """A module's ``njit``: its functions compile, all at once, at the first call of one.

    ``njit = lazy_njit(globals())``, then ``@njit`` as with numba. The first call
    imports numba and rebinds every registered module name to its dispatcher (so
    compiled functions see each other); wrappers imported elsewhere forward.

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
        self._dispatchers: dict = {}
        self._wrappers: dict = {}

    def __call__(self, func=None, **options):
        if func is None:
            return lambda f: self._register(f, options)
        return self._register(func, options)

    def _register(self, func, options: dict):
        self._functions.append((func, options))
        name = func.__name__

        @functools.wraps(func)
        def first_call(*args, **kwargs):
            # the dispatcher itself, not the module's name: the name may be rebound (a
            # test's monkeypatch restores this wrapper there)
            return self.compile()[name](*args, **kwargs)

        self._wrappers[name] = first_call
        return first_call

    def compile(self) -> dict:
        """Import numba and rebind every registered function to its dispatcher (once).

        Returns the dispatchers by name.
        """
        with self._lock:
            if not self._dispatchers:
                from numba import njit

                for func, options in self._functions:
                    self._dispatchers[func.__name__] = njit(**options)(func)
                for name, dispatcher in self._dispatchers.items():
                    # a name rebound meanwhile (a test's monkeypatch) keeps its binding
                    if self._namespace.get(name) is self._wrappers[name]:
                        self._namespace[name] = dispatcher
            return self._dispatchers
