"""``skdp-anomaly group-search``. Fixed seeds: deterministic."""

import numpy as np
import pytest

from skdp_anomaly.cli import main


@pytest.fixture
def scores_csv(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 2000)
    x[777] = 3.0
    path = tmp_path / "scores.csv"
    path.write_text("id,score\n" + "".join(f"{i},{v}\n" for i, v in enumerate(x)))
    return path


def test_finds_the_anomaly_and_prints_the_spend(scores_csv, capsys):
    code = main(
        [
            "group-search",
            str(scores_csv),
            "--column",
            "score",
            "--epsilon",
            "30",
            "--low",
            "1",
            "--high",
            "2.5",
            "--random-state",
            "0",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "777" in out.splitlines()[0]
    assert "anomaly-restricted ε-DP" in out and "not protected" in out
    assert "planned, ε = " in out


def test_query_epsilon_is_the_papers_per_query_mode(scores_csv, capsys):
    code = main(
        [
            "group-search",
            str(scores_csv),
            "--column",
            "score",
            "--epsilon",
            "30",
            "--query-epsilon",
            "2",
            "--low",
            "1",
            "--high",
            "2.5",
            "--random-state",
            "0",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "777" in out.splitlines()[0]
    assert "of 15 planned, ε = 2 each" in out


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--low", "2", "--high", "1"], "--low must be < --high"),
        (
            ["--low", "1", "--high", "2", "--query-epsilon", "2"],
            "--query-epsilon must be at most --epsilon",
        ),
        (
            ["--low", "1", "--high", "2", "--query-epsilon", "40"],
            "--query-epsilon must be in [1e-06, 30]",
        ),
        (["--low", "1", "--high", "2", "--candidates", "0"], "--candidates"),
        (
            ["--low", "1", "--high", "2", "--posterior-threshold", "1.5"],
            "--posterior-threshold must be",
        ),
        (["--low", "1", "--high", "2", "--epsilon", "0"], "--epsilon must be"),
        # the ε rule of every command (beyond 30 randomized response's flip probability
        # nears double precision)
        (
            ["--low", "1", "--high", "2", "--epsilon", "100"],
            "--epsilon must be in [1e-06, 30] (the ε rule",
        ),
        (
            ["--low", "1", "--high", "2", "--epsilon", "1e300"],
            "--epsilon must be in [1e-06, 30] (the ε rule",
        ),
        (["--low", "-1", "--high", "2"], "--low must be"),
    ],
)
def test_bad_options_stop_before_reading(scores_csv, capsys, monkeypatch, extra, match):
    from skdp_anomaly.cli import _changepoint

    def never(*args, **kwargs):
        raise AssertionError("the data was read")

    monkeypatch.setattr(_changepoint, "read_column", never)
    code = main(["group-search", str(scores_csv), "--column", "score", "--epsilon", "1", *extra])
    assert code == 2 and match in capsys.readouterr().err


def test_no_anomaly_is_printed(tmp_path, capsys):
    x = np.random.default_rng(1).uniform(0, 1, 2000)
    path = tmp_path / "clean.csv"
    path.write_text("score\n" + "".join(f"{v}\n" for v in x))
    code = main(
        [
            "group-search",
            str(path),
            "--column",
            "score",
            "--epsilon",
            "30",
            "--low",
            "1",
            "--high",
            "2",
            "--random-state",
            "0",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("no anomaly: no row is flagged")
