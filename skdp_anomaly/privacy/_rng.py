"""One random generator per fit, never numpy's global state."""

from __future__ import annotations

import numbers

import numpy as np

from ..exceptions import naming


def check_random_state(random_state=None) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    ``None`` (the only safe choice in deployment): fresh OS entropy. An int seeds
    reproducibly (tests only: a known seed reveals the noise); a ``Generator`` is used
    as is; a ``RandomState`` seeds a new generator.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise naming(
                ValueError, f"`random_state` must be a non-negative int, got {random_state}."
            )
        return np.random.default_rng(int(random_state))
    raise naming(
        ValueError,
        "`random_state` must be None, a non-negative int, a numpy Generator or a "
        f"RandomState; got {random_state!r}.",
    )


def call_rng(random_state, call: int) -> np.random.Generator:
    """The generator of call number ``call`` (public) of a streaming estimator.

    Nothing is kept between calls: a kept PCG64 can be rewound to its noise, hence to
    the data. ``random_state`` ``None``: fresh entropy per call; an int: child ``call``
    of its :class:`numpy.random.SeedSequence`; a ``Generator``: the user's own object.
    """
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        check_random_state(random_state)  # the same validation and error
        seed = np.random.SeedSequence(int(random_state), spawn_key=(int(call),))
        return np.random.default_rng(seed)
    return check_random_state(random_state)
