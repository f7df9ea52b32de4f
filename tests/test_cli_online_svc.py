"""``skdp-anomaly online-svc``: the stream CLI. Fixed seeds: deterministic."""

import csv

import numpy as np
import pytest

from skdp_anomaly.cli import main


def _write(path, X, labels):
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["a", "label", "b"])
        for (a, b), lab in zip(X, labels):
            writer.writerow([a, lab, b])


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.7, 0.7, size=(12000, 2))
    labels = np.where(X[:, 0] > 0, "attack", "normal")
    _write(tmp_path / "train.csv", X[:10000], labels[:10000])
    _write(tmp_path / "test.csv", X[10000:], labels[10000:])
    return tmp_path


def test_streams_and_prints_labels_privacy_and_test_accuracy(files, capsys):
    code = main(["online-svc", str(files / "train.csv"), "--target", "label",
                 "--classes", "normal", "attack", "--epsilon", "2", "--average",
                 "--random-state", "0", "--quiet", "--test", str(files / "test.csv")])
    out = capsys.readouterr().out
    assert code == 0
    assert "rows streamed: 10000" in out
    requested = int(out.split("labels requested: ")[1].split(";")[0])
    assert 0 < requested < 10000
    assert "privacy spent: ε=2 (pure ε-DP, replace-one" in out
    accuracy = float(out.split("accuracy on test.csv: ")[1].split()[0])
    assert accuracy > 0.9


def test_no_accuracy_without_a_test_file(files, capsys):
    assert main(["online-svc", str(files / "train.csv"), "--target", "label", "--classes",
                 "normal", "attack", "--epsilon", "1", "--random-state", "0", "--quiet"]) == 0
    assert "accuracy" not in capsys.readouterr().out


@pytest.mark.parametrize("extra, match", [
    (["--epsilon", "0"], "--epsilon"),
    (["--epsilon", "1", "--batch-size", "0"], "--batch-size"),
    (["--epsilon", "1", "--data-norm", "-1"], "--data-norm"),
])
def test_bad_options_stop_before_reading(files, capsys, monkeypatch, extra, match):
    from skdp_anomaly.cli import _online_svc

    def never(*args, **kwargs):
        raise AssertionError("the data was read")

    monkeypatch.setattr(_online_svc, "read_chunks", never)
    code = main(["online-svc", str(files / "train.csv"), "--target", "label",
                 "--classes", "normal", "attack", *extra])
    assert code == 2 and match in capsys.readouterr().err


def test_label_outside_classes_is_an_error(files, capsys):
    code = main(["online-svc", str(files / "train.csv"), "--target", "label", "--classes",
                 "normal", "benign", "--epsilon", "1", "--random-state", "0", "--quiet"])
    assert code == 2 and "not one of classes" in capsys.readouterr().err
