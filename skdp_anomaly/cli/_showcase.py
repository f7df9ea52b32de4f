"""``skdp-anomaly demo``: the options of the showcase (``skdp_anomaly.demos.run_showcase``),
and the output folder checked before any fitting.
"""

from __future__ import annotations

import argparse

from ..demos._showcase import DEFAULT_EPSILONS, DEFAULT_RATIOS, DEFAULT_REPEATS, run_showcase
from ..demos._showcase_pipelines import SYNOPSES


def _fraction(text):
    value = float(text)
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"must be a minority fraction in (0, 0.5), got {text!r}")
    return value


def _positive_int(text, minimum=1):
    value = int(text)
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {text!r}")
    return value


def _n_folds(text):
    return _positive_int(text, minimum=2)


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the showcase's options to ``parser``."""
    parser.add_argument(
        "--output-dir",
        default="demo_output",
        help="folder for metrics.json and dpsmote_demo.png (default: %(default)s)",
    )
    parser.add_argument(
        "--epsilons",
        type=float,
        nargs="+",
        default=list(DEFAULT_EPSILONS),
        metavar="EPS",
        help="total privacy budgets to compare, each in [1e-6, 30] "
        "(the ε rule below; default: %(default)s)",
    )
    parser.add_argument(
        "--ratios",
        type=_fraction,
        nargs="+",
        default=list(DEFAULT_RATIOS),
        metavar="FRACTION",
        help="minority fractions to under-sample to (default: %(default)s)",
    )
    parser.add_argument(
        "--repeats",
        type=_positive_int,
        default=DEFAULT_REPEATS,
        help="under-samplings per fraction, each cross-validated (default: %(default)s)",
    )
    parser.add_argument(
        "--folds",
        type=_n_folds,
        default=3,
        help="cross-validation folds, at least 2 (default: %(default)s)",
    )
    parser.add_argument(
        "--random-state",
        type=int,
        default=0,
        help="seed (demo only, for reproducible output; default: %(default)s)",
    )
    parser.add_argument(
        "--synopsis",
        choices=SYNOPSES,
        default="gaussian",
        help="DPSMOTE's synopsis: the DP class mean ('gaussian', default) or "
        "the thesis' noisy grid histogram ('grid')",
    )
    parser.add_argument("--no-plot", action="store_true", help="do not write the PNG")
    return parser


def run(args) -> int:
    """Run the showcase from parsed arguments; returns the exit status."""
    from ._common import check_output_dir

    check_output_dir(args.output_dir, "--output-dir")  # before minutes of fitting
    run_showcase(
        args.output_dir,
        epsilons=args.epsilons,
        ratios=args.ratios,
        n_repeats=args.repeats,
        n_folds=args.folds,
        random_state=args.random_state,
        plot=not args.no_plot,
        synopsis=args.synopsis,
    )
    return 0


# --help is plain text (the module docstring is reStructuredText for the docs)
_DESCRIPTION = """\
A private classifier for a rare label. On scikit-learn's breast-cancer data
(malignant = the rare class), under-sampled to a few minority fractions, the
recommended DPImbalancedClassifier (raw features, public bounds) is compared with
the non-private class-balanced logistic regression and with three over-sampling
pipelines, at the same total privacy budget ε.
The command prints each pipeline's privacy report and a metrics table (ROC-AUC,
minority recall, G-mean, F1), and writes metrics.json and a plot of the metrics
against ε to --output-dir."""

_EPILOG = """\
pipelines:
  none     PrivateLogisticRegression(epsilon=ε) on the data as is
  smote    imblearn SMOTE, then PrivateLogisticRegression(epsilon=ε): the usual recipe,
           whose ε is not a real guarantee (Lut 2022, Theorem 3.2)
  dpsmote  DPSMOTE(epsilon=ε/4), then PrivateLogisticRegression(epsilon=ε/2): ε-DP in
           total (Theorem 3.3) under replace-one neighbours, where DPSMOTE's
           add/remove ε/4 counts ε/2 (group privacy); its synopsis is the DP
           mean of the malignant rows, or the noisy grid with --synopsis grid"""


def add_parser(subparsers, name: str = "demo"):
    """Register the showcase as a sub-command (``skdp-anomaly demo``)."""
    p = subparsers.add_parser(
        name,
        help="compare no resampling, SMOTE and DPSMOTE before a DP classifier",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(p)
    p.set_defaults(func=run)
    return p
