"""The ``skdp-anomaly changepoint`` sub-command."""

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _recording import record_calls

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


def _column_csv(path, values):
    """Write a one-column CSV ``v`` holding ``values``, one a line; return ``path``."""
    path.write_text("v\n" + "".join(f"{v}\n" for v in values))
    return path


def run_cli(capsys, path, options, *extra):
    """``changepoint path`` with ``options`` (split on whitespace: no value holds a space),
    then ``extra``; seeded unless a test passes its own ``--random-state`` (an unseeded run
    draws fresh noise: its output, warnings included, would vary)."""
    argv = [str(path), *options.split(), *map(str, extra)]
    if "--random-state" not in argv:
        argv += ["--random-state", "0"]
    code = main(["changepoint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_offline_prints_change_point_index_value_and_epsilon(series_csv, capsys):
    path, x = series_csv
    code, out, err = run_cli(
        capsys, path, "--column value --epsilon 2 --index-column time --random-state 0"
    )
    assert code == 0, err
    det = PrivateChangePointDetector(epsilon=2.0, random_state=0).fit(x)
    assert det.n_change_points_ >= 1  # N(0,1) -> N(3,1) at row 300
    assert f"change points: {det.n_change_points_}" in out
    for k, direction in zip(det.change_points_, det.directions_):
        assert (
            f"change point: data row {k} (0-based) starts a new segment; {k} rows "
            f"before it; direction: {direction}; time: t{k}"
        ) in out
    assert f"privacy spent: {det.privacy_spent_}" in out and "pure ε-DP" in out
    assert "(budget of a full run: ε=2)" in out
    assert "do not use it for releases" in out


def test_offline_exact_number_and_no_change(tmp_path, series_csv, capsys):
    path, x = series_csv
    code, out, err = run_cli(
        capsys,
        path,
        "--column value --epsilon 2 --n-change-points 2 --min-size 50 --random-state 0",
    )
    assert code == 0, err
    assert "change points: 2" in out and out.count("change point: data row") == 2
    assert "privacy spent: ε=2 " in out
    flat = _column_csv(tmp_path / "flat.csv", np.random.default_rng(7).normal(size=400))
    code, out, err = run_cli(capsys, flat, "--column v --epsilon 1 --random-state 0")
    assert code == 0, err
    assert "no change detected in 400 rows" in out


# the online run of ``series_csv`` that detects its change
ONLINE_RUN = "--column value --epsilon 4 --online --window 100 --threshold 0.8 --random-state 1"


def test_online_mode(series_csv, capsys):
    path, x = series_csv
    code, out, err = run_cli(capsys, path, ONLINE_RUN)
    assert code == 0, err
    det = PrivateChangePointDetector(epsilon=4.0, window=100, threshold=0.8, random_state=1).fit(x)
    assert det.detected_
    assert f"change point: data row {det.change_point_} " in out
    assert "ONLINEPNCPD" in out and "privacy spent: ε=4" in out


def test_online_no_detection_reports_half_budget(tmp_path, capsys):
    path = _column_csv(tmp_path / "flat.csv", np.random.default_rng(1).normal(size=400))
    code, out, _ = run_cli(
        capsys,
        path,
        "--column v --epsilon 10 --online --window 100 --threshold 0.9 --random-state 0",
    )
    assert code == 0
    assert "no change detected in 400 rows" in out
    assert "privacy spent: ε=5" in out


def test_online_window_longer_than_the_stream_says_nothing_was_tested(series_csv, capsys):
    path, _ = series_csv  # 500 rows
    # a given --threshold: calibrating one for a 1000-row window takes seconds, and the
    # note does not depend on it
    code, out, err = run_cli(
        capsys,
        path,
        "--column value --epsilon 1 --online --window 1000 --threshold 0.9 --random-state 0",
    )
    assert code == 0, err
    assert "no change detected in 500 rows" in out and "privacy spent: ε=0 " in out
    assert (
        "note: the window (1000 rows) is longer than the stream (500 rows): no window "
        "was complete, so nothing was tested; use --window 500 or less"
    ) in out
    short = _column_csv(path.with_name("short.csv"), [1, 2, 3])
    code, out, err = run_cli(
        capsys,
        short,
        "--column v --epsilon 1 --online --window 10 --threshold 0.9 --random-state 0",
    )
    assert code == 0, err
    assert "(3 rows): no window was complete" in out and "at least 4 rows" in out


def test_online_window_that_filled_has_no_such_note(tmp_path, capsys):
    path = _column_csv(tmp_path / "flat.csv", np.random.default_rng(1).normal(size=400))
    code, out, err = run_cli(
        capsys,
        path,
        "--column v --epsilon 10 --online --window 400 --threshold 0.9 --random-state 0",
    )
    assert code == 0, err
    assert "no change detected in 400 rows" in out and "longer than the stream" not in out


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("terminal", [False, True])
def test_online_progress_bar_only_on_a_terminal(series_csv, capsys, monkeypatch, terminal):
    from skdp_anomaly.cli import _changepoint

    monkeypatch.setattr(_changepoint, "_PROGRESS_MIN_ROWS", 10)
    monkeypatch.setattr(_changepoint, "_CHUNK", 100)
    tty = _Terminal()
    if terminal:
        monkeypatch.setattr(sys, "stderr", tty)
    path, _ = series_csv
    code, out, err = run_cli(capsys, path, ONLINE_RUN)
    assert code == 0 and out.startswith("method: ONLINEPNCPD")
    # in a pipe or a log the bar's carriage returns ran into the lines after it
    assert "ONLINEPNCPD:" not in err and "row/s" not in err
    assert ("ONLINEPNCPD:" in tty.getvalue()) is terminal


@pytest.mark.parametrize(
    "content, argv, message",
    [
        ("t,v\n1,2\n", ["--column", "w"], "--column 'w' is not a column"),
        ("t,v\n1,abc\n", ["--column", "v"], "column 'v' is not numeric on line 2"),
        (
            "t,v\n1,2\n2,\n",
            ["--column", "v"],
            "column 'v' has a missing value (empty or NaN) on line 3",
        ),
        (
            "t,v\n1,nan\n",
            ["--column", "v"],
            "column 'v' has a missing value (empty or NaN) on line 2",
        ),
        ("t,v\n1,2\n2,-inf\n", ["--column", "v"], "column 'v' has an infinite value on line 3"),
        ("t,v\n", ["--column", "v"], "no data rows"),
        ("", ["--column", "v"], "empty"),
        ("t,v\n1,2\n2,3\n", ["--column", "v", "--index-column", "x"], "--index-column 'x'"),
        ("t,v\n1,2\n2,3\n3,4\n", ["--column", "v", "--gamma", "0.7"], "--gamma"),
        ("t,v\n1,2\n", ["--column", "v"], "--min-size 2 needs at least 4"),
        ("t,v\n1,2\n2,3\n", ["--column", "v", "--online"], "--online needs --window"),
        ("t,v\n1,2\n2,3\n", ["--column", "v", "--alpha", "0.9"], "--alpha"),
        ("t,v\n1,2\n2,3\n", ["--column", "v", "--n-change-points", "two"], "--n-change-points"),
        ("t,v\n1,2\n2,3\n", ["--column", "v", "--threshold", "0.8"], "for --online mode"),
        ("t,v\n1,2\n2,3\n", ["--column", "v", "--window", "10"], "for --online mode"),
        (
            "t,v\n1,2\n2,3\n",
            ["--column", "v", "--online", "--window", "10", "--threshold", "0.8", "--gamma", "0.3"],
            "--gamma must be in the range",
        ),
    ],
)
def test_errors_are_one_line_without_data_values(tmp_path, capsys, content, argv, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out, err = run_cli(capsys, path, "--epsilon 1", *argv)
    assert code == 2
    assert message in err and err.count("\n") == 1
    assert "abc" not in err  # no data value in the message


def test_missing_file_and_bad_epsilon(tmp_path, capsys):
    code, _, err = run_cli(capsys, tmp_path / "nope.csv", "--column v --epsilon 1")
    assert code == 2 and "no such file" in err
    path = _column_csv(tmp_path / "ok.csv", [1, 2, 3])
    code, _, err = run_cli(capsys, path, "--column v --epsilon -1")
    assert code == 2 and "--epsilon must be in [1e-06, 30] (the ε rule" in err


def test_read_column_with_delimiter_and_index(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("day;x\nmon;1.5\ntue;2\n")
    values, index = read_column(path, "x", delimiter=";", index_column="day")
    assert values.tolist() == [1.5, 2.0] and index == ["mon", "tue"]


def test_console_script_entry_point(series_csv):
    path, _ = series_csv
    argv = "--column value --epsilon 1 --random-state 3".split()
    proc = subprocess.run(
        [sys.executable, "-m", "skdp_anomaly", "changepoint", str(path), *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"change point: data row \d+ \(0-based\)", proc.stdout)


# --------------------------------------------- arguments checked before any data is read
@pytest.fixture
def data_access(monkeypatch):
    """Record (and stop) any read of the series and any fit."""
    from skdp_anomaly.cli import _changepoint

    return record_calls(
        monkeypatch,
        [
            (_changepoint, "read_column"),
            (PrivateChangePointDetector, "fit"),
            (PrivateChangePointDetector, "partial_fit"),
        ],
    )


ONLINE = ["--online", "--window", "100", "--threshold", "0.8"]
BAD_CHANGEPOINT_ARGS = [
    (["--epsilon", "0"], "--epsilon"),
    (["--epsilon", "-1"], "--epsilon"),
    (["--epsilon", "inf"], "--epsilon"),
    (["--epsilon", "nan"], "--epsilon"),
    (["--gamma", "0"], "--gamma"),
    (["--gamma", "0.5"], "--gamma"),
    (["--gamma", "nan"], "--gamma"),
    (["--random-state", "-1"], "--random-state"),
    (["--delimiter", ";;"], "--delimiter"),
    ([*ONLINE, "--window", "7"], "--window"),
    ([*ONLINE, "--window", "2"], "--window"),
    ([*ONLINE, "--threshold", "nan"], "--threshold"),
    ([*ONLINE, "--gamma", "0.3"], "--gamma"),
    ([*ONLINE, "--gamma", "0.25"], "--gamma must be in the range (0, 0.25)"),
    ([*ONLINE, "--threshold", "1.5"], "--threshold must be a float in the range (0.5, 1.0)"),
    ([*ONLINE, "--threshold", "0.5"], "--threshold"),
    (["--epsilon", "2e6"], "--epsilon must be in [1e-06, 30] (the ε rule"),
    (["--online"], "--online needs --window"),
    (["--threshold", "0.8"], "are for --online mode"),
    (["--arl0", "100000"], "are for --online mode"),
]


@pytest.mark.parametrize(
    "argv, message", BAD_CHANGEPOINT_ARGS, ids=[" ".join(a) for a, _ in BAD_CHANGEPOINT_ARGS]
)
def test_bad_arguments_stop_before_reading_data(series_csv, capsys, data_access, argv, message):
    path, _ = series_csv
    code, out, err = run_cli(capsys, path, "--column value --epsilon 1", *argv)
    assert data_access == []  # no row read, no budget spent
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1, err
    assert " parameter of PrivateChangePointDetector" not in err  # CLI names only


def test_missing_input_stops_before_reading(tmp_path, capsys, data_access):
    code, _, err = run_cli(capsys, tmp_path / "nope.csv", "--column v --epsilon 1")
    assert data_access == [] and code == 2 and "no such file" in err


def test_valid_arguments_reach_the_recorded_reader(series_csv, data_access):
    """The recorder above watches the reader the command really uses."""
    path, _ = series_csv
    with pytest.raises(RuntimeError, match="read_column was called"):
        main(["changepoint", str(path), "--column", "value", "--epsilon", "1"])
    assert data_access == ["read_column"]


def test_tab_delimiter_spelled_out(tmp_path):
    path = tmp_path / "tab.csv"
    path.write_text("t\tv\n" + "".join(f"{i}\t{i * (i > 20)}\n" for i in range(40)))
    argv = "--column v --epsilon 1 --delimiter \\t --random-state 0".split()
    assert main(["changepoint", str(path), *argv]) == 0


# ------------------------------------------------- warnings: message only; leaks void ε
def _fit_warning(monkeypatch, message, category):
    original = PrivateChangePointDetector.fit

    def fit(self, X, y=None):
        import warnings

        warnings.warn(message, category)
        return original(self, X, y)

    monkeypatch.setattr(PrivateChangePointDetector, "fit", fit)


def test_warnings_print_message_only(series_csv, capsys, monkeypatch):
    from skdp_anomaly.exceptions import naming

    message = naming(UserWarning, "`threshold` below the range of Theorem 2.6")
    _fit_warning(monkeypatch, message, UserWarning)
    path, _ = series_csv
    code, out, err = run_cli(capsys, path, "--column value --epsilon 1")
    assert code == 0
    assert err == (
        "skdp-anomaly changepoint: warning: --threshold below the range of Theorem 2.6\n"
    )
    assert "privacy spent: ε=" in out and "(budget of a full run: ε=1)" in out


def test_leak_warning_voids_the_privacy_claim(series_csv, capsys, monkeypatch):
    from skdp_anomaly.exceptions import PrivacyLeakWarning

    _fit_warning(monkeypatch, "something was computed from the data", PrivacyLeakWarning)
    path, _ = series_csv
    code, out, err = run_cli(capsys, path, "--column value --epsilon 1")
    assert code == 0
    assert "warning: something was computed from the data" in err
    assert "NOT differentially private" in out
    assert "privacy spent" not in out and "pure ε-DP" not in out


def test_options_are_checked_through_privacy_cost_only(series_csv, capsys, monkeypatch):
    """The command validates through ``privacy_cost()`` (no private method of the
    detector): what it refuses there stops it before any row is read."""
    from skdp_anomaly.cli import _changepoint

    calls = []
    original = PrivateChangePointDetector.privacy_cost

    def privacy_cost(self):
        calls.append(self.get_params())
        return original(self)

    def refuse(self):
        from skdp_anomaly.exceptions import naming

        raise naming(ValueError, "`The 'gamma' parameter` is refused here.")

    monkeypatch.setattr(PrivateChangePointDetector, "privacy_cost", privacy_cost)
    monkeypatch.setattr(PrivateChangePointDetector, "_more_validate_params", refuse)
    read = record_calls(monkeypatch, [(_changepoint, "read_column")])
    path, _ = series_csv
    code, out, err = run_cli(capsys, path, "--column value --epsilon 1")
    assert code == 2 and read == [] and len(calls) == 1
    assert err.endswith("--gamma is refused here.\n")
    source = Path(_changepoint.__file__).read_text()
    assert not re.search(r"\bdet\._", source)


def test_online_threshold_is_calibrated_without_threshold(tmp_path, capsys):
    x = np.random.default_rng(2).normal(size=1000)
    path = _column_csv(tmp_path / "flat.csv", x)
    code, out, err = run_cli(
        capsys, path, "--column v --epsilon 20 --online --window 100 --random-state 0"
    )
    assert code == 0, err
    det = PrivateChangePointDetector(epsilon=20.0, window=100, random_state=0).fit(x)
    assert f"threshold: {det.threshold_:.6g} (calibrated)" in out
    assert ("no change detected in 1000 rows" in out) == (not det.detected_)


def test_online_useless_threshold_is_warned_once(tmp_path, capsys):
    values = np.r_[np.zeros(300), np.ones(300)] + np.random.default_rng(0).normal(size=600)
    path = _column_csv(tmp_path / "s.csv", (f"{v:.6f}" for v in values))
    code, _, err = run_cli(
        capsys, path, "--column v --epsilon 2 --online --window 100 --random-state 0"
    )
    assert code == 0
    assert err.count("the threshold calibrated to") == 1
