"""Messages that name a setting mark it (``exceptions.naming``), so that the command line
can spell it as the option that sets it; the library's other text stays unmarked."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from skdp_anomaly.cli._common import OPTION_OF, cli_text
from skdp_anomaly.exceptions import naming

PACKAGE = Path(__file__).resolve().parents[1] / "skdp_anomaly"
_NAMES = "|".join(sorted(OPTION_OF, key=len, reverse=True))
# a setting written in Python spelling outside its marks: `name=value` or "The 'name' parameter"
_UNMARKED = re.compile(rf"(?<![\w.'])({_NAMES})=(?!=)|[Tt]he '({_NAMES})' parameter")
# settings a message names on purpose without a mark: not the user's option of that name
NOT_THE_OPTION = {
    ("changepoint/_online_calibration.py", "window"): "quotes the value: 2 * window=40",
    ("model_selection/_search.py", "epsilon"): "a candidate's epsilon=1, not the search's",
    ("imbalanced/_threshold.py", "classes"): "the wrapped estimator's 'classes' parameter",
    ("group_search/_noisy_group_search.py", "epsilon"): "a sensor object's own epsilon",
}


def _literal_text(node: ast.AST) -> str:
    """The literal parts of the strings under ``node`` (formatted values as ``{}``)."""
    parts = []
    for child in ast.walk(node):
        if isinstance(child, ast.Constant) and isinstance(child.value, str):
            parts.append(child.value)
        elif isinstance(child, ast.FormattedValue):
            parts.append("{}")
    return "".join(parts)


def _unmarked_settings():
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        where = str(path.relative_to(PACKAGE))
        if where.startswith("cli/"):  # the command line's own messages spell its options
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and node.exc is not None:
                message = node.exc
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("warn", "warn_privacy_leak")
            ):
                message = node.args[0] if node.args else None
            else:
                continue
            text = re.sub(r"`[^`]*`", "", _literal_text(message)) if message else ""
            for m in _UNMARKED.finditer(text):
                found.add((where, m[1] or m[2]))
    return found


def test_every_message_marks_the_settings_it_names():
    unmarked = _unmarked_settings() - set(NOT_THE_OPTION)
    assert unmarked == set(), "mark these settings with backticks (exceptions.naming)"


def test_the_declared_exceptions_are_still_needed():
    assert set(NOT_THE_OPTION) <= _unmarked_settings()


@pytest.mark.parametrize(
    "template, python, command_line",
    [
        ("Use `granularity='auto'`.", "Use granularity='auto'.", "Use --granularity auto."),
        ("`The 'gamma' parameter of X` is 2.", "The 'gamma' parameter of X is 2.", "--gamma is 2."),
        ("stored in `bounds_`", "stored in `bounds_`", "stored in `bounds_`"),
        ("`class_counts='public'`", "class_counts='public'", "--public-counts"),
        ("a `delta` here", "a delta here", "a delta here"),  # a setting without an option
    ],
)
def test_a_template_reads_in_python_and_on_the_command_line(template, python, command_line):
    error = naming(ValueError, template)
    assert str(error) == python and cli_text(error) == command_line


def test_the_check_finds_an_unmarked_setting():
    text = "Use granularity='auto' or `epsilon=1`; The 'alpha' parameter is 2."
    found = {m[1] or m[2] for m in _UNMARKED.finditer(re.sub(r"`[^`]*`", "", text))}
    assert found == {"granularity", "alpha"}
