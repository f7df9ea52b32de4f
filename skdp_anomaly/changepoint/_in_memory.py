"""Why the change-point code refuses dask collections, and its in-memory limit.

PNCPD's statistic ``V(k)`` (Eq. (2.1)) compares every sample with every
later one: it needs the *global* stable ranks of the whole series. A
blockwise computation over dask chunks would rank within blocks and give a
different (wrong) statistic, and quietly materialising a collection that
may not fit in memory is no better, so every public entry point that reads
a series raises a TypeError instead. Nothing here imports dask
(:func:`skdp_anomaly._data._dask.is_dask_collection` only looks at
``sys.modules``).
"""

from __future__ import annotations

from .._data._dask import is_dask_collection

__all__ = ["BYTES_PER_ROW", "reject_dask_collection"]

#: Peak working memory of an offline fit per sample, on top of the float64
#: series itself (8 bytes per sample): tracemalloc peak of
#: ``PrivateChangePointDetector().fit`` at 10^5, 10^6 and 4·10^6 samples
#: (32.0 bytes per sample at each size: the stable ranks, the argsort and the
#: cumulative pair counts, int64, and the scores, float64).
BYTES_PER_ROW = 32

_ADVICE = {
    "fit": ("call .compute() on the series (or on a window of it that fits in memory) and "
            "pass the NumPy array"),
    "partial_fit": ("feed its blocks in order as NumPy arrays, e.g. "
                    "`for block in x.blocks: det.partial_fit(block.compute())`: the online "
                    "mode keeps only the last `window` samples between calls"),
    "predict": ("labels depend on positions only, so compute them lazily as "
                "`(dask.array.arange(len(x)) >= det.change_point_).astype(int)`, or pass "
                "the computed series"),
    "function": "call .compute() on it (or on a window of it that fits in memory) first",
}


def limit_text() -> str:
    """The in-memory limit as one sentence, for messages and docs."""
    total = (BYTES_PER_ROW + 8) * 10**8 / 1e9
    return (f"an offline fit holds the float64 series (8 bytes per sample) plus about "
            f"{BYTES_PER_ROW} bytes per sample of working memory, so 10^8 samples need "
            f"~{total:.0f} GB")


def reject_dask_collection(X, where: str, *, advice: str = "function") -> None:
    """Raise a TypeError when ``X`` is a dask collection (before any work or charge).

    Parameters
    ----------
    X : object
        The input about to be read.
    where : str
        What was called, e.g. ``"PrivateChangePointDetector.fit"``.
    advice : {"fit", "partial_fit", "predict", "function"}, default="function"
        Which way out to suggest.
    """
    if not is_dask_collection(X):
        return
    raise TypeError(
        f"{where} does not accept a dask collection (got {type(X).__module__}."
        f"{type(X).__name__}): the change-point statistic (Eq. (2.1)) needs the global "
        "ranks of the whole series, which a blockwise dask computation would get wrong, so "
        f"this code runs in memory only; {limit_text()}. Instead, {_ADVICE[advice]}."
    )
