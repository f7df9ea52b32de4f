"""One way to start the local Dask cluster the Dask tests run on."""

from contextlib import contextmanager


@contextmanager
def local_client(*, processes: bool, n_workers: int = 2, threads_per_worker: int = 1):
    """A ``distributed.Client`` on a ``LocalCluster`` (dashboard on a free port)."""
    import distributed

    with distributed.LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker,
                                  processes=processes, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        yield client
