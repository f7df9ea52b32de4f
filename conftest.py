"""Doctests that use diffprivlib skip, with the reason, where it does not import; a
pytest-xdist worker runs its libraries on one thread."""

import os

import pytest


def pytest_configure(config):
    # the workers share the machine's cores: BLAS and OpenMP threads on top of them only
    # contend (-n 2 on two cores: the logistic-regression and online-SVC audits took
    # 120 s with the libraries' default threads, 63 s with one thread per worker)
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")  # for the subprocesses tests start
    from threadpoolctl import threadpool_limits  # a scikit-learn dependency

    config._thread_limits = threadpool_limits(limits=1)


def _diffprivlib_error():
    try:
        import diffprivlib.models  # noqa: F401
    except ImportError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def pytest_collection_modifyitems(config, items):
    error = None
    for item in items:
        test = getattr(item, "dtest", None)  # doctest items only
        if test is None or "diffprivlib" not in (test.docstring or ""):
            continue
        error = error or _diffprivlib_error()
        if error is None:
            return
        item.add_marker(
            pytest.mark.skip(
                reason=f"doctest uses diffprivlib, which does not import here ({error}); "
                "pip install 'skdp-anomaly[diffprivlib]'"
            )
        )
