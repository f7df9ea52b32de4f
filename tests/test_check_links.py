"""docs/_check_links.py, the internal link checker of the documentation site, can fail.

The docs job of ``.ci/run`` runs it on the built site; here it runs on a tiny
hand-made site with one good link and two broken ones (a missing file, a
missing anchor), and must report exactly those two.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

CHECKER = Path(__file__).resolve().parents[1] / "docs" / "_check_links.py"


def _load_checker():
    spec = importlib.util.spec_from_file_location("_check_links", CHECKER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _site(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "index.html").write_text(
        '<html><body><h1 id="top-title">Index</h1>'
        '<a href="sub/page.html#section">good</a>'
        '<a href="missing.html">missing file</a>'
        '<a href="sub/page.html#nowhere">missing anchor</a>'
        '<a href="https://example.org/missing.html#x">external</a>'
        '<a href="mailto:someone@example.org">mail</a>'
        '<a href="#">top of the page</a>'
        "</body></html>",
        encoding="utf-8",
    )
    (root / "sub" / "page.html").write_text(
        '<html><body><section id="section"><a href="../index.html#top-title">back</a>'
        "</section></body></html>",
        encoding="utf-8",
    )
    return root


def test_finds_exactly_the_broken_links(tmp_path):
    checker = _load_checker()
    root = _site(tmp_path / "html")
    pages = checker.parse_site(root)
    assert sorted(pages) == ["index.html", "sub/page.html"]
    assert "section" in pages["sub/page.html"].anchors
    assert checker.find_broken_links(root, pages) == [
        ("index.html", "missing.html"),
        ("index.html", "sub/page.html#nowhere"),
    ]


def test_main_prints_each_broken_link_and_fails(tmp_path, capsys):
    checker = _load_checker()
    root = _site(tmp_path / "html")
    assert checker.main([str(root)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["index.html: missing.html", "index.html: sub/page.html#nowhere"]


def test_main_passes_a_site_without_broken_links(tmp_path, capsys):
    checker = _load_checker()
    root = _site(tmp_path / "html")
    index = root / "index.html"
    index.write_text(
        index.read_text(encoding="utf-8")
        .replace('<a href="missing.html">missing file</a>', "")
        .replace("#nowhere", "#section"),
        encoding="utf-8",
    )
    assert checker.main([str(root)]) == 0
    assert capsys.readouterr().out == ""
