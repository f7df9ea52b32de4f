"""Sphinx configuration of the skdp-anomaly documentation site.

Build (from the repository root, after ``pip install ".[docs]"``)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

The build needs no network: intersphinx (links to numpy, scikit-learn, ...)
is off unless ``SKDP_DOCS_INTERSPHINX=1`` is set, since it downloads the
other projects' inventories. The example gallery (``examples/``) is executed
on every build; ``SKDP_DOCS_NO_GALLERY=1`` skips it for a quick look at the
text.
"""

from __future__ import annotations

import os
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
        "ignore", category=UserWarning,
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


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_request_methods)
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
