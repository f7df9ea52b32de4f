"""Whether diffprivlib is usable here, and the skip marker of the tests that need it.

diffprivlib is an optional integration (``pip install "skdp-anomaly[diffprivlib]"``):
0.6.6 does not import on scikit-learn 1.9, so CI also runs the suite without it.
"""

import pytest
import sklearn

try:
    import diffprivlib.models  # noqa: F401
except ImportError as exc:  # not installed, or broken by this scikit-learn
    AVAILABLE, _WHY = False, f"{type(exc).__name__}: {exc}"
else:
    AVAILABLE, _WHY = True, ""

REASON = (
    "needs diffprivlib (pip install 'skdp-anomaly[diffprivlib]'), which does not import "
    f"here with scikit-learn {sklearn.__version__} ({_WHY})"
)
needs_diffprivlib = pytest.mark.skipif(not AVAILABLE, reason=REASON)


def require_diffprivlib() -> None:
    """Skip the calling test module when diffprivlib is not usable."""
    if not AVAILABLE:
        pytest.skip(REASON, allow_module_level=True)
