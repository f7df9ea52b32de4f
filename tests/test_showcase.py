"""Smoke tests of the ``demo`` showcase (skdp_anomaly/demos and its CLI), tiny settings.

No timing is asserted. The metric values are not asserted either (they are
random at these sizes); the tests check the structure of the outputs, the
privacy reports and the CLI plumbing.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from types import SimpleNamespace

from skdp_anomaly.cli import _showcase as showcase_cli
from skdp_anomaly.demos import _breast_cancer, _showcase, _showcase_pipelines

# the demo's pieces, as the showcase and the command line use them
demos = SimpleNamespace(
    run_showcase=_showcase.run_showcase,
    build_pipelines=_showcase_pipelines.build_pipelines,
    public_scaler=_breast_cancer.public_scaler,
    load_imbalanced=_breast_cancer.load_imbalanced,
    BREAST_CANCER_BOUNDS=_breast_cancer.BREAST_CANCER_BOUNDS,
    MEAN_FEATURES=_breast_cancer.MEAN_FEATURES,
    NUCLEUS_RADIUS_MAX=_breast_cancer.NUCLEUS_RADIUS_MAX,
)
from skdp_anomaly.cli import _showcase as cli_showcase
from skdp_anomaly.demos import _showcase_pipelines as pipelines

TINY = dict(epsilons=(1.0, 4.0), ratios=(0.1,), n_repeats=1, n_folds=2, random_state=0)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("demo")
    buf = io.StringIO()
    result = demos.run_showcase(out_dir, plot=False, file=buf, **TINY)
    return out_dir, buf.getvalue(), result


def test_results_structure_and_ranges(tiny_run):
    _, _, result = tiny_run
    res = result["results"][0.1]
    assert set(res) == set(pipelines.METHODS)
    for method in pipelines.METHODS:
        assert set(res[method]) == {1.0, 4.0}
        for eps in (1.0, 4.0):
            for metric in pipelines.METRICS:
                values = res[method][eps][metric]
                assert len(values) == 2  # 1 repeat x 2 folds
                assert all(0.0 <= v <= 1.0 for v in values)


def test_metrics_json_written(tiny_run):
    out_dir, _, result = tiny_run
    payload = json.loads((out_dir / "metrics.json").read_text())
    assert payload["epsilons"] == [1.0, 4.0]
    assert payload["ratios"] == [0.1]
    assert set(payload["metrics"]["0.1"]) == set(pipelines.METHODS)
    assert set(payload["metrics"]["0.1"]["dpsmote"]["4"]) == set(pipelines.METRICS)
    assert "plot" not in result["paths"]  # plot=False
    fits = payload["dpsmote_fits"]
    # the default synopsis: no grid counters
    assert set(fits) == {"synopsis", "fits", "noise_warnings"} and fits["synopsis"] == "gaussian"
    assert fits["fits"] == 4  # 1 repeat x 2 folds x 2 epsilons
    assert 0 <= fits["noise_warnings"] <= fits["fits"]


def test_grid_synopsis_run_counts_cells(tmp_path):
    buf = io.StringIO()
    demos.run_showcase(
        tmp_path, plot=False, file=buf, synopsis="grid", **{**TINY, "epsilons": (1.0,)}
    )
    fits = json.loads((tmp_path / "metrics.json").read_text())["dpsmote_fits"]
    assert fits["synopsis"] == "grid" and fits["fits"] == 2
    assert 0 <= fits["uniform"] <= fits["fits"]
    # granularity="auto" picks 2..4 cells per feature, once per fit
    cells = fits["cells_per_feature"]
    assert set(cells) <= {"2", "3", "4"} and sum(cells.values()) == fits["fits"]
    text = buf.getvalue()
    assert "grid chosen by granularity='auto'" in text and "noisy grid histogram" in text
    assert "DP mean" not in text


def test_dpsmote_step_synopsis():
    step = demos.build_pipelines(1.0, n_minority_train=20, random_state=0)["dpsmote"].named_steps[
        "resample"
    ]
    assert step.synopsis == "gaussian"
    grid = demos.build_pipelines(1.0, n_minority_train=20, random_state=0, synopsis="grid")[
        "dpsmote"
    ].named_steps["resample"]
    assert grid.synopsis == "grid" and grid.granularity == "auto"
    with pytest.raises(ValueError, match="synopsis"):
        demos.build_pipelines(1.0, n_minority_train=20, synopsis="kde")


def test_default_run_does_not_describe_a_grid(tiny_run):
    _, text, _ = tiny_run
    assert "synopsis: the DP mean of the malignant rows" in text
    assert "DPSMOTE's rows come from the DP mean of the malignant rows only" in text
    assert "per-class sums (Gaussian synopsis)" in text  # the privacy report's note
    # (the recommended classifier's report names its class-size histogram)
    text = text.replace("class sizes, one geometric histogram", "")
    for grid_word in ("grid", "cell", "histogram"):
        assert grid_word not in text, grid_word


def test_privacy_reports_flag_smote_and_sum_dpsmote(tiny_run):
    _, text, result = tiny_run
    reports = result["privacy_reports"]
    # stated under replace-one neighbours (n public), diffprivlib's relation
    assert {r["neighbours"] for r in reports.values() if isinstance(r, dict)} == {"replace"}
    assert "Privacy report of Pipeline under replace-one-record neighbours" in text
    none, dpsmote = reports["none"], reports["dpsmote"]
    assert none["is_private_given_assumptions"] and none["epsilon"] == pytest.approx(1.0)
    # DPSMOTE's add/remove ε/4 counts ε/2 under replace-one (group privacy): the same
    # total ε as the classifier alone
    assert dpsmote["is_private_given_assumptions"]
    assert dpsmote["epsilon"] == pytest.approx(1.0)
    assert "add/remove ε=0.25 → 0.5 under replace-one (group privacy)" in text
    # the classifier's label set and the public scaler's function are assumptions;
    # DPSMOTE's label set is public (classes=[0, 1])
    assert not none["is_private"] and not dpsmote["is_private"]
    assert any("class labels" in a for a in dpsmote["assumptions"])
    assert not any("DPSMOTE(classes=None)" in a for a in dpsmote["assumptions"])
    # SMOTE before the DP classifier is a leak (thesis Theorem 3.2)
    assert not reports["smote"]["is_private"]
    assert "Theorem 3.2" in text
    assert "What this shows" in text


def test_pipelines_have_public_bounds_only():
    from skdp_anomaly.budget import check_privacy_budget
    from skdp_anomaly.exceptions import PrivacyLeakError

    pipes = demos.build_pipelines(2.0, n_minority_train=12, random_state=0)
    # a budget makes a leak raise: none here (bounds and data_norm are public)
    for method, total in (("none", 2.0), ("dpsmote", 2.0)):  # same total, the point of the demo
        report = check_privacy_budget(pipes[method], total)
        assert report.epsilon == pytest.approx(total) and report.leaks == []
    with pytest.raises(PrivacyLeakError):
        check_privacy_budget(pipes["smote"], 2.0)


def test_public_scaler_is_fixed_and_clips():
    scaler = demos.public_scaler()
    lower, upper = demos.BREAST_CANCER_BOUNDS[list(demos.MEAN_FEATURES)].T
    X = np.vstack([lower, upper, lower - 100.0])
    Z = scaler.fit_transform(X)
    np.testing.assert_allclose(Z[0], -1.0)
    np.testing.assert_allclose(Z[1], 1.0)
    np.testing.assert_allclose(Z[2], -1.0)  # out-of-range values are clipped, not rescaled


def test_load_imbalanced_ratio():
    X, y = demos.load_imbalanced(0.05, np.random.default_rng(0))
    assert X.shape[1] == len(demos.MEAN_FEATURES)
    assert y.sum() / len(y) == pytest.approx(0.05, abs=0.003)
    assert (y == 0).sum() == 357  # every benign row kept


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(epsilons=(0.0,)), "epsilons"),
        (dict(epsilons=()), "epsilons"),
        (dict(ratios=(0.7,)), "ratios"),
        (dict(n_repeats=0), "n_repeats"),
        (dict(n_folds=1), "n_folds"),
        (dict(synopsis="kde"), "synopsis"),
    ],
)
def test_bad_arguments(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        demos.run_showcase(tmp_path, file=io.StringIO(), **kwargs)


def test_ratio_too_small_is_clear_error(tmp_path):
    with pytest.raises(ValueError, match="ratio"):
        demos.run_showcase(
            tmp_path,
            epsilons=(1.0,),
            ratios=(0.005,),
            n_repeats=1,
            n_folds=2,
            plot=False,
            file=io.StringIO(),
        )


def test_plot_written_when_matplotlib_available(tmp_path):
    pytest.importorskip("matplotlib")
    result = demos.run_showcase(
        tmp_path, epsilons=(1.0, 4.0), ratios=(0.1,), n_repeats=1, n_folds=2, file=io.StringIO()
    )
    png = tmp_path / "dpsmote_demo.png"
    assert result["paths"]["plot"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_matplotlib_skips_plot_with_hint(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import now raises ImportError
    buf = io.StringIO()
    result = demos.run_showcase(
        tmp_path, epsilons=(1.0,), ratios=(0.1,), n_repeats=1, n_folds=2, file=buf
    )
    assert "plot" not in result["paths"]
    assert not (tmp_path / "dpsmote_demo.png").exists()
    assert 'pip install "skdp-anomaly[demo]"' in buf.getvalue()


def test_cli_pieces(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    cli_showcase.add_parser(sub)
    args = parser.parse_args(
        [
            "demo",
            "--output-dir",
            str(tmp_path),
            "--epsilons",
            "2",
            "--ratios",
            "0.1",
            "--repeats",
            "1",
            "--folds",
            "2",
            "--no-plot",
        ]
    )
    assert args.synopsis == "gaussian"
    assert args.func(args) == 0
    assert (tmp_path / "metrics.json").exists()
    assert "DPSMOTE" in capsys.readouterr().out
    args = parser.parse_args(["demo", "--output-dir", str(tmp_path), "--synopsis", "grid"])
    assert args.synopsis == "grid"
    with pytest.raises(SystemExit):
        parser.parse_args(["demo", "--synopsis", "kde"])


def test_cli_rejects_bad_values(tmp_path, capsys):
    from skdp_anomaly.cli import main

    # the ε rule of every command, checked before the demo loads or fits anything
    assert main(["demo", "--output-dir", str(tmp_path), "--epsilons", "2", "-1"]) == 2
    assert "--epsilons must be in" in capsys.readouterr().err
    assert not (tmp_path / "metrics.json").exists()
    parser = cli_showcase.add_arguments(argparse.ArgumentParser())
    with pytest.raises(SystemExit):
        parser.parse_args(["--ratios", "0.9"])


def test_bounds_follow_from_the_definitions():
    bounds = demos.BREAST_CANCER_BOUNDS
    assert bounds.shape == (30, 2)
    mean, se, worst = bounds[:10], bounds[10:20], bounds[20:]
    assert np.all(bounds[:, 0] == 0.0)  # every measurement is non-negative
    np.testing.assert_array_equal(worst, mean)  # mean of the three largest: same range
    np.testing.assert_array_equal(se[:, 1], mean[:, 1] / 2)  # standard error of [0, B]: <= B/2
    radius = demos.NUCLEUS_RADIUS_MAX
    np.testing.assert_allclose(
        mean[:4, 1], [radius, 127.5, 2 * math.pi * radius, math.pi * radius**2]
    )
    np.testing.assert_array_equal(mean[[4, 7, 8, 9], 1], 1.0)  # dimensionless ratios
    np.testing.assert_array_equal(mean[[5, 6], 1], [3.0, 2.0])  # under the shape assumption


def test_bounds_are_not_read_off_the_data():
    from sklearn.datasets import load_breast_cancer

    X = load_breast_cancer().data
    lower, upper = demos.BREAST_CANCER_BOUNDS.T
    # the definitions hold on the published rows: nothing is clipped there ...
    assert np.all(lower <= X.min(axis=0)) and np.all(X.max(axis=0) <= upper)
    # ... and no bound is a data extreme, rounded or not
    assert not np.any(np.isclose(upper, X.max(axis=0), rtol=0.05))
    assert not np.any((lower > 0) & np.isclose(lower, X.min(axis=0), rtol=0.05))


def test_the_package_does_not_import_the_demos():
    code = "import sys, skdp_anomaly, skdp_anomaly.cli; print('skdp_anomaly.demos' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "False"


def test_demo_warnings_print_message_only(tmp_path, capsys, monkeypatch):
    import warnings

    from skdp_anomaly.cli import main

    def fake_showcase(*args, **kwargs):
        warnings.warn("the demo noticed something", UserWarning)
        return {}

    monkeypatch.setattr(showcase_cli, "run_showcase", fake_showcase)
    assert main(["demo", "--output-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().err == "skdp-anomaly demo: warning: the demo noticed something\n"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--output-dir", "{file}"], "--output-dir"),
        (["--output-dir", "{file}/sub"], "--output-dir"),
    ],
)
def test_demo_checks_output_dir_before_running(tmp_path, capsys, monkeypatch, argv, message):
    from skdp_anomaly.cli import main

    calls = []
    monkeypatch.setattr(showcase_cli, "run_showcase", lambda *a, **k: calls.append(1))
    file = tmp_path / "a_file"
    file.write_text("")
    code = main(["demo", *(a.format(file=file) for a in argv)])
    err = capsys.readouterr().err
    assert calls == [] and code == 2
    assert message in err and err.count("\n") == 1, err


def test_cli_rejects_one_fold():
    parser = cli_showcase.add_arguments(argparse.ArgumentParser())
    with pytest.raises(SystemExit):
        parser.parse_args(["--folds", "1"])


def test_the_demo_leads_with_the_recommended_classifier_beside_the_non_private_one(tiny_run):
    _, text, result = tiny_run
    assert text.index("DPImbalancedClassifier(ε)") < text.index("DPSMOTE(ε/4) + DP-LR(ε/2)")
    reports = result["privacy_reports"]
    assert reports["recommended"]["is_private"]  # public bounds and label set: no assumption
    assert reports["recommended"]["epsilon"] == pytest.approx(1.0)
    assert not reports["balanced_lr"]["is_private"]  # the non-private reference
    assert "* At 10% malignant and ε = " in text and "protects no one" in text
