"""The data layer: the only code of the package that reads rows or imports dask.

:mod:`.rows` (validated rows, exact reductions), :mod:`.blocks` (labelled blocks, drawn rows),
:mod:`.vectors` (per-item vectors on the workers) and :mod:`._dask` (dask imported only when a
collection arrives). numpy input runs the same code as one block.
"""
