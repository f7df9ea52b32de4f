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
