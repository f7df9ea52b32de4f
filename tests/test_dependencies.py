"""Guards for the dependency story in the README: diffprivlib is optional.

The package installs and works with scikit-learn 1.6 to 1.9; diffprivlib
0.6.6 (the ``diffprivlib`` extra, which caps scikit-learn below 1.8) is an
integration, imported only by the code paths that need it.
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.datasets import make_classification

from _diffprivlib import AVAILABLE, needs_diffprivlib


def _sklearn_version():
    return tuple(int(v) for v in sklearn.__version__.split(".")[:2])


def _python(code: str) -> str:
    """What ``code`` prints, run in a fresh interpreter (nothing imported before it)."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_sklearn_in_the_supported_range():
    assert _sklearn_version() >= (1, 6), sklearn.__version__
    if AVAILABLE:  # the diffprivlib extra carries the cap diffprivlib needs
        assert _sklearn_version() < (1, 8), sklearn.__version__


def test_importing_the_package_does_not_import_diffprivlib():
    code = (
        "import sys, skdp_anomaly.cli, skdp_anomaly.budget; from skdp_anomaly import *; "
        "print(any(m == 'diffprivlib' or m.startswith('diffprivlib.') for m in sys.modules))"
    )
    out = _python(code)
    assert out == "False"


def test_importing_the_package_does_not_import_numba_until_a_compiled_loop_runs():
    code = (
        "import sys, numpy as np, skdp_anomaly.cli; from skdp_anomaly import *; "
        "before = 'numba' in sys.modules; "
        "from skdp_anomaly.dpoad._kse import kse_scores; "
        "kse_scores(np.arange(40.0)); "
        "print(before, 'numba' in sys.modules)"
    )
    out = _python(code)
    assert out == "False True"


def test_importing_the_package_does_not_import_the_extras_plotting_or_progress_bars():
    # matplotlib (the demo extra), statsmodels (docs) and tqdm (the CLI's progress bars) are
    # imported by the code paths that use them; pandas and scipy.stats are not checked:
    # sklearn.base imports them itself (pandas on some scikit-learn versions)
    code = (
        "import sys, skdp_anomaly.cli; from skdp_anomaly import *; "
        "print(sorted({m.split('.')[0] for m in sys.modules} "
        "& {'matplotlib', 'statsmodels', 'tqdm'}))"
    )
    out = _python(code)
    assert out == "[]"


def test_public_names_are_imported_at_their_first_use():
    # `import skdp_anomaly` loads no scikit-learn, scipy or imbalanced-learn (PEP 562
    # exports); the private logistic regression needs no imbalanced-learn either
    code = (
        "import sys; import skdp_anomaly; "
        "heavy = lambda: sorted({m.split('.')[0] for m in sys.modules} "
        "& {'sklearn', 'scipy', 'imblearn'}); "
        "print(heavy()); from skdp_anomaly import PrivateLogisticRegression; print(heavy()); "
        "from skdp_anomaly import DPSMOTE; print(heavy())"
    )
    out = _python(code).splitlines()
    assert out == ["[]", "['scipy', 'sklearn']", "['imblearn', 'scipy', 'sklearn']"]


def test_every_public_name_resolves_and_unknown_names_raise():
    import skdp_anomaly

    assert set(skdp_anomaly.__all__) <= set(dir(skdp_anomaly))
    for name in skdp_anomaly.__all__:
        assert getattr(skdp_anomaly, name) is not None
    assert skdp_anomaly.privacy.PrivacyCost is skdp_anomaly.PrivacyCost
    with pytest.raises(AttributeError, match="no attribute 'NotAThing'"):
        skdp_anomaly.NotAThing  # noqa: B018


def test_warn_skips_the_frames_of_the_imblearn_that_is_imported():
    # _warn finds imbalanced-learn's folder with importlib's find_spec instead of importing
    # it (the package still imports it: DPSMOTE and BudgetedPipeline subclass its classes);
    # the folder must be the one imblearn is imported from
    code = (
        "import os, skdp_anomaly._warn as w, imblearn; "
        "print(os.path.dirname(os.path.abspath(imblearn.__file__)) + os.sep in w._INTERNAL)"
    )
    out = _python(code)
    assert out == "True"


def test_leak_warning_is_ours_without_diffprivlib():
    from skdp_anomaly.exceptions import PrivacyLeakWarning
    from skdp_anomaly.privacy._validation import check_bounds

    with pytest.warns(PrivacyLeakWarning, match="computed from the data"):
        check_bounds(None, np.zeros((3, 2)), n_features=2)
    assert issubclass(PrivacyLeakWarning, RuntimeWarning)


@needs_diffprivlib
def test_leak_warning_is_diffprivlibs_too_once_it_is_imported():
    from diffprivlib.utils import PrivacyLeakWarning as Theirs

    from skdp_anomaly.exceptions import PrivacyLeakWarning as Ours
    from skdp_anomaly.privacy._validation import check_bounds

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_bounds(None, np.zeros((3, 2)), n_features=2)
    assert issubclass(caught[0].category, Ours) and issubclass(caught[0].category, Theirs)
    with warnings.catch_warnings():  # a filter written for diffprivlib's class applies
        warnings.simplefilter("error", Theirs)
        with pytest.raises(Theirs):
            check_bounds(None, np.zeros((3, 2)), n_features=2)


@needs_diffprivlib
def test_diffprivlib_models_import_and_logistic_regression_fits():
    # fails at import on scikit-learn 1.9 and at fit on 1.8 (`multi_class`)
    from diffprivlib.models import LogisticRegression

    X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    X = X / np.linalg.norm(X, axis=1).max()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = LogisticRegression(epsilon=1.0, data_norm=1.0, random_state=0).fit(X, y)
    assert clf.predict(X).shape == (200,)
    assert set(np.unique(clf.predict(X))) <= {0, 1}


@needs_diffprivlib
def test_diffprivlib_accountant_is_charged_and_refuses_before_release():
    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.utils import BudgetError

    from skdp_anomaly import DPSMOTE

    X, y = make_classification(
        n_samples=300, n_features=2, n_informative=2, n_redundant=0, weights=[0.8], random_state=0
    )
    acc = BudgetAccountant(epsilon=3.0)
    DPSMOTE(epsilon=1.0, bounds=(-5, 5), random_state=0, accountant=acc).fit_resample(X, y)
    assert acc.total()[0] == pytest.approx(2.0)  # replace-one ledger: 2ε
    est = DPSMOTE(epsilon=1.0, bounds=(-5, 5), random_state=0, accountant=acc)
    with pytest.raises(BudgetError, match="replace-one"):
        est.fit_resample(X, y)
    assert acc.total()[0] == pytest.approx(2.0) and not hasattr(est, "noisy_counts_")


@needs_diffprivlib
def test_no_accountant_means_diffprivlibs_default_is_untouched():
    from diffprivlib.accountant import BudgetAccountant

    from skdp_anomaly import DPSMOTE

    X, y = make_classification(
        n_samples=300, n_features=2, n_informative=2, n_redundant=0, weights=[0.8], random_state=0
    )
    before = BudgetAccountant.load_default(None).total()
    DPSMOTE(epsilon=1.0, bounds=(-5, 5), random_state=0).fit_resample(X, y)
    assert BudgetAccountant.load_default(None).total() == before


def test_ci_runs_the_readme_test_command_verbatim():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    ci = (root / ".ci" / "run").read_text()
    command = next(line for line in ci.splitlines() if 'pip install ".[test]"' in line)
    assert "pytest" in command
    assert f"\n{command.strip()}\n" in readme
