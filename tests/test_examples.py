"""Every script in examples/ runs to the end (matplotlib without a display).

An example that needs an optional package (diffprivlib, statsmodels) skips
with the reason where that package does not import; the documentation build
(the docs job of .ci/run) runs every example with the ``docs`` extra.
"""

import importlib
import re
import runpy
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.py"))

# optional packages an example imports directly or through the package
_OPTIONAL = ("diffprivlib", "statsmodels")
_INDIRECT = {"skdp_anomaly.demos": "diffprivlib"}  # its pipelines end in diffprivlib


def _requirements(path: Path) -> set:
    imported = set(re.findall(r"^\s*(?:from|import)\s+([\w.]+)", path.read_text(), re.M))
    needs = {m.split(".")[0] for m in imported if m.split(".")[0] in _OPTIONAL}
    needs.update(req for module, req in _INDIRECT.items() if module in imported)
    return needs


def _skip_unless_importable(modules) -> None:
    for module in sorted(modules):
        try:
            importlib.import_module(module if module != "diffprivlib" else "diffprivlib.models")
        except ImportError as exc:
            pytest.skip(f"needs {module}, which does not import here ({type(exc).__name__}: "
                        f"{exc}); pip install 'skdp-anomaly[docs]'")


@pytest.mark.slow  # the documentation job runs every example again, in the gallery build
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path, monkeypatch, capsys):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    _skip_unless_importable(_requirements(path))
    monkeypatch.chdir(path.parent)
    namespace = runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out  # each example prints what it shows
    import matplotlib.pyplot as plt

    assert plt.get_fignums()  # and draws it
    plt.close("all")
    assert namespace
