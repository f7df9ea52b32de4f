"""One way to start the local Dask cluster the Dask tests run on, and a scheduler that
counts what computes hand back."""

from contextlib import contextmanager


@contextmanager
def local_client(*, processes: bool, n_workers: int = 2, threads_per_worker: int = 1):
    """A ``distributed.Client`` on a ``LocalCluster`` (dashboard on a free port)."""
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=n_workers,
            threads_per_worker=threads_per_worker,
            processes=processes,
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def counting_scheduler(returned):
    """The threaded scheduler, recording the size of every array a compute hands back."""
    import numpy as np
    from dask.threaded import get

    def scheduler(dsk, keys, **kwargs):
        result = get(dsk, keys, **kwargs)
        stack = [result]
        while stack:
            item = stack.pop()
            if isinstance(item, (list, tuple)):
                stack.extend(item)
            elif hasattr(item, "shape"):
                returned.append(int(np.prod(item.shape)))
        return result

    return scheduler
