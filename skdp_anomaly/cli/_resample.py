"""``skdp-anomaly resample``: DP-SMOTE over-sampling of a CSV file.

Reads ``IN.csv`` (header row; numeric feature columns plus one label
column), runs :class:`~skdp_anomaly.over_sampling.DPSMOTE` and writes the
original rows, unchanged, followed by the synthetic rows to ``OUT.csv`` with
the same columns. Uses only the csv module and numpy (pandas is not a
runtime dependency).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import warnings

import numpy as np

# show a progress bar for inputs larger than this many bytes
_PROGRESS_BYTES = 8 << 20


def _granularity(text: str):
    """``--granularity``: a float in (0, 1] or ``auto`` (validated by DPSMOTE)."""
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a float in (0, 1] or 'auto', got {text!r}") from None


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "resample",
        help="over-sample the minority classes of a CSV file with DP-SMOTE",
        description=(
            "Append differentially private synthetic minority rows (DP-SMOTE, thesis "
            "Algorithm 6) to a CSV file. The synthetic rows and the printed summary are "
            "epsilon-DP under add/remove-one-record neighbours given public bounds; the "
            "original rows are copied unchanged."
        ),
    )
    p.add_argument("input", metavar="IN.csv", help="input CSV with a header row")
    p.add_argument("--target", required=True, metavar="COL", help="name of the label column")
    p.add_argument("--epsilon", required=True, type=float, help="privacy budget (> 0)")
    bounds = p.add_mutually_exclusive_group()
    bounds.add_argument("--bounds", nargs=2, type=float, metavar=("LOW", "HIGH"),
                        help="the same public range for every feature")
    bounds.add_argument("--bounds-file", metavar="FILE",
                        help="CSV with header 'feature,lower,upper' and one row per feature")
    p.add_argument("--granularity", type=_granularity, default=0.25,
                   help="cell width as a fraction of each feature's range, or 'auto' to "
                        "choose it from the DP class size (default 0.25, the thesis')")
    p.add_argument("--connectivity", type=int, default=2,
                   help="neighbour cells at most this many grid edges away (default 2)")
    p.add_argument("--sampling-strategy", default="auto", metavar="S",
                   help="'auto', 'minority', 'not minority', 'not majority', 'all', or a "
                        "float ratio (binary targets); default 'auto'")
    p.add_argument("--public-counts", action="store_true",
                   help="declare the class sizes public: exact sizes, full epsilon on the "
                        "histograms (the guarantee then does not cover the class sizes)")
    p.add_argument("--classes", nargs="+", metavar="LABEL",
                   help="the public set of class labels (at least 2); without it the labels "
                        "present in the data are used and treated as public")
    p.add_argument("--count-share", type=float, default=0.1,
                   help="share of epsilon for the class sizes (default 0.1)")
    p.add_argument("--histogram", choices=("auto", "dense", "sparse"), default="auto")
    p.add_argument("--random-state", type=int, default=None,
                   help="seed, for reproducible experiments only (default: OS entropy)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.csv", help="output CSV")
    p.add_argument("--quiet", action="store_true", help="no summary, no progress bar")
    p.set_defaults(func=run)


def _progress(iterable, total_bytes: int, desc: str, quiet: bool):
    if quiet or total_bytes < _PROGRESS_BYTES:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, file=sys.stderr, disable=None)


def _rows(reader, header, size, quiet):
    """Data rows with their line numbers, checked for width, blank lines skipped."""
    for line, row in enumerate(_progress(reader, size, "reading", quiet), start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise ValueError(f"line {line} has {len(row)} fields, the header has {len(header)}")
        yield row


def _to_float(block, names):
    try:
        X = np.array(block, dtype=np.float64)
    except ValueError:
        # find the column, never echo the offending value: it is data
        for j, name in enumerate(names):
            try:
                np.array([r[j] for r in block], dtype=np.float64)
            except ValueError:
                raise ValueError(
                    f"column {name!r} is not numeric; DPSMOTE supports numeric features "
                    "only (categorical data is out of scope: encode it or drop the column)."
                ) from None
        raise
    bad = ~np.all(np.isfinite(X), axis=0)
    if bad.any():
        raise ValueError(f"column {names[int(np.argmax(bad))]!r} has NaN or infinite values.")
    return X


def read_table(path: str, target: str, *, quiet: bool = True, chunk: int = 1 << 16):
    """Read a CSV into ``(header, target_index, X, y)``, streaming in chunks of rows."""
    size = os.path.getsize(path)
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise ValueError(f"{path} is empty; expected a header row.") from None
        if target not in header:
            raise ValueError(f"target column {target!r} not found; columns are {header}")
        if header.count(target) > 1:
            raise ValueError(f"target column {target!r} appears more than once in the header")
        t = header.index(target)
        names = header[:t] + header[t + 1:]
        if not names:
            raise ValueError("the input has no feature columns besides the target.")
        parts, labels, block = [], [], []
        for row in _rows(reader, header, size, quiet):
            labels.append(row[t])
            block.append(row[:t] + row[t + 1:])
            if len(block) == chunk:
                parts.append(_to_float(block, names))
                block = []
        if block:
            parts.append(_to_float(block, names))
    if not labels:
        raise ValueError(f"{path} has no data rows.")
    return header, t, np.concatenate(parts), np.array(labels)


def read_bounds_file(path: str, features):
    """Per-feature ``(lower, upper)`` from a ``feature,lower,upper`` CSV."""
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None or not {"feature", "lower", "upper"} <= set(reader.fieldnames):
            raise ValueError(f"{path}: expected a header 'feature,lower,upper'.")
        table = {}
        for row in reader:
            try:
                table[row["feature"]] = (float(row["lower"]), float(row["upper"]))
            except (TypeError, ValueError):
                raise ValueError(f"{path}: bounds of {row['feature']!r} are not numbers.") from None
    missing = [f for f in features if f not in table]
    if missing:
        raise ValueError(f"{path}: no bounds for features {missing}.")
    extra = sorted(set(table) - set(features))
    if extra:
        raise ValueError(f"{path}: bounds given for unknown columns {extra}.")
    lower = np.array([table[f][0] for f in features])
    upper = np.array([table[f][1] for f in features])
    return lower, upper


def _strategy(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def run(args: argparse.Namespace) -> int:
    from ..over_sampling import DPSMOTE

    if os.path.abspath(args.output) == os.path.abspath(args.input):
        raise ValueError("the output file must differ from the input file.")
    header, t, X, y = read_table(args.input, args.target, quiet=args.quiet)
    features = header[:t] + header[t + 1:]
    if args.bounds is not None:
        bounds = tuple(args.bounds)
    elif args.bounds_file is not None:
        bounds = read_bounds_file(args.bounds_file, features)
    else:
        bounds = None
    sampler = DPSMOTE(
        epsilon=args.epsilon, sampling_strategy=_strategy(args.sampling_strategy),
        bounds=bounds, granularity=args.granularity, connectivity=args.connectivity,
        class_counts="public" if args.public_counts else "private",
        count_share=args.count_share, histogram=args.histogram,
        classes=args.classes, random_state=args.random_state,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X_res, y_res = sampler.fit_resample(X, y)
    for w in caught:
        print(f"skdp-anomaly resample: warning: {w.message}", file=sys.stderr)

    synth, labels = X_res[len(X):], y_res[len(X):]
    chunk = 1 << 16
    starts = range(0, len(synth), chunk)
    with open(args.output, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        with open(args.input, newline="") as src:  # the original rows, streamed again
            reader = csv.reader(src)
            next(reader)
            writer.writerows(row for row in reader if row)
        # numpy's str() of a float is its shortest round-trip repr
        for start in _progress(starts, synth.size * 10, "writing", args.quiet):
            block = synth[start:start + chunk].astype(str)
            writer.writerows(np.insert(block, t, labels[start:start + chunk], axis=1).tolist())

    if not args.quiet:
        spent = sampler.privacy_spent_
        # the exact number of rows is not a DP output unless the class sizes are public
        originals = f"{len(X)} original" if args.public_counts else "the original rows"
        print(f"DPSMOTE: wrote {originals} + {len(synth)} synthetic rows to {args.output}",
              file=sys.stderr)
        print(f"  synthetic rows per class: {dict(sampler.sampling_strategy_)}", file=sys.stderr)
        if hasattr(sampler, "noisy_class_counts_"):
            print(f"  noisy class sizes: {sampler.noisy_class_counts_}", file=sys.stderr)
        else:
            print("  class sizes declared public (--public-counts)", file=sys.stderr)
        print(f"  histogram: {sampler.histogram_}, {sampler.n_cells_} cells per feature; "
              f"privacy spent: {spent}", file=sys.stderr)
    return 0
