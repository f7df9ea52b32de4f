"""Doctests that use diffprivlib skip, with the reason, where it does not import."""

import pytest


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
        item.add_marker(pytest.mark.skip(
            reason=f"doctest uses diffprivlib, which does not import here ({error}); "
                   "pip install 'skdp-anomaly[diffprivlib]'"))
