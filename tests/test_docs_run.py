"""Every ```python block of each docs page runs, page by page, as one script.

The blocks of a page are joined (in order) into one script, run in a fresh
interpreter (cwd a temporary directory, ``MPLBACKEND=Agg``). A block whose first
line starts with ``# not run:`` (followed by the reason) is left out. A page that
uses diffprivlib skips where diffprivlib does not import.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from _diffprivlib import AVAILABLE, REASON

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```", re.S | re.M)
NOT_RUN = "# not run:"


def _blocks(page):
    return BLOCK.findall(page.read_text(encoding="utf-8"))


def _runnable(blocks):
    return [b for b in blocks if not b.lstrip("\n").startswith(NOT_RUN)]


PAGES = sorted(p for p in DOCS.glob("*.md") if _blocks(p))
# the Benchmarks section's pages: their blocks run too (most are marked '# not run:')
ALL_PAGES = PAGES + sorted(p for p in (DOCS / "benchmarks").glob("*.md") if _blocks(p))


def test_not_run_blocks_give_a_reason():
    for page in ALL_PAGES:
        for block in _blocks(page):
            first = block.lstrip("\n").splitlines()[0]
            if first.startswith(NOT_RUN):
                assert first[len(NOT_RUN) :].strip(), f"{page.name}: '{first}' gives no reason"


@pytest.mark.parametrize(
    "page", ALL_PAGES, ids=[str(p.relative_to(DOCS).with_suffix("")) for p in ALL_PAGES]
)
def test_docs_page_runs(page, tmp_path):
    blocks = _runnable(_blocks(page))
    if not blocks:
        pytest.skip(f"{page.name}: every python block is marked '{NOT_RUN}'")
    script = "\n\n".join(blocks)
    if "diffprivlib" in script and not AVAILABLE:
        pytest.skip(REASON)
    path = tmp_path / f"{page.stem}_docs.py"
    path.write_text(script, encoding="utf-8")
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.run(
        [sys.executable, str(path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, (
        f"{page.name} failed (exit {proc.returncode})\n--- stderr ---\n{proc.stderr}"
        f"\n--- stdout (tail) ---\n{proc.stdout[-2000:]}"
    )


# a page's first example runs on the main install: pandas, diffprivlib, dask, matplotlib and
# statsmodels are extras (the dask page is about the dask extra, installed in its first lines)
_MAIN_INSTALL = """import importlib.abc
import sys


class _Extras(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pandas", "diffprivlib", "dask", "statsmodels", "matplotlib"):
            raise ModuleNotFoundError(f"No module named {name!r} (an extra)")
        return None


sys.meta_path.insert(0, _Extras())

"""
_ABOUT_AN_EXTRA = {"dask"}


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_first_example_runs_without_the_extras(page, tmp_path):
    blocks = _runnable(_blocks(page))
    if not blocks or page.stem in _ABOUT_AN_EXTRA:
        pytest.skip(f"{page.name}: no runnable block, or the page is about an extra")
    path = tmp_path / f"{page.stem}_first.py"
    path.write_text(_MAIN_INSTALL + blocks[0], encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(path)],
        cwd=tmp_path,
        env=dict(os.environ, MPLBACKEND="Agg"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, (
        f"{page.name}'s first example needs more than the main install (exit "
        f"{proc.returncode})\n--- stderr ---\n{proc.stderr[-3000:]}"
    )
