"""The API reference lists every public name, and the public docstrings are well formed.

Two checks, neither of which builds the site (that is the docs job of
``.ci/run``):

* every name of every public ``__all__`` (``skdp_anomaly`` and each public
  subpackage that has one) has its autosummary entry in ``docs/api.rst``, once;
* numpydoc's validation (``numpydoc.validate.validate``) of every public
  class and function and of their public methods and properties, with the
  checks and exclusions listed below.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import skdp_anomaly

numpydoc_validate = pytest.importorskip(
    "numpydoc.validate", reason="numpydoc is in the test-core extra"
)

API_RST = Path(__file__).resolve().parents[1] / "docs" / "api.rst"

# Names of an __all__ that get no API page, with the reason.
NOT_DOCUMENTED = {
    "__version__": "a string, shown in the site's title",
}

# numpydoc checks NOT applied, with the reason. Every other check of
# numpydoc.validate.ERROR_MSGS is applied to every public object.
EXCLUDED_CHECKS = {
    "ES01": "extended summary: short helpers and properties need none",
    "SA01": "See Also: cross-references live in the user guide pages",
    "EX01": "Examples: required of the top-level API only (test_top_level_api_has_examples)",
    "RT01": "Returns: properties document their value in the summary; "
    "fit-like methods return self (scikit-learn convention)",
    "RT02": "the scikit-learn convention names single returns (`self : object`)",
    "RT03": "`self` returned by fit-like methods needs no description",
    "PR08": "descriptions may start with a symbol or code (`ε per window`, ``None``)",
    "SA03": "See Also descriptions may start with code or a symbol",
}

# Checks applied to classes (their constructor) and functions, but not to
# methods: PR01 (every parameter documented). Methods of the scikit-learn
# protocol (fit, predict, ...) take X and y as their class documents them.
NOT_FOR_METHODS = {"PR01"}

# Known failures, (object, code) -> reason, each to be fixed, not kept:
# none at present.
KNOWN_FAILURES: dict = {}


# ----------------------------------------------------------------- public names
def public_modules() -> list:
    """``skdp_anomaly`` and every public (sub)module of it that defines ``__all__``."""
    modules = [skdp_anomaly]
    for info in pkgutil.walk_packages(skdp_anomaly.__path__, "skdp_anomaly."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "__all__"):
            modules.append(module)
    return modules


def api_entries() -> list:
    """Full names listed in the autosummary directives of docs/api.rst, in order."""
    entries, module, in_summary = [], None, False
    for line in API_RST.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        match = re.match(r"\.\. (?:current)?module:: (\S+)", stripped)
        if match:
            module, in_summary = match.group(1), False
        elif stripped.startswith(".. autosummary::"):
            in_summary = True
        elif in_summary:
            if not line.startswith("   ") and stripped:
                in_summary = False  # a paragraph or heading ends the directive
            elif stripped and not stripped.startswith(":"):
                name = stripped.lstrip("~")
                entries.append(name if name.startswith("skdp_anomaly.") else f"{module}.{name}")
    return entries


def resolve(full_name: str):
    module_name, _, attr = full_name.rpartition(".")
    return getattr(importlib.import_module(module_name), attr)


def public_names() -> dict:
    """``{full name in its module's __all__: object}`` for every public module."""
    names = {}
    for module in public_modules():
        for name in module.__all__:
            if name not in NOT_DOCUMENTED:
                names[f"{module.__name__}.{name}"] = getattr(module, name)
    return names


def test_api_page_lists_each_entry_once():
    entries = api_entries()
    assert entries, f"no autosummary entries found in {API_RST}"
    duplicates = sorted({e for e in entries if entries.count(e) > 1})
    assert not duplicates, f"listed more than once in docs/api.rst: {duplicates}"


def test_every_public_name_has_an_api_page():
    """Each name of each __all__ is listed, under its module or as a top-level re-export."""
    documented = set(api_entries())
    missing = []
    for full_name, obj in public_names().items():
        name = full_name.rpartition(".")[2]
        top_level = f"skdp_anomaly.{name}"
        if full_name in documented:
            continue
        if top_level in documented and getattr(skdp_anomaly, name, None) is obj:
            continue  # re-exported by skdp_anomaly: documented once, under the short name
        missing.append(full_name)
    assert not missing, (
        "public names without an API page: add them to an autosummary list in "
        f"docs/api.rst: {missing}"
    )


def test_every_api_entry_is_public():
    """No stale entries: each listed name imports and is in its module's __all__."""
    public = public_names()
    stale = [e for e in api_entries() if e not in public]
    assert not stale, f"docs/api.rst lists names that are not in an __all__: {stale}"


# ----------------------------------------------------------- numpydoc validation
def _members(cls) -> list:
    """Public methods and properties that skdp_anomaly defines for ``cls``."""
    out = []
    for name in sorted(dir(cls)):
        if name.startswith("_") or (name.startswith("set_") and name.endswith("_request")):
            continue  # set_*_request: generated by scikit-learn's metadata routing
        for klass in cls.__mro__:
            if name in vars(klass):
                member = vars(klass)[name]
                break
        else:
            continue
        if not klass.__module__.startswith("skdp_anomaly"):
            continue  # inherited from scikit-learn, imbalanced-learn, ...
        if isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        if inspect.isfunction(member) or isinstance(member, property):
            out.append((name, member))
    return out


def validation_targets() -> dict:
    """``{import path: (object kind, identity key)}``, each object once."""
    targets, seen = {}, set()
    for full_name in api_entries():
        obj = resolve(full_name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue  # data (constants) carry their doc in the source
        if id(obj) not in seen:
            seen.add(id(obj))
            targets[full_name] = "class" if inspect.isclass(obj) else "function"
        if inspect.isclass(obj):
            for name, member in _members(obj):
                key = id(member.fget if isinstance(member, property) else member)
                if key not in seen:
                    seen.add(key)
                    targets[f"{full_name}.{name}"] = "member"
    return targets


TARGETS = validation_targets()


def _documented_attributes(obj) -> set:
    from numpydoc.docscrape import NumpyDocString

    doc = NumpyDocString(inspect.getdoc(obj) or "")
    names = set()
    for item in doc["Attributes"]:
        names.update(n.strip() for n in item.name.split(","))
    return names


def _is_record_type(obj) -> bool:
    """Dataclasses and named tuples: their fields may be documented as Attributes."""
    return inspect.isclass(obj) and (
        dataclasses.is_dataclass(obj) or (issubclass(obj, tuple) and hasattr(obj, "_fields"))
    )


def _errors(path: str, kind: str) -> list:
    result = numpydoc_validate.validate(path)
    errors = [(code, msg) for code, msg in result["errors"] if code not in EXCLUDED_CHECKS]
    if kind == "member":
        errors = [(code, msg) for code, msg in errors if code not in NOT_FOR_METHODS]
    obj = resolve(path) if kind != "member" else None
    if obj is not None and _is_record_type(obj):
        # a record's fields are its constructor's parameters: Attributes documents them
        fields = _documented_attributes(obj)
        errors = [
            (code, msg)
            for code, msg in errors
            if not (code == "PR01" and set(re.findall(r"'(\w+)'", msg)) <= fields)
        ]
    return errors


# A word ending in "_" is a hyperlink reference in reStructuredText; numpydoc
# renders the type of a parameter as is, so ``shape (n_windows_, n_bins)`` breaks
# the build ("Unknown target name"). Outside backquotes, such a word is refused.
_RST_REFERENCE = re.compile(r"(?<![`\w])([A-Za-z]\w*_)(?![\w`])")
_TYPED_SECTIONS = (
    "Parameters",
    "Other Parameters",
    "Attributes",
    "Returns",
    "Yields",
    "Receives",
    "Raises",
    "Warns",
)


def _type_references(path: str) -> list:
    from numpydoc.docscrape import NumpyDocString

    doc = NumpyDocString(inspect.getdoc(resolve_member(path)) or "")
    found = []
    for section in _TYPED_SECTIONS:
        for item in doc[section]:
            found += [f"{section} {item.name}: {ref}" for ref in _RST_REFERENCE.findall(item.type)]
    return found


def resolve_member(path: str):
    try:
        return resolve(path)
    except (ImportError, AttributeError):
        owner, _, name = path.rpartition(".")
        member = getattr(resolve(owner), name)
        return member.fget if isinstance(member, property) else member


@pytest.mark.parametrize("path", sorted(TARGETS), ids=sorted(TARGETS))
def test_docstring_types_render(path):
    """Types in the sections hold no bare ``name_`` (an undefined RST reference)."""
    refs = _type_references(path)
    if refs and (path, "RST-REF") in KNOWN_FAILURES:
        pytest.xfail(KNOWN_FAILURES[(path, "RST-REF")])
    assert not refs, f"{path}: write these in double backquotes, or drop the '_': {refs}"


@pytest.mark.parametrize("path", sorted(TARGETS), ids=sorted(TARGETS))
def test_docstring_is_valid(path):
    errors = _errors(path, TARGETS[path])
    unexpected = [(c, m) for c, m in errors if (path, c) not in KNOWN_FAILURES]
    assert not unexpected, "\n".join(f"{path}: {code} {msg}" for code, msg in unexpected)


def test_known_failures_name_public_objects():
    for path, _ in KNOWN_FAILURES:
        assert path in TARGETS, f"KNOWN_FAILURES names {path}, which is not validated"


# Exceptions and warnings explain themselves through the functions that raise them.
_EXEMPT_FROM_EXAMPLES = (Warning, Exception)


@pytest.mark.parametrize("name", sorted(n for n in skdp_anomaly.__all__ if n not in NOT_DOCUMENTED))
def test_top_level_api_has_examples(name):
    """Every class and function importable from ``skdp_anomaly`` shows how it is used."""
    obj = getattr(skdp_anomaly, name)
    if inspect.isclass(obj) and issubclass(obj, _EXEMPT_FROM_EXAMPLES):
        pytest.skip("exceptions and warnings are shown by what raises them")
    codes = [code for code, _ in numpydoc_validate.validate(f"skdp_anomaly.{name}")["errors"]]
    assert "EX01" not in codes, f"skdp_anomaly.{name} has no Examples section"
