"""Guards for the dependency caps stated in the README."""

import warnings

import numpy as np
import sklearn
from sklearn.datasets import make_classification


def test_sklearn_within_cap():
    major, minor = (int(v) for v in sklearn.__version__.split(".")[:2])
    assert (1, 6) <= (major, minor) < (1, 8), sklearn.__version__


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


def test_ci_runs_the_readme_test_command_verbatim():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    ci = (root / ".ci" / "run").read_text().strip().splitlines()
    command = ci[-1]
    assert "pytest" in command
    assert f"\n{command}\n" in readme
