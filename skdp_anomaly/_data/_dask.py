"""Optional Dask support, shared by the estimators that accept dask collections.

Nothing here imports dask: a dask collection can only reach an estimator if its caller
imported dask already, so ``sys.modules`` tells whether to look.
"""

from __future__ import annotations

import sys


def is_dask_collection(obj) -> bool:
    """True for a dask array, DataFrame, Series or other dask collection."""
    dask = sys.modules.get("dask")
    return dask is not None and bool(dask.is_dask_collection(obj))


def import_dask(what: str):
    """``dask`` itself, or an ImportError that says which extra to install."""
    try:
        import dask
        import dask.array  # noqa: F401
    except ImportError as exc:  # pragma: no cover - dask present wherever a collection is
        raise ImportError(f'{what} needs dask: pip install "skdp-anomaly[dask]"') from exc
    return dask
