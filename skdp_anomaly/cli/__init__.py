"""The ``skdp-anomaly`` command line.

Each sub-command lives in its own module of this package and exposes
``add_parser(subparsers)``, which registers the command and sets ``func``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import textwrap

from .._version import __version__
from ._common import EPSILON_RULE, check_epsilon_option, join_dash_values, one_line_warnings

# modules that define sub-commands, in the order `--help` lists them
_COMMAND_MODULES = (
    "_showcase",
    "_demo",
    "_resample",
    "_changepoint",
    "_online_svc",
    "_group_search",
    "_dpoad",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skdp-anomaly",
        description="Differentially private anomaly detection for scikit-learn.",
        epilog=EPSILON_RULE,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        required=True,
        help="one of the commands below; 'skdp-anomaly COMMAND --help' lists its options",
    )
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        module.add_parser(subparsers)
    for sub in subparsers.choices.values():
        _state_the_epsilon_rule(sub)
    return parser


def _state_the_epsilon_rule(parser: argparse.ArgumentParser) -> None:
    """Append the ε rule to the epilog of a command that takes an ε."""
    if not any(a.dest in _EPSILON_DESTS for a in parser._actions):
        return
    rule = EPSILON_RULE
    if parser.formatter_class is not argparse.HelpFormatter:  # a raw epilog: wrap it here
        rule = textwrap.fill(rule, width=79)
    parser.epilog = f"{parser.epilog}\n\n{rule}" if parser.epilog else rule


# the options that take an ε (demo's --epsilons: one per run compared)
_EPSILON_DESTS = {"epsilon": "--epsilon", "epsilons": "--epsilons"}


def _check_epsilons(args) -> None:
    """The ε rule, for every command at once: before anything is read or fitted."""
    for dest, option in _EPSILON_DESTS.items():
        values = getattr(args, dest, None)
        for value in values if isinstance(values, list) else [values]:
            if value is not None:
                check_epsilon_option(value, option)


def main(argv=None) -> int:
    """Entry point of the ``skdp-anomaly`` console script."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    args = parser.parse_args(join_dash_values(argv))
    try:
        with one_line_warnings(args.command):
            _check_epsilons(args)
            return int(args.func(args) or 0)
    except (ValueError, OSError, KeyError) as exc:
        # user errors (bad options, unreadable files): one clear line, no traceback
        print(f"skdp-anomaly {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
