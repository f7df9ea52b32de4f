"""One random generator per fit, never numpy's global state."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["check_random_state"]


def check_random_state(random_state=None) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        ``None`` (the default, and the only safe choice in deployment) seeds a
        fresh generator from OS entropy and never touches numpy's global state.
        An int seeds a generator reproducibly; a ``Generator`` is used as is;
        a legacy ``RandomState`` seeds a new generator from its stream.
        Fixed seeds make the noise predictable to anyone who knows them: use
        them for tests and experiments only.

    Returns
    -------
    numpy.random.Generator
        The generator to draw the noise from.

    Examples
    --------
    >>> from skdp_anomaly.privacy import check_random_state
    >>> int(check_random_state(0).integers(10)) == int(check_random_state(0).integers(10))
    True
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative int, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise ValueError(
        "random_state must be None, a non-negative int, a numpy Generator or a "
        f"RandomState; got {random_state!r}."
    )
