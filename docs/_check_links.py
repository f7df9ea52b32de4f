"""Check the internal links and anchors of a built HTML site.

Walks every ``.html`` page under the site's root, collects the anchors each
page defines (every ``id=`` attribute, and ``name=`` on ``<a>``), and checks
every internal link of every page:

* ``href`` (any element) and ``src`` (images, scripts, frames) that are
  relative URLs must name an existing file (a directory stands for its
  ``index.html``), ``_static`` and ``_sources`` assets included;
* an ``href`` with a ``#fragment`` must name an anchor of the target page
  (of the page itself for ``href="#fragment"``).

URLs with a scheme (``http:``, ``https:``, ``mailto:``, ``javascript:``,
``data:``, ...) and protocol-relative URLs (``//host/...``) are external and
are not checked. Uses the standard library only.

Usage
-----
From the repository root, after ``sphinx-build -b html docs docs/_build/html``::

    python docs/_check_links.py docs/_build/html

Each broken link is printed as ``page: href`` (``page`` relative to the
site's root); the exit status is 1 if there is any, 0 otherwise, 2 on a bad
command line.

Notes
-----
``href="#"`` and ``href="#top"`` point at the top of the page (HTML
standard) and need no anchor. Fragments are compared both as written and
percent-decoded. Files under ``_static/`` are assets copied verbatim (the
theme's ``webpack-macros.html`` is a Jinja template, not a page): links into
them are checked, their own content is not.
"""

from __future__ import annotations

import os
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["PageParser", "parse_site", "find_broken_links", "main"]

# fragments that scroll to the top of a page without an anchor (HTML standard)
_TOP_FRAGMENTS = {"", "top"}
# directories of assets copied verbatim into the site: not pages
_ASSET_DIRS = {"_static"}


class PageParser(HTMLParser):
    """Collect the anchors and the link targets of one HTML page.

    Attributes
    ----------
    anchors : set of str
        Every ``id`` of the page, and every ``name`` of its ``<a>`` elements.
    hrefs : list of str
        The ``href`` of every element, in document order.
    srcs : list of str
        The ``src`` of every element, in document order.
    """

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors = set()
        self.hrefs = []
        self.srcs = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if value is None:
                continue
            if key == "id" or (key == "name" and tag == "a"):
                self.anchors.add(value)
            elif key == "href":
                self.hrefs.append(value)
            elif key == "src":
                self.srcs.append(value)

    handle_startendtag = handle_starttag


def parse_site(root):
    """Parse every HTML page of a built site.

    Parameters
    ----------
    root : str or os.PathLike
        The site's root directory (e.g. ``docs/_build/html``).

    Returns
    -------
    pages : dict of str to PageParser
        The parsed page of each ``.html`` file outside ``_static/``, keyed by
        its path relative to ``root`` with ``/`` separators.
    """
    root = Path(root)
    pages = {}
    for path in sorted(root.rglob("*.html")):
        if path.relative_to(root).parts[0] in _ASSET_DIRS:
            continue
        parser = PageParser()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        parser.close()
        pages[path.relative_to(root).as_posix()] = parser
    return pages


def _is_external(url):
    parts = urlsplit(url)
    return bool(parts.scheme) or url.startswith("//")


def _target(root, page, path):
    """The file ``path`` (a URL path relative to ``page``) names, relative to root.

    Returns None if it lies outside ``root``.
    """
    path = unquote(path)
    if path.startswith("/"):  # absolute: from the site's root
        joined = os.path.normpath(path.lstrip("/"))
    else:
        joined = os.path.normpath(os.path.join(os.path.dirname(page), path))
    if joined == ".":
        joined = ""
    if joined == ".." or joined.startswith("../"):
        return None
    if (root / joined).is_dir():
        joined = os.path.join(joined, "index.html")
    return Path(joined).as_posix()


def _has_anchor(anchors, fragment):
    return fragment.lower() in _TOP_FRAGMENTS or fragment in anchors or unquote(fragment) in anchors


def find_broken_links(root, pages=None):
    """Find the internal links of a built site that lead nowhere.

    Parameters
    ----------
    root : str or os.PathLike
        The site's root directory.
    pages : dict of str to PageParser, optional
        The output of :func:`parse_site` for ``root``; parsed if not given.

    Returns
    -------
    broken : list of tuple of (str, str)
        ``(page, url)`` for each broken link, ``page`` relative to ``root``,
        ``url`` as written in the page, sorted, each pair once.
    """
    root = Path(root)
    if pages is None:
        pages = parse_site(root)
    broken = set()
    for page, parser in pages.items():
        links = [(url, True) for url in parser.hrefs]
        links += [(url, False) for url in parser.srcs]
        for url, fragment_matters in links:
            url = url.strip()
            if not url or _is_external(url):
                continue
            parts = urlsplit(url)
            if parts.path:
                target = _target(root, page, parts.path)
                if target is None or not (root / target).is_file():
                    broken.add((page, url))
                    continue
            else:
                target = page
            if not (fragment_matters and "#" in url):
                continue
            if target not in pages:  # a fragment into a non-HTML file
                continue
            if not _has_anchor(pages[target].anchors, parts.fragment):
                broken.add((page, url))
    return sorted(broken)


def main(argv=None):
    """Check a built site; print each broken link as ``page: href``.

    Parameters
    ----------
    argv : list of str, optional
        The command line after the program's name: the site's root
        directory. ``sys.argv[1:]`` if not given.

    Returns
    -------
    status : int
        1 if a link is broken, 0 if none, 2 on a bad command line.
    """
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] in {"-h", "--help"}:
        print(f"usage: python {Path(__file__).name} SITE_ROOT", file=sys.stderr)
        return 2
    root = Path(argv[0])
    if not root.is_dir():
        print(f"{root}: not a directory", file=sys.stderr)
        return 2
    pages = parse_site(root)
    if not pages:
        print(f"{root}: no .html file", file=sys.stderr)
        return 2
    broken = find_broken_links(root, pages)
    for page, url in broken:
        print(f"{page}: {url}")
    print(f"{len(pages)} pages checked, {len(broken)} broken internal links", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
