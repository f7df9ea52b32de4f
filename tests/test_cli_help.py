"""``--help`` of every sub-command: each option explained, in plain text."""

import argparse
import re

import pytest

from skdp_anomaly.cli import build_parser, main


def _parsers():
    """The top-level parser and every sub-command's parser, by name."""
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"skdp-anomaly": parser, **subs.choices}


def test_all_sub_commands_are_registered():
    assert set(_parsers()) >= {
        "skdp-anomaly",
        "demo",
        "budget-demo",
        "resample",
        "changepoint",
        "dpoad",
    }


def test_every_option_has_help():
    missing = [
        f"{name} {'/'.join(action.option_strings) or action.dest}"
        for name, parser in _parsers().items()
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction) and not (action.help or "").strip()
    ]
    assert missing == []


@pytest.mark.parametrize("name", sorted(_parsers()))
def test_help_is_plain_text(name):
    text = _parsers()[name].format_help()
    assert "``" not in text
    assert not re.search(r":(class|func|meth|mod|attr|obj):", text), text


@pytest.mark.parametrize(
    "argv",
    [
        [
            "demo",
            "--output-dir",
            "{tmp}",
            "--epsilons",
            "1",
            "--ratios",
            "0.1",
            "--repeats",
            "1",
            "--folds",
            "2",
            "--no-plot",
        ],
        ["budget-demo", "--no-explain"],
    ],
)
def test_demos_run_without_diffprivlib(argv, tmp_path, capsys, monkeypatch):
    # diffprivlib 0.6.6 does not import on scikit-learn 1.9: the demos must not need it
    import builtins

    real_import = builtins.__import__

    def no_diffprivlib(name, *args, **kwargs):
        if name == "diffprivlib" or name.startswith("diffprivlib."):
            raise ImportError("cannot import name 'DOUBLE' from 'sklearn.tree._tree'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_diffprivlib)
    code = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "PrivateLogisticRegression" in out and "diffprivlib" not in err
