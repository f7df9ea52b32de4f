"""``skdp-anomaly budget-demo``: its option is checked before the data are loaded."""

import pytest
import sklearn.datasets

from skdp_anomaly.cli import main


@pytest.mark.parametrize("budget", ["0", "-1", "nan", "inf"])
def test_bad_budget_is_one_line_before_loading(capsys, monkeypatch, budget):
    calls = []
    monkeypatch.setattr(sklearn.datasets, "load_breast_cancer", lambda **k: calls.append(k))
    code = main(["budget-demo", "--budget", budget])
    err = capsys.readouterr().err
    assert calls == [] and code == 2
    assert err.startswith("skdp-anomaly budget-demo: error: --budget ") and err.count("\n") == 1


def test_feature_bounds_are_the_public_table():
    """The tour's bounds are those of the showcase, derived from the measurements' definitions."""
    import numpy as np

    from skdp_anomaly.demos._breast_cancer import BREAST_CANCER_BOUNDS, MEAN_FEATURES
    from skdp_anomaly.demos import _budget_tour

    np.testing.assert_array_equal(
        _budget_tour.FEATURE_UPPER, BREAST_CANCER_BOUNDS[list(MEAN_FEATURES), 1]
    )
    lower, upper = _budget_tour.LOG_BOUNDS
    np.testing.assert_array_equal(lower, 0.0)  # every measurement is non-negative
    X = sklearn.datasets.load_breast_cancer().data[:, list(MEAN_FEATURES)]
    assert np.all(np.log1p(X) <= upper)  # the definitions hold on the published rows


def test_a_budget_below_the_cost_prints_the_report_instead_of_naming_an_attribute(capsys):
    code = main(["budget-demo", "--budget", "1", "--no-explain"])
    out, err = capsys.readouterr()
    assert code == 2
    # the table a Python user reads from the error's `report` attribute is printed
    assert "| **total** | BudgetedPipeline | **2** |" in out and "EXCEEDS the budget" in out
    assert "attribute" not in err and err.count("\n") == 1
    assert "--budget is 1" in err and "use --budget 2 or more" in err
