"""Tests of ``skdp-anomaly resample``."""

import csv

import numpy as np
import pytest
from sklearn.datasets import make_classification

from skdp_anomaly.cli import main


@pytest.fixture()
def csv_in(tmp_path):
    X, y = make_classification(n_samples=400, n_features=3, n_informative=3, n_redundant=0,
                               weights=[0.8], random_state=0)
    path = tmp_path / "in.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["a", "label", "b", "c"])
        for row, label in zip(X, y):
            w.writerow([row[0], ["neg", "pos"][label], row[1], row[2]])
    return path


def _read(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def test_resample_writes_original_plus_synthetic(csv_in, tmp_path, capsys):
    out = tmp_path / "out.csv"
    code = main(["resample", str(csv_in), "--target", "label", "--epsilon", "1",
                 "--bounds", "-5", "5", "--random-state", "0", "-o", str(out)])
    assert code == 0
    header, rows = _read(out)
    _, original = _read(csv_in)
    assert header == ["a", "label", "b", "c"]
    assert rows[:400] == original  # original rows copied verbatim
    synth = rows[400:]
    assert len(synth) > 0 and all(r[1] == "pos" for r in synth)
    values = np.array([[float(r[0]), float(r[2]), float(r[3])] for r in synth])
    assert np.all(np.abs(values) <= 5)
    err = capsys.readouterr().err
    assert "noisy class sizes" in err and "pure ε-DP" in err
    assert f"{len(synth)} synthetic rows" in err


def test_resample_reproducible_and_options(csv_in, tmp_path):
    outs = []
    for name in ("o1.csv", "o2.csv"):
        out = tmp_path / name
        assert main(["resample", str(csv_in), "--target", "label", "--epsilon", "2",
                     "--bounds", "-5", "5", "--granularity", "0.5", "--connectivity", "1",
                     "--public-counts", "--random-state", "7", "--quiet", "-o", str(out)]) == 0
        outs.append(out.read_text())
    assert outs[0] == outs[1]
    _, rows = _read(tmp_path / "o1.csv")
    labels = [r[1] for r in rows]
    assert labels.count("pos") == labels.count("neg")  # public counts: exact balance


def test_resample_bounds_file(csv_in, tmp_path):
    bounds = tmp_path / "bounds.csv"
    bounds.write_text("feature,lower,upper\nc,-4,4\na,-5,5\nb,-6,6\n")
    out = tmp_path / "out.csv"
    assert main(["resample", str(csv_in), "--target", "label", "--epsilon", "1",
                 "--bounds-file", str(bounds), "--random-state", "0", "--quiet",
                 "-o", str(out)]) == 0
    _, rows = _read(out)
    synth = np.array([[float(r[0]), float(r[2]), float(r[3])] for r in rows[400:]])
    assert np.all(np.abs(synth) <= [5, 6, 4])
    bounds.write_text("feature,lower,upper\na,-5,5\n")
    assert main(["resample", str(csv_in), "--target", "label", "--epsilon", "1",
                 "--bounds-file", str(bounds), "-o", str(out)]) == 2


def test_resample_without_bounds_warns(csv_in, tmp_path, capsys):
    out = tmp_path / "out.csv"
    assert main(["resample", str(csv_in), "--target", "label", "--epsilon", "1",
                 "--random-state", "0", "-o", str(out)]) == 0
    assert "warning: bounds have not been specified" in capsys.readouterr().err


def test_resample_errors(csv_in, tmp_path, capsys):
    out = tmp_path / "out.csv"
    base = ["resample", str(csv_in), "--epsilon", "1", "--bounds", "-5", "5", "-o", str(out)]
    assert main(base + ["--target", "nope"]) == 2
    assert "target column 'nope' not found" in capsys.readouterr().err
    assert main(base + ["--target", "a"]) == 2  # 'label' becomes a feature: not numeric
    err = capsys.readouterr().err
    assert "column 'label' is not numeric" in err and "pos" not in err  # no data values
    assert main(["resample", str(tmp_path / "missing.csv"), "--target", "label",
                 "--epsilon", "1", "-o", str(out)]) == 2
    assert main(base + ["--target", "label", "--epsilon", "-1"]) == 2
    assert "epsilon" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("a,label\n1.0,x\n,y\n")
    assert main(["resample", str(bad), "--target", "label", "--epsilon", "1",
                 "-o", str(out)]) == 2
    assert "column 'a' is not numeric" in capsys.readouterr().err
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,label\n1.0,x,3\n")
    assert main(["resample", str(ragged), "--target", "label", "--epsilon", "1",
                 "-o", str(out)]) == 2
    assert "line 2 has 3 fields" in capsys.readouterr().err
    one = tmp_path / "one.csv"
    one.write_text("a,label\n1.0,x\n2.0,x\n")
    assert main(["resample", str(one), "--target", "label", "--epsilon", "1",
                 "--bounds", "0", "3", "-o", str(out)]) == 2
    assert "more than 1 class" in capsys.readouterr().err


def test_resample_output_reads_back_with_pandas(csv_in, tmp_path):
    pd = pytest.importorskip("pandas")
    out = tmp_path / "out.csv"
    assert main(["resample", str(csv_in), "--target", "label", "--epsilon", "1",
                 "--bounds", "-5", "5", "--random-state", "0", "--quiet", "-o", str(out)]) == 0
    df = pd.read_csv(out)
    assert list(df.columns) == ["a", "label", "b", "c"]
    assert df[["a", "b", "c"]].dtypes.map(lambda d: d.kind == "f").all()


def test_resample_refuses_to_overwrite_input(csv_in, capsys):
    assert main(["resample", str(csv_in), "--target", "label", "--epsilon", "1",
                 "-o", str(csv_in)]) == 2
    assert "must differ" in capsys.readouterr().err
    assert csv_in.read_text().startswith("a,label,b,c")


def test_read_table_in_chunks_matches_whole(csv_in):
    from skdp_anomaly.cli._resample import read_table

    whole = read_table(str(csv_in), "label")
    chunked = read_table(str(csv_in), "label", chunk=7)
    np.testing.assert_array_equal(whole[2], chunked[2])
    np.testing.assert_array_equal(whole[3], chunked[3])
    assert whole[2].shape == (400, 3) and whole[1] == 1


def test_resample_granularity_auto_and_bad_value(csv_in, tmp_path, capsys):
    out = tmp_path / "auto.csv"
    assert main(["resample", str(csv_in), "--target", "label", "--epsilon", "1",
                 "--bounds", "-5", "5", "--granularity", "auto", "--random-state", "0",
                 "-o", str(out)]) == 0
    assert "cells per feature" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse usage error, exit code 2
        main(["resample", str(csv_in), "--target", "label", "--epsilon", "1",
              "--granularity", "fine", "-o", str(out)])
    assert "expected a float in (0, 1] or 'auto'" in capsys.readouterr().err


def test_summary_prints_no_exact_row_count(csv_in, tmp_path, capsys):
    """The summary is all DP output: the exact number of input rows (400) is not in it."""
    out = tmp_path / "out.csv"
    assert main(["resample", str(csv_in), "--target", "label", "--epsilon", "1",
                 "--bounds", "-5", "5", "--random-state", "0", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "the original rows" in err and "400" not in err


def test_public_label_set_option(csv_in, tmp_path, capsys):
    out = tmp_path / "out.csv"
    assert main(["resample", str(csv_in), "--target", "label", "--epsilon", "1",
                 "--bounds", "-5", "5", "--classes", "neg", "pos", "other",
                 "--random-state", "0", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "'other'" in err  # its noisy size is released like any other class
