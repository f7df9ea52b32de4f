"""Sphinx configuration of the skdp-anomaly documentation site.

Build (from the repository root, after ``pip install ".[docs]"``)::

    sphinx-build -n -W --keep-going -b html docs docs/_build/html
    python docs/_check_links.py docs/_build/html

``-n`` (nitpicky) makes every unresolved cross-reference an error, and
``docs/_check_links.py`` fails on any internal link or anchor of the built
site that leads nowhere (the docs job of ``.ci/run`` runs both).

The build needs no network: intersphinx (links to numpy, scikit-learn, ...)
is off unless ``SKDP_DOCS_INTERSPHINX=1`` is set, since it downloads the
other projects' inventories. The example gallery (``examples/``) is executed
on every build; ``SKDP_DOCS_NO_GALLERY=1`` skips it for a quick look at the
text.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import posixpath
import re
import sys
import warnings
from datetime import date

import skdp_anomaly

project = "skdp-anomaly"
author = "skdp-anomaly developers"
copyright = f"{date.today().year}, {author}"
release = skdp_anomaly.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
]

# -- MyST (the user guide pages are Markdown) ---------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 4  # links such as privacy.md#seeds resolve
# the evidence pages go from a section straight to table captions (#### ...),
# a deliberate layout of the benchmark tables
suppress_warnings = ["myst.header"]

# -- autodoc / autosummary / numpydoc -----------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"  # the numpydoc sections carry the types
numpydoc_show_class_members = False  # the class template lists the methods
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False
# docstring sections are validated in tests/test_docs.py (numpydoc.validate),
# where the chosen checks and their exclusions are listed; not at build time


def _public_modules():
    """skdp_anomaly and each public (sub)module with an __all__ (as tests/test_docs.py)."""
    modules = [skdp_anomaly]
    for info in pkgutil.walk_packages(skdp_anomaly.__path__, "skdp_anomaly."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            module = importlib.import_module(info.name)
            if hasattr(module, "__all__"):
                modules.append(module)
    return modules


_PUBLIC = {}  # {full name in a public __all__: object}
for _module in _public_modules():
    _PUBLIC.update(
        {f"{_module.__name__}.{name}": getattr(_module, name) for name in _module.__all__}
    )
_PUBLIC_IDS = {id(obj) for obj in _PUBLIC.values()}


def _is_private_class(cls):
    """A class of the package that no public __all__ exports: it has no API page."""
    return cls.__module__.partition(".")[0] == "skdp_anomaly" and id(cls) not in _PUBLIC_IDS


# Members a public class inherits from a private base of the package (e.g.
# fit/predict of the searches from _PrivateSearch, to_dict of the dpoad messages
# from _Message) are part of its interface and have no other page: document
# them on the class's page, and no other inherited members. autodoc's
# ``inherited-members`` takes the names of the classes whose members are left
# out: every base of a public class that is not such a private base.
_INHERITED_FROM_PRIVATE = {}  # {full name: [public members from private bases]}
_NOT_INHERITED_FROM = {"object"}
for _name, _cls in _PUBLIC.items():
    if not inspect.isclass(_cls):
        continue
    _members = []
    for _i, _base in enumerate(_cls.__mro__[1:], start=1):
        if not _is_private_class(_base):
            _NOT_INHERITED_FROM.add(_base.__name__)
            continue
        for _member in vars(_base):
            if not _member.startswith("_") and not any(
                _member in vars(c) for c in _cls.__mro__[:_i]
            ):
                _members.append(_member)
    if _members:
        _INHERITED_FROM_PRIVATE[_name] = sorted(set(_members))
_PRIVATE_NAMES = {
    b.__name__
    for c in _PUBLIC.values()
    if inspect.isclass(c)
    for b in c.__mro__
    if _is_private_class(b)
}
# inherited-members matches classes by __name__: a private base must not share
# its name with a class whose members are left out
assert not _PRIVATE_NAMES & _NOT_INHERITED_FROM, (
    f"private base classes named like other bases: {_PRIVATE_NAMES & _NOT_INHERITED_FROM}"
)
autodoc_default_options["inherited-members"] = ",".join(sorted(_NOT_INHERITED_FROM))
# the class template (_templates/autosummary/class.rst) lists them with the
# class's own methods
autosummary_context = {"inherited_from_private": _INHERITED_FROM_PRIVATE}

# -- nitpicky (-n): references to other projects ---------------------------------
# Without network at build time, intersphinx is off (below) and references to
# the projects of its mapping (numpy.random.Generator, sklearn.base.BaseEstimator,
# imblearn.pipeline.Pipeline, diffprivlib.models.LogisticRegression, ... in
# docstrings, in the bases shown by :show-inheritance: and in the examples'
# text) cannot resolve: they are genuinely external, render as code, and are
# not errors. Everything else, the package's own names included, must resolve.
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|scipy|sklearn|imblearn|diffprivlib)(\..+)?"),
]
# the Python standard library, one name at a time: a pattern for all of it
# would also silence the package's own names that match a module (select, ...)
nitpick_ignore = [
    ("py:mod", "json"),  # _Message.to_dict of the dpoad messages
]

# -- intersphinx: only on request (it downloads inventories) ------------------
if os.environ.get("SKDP_DOCS_INTERSPHINX") == "1":
    extensions.append("sphinx.ext.intersphinx")
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "scipy": ("https://docs.scipy.org/doc/scipy", None),
        "sklearn": ("https://scikit-learn.org/stable", None),
        "imblearn": ("https://imbalanced-learn.org/stable", None),
        "diffprivlib": ("https://diffprivlib.readthedocs.io/en/latest", None),
    }

# -- sphinx-gallery -------------------------------------------------------------
# docs/ on the path for _gallery_order (the gallery's order, by importable name)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if os.environ.get("SKDP_DOCS_NO_GALLERY") == "1":
    # a gallery left by an earlier full build
    exclude_patterns += ["auto_examples", "sg_execution_times.rst"]
else:
    extensions.append("sphinx_gallery.gen_gallery")
    sphinx_gallery_conf = {
        "examples_dirs": "../examples",
        "gallery_dirs": "auto_examples",
        "filename_pattern": r"/plot_",  # every plot_*.py is executed
        "abort_on_example_error": True,
        "doc_module": ("skdp_anomaly",),
        "backreferences_dir": "generated/backreferences",
        "reference_url": {"skdp_anomaly": None},
        "min_reported_time": 1,
        "download_all_examples": False,
        "show_memory": False,
        "matplotlib_animations": False,
        "parallel": int(os.environ.get("SKDP_DOCS_GALLERY_JOBS", "2")),
        "within_subsection_order": "_gallery_order.example_order",
    }
    # a headless build: matplotlib draws to files only
    os.environ.setdefault("MPLBACKEND", "Agg")
    warnings.filterwarnings(
        "ignore",
        category=UserWarning,
        message="Matplotlib is currently using agg, which is a non-GUI backend",
    )

# -- HTML -----------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"skdp-anomaly {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
html_sidebars = {"index": [], "getting_started": []}
toc_object_entries_show_parents = "hide"  # "fit()", not "DPSMOTE.fit()", in page tocs
html_show_sourcelink = True
html_copy_source = True


# -- hooks ------------------------------------------------------------------------
def _skip_metadata_request_methods(app, what, name, obj, skip, options):
    # scikit-learn generates set_{fit,predict,...}_request on each estimator
    # class for metadata routing; their docstrings belong to scikit-learn
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def _public_bases(app, name, obj, options, bases):
    # "Bases:" names the nearest public classes: a private base of the package
    # (_Mechanism, _PrivateSearch, ...) has no page, so it is replaced by its own
    # bases, recursively; object only when nothing else is left
    def expand(classes):
        for cls in classes:
            if inspect.isclass(cls) and _is_private_class(cls):
                yield from expand(cls.__bases__)
            else:
                yield cls

    public = list(dict.fromkeys(expand(bases)))
    if len(public) > 1 and object in public:
        public.remove(object)
    bases[:] = public


# sphinx.ext.viewcode links each source line back to its documentation as
# <page>#<module>.<qualname>, with ONE <module> per source file: the first under
# which one of its objects was documented (sphinx-doc/sphinx#6651). A file whose
# objects are documented under several modules (skdp_anomaly.audit and
# skdp_anomaly.auditing.clopper_pearson, both in auditing/_auditor.py) gets
# [docs] links to anchors that do not exist; each is rewritten to the anchor
# of the object that its page documents.
_VIEWCODE_BACKLINK = re.compile(
    r'(<div class="viewcode-block" id="(?P<name>[^"]+)">\s*'
    r'<a class="viewcode-back" href="(?P<page>[^"#]*)#)(?P<anchor>[^"]*)"'
)


def _documented_anchors(env):
    """{(docname, qualified name in its module): node id} of the py domain's objects."""
    domain = env.get_domain("py")
    modules = set(domain.modules)
    anchors = {}
    for fullname, entry in domain.objects.items():
        parts = fullname.split(".")
        for cut in range(len(parts) - 1, 0, -1):  # the longest module prefix
            if ".".join(parts[:cut]) in modules:
                qualname = ".".join(parts[cut:])
                anchors.setdefault((entry.docname, qualname), entry.node_id)
                break
    return anchors


def _fix_viewcode_backlinks(app, pagename, templatename, context, doctree):
    if not pagename.startswith("_modules/") or "body" not in context:
        return
    anchors = _documented_anchors(app.env)
    suffix = app.builder.out_suffix

    def fix(match):
        page = posixpath.normpath(posixpath.join(posixpath.dirname(pagename), match["page"]))
        anchor = anchors.get((page.removesuffix(suffix), match["name"]))
        return f'{match[1]}{anchor or match["anchor"]}"'

    context["body"] = _VIEWCODE_BACKLINK.sub(fix, context["body"])


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_request_methods)
    app.connect("autodoc-process-bases", _public_bases)
    app.connect("html-page-context", _fix_viewcode_backlinks)
    if "sphinx_gallery.gen_gallery" not in extensions:
        from docutils.parsers.rst import Directive

        class _NoMiniGallery(Directive):  # the quick build has no gallery
            has_content = True
            optional_arguments = 1
            final_argument_whitespace = True
            option_spec = {"add-heading": str}

            def run(self):
                return []

        app.add_directive("minigallery", _NoMiniGallery)
