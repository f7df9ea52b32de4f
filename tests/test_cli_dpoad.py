"""The ``skdp-anomaly dpoad`` sub-command. Fixed seeds: deterministic."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from _recording import record_calls

from skdp_anomaly import DPOAD
from skdp_anomaly.cli import build_parser, main
from skdp_anomaly.cli._dpoad import parse_bins, read_windows
from skdp_anomaly.dpoad import DataOwner, WindowRelease, from_json, window_histogram

BURST_WINDOW = 6  # of the windows labelled 1..10


def _write(path, header, rows):
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


@pytest.fixture
def burst_csv(tmp_path):
    """Ten windows labelled 1..10 (rows shuffled); window 6 has a burst at value 7.5, size 2.5."""
    rng = np.random.default_rng(1)
    rows, windows = [], {}
    for t in range(1, 11):
        x, y = rng.uniform(0, 10, 500), rng.uniform(0, 4, 500)
        if t == BURST_WINDOW:
            x[:150], y[:150] = 7.5, 2.5
        windows[t] = np.c_[x, y]
        rows += [(t, float(a), float(b)) for a, b in zip(x, y)]
    rows = [rows[i] for i in rng.permutation(len(rows))]
    return _write(tmp_path / "burst.csv", "time,value,size", rows), windows


def run_cli(capsys, *argv):
    """``dpoad`` with ``argv``, seeded unless a test passes its own ``--random-state``
    (an unseeded run draws fresh noise: its output, warnings included, would vary)."""
    if "--random-state" not in map(str, argv):
        argv = (*argv, "--random-state", 0)
    code = main(["dpoad", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _flagged_lines(out):
    """``{label: text after 'N flagged'}`` of the per-window lines."""
    return dict(re.findall(r"^window (\S+): (\d+ flagged[^|]*)\|", out, flags=re.MULTILINE))


# the burst file's value column, its windows and 10 bins over [0, 10], at ε = 1
BURST = "--column value --window-column time --bins 0:10:11 --epsilon 1".split()
RECORD = "--mechanism record --max-count 300 --random-state 0".split()


# ------------------------------------------------------------------ results
def test_burst_window_and_bin_are_printed(burst_csv, capsys):
    path, windows = burst_csv
    code, out, err = run_cli(capsys, path, *BURST, *RECORD)
    assert code == 0, err
    assert err == ""
    lines = _flagged_lines(out)
    assert list(lines) == [str(t) for t in range(1, 11)]  # numeric order, not 1, 10, 2, ...
    assert "[7, 8)" in lines[str(BURST_WINDOW)]
    # the same as the library, fed the windows in that order
    det = DPOAD(
        np.linspace(0, 10, 11), epsilon=1.0, mechanism="record", max_count=300, random_state=0
    )
    for t in range(1, 11):
        det.partial_fit(windows[t][:, 0])
    for t, anomalies in zip(range(1, 11), det.anomalies_):
        assert lines[str(t)].startswith(f"{anomalies.sum()} flagged")
    assert 7 in np.flatnonzero(det.anomalies_[BURST_WINDOW - 1])
    assert "unit protected: one record, added or removed" in out
    assert "privacy per window: ε=1, pure ε-DP" in out
    assert "privacy spent: ε=10 (pure ε-DP) over 10 windows, composed sequentially" in out
    assert "sensitivity Δ=1 counts (record)" in out
    assert re.search(
        rf"^anomalous windows: \d+ of 10: .*\b{BURST_WINDOW}\b", out, flags=re.MULTILINE
    )
    assert "do not use it for releases" in out


def test_several_features_print_product_cells(burst_csv, capsys):
    path, windows = burst_csv
    columns = "--column value --column size --window-column time --bins 0:10:11 --bins 0,1,2,3,4"
    code, out, err = run_cli(capsys, path, *columns.split(), "--epsilon", 1, *RECORD)
    assert code == 0, err
    assert "over 40 cells" in out
    assert "value [7, 8) × size [2, 3)" in _flagged_lines(out)[str(BURST_WINDOW)]
    edges = [np.linspace(0, 10, 11), np.arange(5.0)]
    det = DPOAD(edges, epsilon=1.0, mechanism="record", max_count=300, random_state=0)
    for t in range(1, 11):
        det.partial_fit(windows[t])
    assert out.count(" × ") == int(det.anomalies_.sum())


@pytest.mark.parametrize(
    "mechanism, notion",
    [
        ("dpoad", "(ε, γ)-random DP: ε-DP holds for all but a γ-fraction"),
        ("painfree", "(ε, γ)-random DP: ε-DP holds for all but a γ-fraction"),
        ("laplace", "pure ε-DP for that unit"),
    ],
)
def test_the_paper_mechanisms_state_their_unit_and_notion(burst_csv, capsys, mechanism, notion):
    path, _ = burst_csv
    argv = f"--column value --window-column time --bins 0:10:11 --epsilon 2 --mechanism {mechanism}"
    code, out, err = run_cli(capsys, path, *argv.split(), "--max-count", 200, "--random-state", 0)
    assert code == 0
    # at ε = 2 the cell-level noise (Δ up to 200 counts) hides any burst, and a warning says so
    assert err.splitlines() == [] or (
        len(err.splitlines()) == 1 and "no burst in a typical cell can be flagged" in err
    )
    assert (
        "unit protected: one contributor's count cell (up to --max-count 200 records of "
        "one window-bin)"
    ) in out
    assert notion in out
    assert "meaning: " in out and ("no bound" in out) == (mechanism != "laplace")
    if mechanism == "laplace":
        assert "privacy spent: ε=20 (pure ε-DP)" in out
        assert out.count("sensitivity Δ=200 counts (global)") == 10
    else:
        assert "privacy spent: ε=20, γ=0.5 ((ε, γ)-random DP)" in out
        assert "not protected" in out
    if mechanism == "dpoad":
        assert "counts (learning)" in out and "g(count) in [0, 1] (prediction)" in out


def test_a_random_dp_stream_whose_gamma_reaches_1_is_refused_before_any_release(
    burst_csv, capsys, monkeypatch
):
    path, _ = burst_csv
    released = record_calls(monkeypatch, [(DataOwner, "release"), (DPOAD, "partial_fit")])
    painfree = "--mechanism painfree --gamma 0.1 --max-count 300".split()
    code, out, err = run_cli(capsys, path, *BURST, *painfree)
    assert code == 2 and out == ""
    assert "--gamma 0.1 over the 10 windows of the input gives a random-DP γ of 1" in err
    assert released == []  # the file was read (to count its windows), nothing released


def test_flagged_cells_show_noisy_and_expected_counts_and_the_detector(burst_csv, capsys):
    path, _ = burst_csv
    code, out, err = run_cli(capsys, path, *BURST, *RECORD)
    assert code == 0, err
    lines = _flagged_lines(out)
    for t in ("1", "2", "3"):
        assert lines[t].strip() == "0 flagged (learning window: not tested)"
    # the burst takes 30 % of its window's records, so a bin it drained may be flagged too
    assert re.search(
        r"\[7, 8\) \(noisy count \d+, expected \d+(\.\d+)?\)", lines[str(BURST_WINDOW)]
    )
    assert re.search(
        r"^detector: baseline, false-alarm level alpha=0.05 per window; the first "
        r"3 window\(s\) teach the baseline \(overdispersed counts\) and are not "
        r"tested; a typical cell "
        r"is flagged when its count exceeds its expected count by about \d+",
        out,
        flags=re.MULTILINE,
    )
    assert re.search(
        r"^meaning: adding or removing any one record changes the probability of "
        r"anything this run outputs by a factor of at most e\^1 = 2.72",
        out,
        flags=re.MULTILINE,
    )
    code, out, _ = run_cli(capsys, path, *BURST, "--detector", "kse", *RECORD)
    assert code == 0 and "detector: kse (the paper's rule), threshold 0.9" in out
    assert "learning window" not in out and "expected" not in out


def test_text_labels_are_sorted_as_text(tmp_path, capsys):
    rows = [(day, v) for day in ("2024-01-03", "2024-01-01", "2024-01-02") for v in (0.5, 1.5)]
    path = _write(tmp_path / "days.csv", "day,v", rows)
    argv = "--column v --window-column day --bins 0,1,2 --epsilon 1".split()
    code, out, _ = run_cli(capsys, path, *argv, *RECORD)
    assert code == 0
    assert list(_flagged_lines(out)) == ["2024-01-01", "2024-01-02", "2024-01-03"]


def test_output_json_holds_the_messages(burst_csv, tmp_path, capsys):
    path, _ = burst_csv
    target = tmp_path / "dpoad.json"
    code, out, err = run_cli(capsys, path, *BURST, "-o", target, *RECORD)
    assert code == 0, err
    assert f"wrote {target}" in out
    doc = json.loads(target.read_text())
    assert [w["label"] for w in doc["windows"]] == [str(t) for t in range(1, 11)]
    burst = doc["windows"][BURST_WINDOW - 1]["flagged_cells"]
    (cell,) = [c for c in burst if c["cell"] == 7]
    assert cell["bins"] == "[7, 8)"
    # the flagged cell's noisy count is the release's; the expected count the report's
    release = from_json(json.dumps(doc["releases"][BURST_WINDOW - 1]))
    report = from_json(json.dumps(doc["reports"][BURST_WINDOW - 1]))
    assert cell["noisy_count"] == release.values[7]
    assert cell["expected_count"] == report.expected_counts[7] < cell["noisy_count"] - 100
    assert doc["detector"] == "baseline" and doc["alpha"] == 0.05
    assert [w["tested"] for w in doc["windows"]] == [False] * 3 + [True] * 7
    assert doc["privacy"]["spent"] == {"epsilon": 10.0, "gamma": 0.0, "notion": "pure ε-DP"}
    releases = [from_json(json.dumps(r)) for r in doc["releases"]]
    assert all(isinstance(r, WindowRelease) for r in releases) and len(releases) == 10
    assert {r.max_count for r in releases} == {300}  # the public cap, not a record count
    assert [r["message"]["window"] for r in doc["reports"]] == list(range(10))


# --------------------------------------------- nothing data-derived but DP outputs
@pytest.fixture
def crafted_csv(tmp_path):
    """Three windows with distinctive record counts (987, 4321, 2345)."""
    rng = np.random.default_rng(5)
    rows = [
        (label, float(v))
        for label, n in (("A", 987), ("B", 4321), ("C", 2345))
        for v in rng.uniform(0, 10, n)
    ]
    path = _write(tmp_path / "crafted.csv", "w,v", rows)
    secrets = {987, 4321, 2345, 987 + 4321 + 2345}
    for label, n in (("A", 987), ("B", 4321), ("C", 2345)):
        values = [v for w, v in rows if w == label]
        secrets |= {int(c) for c in window_histogram(values, np.linspace(0, 10, 11))}
    assert min(secrets) >= 50  # no clash with the small public numbers printed
    return path, secrets


# the crafted file's value column, its windows and 10 bins over [0, 10], at ε = 1
CRAFTED = "--column v --window-column w --bins 0:10:11 --epsilon 1".split()


def _numbers(text):
    return {int(float(n)) for n in re.findall(r"\d+(?:\.\d+)?", text)}


@pytest.mark.parametrize(
    "argv",
    [
        ["--mechanism", "record", "--max-count", "5000"],
        ["--mechanism", "laplace", "--max-count", "5000"],
        ["--mechanism", "dpoad", "--max-count", "5000"],
        ["--mechanism", "laplace"],  # without --max-count the sensitivity is the record count
        ["--mechanism", "painfree"],
        ["--mechanism", "record"],
    ],
    ids=" ".join,
)
def test_no_true_count_or_record_count_is_printed(crafted_csv, tmp_path, capsys, argv):
    path, secrets = crafted_csv
    common = [*CRAFTED, "--random-state", 0, *argv]
    code, out, err = run_cli(capsys, path, *common)
    assert code == 0, err
    assert len(_flagged_lines(out)) == 3
    # a flagged cell's noisy and expected counts are DP outputs, which may equal a true
    # count by chance (geometric noise is 0 with probability (1 - q)/(1 + q)): they are
    # allowed where they are printed, and nothing else may match
    printed = set(re.findall(r"\((noisy count [^)]*)\)", out))
    assert not (_numbers(re.sub(r"\(noisy count [^)]*\)", "", out)) | _numbers(err)) & secrets
    if "--max-count" in argv:  # the same run with -o: the printed values are the messages'
        target = tmp_path / "run.json"
        run_cli(capsys, path, *common, "-o", target)
        doc = json.loads(target.read_text())
        released = {
            f"noisy count {c['noisy_count']:.4g}"
            + ("" if c["expected_count"] is None else f", expected {c['expected_count']:.4g}")
            for w in doc["windows"]
            for c in w["flagged_cells"]
        }
        assert printed == released


def test_without_max_count_one_leak_warning_and_no_epsilon(crafted_csv, capsys):
    path, _ = crafted_csv
    argv = "--mechanism painfree --learning-windows 2".split()
    code, out, err = run_cli(capsys, path, *CRAFTED, *argv)
    assert code == 0
    leak, *others = err.splitlines()  # once, not once a window
    assert leak.startswith("skdp-anomaly dpoad: warning: no --max-count:")
    # painfree's noise is Δ ≈ the record count: a second warning says it hides any anomaly,
    # without printing the record count
    assert len(others) == 1 and "more counts than the count domain allows" in others[0]
    assert "max_count" not in err  # the CLI's option names
    assert "NOT differentially private" in out and "pass a public --max-count" in out
    assert "privacy spent" not in out and "ε=" not in out
    assert out.count("sensitivity not shown") == 3


def test_leak_warnings_are_shown_on_every_run(crafted_csv, capsys):
    path, _ = crafted_csv
    for _ in range(2):  # no warning registry hides the second run's leak
        code, out, err = run_cli(capsys, path, *CRAFTED)
        assert code == 0 and "warning: no --max-count" in err
        assert "NOT differentially private" in out


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "content, argv, message",
    [
        ("t,v\n1,2\n", ["--column", "x"], "--column 'x' is not a column of bad.csv; columns: t, v"),
        ("t,v\n1,2\n", ["--column", "v", "--window-column", "x"], "--window-column 'x' is not"),
        ("t,v\n1,abc\n", ["--column", "v"], "column 'v' is not numeric on line 2"),
        (
            "t,v\n1,2\n2,\n",
            ["--column", "v"],
            "column 'v' has a missing value (empty or NaN) on line 3",
        ),
        (
            "t,v\n1,NaN\n",
            ["--column", "v"],
            "column 'v' has a missing value (empty or NaN) on line 2",
        ),
        ("t,v\n1,2\n2,inf\n", ["--column", "v"], "column 'v' has an infinite value on line 3"),
        ("t,v\n1,2\n,3\n", ["--column", "v"], "column 't' has a missing value on line 3"),
        ("t,v\n1,2\n2\n", ["--column", "v"], "line 3 has 1 fields"),
        ("t,v\n", ["--column", "v"], "no data rows"),
        ("", ["--column", "v"], "empty"),
    ],
)
def test_bad_data_is_one_line_without_data_values(tmp_path, capsys, content, argv, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    common = "--window-column t --bins 0:10:11 --epsilon 1 --max-count 10".split()
    code, out, err = run_cli(capsys, path, *common, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1, err
    assert "abc" not in err  # no data value


def test_missing_file(tmp_path, capsys):
    argv = "--column v --window-column t --bins 0,1 --epsilon 1".split()
    code, _, err = run_cli(capsys, tmp_path / "nope.csv", *argv)
    assert code == 2 and "no such file" in err


# --------------------------------------------- arguments checked before any data is read
@pytest.fixture
def data_access(monkeypatch):
    """Record (and stop) any read of the records, any fit and any release."""
    from skdp_anomaly.cli import _dpoad

    return record_calls(
        monkeypatch,
        [(_dpoad, "read_windows"), (DPOAD, "fit"), (DPOAD, "partial_fit"), (DataOwner, "release")],
    )


BAD_DPOAD_ARGS = [
    (["--epsilon", "0"], "--epsilon must be"),
    (["--epsilon", "-1"], "--epsilon must be"),
    (["--epsilon", "inf"], "--epsilon"),
    (["--epsilon", "nan"], "--epsilon must be"),
    (["--epsilon", "31", "--mechanism", "record"], "above 30"),
    (["--epsilon", "31"], "above 30"),
    # the one ε rule of the command line, whatever the mechanism's own limit
    (
        ["--epsilon", "40", "--mechanism", "laplace", "--max-count", "10"],
        "--epsilon must be in [1e-06, 30] (the ε rule",
    ),
    (["--gamma", "0"], "--gamma must be"),
    (["--gamma", "1"], "--gamma must be"),
    (["--gamma", "nan"], "--gamma must be"),
    (
        ["--gamma", "0.001", "--mechanism", "dpoad"],
        "--sensitivity-samples 100000 is too small for --gamma 0.001",
    ),
    (["--alpha", "0"], "--alpha must be"),
    (["--alpha", "1"], "--alpha must be"),
    (["--threshold", "1"], "--threshold must be"),
    (["--threshold", "-0.1"], "--threshold must be"),
    (["--max-count", "0"], "--max-count must be an int in the range [1, inf)"),
    (["--learning-windows", "0"], "--learning-windows must be"),
    (["--sensitivity-samples", "0"], "--sensitivity-samples must be"),
    (["--random-state", "-1"], "--random-state must be"),
    (["--bins", "0:10:11"], "--bins is given 2 time(s) for 1 --column(s)"),
    (["--column", "size"], "--bins is given 1 time(s) for 2 --column(s)"),
    (["--column", "value", "--bins", "0:1:2"], "--column 'value' is given more than once"),
]
BAD_BINS = [
    ("0,,1", "expected comma-separated increasing edges"),
    ("0;1;2", "expected comma-separated increasing edges"),
    ("0:10", "START:STOP:COUNT"),
    ("0:10:x", "START:STOP:COUNT"),
    ("0:10:1", "needs at least two edges"),
    ("5", "--bins 5 is a number of bins and needs their range: add --range"),
    ("3,2,1", "finite and strictly increasing"),
    ("0,1,1,2", "finite and strictly increasing"),
    ("0,nan", "finite and strictly increasing"),
    ("0:inf:3", "finite and strictly increasing"),
]


BAD_ARGUMENTS = [("0:10:11", argv, message) for argv, message in BAD_DPOAD_ARGS] + [
    (bins, [], message) for bins, message in BAD_BINS
]


@pytest.mark.parametrize(
    "bins, argv, message",
    BAD_ARGUMENTS,
    ids=[" ".join([f"--bins={b}", *a]) for b, a, _ in BAD_ARGUMENTS],
)
def test_bad_arguments_stop_before_reading_data(
    burst_csv, capsys, data_access, bins, argv, message
):
    path, _ = burst_csv
    data = ["--column", "value", "--window-column", "time", f"--bins={bins}", "--epsilon", 1]
    code, out, err = run_cli(capsys, path, *data, *argv)
    assert data_access == []  # no row read, no budget spent
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1, err
    assert " parameter of DPOAD" not in err and "max_count" not in err  # CLI names only


@pytest.mark.parametrize(
    "output, message",
    [
        ("{tmp}/out.json", "-o/--output needs --max-count"),
        ("{tmp}", "is a directory"),
        ("{tmp}/missing/out.json", "does not exist"),
        ("{input}", "must differ from the input file"),
    ],
)
def test_bad_output_stops_before_reading_data(
    burst_csv, tmp_path, capsys, data_access, output, message
):
    path, _ = burst_csv
    output = output.format(tmp=tmp_path, input=path)
    max_count = [] if "needs --max-count" in message else ["--max-count", "10"]
    code, out, err = run_cli(capsys, path, *BURST, "-o", output, *max_count)
    assert data_access == [] and code == 2 and out == ""
    assert message in err and err.count("\n") == 1, err


def test_missing_input_stops_before_reading(tmp_path, capsys, data_access):
    argv = "--column v --window-column t --bins 0,1 --epsilon 1".split()
    code, _, err = run_cli(capsys, tmp_path / "nope.csv", *argv)
    assert data_access == [] and code == 2 and "no such file" in err


def test_valid_arguments_reach_the_recorded_reader(burst_csv, data_access):
    """The recorder above watches the reader the command really uses."""
    path, _ = burst_csv
    with pytest.raises(RuntimeError, match="read_windows was called"):
        main(["dpoad", str(path), *BURST])
    assert data_access == ["read_windows"]


# ------------------------------------------------------------------- pieces
def test_parse_bins_forms():
    assert parse_bins("0,1,2,5,10").tolist() == [0, 1, 2, 5, 10]
    assert parse_bins(" -1, 0 ,1").tolist() == [-1, 0, 1]
    assert np.allclose(parse_bins("-5:5:11"), np.linspace(-5, 5, 11))


def test_read_windows_groups_and_orders(tmp_path):
    path = _write(tmp_path / "w.csv", "w,x", [(10, 0.5), (9, 1.5), (10, 1.0), (9.5, 0.0)])
    labels, windows = read_windows(path, ["x"], "w")
    assert labels == ["9", "9.5", "10"]
    assert [w[:, 0].tolist() for w in windows] == [[1.5], [0.0], [0.5, 1.0]]


@pytest.fixture
def neg_csv(tmp_path):
    """Two windows of values in [-5, 5), two of them negative."""
    return _write(tmp_path / "neg.csv", "w,x", [(1, -3.0), (1, 2.0), (2, 4.5), (2, -5.0)])


def test_negative_first_edge_with_equals_sign(neg_csv, capsys):
    argv = "--column x --window-column w --bins=-5:5:3 --epsilon 1".split()
    code, out, err = run_cli(capsys, neg_csv, *argv, *RECORD)
    assert code == 0, err
    assert "over 2 cells" in out


@pytest.mark.parametrize(
    "bins, cells", [("-5:5:3", 2), ("-5,0,5", 2), ("-5,-1,1,5", 3), ("-.5e1:5:3", 2)]
)
def test_negative_first_edge_as_a_separate_value(neg_csv, capsys, bins, cells):
    # argparse reads a token starting with '-' as an option unless it is a plain number
    data = ["--column", "x", "--window-column", "w"]
    code, out, err = run_cli(capsys, neg_csv, *data, "--bins", bins, "--epsilon", 1, *RECORD)
    assert code == 0, err
    assert f"over {cells} cells" in out
    assert run_cli(capsys, neg_csv, *data, f"--bins={bins}", "--epsilon", 1, *RECORD)[1] == out


def test_a_bad_negative_bins_value_is_a_bins_error(burst_csv, capsys):
    argv = "--column value --window-column time --bins -5:5 --epsilon 1".split()
    code, _, err = run_cli(capsys, burst_csv[0], *argv, *RECORD)
    assert code == 2 and "--bins '-5:5': expected" in err


def test_help_lists_the_options():
    parser = build_parser()
    text = parser._subparsers._group_actions[0].choices["dpoad"].format_help()
    flat = " ".join(text.split())
    options = """--column --window-column --bins --epsilon --mechanism --detector --alpha
        --max-count --gamma --threshold --learning-windows --sensitivity-samples --output
        --random-state"""
    for option in options.split():
        assert option in text
    assert "{record,dpoad,painfree,laplace}" in text and "{baseline,kse}" in text
    assert "(default: record)" in flat and "false-alarm level --alpha" in flat
    assert "START:STOP:COUNT" in flat and "numpy.linspace(START, STOP, COUNT)" in flat
    assert "0,1,2,5,10" in flat
    assert "(epsilon, gamma)-random DP" in flat
    assert "sorted order" in flat


def test_console_script_entry_point(burst_csv):
    path, _ = burst_csv
    argv = [sys.executable, "-m", "skdp_anomaly", "dpoad", str(path), *BURST, *RECORD]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert re.search(
        rf"^window {BURST_WINDOW}: \d+ flagged.*\[7, 8\)", proc.stdout, flags=re.MULTILINE
    )


def test_records_outside_the_bins_count_in_the_edge_bins(tmp_path, capsys):
    # no error that one record could trigger: DPOAD clips it to the nearest edge bin
    path = tmp_path / "wide.csv"
    path.write_text("t,v\n1,2\n1,11.5\n2,-0.5\n2,3\n")
    argv = "--column v --window-column t --bins 0:10:11 --epsilon 1 --max-count 10".split()
    code, out, err = run_cli(capsys, path, *argv, "--mechanism", "record", "--random-state", 0)
    assert code == 0, err
    assert "11.5" not in out and "-0.5" not in out
