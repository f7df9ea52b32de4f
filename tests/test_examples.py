"""Every script in examples/ runs to the end (matplotlib without a display).

An example that needs an optional package (diffprivlib, statsmodels) skips
with the reason where that package does not import; the documentation build
(the docs job of .ci/run) runs every example with the ``docs`` extra.
"""

import importlib
import os
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
            pytest.skip(
                f"needs {module}, which does not import here ({type(exc).__name__}: "
                f"{exc}); pip install 'skdp-anomaly[docs]'"
            )


# .ci/run sets this for its first job: its documentation job, later in the same run,
# builds the gallery, which executes every example and stops at the first error
# (``abort_on_example_error``), so each example runs once per CI run
_RUN_BY_THE_DOCS_BUILD = os.environ.get("SKDP_EXAMPLES_RUN_BY_DOCS_BUILD") == "1"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_prints_and_draws(path):
    # what the gallery shows of an example: printed output and a figure
    source = path.read_text()
    assert re.search(r"^\s*print\(", source, re.M), path.name
    assert re.search(r"\b(plt|pyplot)\.(subplots|figure|subplot)\(|\bplot_\w+\(", source), path.name


@pytest.mark.slow  # the documentation job runs every example again, in the gallery build
@pytest.mark.skipif(
    _RUN_BY_THE_DOCS_BUILD,
    reason="the documentation build of this CI run executes every example (abort_on_example_error)",
)
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
