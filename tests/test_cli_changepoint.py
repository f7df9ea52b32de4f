"""The ``skdp-anomaly changepoint`` sub-command."""

import re
import subprocess
import sys

import numpy as np
import pytest

from skdp_anomaly.changepoint import PrivateChangePointDetector
from skdp_anomaly.cli import main
from skdp_anomaly.cli._changepoint import read_column


@pytest.fixture
def series_csv(tmp_path):
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(0, 1, 300), rng.normal(3, 1, 200)]
    path = tmp_path / "series.csv"
    lines = ["time,value,label"] + [f"t{i},{float(v)!r},a" for i, v in enumerate(x)]
    path.write_text("\n".join(lines) + "\n")
    return path, x


def run_cli(capsys, *argv):
    code = main(["changepoint", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_offline_prints_change_point_index_value_and_epsilon(series_csv, capsys):
    path, x = series_csv
    code, out, err = run_cli(capsys, path, "--column", "value", "--epsilon", 2,
                             "--index-column", "time", "--random-state", 0)
    assert code == 0, err
    k = PrivateChangePointDetector(epsilon=2.0, random_state=0).fit(x).change_point_
    assert f"change point: data row {k} (0-based)" in out
    assert f"time: t{k}" in out
    assert "direction: increase" in out
    assert "privacy spent: ε=2 (pure ε-DP, replace-one-record neighbours (n public))" in out
    assert "do not use it for releases" in out


def test_online_mode(series_csv, capsys):
    path, x = series_csv
    code, out, err = run_cli(capsys, path, "--column", "value", "--epsilon", 4, "--online",
                             "--window", 100, "--threshold", 0.8, "--random-state", 1)
    assert code == 0, err
    det = PrivateChangePointDetector(epsilon=4.0, window=100, threshold=0.8, random_state=1).fit(x)
    assert det.detected_
    assert f"change point: data row {det.change_point_} " in out
    assert "ONLINEPNCPD" in out and "privacy spent: ε=4" in out


def test_online_no_detection_reports_half_budget(tmp_path, capsys):
    path = tmp_path / "flat.csv"
    x = np.random.default_rng(1).normal(size=400)
    path.write_text("v\n" + "\n".join(str(float(v)) for v in x) + "\n")
    code, out, _ = run_cli(capsys, path, "--column", "v", "--epsilon", 10, "--online",
                           "--window", 100, "--threshold", 0.9, "--random-state", 0)
    assert code == 0
    assert "no change detected in 400 rows" in out
    assert "privacy spent: ε=5" in out


@pytest.mark.parametrize(
    "content, argv, message",
    [
        ("t,v\n1,2\n", ["--column", "w"], "--column 'w' is not a column"),
        ("t,v\n1,abc\n", ["--column", "v"], "must be numeric: data row 1"),
        ("t,v\n1,2\n2,\n", ["--column", "v"], "data row 2 is not a number"),
        ("t,v\n1,nan\n", ["--column", "v"], "NaN or infinite"),
        ("t,v\n", ["--column", "v"], "no data rows"),
        ("", ["--column", "v"], "empty"),
        ("t,v\n1,2\n2,3\n", ["--column", "v", "--index-column", "x"], "--index-column 'x'"),
        ("t,v\n1,2\n2,3\n3,4\n", ["--column", "v", "--gamma", "0.7"], "gamma"),
        ("t,v\n1,2\n", ["--column", "v"], "candidate range"),
        ("t,v\n1,2\n2,3\n", ["--column", "v", "--online"], "--online needs --window"),
        ("t,v\n1,2\n2,3\n", ["--column", "v", "--window", "10"], "for --online mode"),
        ("t,v\n1,2\n2,3\n", ["--column", "v", "--online", "--window", "10", "--threshold",
                             "0.8", "--gamma", "0.3"], "gamma must be in the range"),
    ],
)
def test_errors_are_one_line_without_data_values(tmp_path, capsys, content, argv, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out, err = run_cli(capsys, path, "--epsilon", 1, *argv)
    assert code == 2
    assert message in err and err.count("\n") == 1
    assert "abc" not in err  # no data value in the message


def test_missing_file_and_bad_epsilon(tmp_path, capsys):
    code, _, err = run_cli(capsys, tmp_path / "nope.csv", "--column", "v", "--epsilon", 1)
    assert code == 2 and "no such file" in err
    path = tmp_path / "ok.csv"
    path.write_text("v\n1\n2\n3\n")
    code, _, err = run_cli(capsys, path, "--column", "v", "--epsilon", -1)
    assert code == 2 and "--epsilon must be > 0" in err


def test_read_column_with_delimiter_and_index(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("day;x\nmon;1.5\ntue;2\n")
    values, index = read_column(path, "x", delimiter=";", index_column="day")
    assert values.tolist() == [1.5, 2.0] and index == ["mon", "tue"]


def test_console_script_entry_point(series_csv):
    path, _ = series_csv
    proc = subprocess.run(
        [sys.executable, "-m", "skdp_anomaly", "changepoint", str(path), "--column", "value",
         "--epsilon", "1", "--random-state", "3"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"change point: data row \d+ \(0-based\)", proc.stdout)
