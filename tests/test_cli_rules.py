"""Rules the sub-commands share: the ε rule, ``--alpha``, ``--bins COUNT --range`` and
the hint to ``--delimiter``. Every run is a few hundred rows (or stops before the data)."""

import argparse

import numpy as np
import pytest
from _recording import record_calls

from skdp_anomaly.cli import _common, build_parser, main
from skdp_anomaly.cli._dpoad import parse_bins, resolve_bins
from skdp_anomaly.privacy._mechanisms import MAX_GEOMETRIC_EPSILON, MIN_EPSILON


def _parsers():
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"skdp-anomaly": parser, **subs.choices}


def _flat(text):
    return " ".join(text.split())


def _run(capsys, argv):
    """``main(argv)``: (exit code, stdout, stderr), argparse's own exits included; seeded
    unless ``argv`` names its own ``--random-state`` (the demos are seeded by default)."""
    argv = [str(a) for a in argv]
    if argv[0] in SEEDED and not any(a.startswith("--random-state") for a in argv):
        argv += ["--random-state", "0"]
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------ files
@pytest.fixture
def csvs(tmp_path):
    rng = np.random.default_rng(0)
    u = rng.uniform(0, 1, size=300)  # scores within group-search's [0, --low]
    (tmp_path / "series.csv").write_text("t,v\n" + "".join(f"{i},{v}\n" for i, v in enumerate(u)))
    (tmp_path / "series_semicolon.csv").write_text(
        "t;v\n" + "".join(f"{i};{v}\n" for i, v in enumerate(u))
    )
    (tmp_path / "series_tab.csv").write_text(
        "t\tv\n" + "".join(f"{i}\t{v}\n" for i, v in enumerate(u))
    )
    x = rng.normal(size=300)
    (tmp_path / "windows.csv").write_text(
        "w,v\n" + "".join(f"{i // 50},{v}\n" for i, v in enumerate(x))
    )
    (tmp_path / "windows_semicolon.csv").write_text(
        "w;v\n" + "".join(f"{i // 50};{v}\n" for i, v in enumerate(x))
    )
    y = (x > 0).astype(int)
    (tmp_path / "labelled.csv").write_text(
        "a,b,y\n" + "".join(f"{v / 4},{-v / 4},{c}\n" for v, c in zip(x, y))
    )
    (tmp_path / "labelled_semicolon.csv").write_text(
        "a;b;y\n" + "".join(f"{v / 4};{-v / 4};{c}\n" for v, c in zip(x, y))
    )
    return tmp_path


#: the commands whose --random-state defaults to fresh entropy (the demos default to a seed)
SEEDED = ("changepoint", "group-search", "dpoad", "resample", "online-svc")

# one command line per command that takes --epsilon; {eps} and the file names are filled in
COMMANDS = {
    "changepoint": ["changepoint", "{dir}/series.csv", "--column", "v", "--epsilon", "{eps}"],
    "group-search": [
        "group-search",
        "{dir}/series.csv",
        "--column",
        "v",
        "--low",
        "1",
        "--high",
        "2",
        "--epsilon",
        "{eps}",
    ],
    "dpoad": [
        "dpoad",
        "{dir}/windows.csv",
        "--column",
        "v",
        "--window-column",
        "w",
        "--bins",
        "-3:3:7",
        "--max-count",
        "50",
        "--epsilon",
        "{eps}",
    ],
    "resample": [
        "resample",
        "{dir}/labelled.csv",
        "--target",
        "y",
        "--bounds",
        "-1",
        "1",
        "-o",
        "{dir}/out.csv",
        "--epsilon",
        "{eps}",
    ],
    "online-svc": [
        "online-svc",
        "{dir}/labelled.csv",
        "--target",
        "y",
        "--classes",
        "0",
        "1",
        "--quiet",
        "--epsilon",
        "{eps}",
    ],
    "demo": ["demo", "--output-dir", "{dir}/demo", "--no-plot", "--epsilons", "1", "{eps}"],
}


def _argv(name, directory, eps):
    return [a.replace("{dir}", str(directory)).replace("{eps}", str(eps)) for a in COMMANDS[name]]


# ---------------------------------------------------------------------- the ε rule
def test_the_rule_is_the_package_floor_and_the_geometric_ceiling():
    assert _common.MAX_CLI_EPSILON == MAX_GEOMETRIC_EPSILON == 30
    assert MIN_EPSILON == 1e-6


@pytest.mark.parametrize("name", ["skdp-anomaly", *COMMANDS])
def test_help_states_the_one_rule(name):
    text = _flat(_parsers()[name].format_help())
    assert "The ε rule, the same for every command: --epsilon" in text
    assert "must lie in [1e-06, 30]" in text
    assert "drawn exactly at every ε" in text and "refused before the data is read" in text


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"demo"}))
def test_each_epsilon_option_points_to_the_rule(name):
    parser = _parsers()[name]
    action = next(a for a in parser._actions if a.dest == "epsilon")
    assert "in [1e-6, 30] (the ε rule below)" in action.help


def test_commands_without_epsilon_do_not_state_it():
    assert "ε rule" not in _flat(_parsers()["budget-demo"].format_help())


@pytest.mark.parametrize("name", sorted(COMMANDS))
@pytest.mark.parametrize(
    "eps, why",
    [
        (31, "above 30"),
        (1e9, "above 30"),
        (1e-7, "below 1e-06"),
        (0, "positive finite"),
        ("nan", "positive finite"),
    ],
)
def test_epsilon_outside_the_rule_is_refused_with_the_rule_and_the_limit(
    csvs, capsys, monkeypatch, name, eps, why
):
    # nothing is read, fitted or charged: every reader and fit would raise
    from skdp_anomaly.cli import _changepoint, _dpoad, _online_svc, _resample, _showcase

    seen = record_calls(
        monkeypatch,
        [
            (_changepoint, "read_column"),
            (_dpoad, "read_windows"),
            (_resample, "read_header"),
            (_online_svc, "read_chunks"),
            (_showcase, "run_showcase"),
        ],
    )
    code, out, err = _run(capsys, _argv(name, csvs, eps))
    option = "--epsilons" if name == "demo" else "--epsilon"
    assert code == 2 and out == "" and seen == []
    assert f"{option} must be in [1e-06, 30] (the ε rule of every skdp-anomaly command" in err
    assert why in err and err.count("\n") == 1


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"demo"}))
def test_the_ceiling_itself_is_honoured(csvs, capsys, name):
    # 30 is accepted by every command with its defaults: the rule promises no more
    code, out, err = _run(capsys, [*_argv(name, csvs, 30), "--random-state", "0"])
    assert code == 0, err
    assert "privacy spent: ε=" in out + err


# ------------------------------------------------------------------------ --alpha
@pytest.mark.parametrize(
    "name, new", [("online-svc", "--lambda"), ("group-search", "--posterior-threshold")]
)
def test_an_old_alpha_is_an_error_naming_the_new_option(csvs, capsys, name, new):
    code, out, err = _run(capsys, [*_argv(name, csvs, 1), "--alpha", "0.3"])
    assert code == 2 and out == ""
    assert "--alpha 0.3: " in err and f"is now {new} (use {new} 0.3)" in err
    assert "--alpha is the false-alarm level" in err
    text = _parsers()[name].format_help()
    assert "[--alpha" not in text and "\n  --alpha" not in text  # not offered
    assert "Formerly --alpha, which now means a false-alarm level" in _flat(text)


@pytest.mark.parametrize("name", ["changepoint", "dpoad"])
def test_alpha_is_the_false_alarm_level_where_it_exists(name):
    action = next(a for a in _parsers()[name]._actions if a.dest == "alpha")
    assert "false-alarm" in action.help


def test_every_alpha_in_help_is_a_false_alarm_level():
    for name, parser in _parsers().items():
        for action in parser._actions:
            if "--alpha" in action.option_strings and action.help != argparse.SUPPRESS:
                assert "false-alarm" in action.help or "false alarm" in action.help, name


def test_lambda_reaches_the_estimator_and_its_errors_name_it(csvs, capsys, monkeypatch):
    from skdp_anomaly import PrivateOnlineActiveSVC

    built = []
    real = PrivateOnlineActiveSVC.privacy_cost

    def spy(self):
        built.append(self.alpha)
        return real(self)

    monkeypatch.setattr(PrivateOnlineActiveSVC, "privacy_cost", spy)
    code, _, err = _run(capsys, [*_argv("online-svc", csvs, 1), "--lambda", "-2"])
    assert code == 2 and "--lambda must be" in err and "alpha" not in err
    assert built == [-2.0]


def test_posterior_threshold_reaches_the_search(csvs, capsys):
    code, _, err = _run(capsys, [*_argv("group-search", csvs, 1), "--posterior-threshold", "1"])
    assert code == 2 and "--posterior-threshold must be" in err


# -------------------------------------------------------------- --bins COUNT --range
def test_a_count_with_a_range_is_the_same_bins_as_linspace():
    assert np.array_equal(parse_bins("20", (-5.0, 5.0)), parse_bins("-5:5:21"))
    assert np.array_equal(resolve_bins(["20"], ["-5:5"])[0], np.linspace(-5, 5, 21))
    assert parse_bins("1", (0.0, 2.0)).tolist() == [0.0, 2.0]


def test_one_range_serves_every_count_and_several_pair_in_order():
    edges = resolve_bins(["2", "0,1,3", "4"], ["0:1", "10:20"])
    assert [e.tolist() for e in edges] == [[0, 0.5, 1], [0, 1, 3], [10, 12.5, 15, 17.5, 20]]
    edges = resolve_bins(["2", "4"], ["0:1"])
    assert [e.tolist() for e in edges] == [[0, 0.5, 1], [0, 0.25, 0.5, 0.75, 1]]


def test_the_command_gives_the_same_output_for_both_spellings(csvs, capsys):
    base = [*_argv("dpoad", csvs, 1), "--random-state", "0"]
    i = base.index("--bins")
    count = [*base[:i], "--bins", "6", "--range", "-3:3", *base[i + 2 :]]
    code, out_count, err = _run(capsys, count)
    assert code == 0, err
    code, out_edges, err = _run(capsys, base)  # --bins -3:3:7
    assert code == 0, err
    assert out_count == out_edges and "over 6 cells" in out_count


@pytest.mark.parametrize(
    "bins, ranges, message",
    [
        (["20"], None, "--bins 20 is a number of bins and needs their range: add --range"),
        (["20"], None, "The range must be public"),
        (["0"], ["0:1"], "a number of bins is an integer >= 1"),
        (["-3"], ["0:1"], "a number of bins is an integer >= 1"),
        (["2.5"], ["0:1"], "a number of bins is an integer >= 1"),
        (["20"], ["5:5"], "LOW and HIGH must be finite with LOW < HIGH"),
        (["20"], ["5:-5"], "LOW and HIGH must be finite with LOW < HIGH"),
        (["20"], ["0:inf"], "LOW and HIGH must be finite with LOW < HIGH"),
        (["20"], ["0:1:2"], "expected LOW:HIGH"),
        (["20"], ["a:b"], "expected LOW:HIGH"),
        (["0:1:3"], ["0:1"], "--range is for a --bins given as a number of bins"),
        (["2", "3", "4"], ["0:1", "0:2"], "--range is given 2 times for 3 --bins"),
    ],
)
def test_bad_counts_and_ranges_are_refused(bins, ranges, message):
    with pytest.raises(ValueError) as info:
        resolve_bins(bins, ranges)
    assert message in str(info.value)


def test_a_count_without_a_range_stops_the_command_before_the_data(csvs, capsys, monkeypatch):
    from skdp_anomaly.cli import _dpoad

    seen = record_calls(monkeypatch, [(_dpoad, "read_windows")])
    argv = _argv("dpoad", csvs, 1)
    argv[argv.index("-3:3:7")] = "20"
    code, out, err = _run(capsys, argv)
    assert code == 2 and seen == [] and out == ""
    assert "needs their range" in err and "never read from the data" in err


def test_a_negative_range_needs_no_equals_sign(csvs, capsys):
    argv = _argv("dpoad", csvs, 1)
    argv[argv.index("-3:3:7")] = "6"
    code, out, err = _run(capsys, [*argv, "--range", "-3:3", "--random-state", "0"])
    assert code == 0, err
    assert "over 6 cells" in out


def test_bins_help_explains_the_count_and_the_public_range():
    text = _flat(_parsers()["dpoad"].format_help())
    assert "10 --range 0:10 (the same bins as 0:10:11)" in text
    assert "--range LOW:HIGH" in text and "never from the data" in text


# -------------------------------------------------------------------- --delimiter
HINT_CASES = {
    "changepoint": ["changepoint", "{dir}/{file}", "--column", "v", "--epsilon", "1"],
    "group-search": [
        "group-search",
        "{dir}/{file}",
        "--column",
        "v",
        "--low",
        "1",
        "--high",
        "2",
        "--epsilon",
        "1",
    ],
    "dpoad": [
        "dpoad",
        "{dir}/{file}",
        "--column",
        "v",
        "--window-column",
        "w",
        "--bins",
        "6",
        "--range",
        "-3:3",
        "--epsilon",
        "1",
    ],
    "resample": [
        "resample",
        "{dir}/{file}",
        "--target",
        "y",
        "--bounds",
        "-1",
        "1",
        "-o",
        "{dir}/out.csv",
        "--epsilon",
        "1",
    ],
    "online-svc": [
        "online-svc",
        "{dir}/{file}",
        "--target",
        "y",
        "--classes",
        "0",
        "1",
        "--epsilon",
        "1",
        "--quiet",
    ],
}
SEMICOLON = {
    "changepoint": "series_semicolon.csv",
    "group-search": "series_semicolon.csv",
    "dpoad": "windows_semicolon.csv",
    "resample": "labelled_semicolon.csv",
    "online-svc": "labelled_semicolon.csv",
}


def _hint_argv(name, directory, file):
    return [a.replace("{dir}", str(directory)).replace("{file}", file) for a in HINT_CASES[name]]


@pytest.mark.parametrize("name", sorted(HINT_CASES))
def test_a_semicolon_header_hints_at_the_delimiter(csvs, capsys, name):
    code, out, err = _run(capsys, _hint_argv(name, csvs, SEMICOLON[name]))
    assert code == 2 and out == ""
    assert "the header holds ';': pass --delimiter ';'" in err
    # and the hint works
    code, _, err = _run(
        capsys,
        [*_hint_argv(name, csvs, SEMICOLON[name]), "--delimiter", ";", "--random-state", "0"],
    )
    assert code == 0, err


def test_a_tab_header_hints_at_tab(csvs, capsys):
    code, _, err = _run(capsys, _hint_argv("changepoint", csvs, "series_tab.csv"))
    assert code == 2 and "the header holds a tab: pass --delimiter tab" in err


def test_a_wrong_delimiter_hints_back_at_the_comma(csvs, capsys):
    code, _, err = _run(
        capsys, [*_hint_argv("changepoint", csvs, "series.csv"), "--delimiter", ";"]
    )
    assert code == 2 and "the header holds ',': pass --delimiter ','" in err


def test_no_hint_when_the_column_is_simply_missing(csvs, capsys):
    argv = _hint_argv("changepoint", csvs, "series.csv")
    argv[argv.index("v")] = "nope"
    code, _, err = _run(capsys, argv)
    assert code == 2 and "'nope' is not a column" in err and "--delimiter" not in err


@pytest.mark.parametrize("name", sorted(HINT_CASES))
def test_every_command_reading_a_csv_has_the_same_delimiter_option(name):
    action = next(a for a in _parsers()[name]._actions if a.dest == "delimiter")
    assert action.default == "," and "'\\t' or 'tab' for tabs" in action.help
