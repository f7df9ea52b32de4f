"""``skdp-anomaly resample``: DP-SMOTE over-sampling of a CSV file.

Runs :class:`~skdp_anomaly.DPSMOTE` on ``IN.csv`` (numeric features and one label
column) and writes the original rows, unchanged, then the synthetic ones to
``OUT.csv``. Reads with the csv module and numpy (pandas is not a runtime dependency).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import warnings

import numpy as np

from ._common import (
    CITE,
    LEAK_LINE,
    add_delimiter_option,
    add_random_state_option,
    bad_cell,
    check_delimiter,
    check_input_file,
    check_output_file,
    is_privacy_leak,
    library_calls,
    missing_column,
)

# show a progress bar for inputs larger than this many bytes
_PROGRESS_BYTES = 8 << 20
# defaults of the options that apply to one synopsis only (None on the parser, so
# that an option given for the other synopsis is an error, not silently ignored)
_GRID_DEFAULTS = {"granularity": 0.25, "connectivity": 2, "histogram": "auto"}
_GAUSSIAN_DEFAULTS = {"spread": 0.8}


def _granularity(text: str):
    """``--granularity``: a float in (0, 1] or ``auto`` (validated by DPSMOTE)."""
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a float in (0, 1] or 'auto', got {text!r}"
        ) from None


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "resample",
        help="over-sample the minority classes of a CSV file with DP-SMOTE",
        description=(
            f"Append differentially private synthetic minority rows (DP-SMOTE, after {CITE}, ch. "
            "3) to a CSV file. The synthetic rows are drawn from a DP synopsis of each minority "
            "class: its noisy mean (--synopsis gaussian, the default) or a noisy grid histogram "
            "(--synopsis grid, Algorithm 6 of the thesis). The synthetic rows and the printed "
            "summary are epsilon-DP under add/remove-one-record neighbours given public bounds; "
            "the original rows are copied unchanged."
        ),
    )
    p.add_argument("input", metavar="IN.csv", help="input CSV with a header row")
    p.add_argument("--target", required=True, metavar="COL", help="name of the label column")
    p.add_argument(
        "--epsilon",
        required=True,
        type=float,
        help="ε of the release, in [1e-6, 30] (the ε rule below)",
    )
    bounds = p.add_mutually_exclusive_group()
    bounds.add_argument(
        "--bounds",
        nargs=2,
        type=float,
        metavar=("LOW", "HIGH"),
        help="the same public range for every feature",
    )
    bounds.add_argument(
        "--bounds-file",
        metavar="FILE",
        help="CSV with header 'feature,lower,upper' and one row per feature",
    )
    p.add_argument(
        "--synopsis",
        choices=("gaussian", "grid"),
        default="gaussian",
        help="what is released per over-sampled class: 'gaussian' (its DP mean; "
        "synthetic rows drawn around it; default, best beyond a few "
        "features) or 'grid' (a noisy grid histogram, Algorithm 6)",
    )
    p.add_argument(
        "--spread",
        type=float,
        default=None,
        help="--synopsis gaussian: standard deviation of the synthetic rows as a "
        "fraction of each feature's half-range (default 0.8)",
    )
    p.add_argument(
        "--granularity",
        type=_granularity,
        default=None,
        help="--synopsis grid: cell width as a fraction of each feature's range, or 'auto' to "
        "choose it from the DP class size (default 0.25, as in Lut's thesis)",
    )
    p.add_argument(
        "--connectivity",
        type=int,
        default=None,
        help="--synopsis grid: neighbour cells at most this many grid edges away (default 2)",
    )
    p.add_argument(
        "--sampling-strategy",
        default="auto",
        metavar="S",
        help="'auto', 'minority', 'not minority', 'not majority', 'all', or a "
        "float ratio (binary targets); default 'auto'",
    )
    p.add_argument(
        "--public-counts",
        action="store_true",
        help="declare the class sizes public: exact sizes, full epsilon on the "
        "synopsis (the guarantee then does not cover the class sizes)",
    )
    p.add_argument(
        "--classes",
        nargs="+",
        metavar="LABEL",
        help="the public set of class labels (at least 2); without it the labels "
        "present in the data are used and treated as public",
    )
    p.add_argument(
        "--count-share",
        type=float,
        default=0.1,
        help="share of epsilon for the class sizes (default 0.1)",
    )
    p.add_argument(
        "--histogram",
        choices=("auto", "dense", "sparse"),
        default=None,
        help="--synopsis grid: how the noisy grid histogram is stored: 'dense' "
        "(every cell), 'sparse' (only cells above a noisy threshold, for many "
        "features) or 'auto' (dense while the grid is small; default)",
    )
    add_random_state_option(p, "seed, for reproducible experiments only (default: OS entropy)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.csv", help="output CSV")
    p.add_argument("--quiet", action="store_true", help="no summary, no progress bar")
    add_delimiter_option(p, "IN.csv and OUT.csv (not of --bounds-file)")
    p.set_defaults(func=run)


def _progress(iterable, total_bytes: int, desc: str, quiet: bool):
    if quiet or total_bytes < _PROGRESS_BYTES:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, file=sys.stderr, disable=None)


def _rows(reader, header, size, quiet):
    """``(line, row)`` of the data rows, checked for width; blank lines skipped."""
    for row in _progress(reader, size, "reading", quiet):
        if not row:
            continue
        if len(row) != len(header):
            raise ValueError(
                f"line {reader.line_num} has {len(row)} fields, the header has {len(header)}"
            )
        yield reader.line_num, row


_NEEDS_NUMBERS = (
    "DPSMOTE needs a finite number in every feature cell (encode or drop "
    "categorical columns; impute or drop incomplete rows)."
)


def _to_float(block, names, lines):
    """The block as floats, or an error naming the first bad cell's column and line."""
    try:
        X = np.array(block, dtype=np.float64)
    except ValueError:
        X = None
    if X is not None and np.isfinite(X).all():
        return X
    for line, row in zip(lines, block):
        for name, text in zip(names, row):
            problem = bad_cell(text, name, line)
            if problem:
                raise ValueError(f"{problem}; {_NEEDS_NUMBERS}")
    # every cell is a finite number to float(), only numpy's parser refused one
    return np.array([[float(text) for text in row] for row in block])


def _target_index(header, target: str, path: str, delimiter: str = ",") -> int:
    if target not in header:
        raise missing_column("--target", target, header, os.path.basename(path), delimiter)
    if header.count(target) > 1:
        raise ValueError(f"--target {target!r} appears more than once in the header")
    if len(header) < 2:
        raise ValueError("the input has no feature columns besides --target.")
    return header.index(target)


def _header(reader, path: str):
    try:
        return next(reader)
    except StopIteration:
        raise ValueError(f"{path} is empty; expected a header row.") from None


def read_header(path: str, target: str, delimiter: str = ","):
    """``(header, target_index)``: the schema only, no data row is read."""
    with open(path, newline="") as fh:
        header = _header(csv.reader(fh, delimiter=delimiter), path)
    return header, _target_index(header, target, path, delimiter)


def read_table(
    path: str, target: str, *, quiet: bool = True, chunk: int = 1 << 16, delimiter: str = ","
):
    """Read a CSV into ``(header, target_index, X, y)``, streaming in chunks of rows."""
    size = os.path.getsize(path)
    with open(path, newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        header = _header(reader, path)
        t = _target_index(header, target, path, delimiter)
        names = header[:t] + header[t + 1 :]
        parts, labels, block, lines = [], [], [], []
        for line, row in _rows(reader, header, size, quiet):
            labels.append(row[t])
            block.append(row[:t] + row[t + 1 :])
            lines.append(line)
            if len(block) == chunk:
                parts.append(_to_float(block, names, lines))
                block, lines = [], []
        if block:
            parts.append(_to_float(block, names, lines))
    if not labels:
        raise ValueError(f"{path} has no data rows.")
    return header, t, np.concatenate(parts), np.array(labels)


def read_bounds_file(path: str, features):
    """Per-feature ``(lower, upper)`` from a ``feature,lower,upper`` CSV."""
    where = f"--bounds-file {path}"
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None or not {"feature", "lower", "upper"} <= set(reader.fieldnames):
            raise ValueError(f"{where}: expected a header 'feature,lower,upper'.")
        table = {}
        for row in reader:
            try:
                table[row["feature"]] = (float(row["lower"]), float(row["upper"]))
            except (TypeError, ValueError):
                raise ValueError(
                    f"{where}: bounds of {row['feature']!r} are not numbers."
                ) from None
    missing = [f for f in features if f not in table]
    if missing:
        raise ValueError(f"{where}: no bounds for features {missing}.")
    extra = sorted(set(table) - set(features))
    if extra:
        raise ValueError(f"{where}: bounds given for unknown columns {extra}.")
    bad = [f for f in features if not (math.isfinite(sum(table[f])) and table[f][0] < table[f][1])]
    if bad:
        raise ValueError(
            f"{where}: each feature needs finite bounds with lower < upper; not so for {bad[:5]}."
        )
    lower = np.array([table[f][0] for f in features])
    upper = np.array([table[f][1] for f in features])
    return lower, upper


def _strategy(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def _synopsis_options(args: argparse.Namespace) -> dict:
    """The synopsis-specific parameters; an option of the other synopsis is an error."""
    own, other = (
        (_GAUSSIAN_DEFAULTS, _GRID_DEFAULTS)
        if args.synopsis == "gaussian"
        else (_GRID_DEFAULTS, _GAUSSIAN_DEFAULTS)
    )
    given = [name for name in other if getattr(args, name) is not None]
    if given:
        options = " and ".join(f"--{name}" for name in given)
        verb = "applies" if len(given) == 1 else "apply"
        needs = "grid" if args.synopsis == "gaussian" else "gaussian"
        raise ValueError(
            f"{options} {verb} to --synopsis {needs} only (got --synopsis {args.synopsis})."
        )
    values = {name: getattr(args, name) for name in own}
    return {
        name: default if values[name] is None else values[name] for name, default in own.items()
    }


def _checked_sampler(args: argparse.Namespace):
    """The sampler, once every option passed the checks that need no data (the
    estimator's own parameter validation included): before any read or charge."""
    from ..over_sampling import DPSMOTE

    check_input_file(args.input, "IN.csv")
    check_output_file(args.output, args.input)
    check_delimiter(args.delimiter)
    if args.bounds_file is not None:
        check_input_file(args.bounds_file, "--bounds-file")
    if args.bounds is not None:
        low, high = args.bounds
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError(f"--bounds LOW HIGH needs finite LOW < HIGH, got {low:g} {high:g}.")
    sampler = DPSMOTE(
        epsilon=args.epsilon,
        sampling_strategy=_strategy(args.sampling_strategy),
        bounds=None if args.bounds is None else tuple(args.bounds),
        synopsis=args.synopsis,
        **_synopsis_options(args),
        class_counts="public" if args.public_counts else "private",
        count_share=args.count_share,
        classes=args.classes,
        random_state=args.random_state,
    )
    with library_calls("resample"):
        # every parameter: ranges, the ε of each release, the label set against the strategy
        sampler.privacy_cost()
    return sampler


def _write(args, header, t, synth, labels) -> None:
    """The original rows, streamed again unchanged, then the synthetic rows."""
    chunk = 1 << 16
    starts = range(0, len(synth), chunk)
    with open(args.output, "w", newline="") as fh:
        writer = csv.writer(fh, delimiter=args.delimiter)
        writer.writerow(header)
        with open(args.input, newline="") as src:
            reader = csv.reader(src, delimiter=args.delimiter)
            next(reader)
            writer.writerows(row for row in reader if row)
        # numpy's str() of a float is its shortest round-trip repr
        for start in _progress(starts, synth.size * 10, "writing", args.quiet):
            block = synth[start : start + chunk].astype(str)
            writer.writerows(np.insert(block, t, labels[start : start + chunk], axis=1).tolist())


def _privacy_line(sampler, leaked: bool) -> str:
    """What the release guarantees; no ε when a leak warning voided it."""
    if not leaked:
        return f"privacy spent: {sampler.privacy_spent_}"
    if sampler.bounds is None:
        return (
            "privacy: NOT differentially private — the bounds were computed from the data "
            "(PrivacyLeakWarning); pass --bounds or --bounds-file from domain knowledge"
        )
    return LEAK_LINE


def _synopsis_lines(sampler, features) -> list:
    """What phase 1 released, in words (DP outputs and parameters only)."""
    if sampler.synopsis_ == "grid":
        cells = f"{sampler.n_cells_} cells per feature"
        return [f"  synopsis: grid histogram ({sampler.histogram_}), {cells}"]
    lines = [
        f"  synopsis: gaussian (DP class means; synthetic rows drawn around them with "
        f"spread {sampler.spread:g} of each feature's half-range)"
    ]
    for label, mean in sampler.noisy_means_.items():
        values = ", ".join(f"{name}={value:.4g}" for name, value in zip(features, mean))
        lines.append(f"  noisy mean of class {label!r}: {values}")
    return lines


def _print_summary(
    args, sampler, n_original: int, n_synthetic: int, leaked: bool, features=()
) -> None:
    err = sys.stderr
    # the exact number of rows is not a DP output unless the class sizes are public
    originals = f"{n_original} original" if args.public_counts else "the original rows"
    print(f"DPSMOTE: wrote {originals} + {n_synthetic} synthetic rows to {args.output}", file=err)
    print(f"  synthetic rows per class: {dict(sampler.sampling_strategy_)}", file=err)
    if hasattr(sampler, "noisy_class_counts_"):
        print(f"  noisy class sizes: {sampler.noisy_class_counts_}", file=err)
    else:
        print("  class sizes declared public (--public-counts)", file=err)
    for line in _synopsis_lines(sampler, features):
        print(line, file=err)
    print(f"  {_privacy_line(sampler, leaked)}", file=err)


def run(args: argparse.Namespace) -> int:
    sampler = _checked_sampler(args)
    # the schema, before any data row
    header, t = read_header(args.input, args.target, args.delimiter)
    features = header[:t] + header[t + 1 :]
    if args.bounds_file is not None:
        sampler.set_params(bounds=read_bounds_file(args.bounds_file, features))
        with library_calls("resample"):
            sampler.privacy_cost()  # the bounds fix the number of features: the grid's checks
    header, t, X, y = read_table(
        args.input, args.target, quiet=args.quiet, delimiter=args.delimiter
    )
    with library_calls("resample") as shown:
        warnings.simplefilter("always")  # every run's warnings, also when repeated
        X_res, y_res = sampler.fit_resample(X, y)
    _write(args, header, t, X_res[len(X) :], y_res[len(X) :])
    if not args.quiet:
        leaked = any(map(is_privacy_leak, shown))
        _print_summary(args, sampler, len(X), len(X_res) - len(X), leaked=leaked, features=features)
    return 0
