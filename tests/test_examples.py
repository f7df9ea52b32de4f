"""Every script in examples/ runs to the end (matplotlib without a display)."""

import runpy
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path, monkeypatch, capsys):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    monkeypatch.chdir(path.parent)
    namespace = runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out  # each example prints what it shows
    import matplotlib.pyplot as plt

    assert plt.get_fignums()  # and draws it
    plt.close("all")
    assert namespace
