"""Why the change-point code refuses dask collections, and its in-memory limit.

The statistic (Eq. (2.1)) needs the *global* stable ranks of the whole series: a blockwise
dask computation would be wrong and materialising a collection may not fit in memory, so
every public entry point raises a TypeError. Nothing here imports dask.
"""

from __future__ import annotations

from .._data._dask import is_dask_collection

#: Peak working memory of an offline fit per sample on top of the float64 series
#: (tracemalloc: the stable ranks, argsort and pair counts, int64, and the scores).
BYTES_PER_ROW = 32

_ADVICE = {
    "fit": (
        "call .compute() on the series (or on a window of it that fits in memory) and "
        "pass the NumPy array"
    ),
    "partial_fit": (
        "feed its blocks in order as NumPy arrays, e.g. "
        "`for block in x.blocks: det.partial_fit(block.compute())`: the online "
        "mode keeps only the last `window` samples between calls"
    ),
    "predict": (
        "labels depend on positions only, so compute them lazily as "
        "`(dask.array.arange(len(x)) >= det.change_point_).astype(int)`, or pass "
        "the computed series"
    ),
    "function": "call .compute() on it (or on a window of it that fits in memory) first",
}


def limit_text() -> str:
    """The in-memory limit as one sentence, for messages and docs."""
    total = (BYTES_PER_ROW + 8) * 10**8 / 1e9
    return (
        f"an offline fit holds the float64 series (8 bytes per sample) plus about "
        f"{BYTES_PER_ROW} bytes per sample of working memory, so 10^8 samples need "
        f"~{total:.0f} GB"
    )


def reject_dask_collection(X, where: str, *, advice: str = "function") -> None:
    """Raise a TypeError when ``X`` is a dask collection (before any work or charge);
    ``where`` names what was called, ``advice`` the way out (a key of ``_ADVICE``)."""
    if not is_dask_collection(X):
        return
    raise TypeError(
        f"{where} does not accept a dask collection (got {type(X).__module__}."
        f"{type(X).__name__}): the change-point statistic (Eq. (2.1)) needs the global "
        "ranks of the whole series, which a blockwise dask computation would get wrong, so "
        f"this code runs in memory only; {limit_text()}. Instead, {_ADVICE[advice]}."
    )
