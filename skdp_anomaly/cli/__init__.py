"""The ``skdp-anomaly`` command line.

Each sub-command lives in its own module of this package and exposes
``add_parser(subparsers)``, which registers the command and sets ``func``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .._version import __version__
from ._common import join_dash_values, one_line_warnings

# modules that define sub-commands, in the order `--help` lists them
_COMMAND_MODULES = ("_showcase", "_demo", "_resample", "_changepoint", "_online_svc",
                    "_group_search", "_dpoad")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skdp-anomaly",
        description="Differentially private anomaly detection for scikit-learn.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True,
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
    return parser


def main(argv=None) -> int:
    """Entry point of the ``skdp-anomaly`` console script."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    args = parser.parse_args(join_dash_values(argv))
    try:
        with one_line_warnings(args.command):
            return int(args.func(args) or 0)
    except (ValueError, OSError, KeyError) as exc:
        # user errors (bad options, unreadable files): one clear line, no traceback
        print(f"skdp-anomaly {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
