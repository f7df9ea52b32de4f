"""Tests of ``skdp-anomaly resample``."""

import csv

import numpy as np
import pytest
from _recording import record_calls
from sklearn.datasets import make_classification

from skdp_anomaly.cli import main


@pytest.fixture()
def csv_in(tmp_path):
    X, y = make_classification(
        n_samples=400, n_features=3, n_informative=3, n_redundant=0, weights=[0.8], random_state=0
    )
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


def _features(rows):
    """The numeric columns a, b, c of ``rows`` of in.csv's layout."""
    return np.array([[float(r[0]), float(r[2]), float(r[3])] for r in rows])


def _argv(path, *options, out):
    """``resample PATH OPTIONS -o OUT``: a str in ``options`` is split on spaces, a path kept whole."""
    argv = ["resample", str(path)]
    for option in options:
        argv += option.split() if isinstance(option, str) else [str(option)]
    return argv + ["-o", str(out)]


def test_resample_writes_original_plus_synthetic(csv_in, tmp_path, capsys):
    out = tmp_path / "out.csv"
    code = main(_argv(csv_in, "--target label --epsilon 1 --bounds -5 5 --random-state 0", out=out))
    assert code == 0
    header, rows = _read(out)
    _, original = _read(csv_in)
    assert header == ["a", "label", "b", "c"]
    assert rows[:400] == original  # original rows copied verbatim
    synth = rows[400:]
    assert len(synth) > 0 and all(r[1] == "pos" for r in synth)
    values = _features(synth)
    assert np.all(np.abs(values) <= 5)
    err = capsys.readouterr().err
    assert "noisy class sizes" in err and "pure ε-DP" in err
    assert f"{len(synth)} synthetic rows" in err
    # the default synopsis: the DP class mean is printed (a DP output), no grid
    assert "synopsis: gaussian" in err and "noisy mean of class 'pos': a=" in err
    assert "cells" not in err and "histogram" not in err


def test_resample_summary_of_each_synopsis(csv_in, tmp_path, capsys):
    from skdp_anomaly.over_sampling import DPSMOTE

    out = tmp_path / "out.csv"
    base = _argv(csv_in, "--target label --epsilon 1 --bounds -5 5 --random-state 0", out=out)
    assert main(base + ["--synopsis", "grid", "--granularity", "0.5"]) == 0
    err = capsys.readouterr().err
    assert "synopsis: grid histogram (dense), 2 cells per feature" in err
    assert "noisy mean" not in err
    assert main(base + ["--spread", "0.2"]) == 0
    err = capsys.readouterr().err
    assert "spread 0.2 of each feature's half-range" in err
    # the printed mean is the sampler's noisy_means_ (same seed, same release)
    X = _features(_read(csv_in)[1])
    y = np.array([r[1] for r in _read(csv_in)[1]])
    sampler = DPSMOTE(epsilon=1.0, bounds=(-5, 5), spread=0.2, random_state=0)
    sampler.fit_resample(X, y)
    a, b, c = sampler.noisy_means_["pos"]
    assert f"noisy mean of class 'pos': a={a:.4g}, b={b:.4g}, c={c:.4g}" in err


def test_resample_reproducible_and_options(csv_in, tmp_path):
    options = (
        "--target label --epsilon 2 --bounds -5 5 --synopsis grid --granularity 0.5"
        " --connectivity 1 --public-counts --random-state 7 --quiet"
    )
    outs = []
    for name in ("o1.csv", "o2.csv"):
        out = tmp_path / name
        assert main(_argv(csv_in, options, out=out)) == 0
        outs.append(out.read_text())
    assert outs[0] == outs[1]
    _, rows = _read(tmp_path / "o1.csv")
    labels = [r[1] for r in rows]
    assert labels.count("pos") == labels.count("neg")  # public counts: exact balance


def test_resample_bounds_file(csv_in, tmp_path):
    bounds = tmp_path / "bounds.csv"
    bounds.write_text("feature,lower,upper\nc,-4,4\na,-5,5\nb,-6,6\n")
    out = tmp_path / "out.csv"
    options = ("--target label --epsilon 1 --bounds-file", bounds)
    assert main(_argv(csv_in, *options, "--random-state 0 --quiet", out=out)) == 0
    _, rows = _read(out)
    synth = _features(rows[400:])
    assert np.all(np.abs(synth) <= [5, 6, 4])
    bounds.write_text("feature,lower,upper\na,-5,5\n")
    assert main(_argv(csv_in, *options, out=out)) == 2


def test_resample_without_bounds_warns(csv_in, tmp_path, capsys):
    out = tmp_path / "out.csv"
    assert main(_argv(csv_in, "--target label --epsilon 1 --random-state 0", out=out)) == 0
    err = capsys.readouterr().err
    assert "warning: --bounds/--bounds-file have not been specified" in err
    # the summary must not claim an ε the leak has voided
    assert "NOT differentially private" in err and "pass --bounds or --bounds-file" in err
    assert "privacy spent" not in err and "pure ε-DP" not in err


def test_resample_errors(csv_in, tmp_path, capsys):
    out = tmp_path / "out.csv"
    base = ["resample", str(csv_in), "--epsilon", "1", "--bounds", "-5", "5", "-o", str(out)]
    assert main(base + ["--target", "nope"]) == 2
    assert "--target 'nope' is not a column of in.csv" in capsys.readouterr().err
    assert main(base + ["--target", "a"]) == 2  # 'label' becomes a feature: not numeric
    err = capsys.readouterr().err
    assert "column 'label' is not numeric" in err and "pos" not in err  # no data values
    assert main(_argv(tmp_path / "missing.csv", "--target label --epsilon 1", out=out)) == 2
    assert main(base + ["--target", "label", "--epsilon", "-1"]) == 2
    assert "--epsilon" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("a,label\n1.0,x\nz,y\n")
    assert main(_argv(bad, "--target label --epsilon 1", out=out)) == 2
    assert "column 'a' is not numeric on line 3" in capsys.readouterr().err
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,label\n1.0,x,3\n")
    assert main(_argv(ragged, "--target label --epsilon 1", out=out)) == 2
    assert "line 2 has 3 fields" in capsys.readouterr().err
    one = tmp_path / "one.csv"
    one.write_text("a,label\n1.0,x\n2.0,x\n")
    assert main(_argv(one, "--target label --epsilon 1 --bounds 0 3", out=out)) == 2
    assert "more than 1 class" in capsys.readouterr().err


def test_resample_output_reads_back_with_pandas(csv_in, tmp_path):
    pd = pytest.importorskip("pandas")
    out = tmp_path / "out.csv"
    options = "--target label --epsilon 1 --bounds -5 5 --random-state 0 --quiet"
    assert main(_argv(csv_in, options, out=out)) == 0
    df = pd.read_csv(out)
    assert list(df.columns) == ["a", "label", "b", "c"]
    assert df[["a", "b", "c"]].dtypes.map(lambda d: d.kind == "f").all()


def test_resample_refuses_to_overwrite_input(csv_in, capsys):
    assert main(_argv(csv_in, "--target label --epsilon 1", out=csv_in)) == 2
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
    options = "--target label --epsilon 1 --bounds -5 5 --synopsis grid --granularity auto"
    assert main(_argv(csv_in, options, "--random-state 0", out=out)) == 0
    assert "cells per feature" in capsys.readouterr().err
    fine = "--target label --epsilon 1 --synopsis grid --granularity fine"
    with pytest.raises(SystemExit):  # argparse usage error, exit code 2
        main(_argv(csv_in, fine, out=out))
    assert "expected a float in (0, 1] or 'auto'" in capsys.readouterr().err


def test_summary_prints_no_exact_row_count(csv_in, tmp_path, capsys):
    """The summary is all DP output: the exact number of input rows (400) is not in it."""
    out = tmp_path / "out.csv"
    options = "--target label --epsilon 1 --bounds -5 5 --random-state 0"
    assert main(_argv(csv_in, options, out=out)) == 0
    err = capsys.readouterr().err
    assert "the original rows" in err and "400" not in err


def test_public_label_set_option(csv_in, tmp_path, capsys):
    out = tmp_path / "out.csv"
    options = "--target label --epsilon 1 --bounds -5 5 --classes neg pos other --random-state 0"
    assert main(_argv(csv_in, options, out=out)) == 0
    err = capsys.readouterr().err
    assert "'other'" in err  # its noisy size is released like any other class


# --------------------------------------------- arguments checked before any data is read
@pytest.fixture()
def data_access(monkeypatch):
    """Record (and stop) any read of the data rows and any fit."""
    from skdp_anomaly.cli import _resample
    from skdp_anomaly.over_sampling import DPSMOTE

    return record_calls(
        monkeypatch, [(_resample, "read_table"), (DPSMOTE, "fit_resample"), (DPSMOTE, "fit")]
    )


def _resample_argv(csv_in, tmp_path, changes):
    """``resample`` with valid options, then ``changes`` (None drops an option)."""
    options = {
        "IN": str(csv_in),
        "--target": "label",
        "--epsilon": "1",
        "--bounds": ["-5", "5"],
        "-o": str(tmp_path / "out.csv"),
        "--random-state": "0",
    }
    for key, value in changes.items():
        if isinstance(value, str):
            value = value.format(tmp=tmp_path, input=csv_in)
        options[key] = value
    argv = ["resample", options.pop("IN")]
    for option, value in options.items():
        if value is not None:
            argv += [option, *([value] if isinstance(value, str) else value)]
    return argv


BAD_RESAMPLE_ARGS = [
    ({"--epsilon": "0"}, "--epsilon"),
    ({"--epsilon": "-1"}, "--epsilon"),
    ({"--epsilon": "inf"}, "--epsilon"),
    ({"--epsilon": "nan"}, "--epsilon"),
    ({"--epsilon": "1e300"}, "--epsilon"),  # noise would vanish in floating point
    ({"--epsilon": "31", "--public-counts": []}, "(the ε rule"),  # the command line's rule
    (
        {"--classes": ["neg", "pos", "other"], "--sampling-strategy": "0.5"},
        "--sampling-strategy can be a float only for a binary target; --classes lists 3",
    ),
    ({"--count-share": "0"}, "--count-share"),
    ({"--count-share": "1"}, "--count-share"),
    ({"--synopsis": "grid", "--granularity": "0"}, "--granularity"),
    ({"--synopsis": "grid", "--granularity": "1.5"}, "--granularity"),
    ({"--synopsis": "grid", "--connectivity": "-1"}, "--connectivity"),
    ({"--spread": "0"}, "--spread"),
    ({"--spread": "-0.5"}, "--spread"),
    ({"--spread": "inf"}, "--spread"),
    # an option of the other synopsis is refused, not silently ignored
    ({"--granularity": "0.5"}, "--granularity applies to --synopsis grid only"),
    (
        {"--connectivity": "1", "--histogram": "dense"},
        "--connectivity and --histogram apply to --synopsis grid only",
    ),
    ({"--synopsis": "grid", "--spread": "0.3"}, "--spread applies to --synopsis gaussian only"),
    ({"--sampling-strategy": "most"}, "--sampling-strategy"),
    ({"--random-state": "-1"}, "--random-state"),
    ({"--classes": ["pos"]}, "--classes"),
    ({"--classes": ["pos", "pos"]}, "--classes"),
    ({"--bounds": ["5", "-5"]}, "--bounds"),
    ({"--bounds": ["0", "inf"]}, "--bounds"),
    ({"--target": "nope"}, "--target 'nope'"),
    ({"-o": "{tmp}/no_such_dir/out.csv"}, "--output"),
    ({"-o": "{input}/out.csv"}, "--output"),  # the "directory" is a file
    ({"-o": "{tmp}"}, "--output"),  # a directory, not a file
    ({"-o": "{input}"}, "must differ from the input"),
    ({"-o": "{tmp}/./in.csv"}, "must differ from the input"),
    ({"IN": "{tmp}/missing.csv"}, "no such file"),
    ({"--bounds": None, "--bounds-file": "{tmp}/missing.csv"}, "--bounds-file"),
]


@pytest.mark.parametrize(
    "changes, message", BAD_RESAMPLE_ARGS, ids=[str(c) for c, _ in BAD_RESAMPLE_ARGS]
)
def test_bad_arguments_stop_before_reading_data(
    csv_in, tmp_path, capsys, data_access, changes, message
):
    code = main(_resample_argv(csv_in, tmp_path, changes))
    err = capsys.readouterr().err
    assert data_access == []  # no data row read, no budget spent
    assert code == 2
    assert message in err and err.count("\n") == 1, err
    assert "'epsilon'" not in err and " parameter of DPSMOTE" not in err  # CLI names only


@pytest.mark.parametrize(
    "content, message",
    [
        ("feature,lower,upper\na,-5,5\n", "no bounds for features ['b', 'c']"),
        ("name,low,high\n", "expected a header 'feature,lower,upper'"),
        ("feature,lower,upper\na,-5,5\nb,5,-5\nc,-5,5\n", "lower < upper"),
        ("feature,lower,upper\na,-5,5\nb,-5,5\nc,-5,5\nd,0,1\n", "unknown columns ['d']"),
    ],
)
def test_bad_bounds_file_stops_before_reading_data(
    csv_in, tmp_path, capsys, data_access, content, message
):
    bounds = tmp_path / "bounds.csv"
    bounds.write_text(content)
    code = main(_resample_argv(csv_in, tmp_path, {"--bounds": None, "--bounds-file": str(bounds)}))
    err = capsys.readouterr().err
    assert data_access == [] and code == 2
    assert "--bounds-file" in err and message in err and err.count("\n") == 1, err


def test_bounds_file_fixes_the_features_so_the_grid_is_checked_before_reading_data(
    csv_in, tmp_path, capsys, data_access
):
    bounds = tmp_path / "bounds.csv"
    bounds.write_text("feature,lower,upper\na,-5,5\nb,-5,5\nc,-5,5\n")
    grid = {"--synopsis": "grid", "--histogram": "dense", "--granularity": "0.001"}
    changes = {"--bounds": None, "--bounds-file": str(bounds), **grid}
    code = main(_resample_argv(csv_in, tmp_path, changes))
    err = capsys.readouterr().err
    assert data_access == [] and code == 2
    assert "--histogram dense needs 1000**3 cells" in err and err.count("\n") == 1, err


def test_valid_arguments_reach_the_recorded_reader(csv_in, tmp_path, data_access):
    """The recorder above watches the reader the command really uses."""
    with pytest.raises(RuntimeError, match="read_table was called"):
        main(_resample_argv(csv_in, tmp_path, {}))
    assert data_access == ["read_table"]


# ---------------------------------------------------- library hints in the CLI's syntax
def test_noise_warning_names_cli_options(csv_in, tmp_path, capsys):
    out = tmp_path / "out.csv"
    options = "--target label --epsilon 0.05 --bounds -5 5"
    assert main(_argv(csv_in, options, "--synopsis grid --random-state 0", out=out)) == 0
    err = capsys.readouterr().err
    assert "DPSMOTE: the dense grid has 64 cells" in err  # DPSMOTENoiseWarning fired
    assert "--granularity auto or a larger --granularity" in err
    assert "granularity='auto'" not in err
    # the Gaussian synopsis' warning in the same syntax (public sizes, so that it fires:
    # d/(ε n) = 3/(0.05 · 80) = 0.75 > 0.5)
    assert main(_argv(csv_in, options, "--public-counts --random-state 0", out=out)) == 0
    err = capsys.readouterr().err
    assert "warning: DPSMOTE: the noisy mean of class 'pos' has Laplace noise" in err
    assert "Use a larger --epsilon or fewer features" in err
    assert "epsilon_hist=" in err  # a derived quantity, not an option: left as it is


def test_estimator_error_names_cli_options(tmp_path, capsys):
    rng = np.random.default_rng(0)
    path = tmp_path / "wide.csv"
    names = [f"f{j}" for j in range(14)]
    rows = [",".join(names + ["y"])] + [
        ",".join([*map(str, rng.uniform(size=14)), str(int(i % 5 == 0))]) for i in range(50)
    ]
    path.write_text("\n".join(rows) + "\n")
    options = "--target y --epsilon 1 --bounds 0 1 --synopsis grid --histogram dense"
    code = main(_argv(path, options, out=tmp_path / "out.csv"))
    err = capsys.readouterr().err
    assert code == 2
    assert "--histogram dense needs 4**14 cells" in err
    assert "use --histogram sparse or auto" in err and "a larger --granularity" in err
    assert "histogram=" not in err


# ------------------------------------------------------------ missing and non-finite cells
@pytest.mark.parametrize(
    "cell, message",
    [
        ("", "column 'b' has a missing value (empty or NaN) on line 4"),
        ("nan", "column 'b' has a missing value (empty or NaN) on line 4"),
        ("NaN", "column 'b' has a missing value (empty or NaN) on line 4"),
        ("inf", "column 'b' has an infinite value on line 4"),
        ("-Infinity", "column 'b' has an infinite value on line 4"),
        ("abc", "column 'b' is not numeric on line 4"),
    ],
)
def test_bad_cell_named_by_column_and_line(tmp_path, capsys, cell, message):
    path = tmp_path / "cells.csv"
    path.write_text(f"a,label,b\n1.25,x,2.5\n3.75,y,4.125\n5.5,x,{cell}\n6.5,y,7.5\n")
    options = "--target label --epsilon 1 --bounds 0 9"
    code = main(_argv(path, options, out=tmp_path / "out.csv"))
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1, err
    for value in ("1.25", "2.5", "3.75", "4.125", "5.5", "6.5", "7.5", "abc"):
        assert value not in err  # positions only, never data values


def test_bad_cell_line_counts_across_chunks(tmp_path):
    from skdp_anomaly.cli._resample import read_table

    path = tmp_path / "chunks.csv"
    path.write_text("a,label\n1,x\n2,x\n\n3,y\n4,y\nnan,x\n")
    with pytest.raises(ValueError, match="missing value .* on line 7"):
        read_table(str(path), "label", chunk=2)


def test_resample_bounds_in_scientific_notation(csv_in, tmp_path):
    # argparse takes '-1e3' for an option; the command line reads it as the number
    out = tmp_path / "out.csv"
    options = "--target label --epsilon 1 --bounds -1e1 1e1 --random-state 0 --quiet"
    code = main(_argv(csv_in, options, out=out))
    assert code == 0
    _, rows = _read(out)
    assert len(rows) > 400
