"""Pieces shared by the sub-commands.

Checks that run before any data is read (so a bad option costs no budget); library warnings and
errors as one line, each setting spelled as its option (``--granularity auto``); CSV headers and
cells that are not finite numbers; option values that start with '-'; the ``--epsilon`` rule;
``--delimiter``, ``--random-state`` and the privacy summary's leak line.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import sys
import warnings

from ..exceptions import SETTING
from ..privacy._mechanisms import MAX_GEOMETRIC_EPSILON, MIN_EPSILON

#: Options with one value that may start with '-' without being a plain number:
#: ``--bins -5:5:11`` (START:STOP:COUNT), ``--bins -1,0,1`` (edges), ``--range -5:5``.
DASH_VALUE_OPTIONS = frozenset({"--bins", "--range"})
#: options that take several numbers, and how many
MULTI_VALUE_OPTIONS = {"--bounds": 2}
# '-5:5:11', '-.5,1', '-1e3': a number first, so a value (no option starts with a digit)
_DASH_VALUE = re.compile(r"-\.?\d")

#: The thesis behind DPSMOTE and the change-point detector, as the CLI cites it.
CITE = "Lut, Privacy-Aware Data Analysis, PhD thesis, Columbia University, 2022"

# estimator parameter -> the option that sets it (DPSMOTE, PrivateChangePointDetector,
# PrivateOnlineActiveSVC, NoisyGroupSearch, DPOAD)
OPTION_OF = {
    "epsilon": "--epsilon",
    "bounds": "--bounds/--bounds-file",
    "synopsis": "--synopsis",
    "spread": "--spread",
    "granularity": "--granularity",
    "connectivity": "--connectivity",
    "sampling_strategy": "--sampling-strategy",
    "count_share": "--count-share",
    "histogram": "--histogram",
    "classes": "--classes",
    "random_state": "--random-state",
    "gamma": "--gamma",
    "window": "--window",
    "threshold": "--threshold",
    "direction": "--direction",
    "batch_size": "--batch-size",
    "data_norm": "--data-norm",
    "alpha": "--alpha",
    "selection": "--selection",
    "update": "--update",
    "low": "--low",
    "high": "--high",
    "query_epsilon": "--query-epsilon",
    "oracle": "--oracle",
    "n_candidates": "--candidates",
    "max_count": "--max-count",
    "mechanism": "--mechanism",
    "detector": "--detector",
    "learning_windows": "--learning-windows",
    "sensitivity_samples": "--sensitivity-samples",
    "n_change_points": "--n-change-points",
    "max_change_points": "--max-change-points",
    "min_size": "--min-size",
    "horizon": "--horizon",
    "arl0": "--arl0",
    "noise": "--noise",
    "count_model": "--count-model",
    "class_weight": "--class-weight",
}
# where a command spells a parameter otherwise: ``--alpha`` is the false-alarm level
# wherever it appears, so the online SVC's regulariser λ and the group search's
# posterior threshold τ (both ``alpha`` in their estimators) have their own names
_COMMAND_OPTION_OF = {
    "online-svc": {"alpha": "--lambda"},
    "group-search": {"alpha": "--posterior-threshold"},
}
# settings whose CLI spelling is a flag rather than "--option value"
_FLAG_OF = {
    "class_counts='public'": "--public-counts",
    "class_counts='private'": "no --public-counts",
    "max_count=None": "no --max-count",
    "class_weight=None": "--class-weight none",
}


def _value(text: str) -> str:
    """A Python literal as typed on the command line: 'auto' -> auto, [0, 1] -> 0 1."""
    if text.startswith("["):
        text = text[1:-1].replace(",", " ")
    return re.sub(r"""['"]""", "", " ".join(text.split()))


def _as_option(setting: re.Match, option_of: dict) -> str:
    """One marked setting as the command line spells it (unchanged if no option sets it)."""
    span = setting[0][1:-1]
    if span in _FLAG_OF:
        return _FLAG_OF[span]
    name = setting["subject"] or setting["quoted"] or setting["name"]
    if name not in option_of:
        return span
    value = setting["value"]
    return f"{option_of[name]} {_value(value)}" if value else option_of[name]


def cli_text(issue, command: str | None = None) -> str:
    """An error's or a warning's message, each setting it names spelled as its option.

    The library marks the settings a message names (:func:`~skdp_anomaly.exceptions.naming`);
    ``command`` names the sub-command, for the parameters it spells otherwise.

    >>> from skdp_anomaly.exceptions import naming
    >>> cli_text(naming(ValueError, "Use `granularity='auto'` or a larger `granularity`."))
    'Use --granularity auto or a larger --granularity.'
    >>> cli_text(naming(ValueError, "use `histogram='sparse' or 'auto'` (`class_counts='public'`)"))
    'use --histogram sparse or auto (--public-counts)'
    >>> cli_text(naming(ValueError, "`The 'gamma' parameter of DPOAD` must be in (0, 1); got 1."))
    '--gamma must be in (0, 1); got 1.'
    >>> cli_text(naming(ValueError, "Got `alpha=0.0` instead."), "online-svc")
    'Got --lambda 0.0 instead.'
    >>> cli_text(ValueError("rows drawn uniformly over the bounds of the sparse histogram"))
    'rows drawn uniformly over the bounds of the sparse histogram'
    """
    template = getattr(issue, "settings_template", None)
    if template is None:
        return str(issue)
    option_of = {**OPTION_OF, **_COMMAND_OPTION_OF.get(command, {})}
    return SETTING.sub(lambda m: _as_option(m, option_of), template)


def _typable(constraint) -> list:
    """The parts of a scikit-learn constraint a command-line user can type."""
    from sklearn.utils._param_validation import (
        HasMethods,
        _Callables,
        _InstancesOf,
        _NoneConstraint,
    )

    parts = getattr(constraint, "_constraints", [constraint])  # e.g. "random_state"
    if len(parts) > 1:
        return [p for part in parts for p in _typable(part)]
    if isinstance(constraint, (HasMethods, _Callables, _NoneConstraint)):
        return []
    if isinstance(constraint, _InstancesOf) and constraint.type.__module__ != "builtins":
        return []
    return [str(constraint)]


def parameter_text(error, command: str | None = None) -> str:
    """A :class:`~skdp_anomaly.exceptions.ParameterError` in the command's terms.

    >>> from skdp_anomaly.outlier import PrivateHBOS
    >>> for bad in ({"epsilon": -1}, {"random_state": -3}):
    ...     try:
    ...         PrivateHBOS(**bad).privacy_cost()
    ...     except ValueError as error:
    ...         print(parameter_text(error))
    --epsilon must be a float in the range [1e-06, 30.0]. Got -1 instead.
    --random-state must be an int in the range [0, 4294967295]. Got -3 instead.
    """
    option = {**OPTION_OF, **_COMMAND_OPTION_OF.get(command, {})}.get(
        error.parameter, error.parameter
    )
    phrases = [p for c in error.constraints for p in _typable(c)] or [
        str(c) for c in error.constraints
    ]
    must = phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} or {phrases[-1]}"
    return f"{option} must be {must}. Got {error.value!r} instead."


# ------------------------------------------------------------------ warnings
def is_privacy_leak(category: type) -> bool:
    """Whether a warning category (ours or diffprivlib's) says a privacy guarantee fails."""
    from ..exceptions import PrivacyLeakWarning

    theirs = getattr(sys.modules.get("diffprivlib.utils"), "PrivacyLeakWarning", None)
    return issubclass(category, tuple(c for c in (PrivacyLeakWarning, theirs) if c))


@contextlib.contextmanager
def one_line_warnings(command: str, rewrite: bool = False):
    """Print each warning as ``skdp-anomaly COMMAND: warning: MESSAGE`` (no file and line);
    yields the list of the categories shown, so that a command can tell whether a leak was."""
    shown = []

    def show(message, category, filename, lineno, file=None, line=None):
        shown.append(category)
        text = cli_text(message, command) if rewrite else str(message)
        print(f"skdp-anomaly {command}: warning: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield shown


@contextlib.contextmanager
def library_calls(command: str):
    """Around calls into the estimators: their warnings and errors in CLI terms. Leak warnings
    are always shown and counted: the summary must not claim a guarantee a hidden one voided."""
    with one_line_warnings(command, rewrite=True) as shown:
        from ..exceptions import PrivacyLeakWarning

        warnings.simplefilter("always", PrivacyLeakWarning)
        from ..exceptions import ParameterError

        try:
            yield shown
        except ParameterError as exc:  # a parameter out of its constraints: from its fields
            raise ValueError(parameter_text(exc, command)) from exc
        except ValueError as exc:
            raise ValueError(cli_text(exc, command)) from exc


#: The summary line of a run whose guarantee a leak warning voided (no ε is printed).
LEAK_LINE = "privacy: NOT differentially private — see the PrivacyLeakWarning above"


def add_random_state_option(
    parser, help="seed for reproducible noise (tests/experiments only: unsafe in deployment)"
) -> None:
    parser.add_argument("--random-state", type=int, default=None, help=help)


def seed_note(args) -> None:
    """Print that a seeded run is no release, when ``--random-state`` was given."""
    if args.random_state is not None:
        print("note: --random-state makes the noise reproducible; do not use it for releases")


# --------------------------------------------------------------------- paths
def check_input_file(path: str, what: str) -> None:
    """``path`` is a readable file; ``what`` names the argument in the error."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file: {path} ({what})")
    if not os.access(path, os.R_OK):
        raise ValueError(f"{what}: {path} is not readable.")


def _writable_dir(path: str, option: str) -> None:
    if not os.path.isdir(path):
        raise ValueError(f"{option}: the directory {path} does not exist.")
    if not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"{option}: the directory {path} is not writable.")


def check_output_file(path: str, input_path: str, option: str = "-o/--output") -> None:
    """The output file can be written and is not the input (read while writing)."""
    if os.path.isdir(path):
        raise ValueError(f"{option}: {path} is a directory; give a file name.")
    _writable_dir(os.path.dirname(os.path.abspath(path)), option)
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise ValueError(f"{option}: {path} exists and is not writable.")
    if os.path.realpath(path) == os.path.realpath(input_path):
        raise ValueError(f"{option} must differ from the input file {input_path}.")


def check_output_dir(path: str, option: str) -> None:
    """``path`` is, or can be created as, a writable directory."""
    path = os.path.abspath(path)
    existing = path
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if existing != path and not os.path.isdir(existing):
        raise ValueError(f"{option}: cannot create {path}: {existing} is not a directory.")
    if existing == path and not os.path.isdir(path):
        raise ValueError(f"{option}: {path} exists and is not a directory.")
    _writable_dir(existing, option)


def header_row(reader, path) -> list:
    """The stripped names of the header row; an error if the file is empty."""
    try:
        return [h.strip() for h in next(reader)]
    except StopIteration:
        raise ValueError(f"{path} is empty (a header row is required).") from None


# --------------------------------------------------------------------- cells
# spellings of a missing value, besides those float() reads as NaN
_MISSING = frozenset({"", "na", "n/a", "null"})
_PROBLEM = {
    "missing": "has a missing value (empty or NaN)",
    "infinite": "has an infinite value",
    "text": "is not numeric",
}


def _cell_problem(text: str) -> str | None:
    s = text.strip()
    if s.lower() in _MISSING:
        return "missing"
    try:
        value = float(s)
    except ValueError:
        return "text"
    if math.isnan(value):
        return "missing"
    return "infinite" if math.isinf(value) else None


def bad_cell(text: str, column: str, line: int) -> str | None:
    """Why the cell ``text`` is not a finite number, as an error naming its
    ``column`` and ``line``; None for a finite number.

    The message gives the position only, never the cell's text: it is data.

    >>> bad_cell("NaN", "b", 17)
    "column 'b' has a missing value (empty or NaN) on line 17"
    >>> bad_cell("2.5", "b", 17) is None
    True
    """
    problem = _cell_problem(text)
    return None if problem is None else f"column {column!r} {_PROBLEM[problem]} on line {line}"


def finite_cell(text: str, column: str, line: int, needs: str) -> float:
    """The cell as a float, or the error of :func:`bad_cell` followed by ``needs``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isfinite(value):
        return value
    raise ValueError(f"{bad_cell(text, column, line)}; {needs}")


def join_dash_values(argv: list[str], options=DASH_VALUE_OPTIONS) -> list[str]:
    """``argv`` with ``--bins -5:5:11`` written ``--bins=-5:5:11``.

    argparse takes a token that starts with '-' for an option unless it is a plain negative number
    (``-5``, ``-0.5``): ``--bins -5:5:11`` would fail with "expected one argument". A value of one
    of ``options`` that starts with a number is joined to its option, which argparse then reads as
    the value. The values of an option that takes several numbers (``--bounds -1e3 1e3``) cannot be
    joined: one that starts with '-' and a number gets a leading space, which argparse reads as a
    value and ``float`` ignores. Nothing after ``--`` changes.

    >>> join_dash_values(["dpoad", "--bins", "-5:5:11", "--epsilon", "-1"])
    ['dpoad', '--bins=-5:5:11', '--epsilon', '-1']
    >>> join_dash_values(["resample", "--bounds", "-1e3", "1e3"])
    ['resample', '--bounds', ' -1e3', '1e3']
    """
    out, i = [], 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            return out + list(argv[i:])
        if token in options and i + 1 < len(argv) and _DASH_VALUE.match(argv[i + 1]):
            out.append(f"{token}={argv[i + 1]}")
            i += 2
            continue
        if token in MULTI_VALUE_OPTIONS:
            values = argv[i + 1 : i + 1 + MULTI_VALUE_OPTIONS[token]]
            out += [token] + [" " + v if _DASH_VALUE.match(v) else v for v in values]
            i += 1 + len(values)
            continue
        out.append(token)
        i += 1
    return out


# ------------------------------------------------------------------ epsilon
#: The largest ``--epsilon`` of every command: the ceiling of two-sided geometric
#: noise (the integer noise under each of the package's releases) at sensitivity 1.
MAX_CLI_EPSILON = MAX_GEOMETRIC_EPSILON

#: The rule, as ``--help`` states it (top level and each command's epilog).
EPSILON_RULE = (
    f"The ε rule, the same for every command: --epsilon (each value of demo's --epsilons) "
    f"must lie in [{MIN_EPSILON:g}, {MAX_CLI_EPSILON:g}]. Every release of this package is "
    "randomised through e^-ε per unit of sensitivity (two-sided geometric noise, randomized "
    "response, a private selection), drawn exactly at every ε. At ε = "
    f"{MAX_CLI_EPSILON:g} that randomness moves a count in about 2 draws of 10^13 and the "
    f"guarantee (odds moved by at most e^{MAX_CLI_EPSILON:g} ≈ 1e13) protects nothing, so "
    f"a larger ε is refused. Below {MIN_EPSILON:g} the noise is a million sensitivities wide and its "
    "sampler cannot honour the rate. What one --epsilon pays for (the whole run, one "
    "window, one query) is said at --epsilon. A value outside the range is refused before "
    "the data is read."
)


def check_epsilon_option(value: float, option: str = "--epsilon") -> float:
    """``value`` if it follows :data:`EPSILON_RULE`, else a ValueError that states it.

    >>> check_epsilon_option(30.0)
    30.0
    >>> check_epsilon_option(31.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --epsilon must be in [1e-06, 30] ...; got 31: above 30 the noise on a count...
    """
    if math.isfinite(value) and MIN_EPSILON <= value <= MAX_CLI_EPSILON:
        return value
    if not (math.isfinite(value) and value > 0):
        why = "ε is a positive finite number"
    elif value > MAX_CLI_EPSILON:
        why = (
            f"above {MAX_CLI_EPSILON:g} the noise on a count is zero in all but about "
            "2e-13 of draws (the exact count is released in practice)"
        )
    else:
        why = (
            f"below {MIN_EPSILON:g} the noise is a million sensitivities wide and its "
            "sampler cannot honour the rate"
        )
    raise ValueError(
        f"{option} must be in [{MIN_EPSILON:g}, {MAX_CLI_EPSILON:g}] (the ε rule "
        f"of every skdp-anomaly command; see skdp-anomaly --help); got {value:g}: "
        f"{why}."
    )


# ---------------------------------------------------------------- delimiter
_DELIMITER_NAMES = {"\\t": "\t", "tab": "\t"}
# what a header split on the wrong delimiter still holds
_OTHER_DELIMITERS = (";", "\t", "|", ",")


def _delimiter(text: str) -> str:
    """``--delimiter``: a tab is hard to type, so it has names (length checked before reading)."""
    return _DELIMITER_NAMES.get(text, text)


def add_delimiter_option(parser, files: str = "the input") -> None:
    """``--delimiter`` of the CSV ``files``, the same on every command that reads one."""
    parser.add_argument(
        "--delimiter",
        type=_delimiter,
        default=",",
        help=f"CSV delimiter of {files}, one character; '\\t' or 'tab' for tabs (default ',')",
    )


def check_delimiter(delimiter: str) -> None:
    """One character, as :mod:`csv` needs; checked before any file is read."""
    if len(delimiter) != 1:
        raise ValueError(
            f"--delimiter must be one character ('\\t' or 'tab' for a tab), got {delimiter!r}."
        )


def delimiter_hint(header: list, delimiter: str = ",") -> str:
    """The hint to ``--delimiter`` when ``header``, split on ``delimiter``, holds another one.

    The header is the file's schema, which the errors already print.

    >>> delimiter_hint(["day;amount"])
    "; the header holds ';': pass --delimiter ';'"
    >>> delimiter_hint(["day", "amount"])
    ''
    """
    text = "".join(header)
    for other in _OTHER_DELIMITERS:
        if other != delimiter and other in text:
            shown = "a tab" if other == "\t" else repr(other)
            option = "tab" if other == "\t" else repr(other)
            return f"; the header holds {shown}: pass --delimiter {option}"
    return ""


def missing_column(
    option: str, name: str, header: list, file_name: str, delimiter: str = ","
) -> ValueError:
    """The error for ``option name`` not in ``header``, with the hint to ``--delimiter``."""
    return ValueError(
        f"{option} {name!r} is not a column of {file_name}; columns: "
        f"{', '.join(header)}{delimiter_hint(header, delimiter)}"
    )


# --------------------------------------------------------------- --alpha
def add_renamed_alpha(parser, new_option: str, what: str) -> None:
    """Refuse (hidden from ``--help``) ``--alpha`` where it meant ``what``, now ``new_option``:
    ``--alpha`` is the false-alarm level wherever it is accepted."""

    class RenamedAlpha(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            parser.error(
                f"--alpha {values}: {what} is now {new_option} (use {new_option} "
                f"{values}); --alpha is the false-alarm level in every command that "
                "has one, and this one has none."
            )

    parser.add_argument("--alpha", action=RenamedAlpha, help=argparse.SUPPRESS)
