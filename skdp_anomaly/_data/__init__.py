"""The data layer: the only code of the package that reads rows or imports dask.

Every estimator reads its input through :func:`~skdp_anomaly._data.rows.read_rows`
(numpy arrays, dask arrays and DataFrames, pandas frames: one validation, the
same scikit-learn errors) and hands module-level functions to run on each block
of rows, getting numbers, or lazy collections, back:

* :mod:`.rows` — validated rows and labels, exact blockwise reductions of
  integer statistics (the same bits however the rows are split);
* :mod:`.blocks` — rows with labels, per-block results gathered, rows drawn
  block by block on the workers and appended (DPSMOTE);
* :mod:`.vectors` — one value per item held by the workers: mapped, reduced,
  persisted (the noisy group search's scores and posterior);
* :mod:`._dask` — dask imported only when a collection arrives, so the package
  imports without dask installed.

Each function takes numpy input too where an estimator's in-memory path
shares it, so that both paths run the same code on their blocks.
"""
