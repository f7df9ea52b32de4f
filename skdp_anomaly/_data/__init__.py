"""The data layer's blockwise helpers: what estimators do to row blocks where they live.

With :mod:`skdp_anomaly._backend` (validated rows, exact reductions) and
:mod:`skdp_anomaly._dask` (dask imported only when a collection arrives),
these modules are the only code of the package that imports dask; an
estimator hands them module-level functions to run on each block and gets
numbers, or lazy collections, back:

* :mod:`.blocks` — rows with labels (a dask array or DataFrame and a
  Series), per-block results gathered, rows drawn block by block on the
  workers and appended (DPSMOTE);
* :mod:`.vectors` — one value per item held by the workers: mapped,
  reduced, persisted (the noisy group search's scores and posterior).

Each function takes numpy input too where an estimator's in-memory path
shares it, so that both paths run the same code on their blocks.
"""
