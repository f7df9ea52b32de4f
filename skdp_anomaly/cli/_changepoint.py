"""``skdp-anomaly changepoint``: private change points of one CSV column.

Runs :class:`~skdp_anomaly.PrivateChangePointDetector` offline or online and prints
every private change point (or that there is none) and the ε spent. Errors name rows
and columns, never data values.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

from ._common import (
    CITE,
    LEAK_LINE,
    add_delimiter_option,
    add_random_state_option,
    check_delimiter,
    check_input_file,
    finite_cell,
    header_row,
    is_privacy_leak,
    library_calls,
    missing_column,
    seed_note,
)

_PROGRESS_MIN_ROWS = 200_000
_CHUNK = 10_000
_NEEDS_NUMBERS = "the detector needs a finite number in every row."


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "changepoint",
        help="differentially private change points of one numeric CSV column",
        description=(
            "Estimate the change points of a numeric CSV column with ε-DP "
            f"({CITE}, ch. 2; neighbours: one row's value replaced). Offline: private "
            "binary segmentation with the Mann-Whitney rank statistic, several change "
            "points or none (a private test at false-alarm level --alpha). --online: "
            "ONLINEPNCPD over the rows as a stream: AboveThreshold 3ε/4 with the threshold "
            "calibrated to an average run length --arl0 between false alarms (or to --alpha "
            "over --horizon rows), then PNCPD ε/4; with --threshold, Algorithm 4's ε/2 + ε/2."
        ),
    )
    p.add_argument("input", metavar="IN.csv", help="CSV file with a header row")
    p.add_argument("--column", required=True, help="name of the numeric column to analyse")
    p.add_argument(
        "--epsilon",
        type=float,
        required=True,
        help="ε of the whole run, in [1e-6, 30] (the ε rule below)",
    )
    p.add_argument(
        "--n-change-points",
        type=_n_change_points,
        default="auto",
        help="'auto' (decided by the private test, default) or an exact number",
    )
    p.add_argument(
        "--max-change-points",
        type=int,
        default=10,
        help="at most this many change points with 'auto' (default 10)",
    )
    p.add_argument(
        "--min-size",
        type=int,
        default=None,
        help="shortest segment in rows (default: 5%% of the rows, at least 2)",
    )
    p.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="false-alarm level of the tests / of the online alarm within --horizon (default 0.05)",
    )
    p.add_argument(
        "--gamma", type=float, default=0.1, help="online constraint γ of ONLINEPNCPD (default 0.1)"
    )
    p.add_argument(
        "--direction",
        choices=("both", "increase", "decrease"),
        default="both",
        help="expected direction of the change (default: both)",
    )
    p.add_argument(
        "--index-column",
        default=None,
        help="public time/index column whose value at the change point is printed",
    )
    p.add_argument("--online", action="store_true", help="run ONLINEPNCPD over the rows")
    p.add_argument("--window", type=int, default=None, help="online window length n (even)")
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="online threshold T (default: calibrated to --arl0, or to --alpha over --horizon)",
    )
    p.add_argument(
        "--horizon",
        type=int,
        default=None,
        help="online: rows over which --alpha bounds false alarms, for a stream of "
        "known length (default: calibrate to --arl0 instead)",
    )
    p.add_argument(
        "--arl0",
        type=int,
        default=None,
        help="online: average run length to a false alarm, in rows (default 1000 windows)",
    )
    add_delimiter_option(p)
    add_random_state_option(p)
    p.set_defaults(func=run)


def _n_change_points(text: str):
    """``--n-change-points``: 'auto' or an int (its range is the detector's to check)."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        return text  # refused by privacy_cost() with the parameter's name


def read_column(path, column: str, *, delimiter: str = ",", index_column: str | None = None):
    """Read one numeric column (and optionally one index column, as strings).

    Returns ``(values, index_values)``; raises ValueError/FileNotFoundError
    with row/column positions but no data values.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    with path.open(newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        header = header_row(reader, path)
        positions = {}
        for name, flag in ((column, "--column"), (index_column, "--index-column")):
            if name is None:
                continue
            if name not in header:
                raise missing_column(flag, name, header, path.name, delimiter)
            positions[name] = header.index(name)
        col = positions[column]
        idx = positions.get(index_column)
        values, index_values = [], []
        for row in reader:
            line = reader.line_num
            if not row:
                raise ValueError(f"line {line} is empty.")
            if col >= len(row):
                raise ValueError(f"line {line} has no value for column {column!r}.")
            values.append(finite_cell(row[col], column, line, _NEEDS_NUMBERS))
            if idx is not None:
                index_values.append(row[idx] if idx < len(row) else "")
    if not values:
        raise ValueError(f"{path.name} has no data rows.")
    return np.asarray(values, dtype=np.float64), (index_values if idx is not None else None)


def _feed_online(det, x):
    from tqdm import tqdm

    # disable=None: no bar unless stderr is a terminal (see the online-svc command)
    disable = True if x.size < _PROGRESS_MIN_ROWS else None
    with tqdm(
        total=x.size, unit="row", desc="ONLINEPNCPD", file=sys.stderr, disable=disable
    ) as bar:
        for start in range(0, x.size, _CHUNK):
            det.partial_fit(x[start : start + _CHUNK])
            bar.update(min(_CHUNK, x.size - start))
            if det.detected_:
                break
    return det


def _checked_detector(args):
    """The detector, once every option passed the checks that need no data (the
    estimator's own parameter validation included): before any read or charge."""
    from ..changepoint import PrivateChangePointDetector

    check_input_file(args.input, "IN.csv")
    check_delimiter(args.delimiter)
    if args.online and args.window is None:
        raise ValueError("--online needs --window N.")
    online_only = (args.window, args.threshold, args.horizon, args.arl0)
    if not args.online and any(value is not None for value in online_only):
        raise ValueError("--window, --threshold, --horizon and --arl0 are for --online mode.")
    det = PrivateChangePointDetector(
        epsilon=args.epsilon,
        n_change_points=args.n_change_points,
        max_change_points=args.max_change_points,
        min_size=args.min_size,
        alpha=args.alpha,
        gamma=args.gamma,
        direction=args.direction,
        window=args.window,
        threshold=args.threshold,
        horizon=args.horizon,
        arl0=args.arl0,
        random_state=args.random_state,
    )
    with library_calls("changepoint"):
        det.privacy_cost()  # every parameter check: ranges, even window, γ < 1/4 online
    return det


def _print_result(args, det, n_rows: int, index_values, leaked: bool) -> None:
    mode = (
        "ONLINEPNCPD (Algorithm 4)"
        if args.online
        else "private binary segmentation (rank statistic)"
    )
    print(f"method: {mode}, column {args.column!r}, {n_rows} rows")
    if args.online:
        print(
            f"threshold: {det.threshold_:.6g}" + (" (calibrated)" if args.threshold is None else "")
        )
    if getattr(det, "alarm_at_", None) is not None:
        print(
            f"alarm raised on reading data row {det.alarm_at_} (0-based; the alarming "
            f"window is centred on row {det.alarm_index_})"
        )
    if det.detected_:
        print(f"change points: {det.n_change_points_}")
        for k, direction in zip(det.change_points_.tolist(), det.directions_.tolist()):
            line = (
                f"change point: data row {k} (0-based) starts a new segment; "
                f"{k} rows before it; direction: {direction}"
            )
            if index_values is not None and k < len(index_values):
                line += f"; {args.index_column}: {index_values[k]}"
            print(line)
    else:
        print(f"no change detected in {det.n_seen_} rows")
        if args.online and det.n_seen_ < det.window:
            print(_window_not_filled(det.window, det.n_seen_))
        if det.alarm_index_ is not None:
            print("the input ended before PNCPD's window after the alarm was complete")
    if leaked:  # a leak voids the ε: do not print one
        print(LEAK_LINE)
    else:
        print(
            f"privacy spent: {det.privacy_spent_} "
            f"(budget of a full run: ε={det.privacy_cost().epsilon:g})"
        )
    seed_note(args)


def _window_not_filled(window: int, n_rows: int) -> str:
    """The hint that a "no change" was never tested: the stream ended before the window filled."""
    longest = n_rows - n_rows % 2  # the window is even
    fix = (
        f"use --window {longest} or less"
        if longest >= 4
        else "ONLINEPNCPD needs a window of at least 4 rows"
    )
    return (
        f"note: the window ({window} rows) is longer than the stream ({n_rows} rows): no "
        f"window was complete, so nothing was tested; {fix}"
    )


def run(args) -> int:
    det = _checked_detector(args)
    x, index_values = read_column(
        args.input, args.column, delimiter=args.delimiter, index_column=args.index_column
    )
    with library_calls("changepoint") as shown:
        if args.online:
            _feed_online(det, x)
        else:
            det.fit(x)
    _print_result(args, det, x.size, index_values, leaked=any(map(is_privacy_leak, shown)))
    return 0
