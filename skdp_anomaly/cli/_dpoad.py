"""``skdp-anomaly dpoad``: private outsourced anomaly detection over the windows of a CSV file.

Groups the records by ``--window-column`` and runs :class:`~skdp_anomaly.DPOAD`, one
``partial_fit`` per window in sorted window order. Prints only public inputs and what
the analyst received or derived from the releases (never a window's record count or
true counts); errors name lines and columns, never data values.
"""

from __future__ import annotations

import csv
import json
import math
import warnings
from pathlib import Path

import numpy as np

from ._common import (
    LEAK_LINE,
    add_delimiter_option,
    add_random_state_option,
    check_delimiter,
    check_input_file,
    check_output_file,
    finite_cell,
    header_row,
    is_privacy_leak,
    library_calls,
    missing_column,
    seed_note,
)

_CITE = (
    "Mohammady, Wang, Wang and Zhang, DPOAD: Differentially Private Outsourcing of "
    "Anomaly Detection through Iterative Sensitivity Learning"
)
_BINS_SYNTAX = (
    "comma-separated increasing edges such as 0,1,2,5,10, START:STOP:COUNT for "
    "numpy.linspace(START, STOP, COUNT), i.e. COUNT edges and COUNT-1 equal bins, "
    "such as 0:10:11, or a number of equal bins with their public --range, such "
    "as 10 --range 0:10 (the same bins as 0:10:11)"
)
# why a count of bins needs a range the user states
_RANGE_IS_PUBLIC = (
    "The range must be public, from domain knowledge: it is never read from the data, whose "
    "minimum and maximum would then be released with the bins, outside any ε."
)
_NEEDS_NUMBERS = "DPOAD needs a finite number in every record."


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "dpoad",
        help="flag anomalous (window, bin) counts of a CSV file with DPOAD's private histograms",
        description=(
            f"Outsourced anomaly detection over windowed histograms ({_CITE}). The records of each "
            "window (one value of --window-column) are counted in the public --bins; only the "
            "privatised counts reach the analyst, which learns each cell's count rate from the "
            "first --learning-windows windows and flags the (window, bin) cells whose noisy count "
            "is improbable under that rate with the known noise added, at a false-alarm level "
            "--alpha per window. Prints the privacy guarantee, then one line per window: the "
            "cells flagged, each with its noisy count and the expected count, and the sensitivity "
            "used. Windows are processed in sorted order of their label (numerically when every "
            "label is a number, as text otherwise: ISO dates and times sort correctly); the "
            "labels and the bins are treated as public and printed. The default mechanism, "
            "record, protects one record with pure epsilon-DP per window; the paper's mechanisms "
            "(dpoad, painfree, laplace) protect one contributor's count cell (up to --max-count "
            "records of one window-bin), dpoad and painfree only with (epsilon, gamma)-random DP, "
            "and cells with high (anomalous) counts are deliberately not protected. Windows "
            "compose sequentially: the total is the number of windows times --epsilon (and times "
            "gamma, which must stay below 1)."
        ),
    )
    p.add_argument("input", metavar="IN.csv", help="CSV file with a header row, one record a row")
    p.add_argument(
        "--column",
        dest="columns",
        action="append",
        required=True,
        metavar="COL",
        help="name of a numeric record column; repeat for several features (the "
        "cells are then the product of their bins)",
    )
    p.add_argument(
        "--window-column",
        required=True,
        metavar="W",
        help="name of the column whose value says which time window a record "
        "belongs to, such as its hour or day. The labels are printed, so they "
        "must be public: not per-record time stamps",
    )
    p.add_argument(
        "--bins",
        action="append",
        required=True,
        metavar="EDGES|COUNT",
        help=f"the public bin edges of a --column, once per --column in the same "
        f"order: {_BINS_SYNTAX}. Bins are [a, b) except the last, which "
        "includes its right edge; a record outside counts in the nearest "
        "edge bin. A negative first edge works as is: --bins -5:5:11",
    )
    p.add_argument(
        "--range",
        dest="ranges",
        action="append",
        default=None,
        metavar="LOW:HIGH",
        help="the public range of the equal bins of a --bins given as a count: "
        "once for every such --bins, or once per such --bins in the same "
        "order; LOW < HIGH, finite. From domain knowledge, never from the "
        "data: the data's minimum and maximum would be released with the bins",
    )
    p.add_argument(
        "--epsilon",
        required=True,
        type=float,
        help="ε spent on each window, in [1e-6, 30] (the ε rule below)",
    )
    p.add_argument(
        "--mechanism",
        choices=("record", "dpoad", "painfree", "laplace"),
        default="record",
        help="record: sensitivity 1, protecting one record (pure epsilon-DP; right when each "
        "record is a different person); dpoad: Pain-Free for --learning-windows windows, then the "
        "analyst-learnt sensitivity; painfree: the sampled sensitivity in every window; laplace: "
        "the global sensitivity --max-count (default: record)",
    )
    p.add_argument(
        "--detector",
        choices=("baseline", "kse"),
        default="baseline",
        help="baseline: each cell tested against its rate learnt from the learning windows, at "
        "the false-alarm level --alpha; kse: the paper's KSE score over the pooled counts against "
        "--threshold, which flags cells in every window (default: baseline)",
    )
    p.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="baseline detector: the false-alarm level, the probability that a "
        "window with no anomaly has any cell flagged, in (0, 1) (default 0.05)",
    )
    p.add_argument(
        "--max-count",
        type=int,
        default=None,
        metavar="C",
        help="public cap of a cell count (>= 1): the count domain is {0..C}, larger "
        "counts are clipped. Without it each window's record count is used, "
        "which is read from the data and released (a PrivacyLeakWarning)",
    )
    p.add_argument(
        "--gamma",
        type=float,
        default=0.05,
        help="random-DP confidence γ in (0, 1) of dpoad and painfree: ε-DP may fail "
        "for a γ-fraction of neighbouring pairs (default 0.05)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=0.9,
        help="kse detector: threshold T in [0, 1) on the normalised scores (default 0.9)",
    )
    p.add_argument(
        "--count-model",
        choices=("overdispersed", "multinomial", "poisson"),
        default="overdispersed",
        help="baseline detector, what a window with no anomaly looks like: overdispersed: each "
        "cell's learnt share of the window's noisy total, varying between windows as much as "
        "between the learning windows (needs --learning-windows >= 2); multinomial: the same "
        "shares, records i.i.d. (volume may vary); poisson: a fixed rate per cell, for constant "
        "volume (default: overdispersed)",
    )
    p.add_argument(
        "--learning-windows",
        type=int,
        default=3,
        metavar="N",
        help="the first N windows: the baseline detector learns from them (they "
        "are not tested), and dpoad releases them with Pain-Free (default 3)",
    )
    p.add_argument(
        "--sensitivity-samples",
        type=int,
        default=100_000,
        metavar="M",
        help="candidates drawn for dpoad's learnt sensitivity (default 100000)",
    )
    p.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="FILE.json",
        help="also write the windows, the cells flagged, the privacy guarantee and "
        "every message the analyst received or sent back (needs --max-count)",
    )
    add_random_state_option(p)
    add_delimiter_option(p)
    p.set_defaults(func=run)


# ---------------------------------------------------------------------- bins
def is_count(text: str) -> bool:
    """Whether a ``--bins`` value is a number of bins (no ':' or ',') rather than edges."""
    return ":" not in text and "," not in text


def parse_range(text: str) -> tuple[float, float]:
    """``--range LOW:HIGH``: two finite numbers, ``LOW < HIGH``.

    >>> parse_range("-5:5")
    (-5.0, 5.0)
    """
    try:
        low, high = (float(part) for part in text.split(":"))
    except ValueError:
        raise ValueError(f"--range {text!r}: expected LOW:HIGH, such as 0:100.") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"--range {text!r}: LOW and HIGH must be finite with LOW < HIGH.")
    return low, high


def _count_edges(text: str, value_range) -> np.ndarray:
    """``COUNT`` equal bins over ``value_range``: ``COUNT + 1`` edges."""
    try:
        count = int(text)
    except ValueError:
        raise ValueError(
            f"--bins {text!r}: a number of bins is an integer >= 1; as edges, "
            f"expected {_BINS_SYNTAX}."
        ) from None
    if count < 1:
        raise ValueError(f"--bins {text!r}: a number of bins is an integer >= 1.")
    if value_range is None:
        raise ValueError(
            f"--bins {text} is a number of bins and needs their range: add "
            f"--range LOW:HIGH, such as --range 0:100. {_RANGE_IS_PUBLIC}"
        )
    return np.linspace(*value_range, count + 1)


def parse_bins(text: str, value_range: tuple[float, float] | None = None) -> np.ndarray:
    """``--bins``: ``0,1,2,5,10``, ``START:STOP:COUNT`` (:func:`numpy.linspace`) or a
    number of bins over the public ``value_range`` (``--range``).

    >>> parse_bins("0,1,2,5").tolist()
    [0.0, 1.0, 2.0, 5.0]
    >>> parse_bins("0:1:5").tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> parse_bins("4", (0, 1)).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    if is_count(text):
        edges = _count_edges(text, value_range)
    else:
        edges = _parse_edges(text)
    if edges.size < 2:
        raise ValueError(f"--bins {text!r}: needs at least two edges (one bin).")
    if not (np.all(np.isfinite(edges)) and np.all(np.diff(edges) > 0)):
        raise ValueError(f"--bins {text!r}: the edges must be finite and strictly increasing.")
    return edges


def resolve_bins(bins: list, ranges: list | None) -> list:
    """The edges of every ``--bins``; each ``--range`` goes to a ``--bins`` COUNT.

    One ``--range`` serves every count; several pair with the counts in order.

    >>> [e.tolist() for e in resolve_bins(["2", "0,1,3", "1"], ["0:1"])]
    [[0.0, 0.5, 1.0], [0.0, 1.0, 3.0], [0.0, 1.0]]
    """
    ranges = [parse_range(text) for text in ranges or []]
    counts = [i for i, text in enumerate(bins) if is_count(text)]
    if ranges and not counts:
        raise ValueError(
            "--range is for a --bins given as a number of bins (such as --bins 20 "
            "--range 0:100); every --bins here gives its edges."
        )
    if len(ranges) > 1 and len(ranges) != len(counts):
        raise ValueError(
            f"--range is given {len(ranges)} times for {len(counts)} --bins given as a number of "
            "bins: give it once for all of them, or once per such --bins in the same order."
        )
    range_of = dict(zip(counts, ranges * len(counts) if len(ranges) == 1 else ranges))
    return [parse_bins(text, range_of.get(i)) for i, text in enumerate(bins)]


def _parse_edges(text: str) -> np.ndarray:
    """``START:STOP:COUNT`` or comma-separated edges."""
    try:
        if ":" in text:
            start, stop, count = text.split(":")
            start, stop, count = float(start), float(stop), int(count)
            # linspace over an infinite range warns before the check below refuses it
            finite = math.isfinite(stop - start)
            edges = np.linspace(start, stop, count) if finite else np.array([start, stop])
        else:
            edges = np.array([float(edge) for edge in text.split(",")])
    except ValueError:
        raise ValueError(f"--bins {text!r}: expected {_BINS_SYNTAX}.") from None
    return edges


def _number(value: float) -> str:
    return f"{value:.10g}"


def _interval(edges: np.ndarray, j: int) -> str:
    """Bin ``j`` as numpy.histogramdd counts it: ``[a, b)``, the last one ``[a, b]``."""
    close = "]" if j == edges.size - 2 else ")"
    return f"[{_number(edges[j])}, {_number(edges[j + 1])}{close}"


def _cell_text(cell: int, edges: list, columns: list) -> str:
    index = np.unravel_index(cell, [e.size - 1 for e in edges])
    if len(edges) == 1:
        return _interval(edges[0], int(index[0]))
    return " × ".join(f"{name} {_interval(e, int(j))}" for name, e, j in zip(columns, edges, index))


# ------------------------------------------------------------------- reading
def _positions(
    header: list, columns: list, window_column: str, name: str, delimiter: str = ","
) -> list:
    positions = []
    for column, flag in [*((c, "--column") for c in columns), (window_column, "--window-column")]:
        if column not in header:
            raise missing_column(flag, column, header, name, delimiter)
        positions.append(header.index(column))
    return positions


def _window_order(labels) -> list:
    """Numerically when every label is a finite number, else as text."""
    try:
        keys = {label: float(label) for label in labels}
    except ValueError:
        return sorted(labels)
    if not all(map(math.isfinite, keys.values())):
        return sorted(labels)
    return sorted(labels, key=lambda label: (keys[label], label))


def read_windows(path, columns: list, window_column: str, *, delimiter: str = ","):
    """The records grouped by window: ``(labels, windows)`` in window order.

    ``windows[i]`` is a float array of shape ``(n_records, len(columns))``. Raises ValueError naming
    the line and column of a bad cell, but never its value. Records are not checked against the
    bins: DPOAD counts one outside them in the nearest edge bin (an error would let one record
    change the output).
    """
    path = Path(path)
    with path.open(newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        header = header_row(reader, path)
        *features, w = _positions(header, columns, window_column, path.name, delimiter)
        cells = list(zip(features, columns))
        groups: dict = {}
        for row in reader:
            if not row:
                continue  # a blank line holds no record
            line = reader.line_num
            if max(*features, w) >= len(row):
                raise ValueError(f"line {line} has {len(row)} fields, the header {len(header)}.")
            label = row[w].strip()
            if not label:
                raise ValueError(
                    f"column {window_column!r} has a missing value on line "
                    f"{line}; every record needs a window."
                )
            record = [finite_cell(row[j], name, line, _NEEDS_NUMBERS) for j, name in cells]
            groups.setdefault(label, []).append(record)
    if not groups:
        raise ValueError(f"{path.name} has no data rows.")
    labels = _window_order(groups)
    return labels, [np.asarray(groups[label], dtype=np.float64) for label in labels]


# ------------------------------------------------------------ before the data
def _checked_detector(args):
    """The detector and its bins, once every option passed the checks that need no data
    (the parameters, the sampler's (m, k) for these γ and ε): before any read or charge."""
    from ..dpoad import DPOAD

    check_input_file(args.input, "IN.csv")
    check_delimiter(args.delimiter)
    if args.output is not None:
        check_output_file(args.output, args.input)
        if args.max_count is None:
            raise ValueError(
                "-o/--output needs --max-count: without it every release holds "
                "its window's record count."
            )
    if len(args.bins) != len(args.columns):
        raise ValueError(
            f"--bins is given {len(args.bins)} time(s) for {len(args.columns)} "
            "--column(s): give one --bins per --column, in the same order."
        )
    twice = sorted({c for c in args.columns if args.columns.count(c) > 1})
    if twice:
        raise ValueError(f"--column {twice[0]!r} is given more than once.")
    edges = resolve_bins(args.bins, args.ranges)
    det = DPOAD(
        edges,
        epsilon=args.epsilon,
        gamma=args.gamma,
        mechanism=args.mechanism,
        detector=args.detector,
        alpha=args.alpha,
        count_model=args.count_model,
        max_count=args.max_count,
        threshold=args.threshold,
        learning_windows=args.learning_windows,
        sensitivity_samples=args.sensitivity_samples,
        random_state=args.random_state,
    )
    with library_calls("dpoad"):
        # parameters, the sampler's (m, k) of Thm II.2 / IV.2 and the noise limits
        det.privacy_cost()
    return det, edges


# ------------------------------------------------------------------- fitting
def _fit_windows(det, windows) -> None:
    """One ``partial_fit`` per window; each distinct warning shown once, not once a window. Call
    inside :func:`library_calls`: it shows and counts every warning, leaks included, whatever the
    filters say."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for X in windows:
            det.partial_fit(X)
    first = {}
    for w in caught:
        first.setdefault((str(w.message), w.category), w.message)
    for (_, category), message in first.items():
        warnings.showwarning(message, category, __file__, 0)


# ------------------------------------------------------------------ printing
_UNIT = {
    "record": "one record, added or removed (a cell count changes by 1)",
    "cell": "one contributor's count cell (up to {cap} records of one window-bin), added or "
    "removed",
}
_RANDOM_DP = (
    "(ε, γ)-random DP: ε-DP holds for all but a γ-fraction of neighbouring pairs drawn from "
    "{pairs}; cells with high (anomalous) counts are deliberately not protected"
)
_PAIRS = {
    "painfree": "the uniform count domain",
    "dpoad": "the uniform count domain (learning windows), then the analyst-learnt "
    "count distribution",
}


def _unit(args) -> str:
    cap = "--max-count" if args.max_count is None else f"--max-count {args.max_count}"
    return _UNIT["record" if args.mechanism == "record" else "cell"].format(cap=cap)


def _privacy_lines(args, det, leaked: bool) -> list:
    lines = [f"unit protected: {_unit(args)}"]
    if leaked:  # a leak voids the ε: do not print one
        if args.max_count is None:
            lines.append(
                "privacy: NOT differentially private — without --max-count each "
                "window's count domain is its record count, read from the data and "
                "released (PrivacyLeakWarning); pass a public --max-count"
            )
        else:
            lines.append(LEAK_LINE)
        return lines
    cost = det.privacy_cost()
    notion = (
        _RANDOM_DP.format(pairs=_PAIRS[args.mechanism]) if cost.gamma else "pure ε-DP for that unit"
    )
    lines.append(f"privacy per window: {_budget(cost)}, {notion}")
    spent = det.privacy_spent_
    lines.append(
        f"privacy spent: {_budget(spent)} ({spent.notion}) over {det.n_windows_} windows, "
        "composed sequentially (a contributor may appear in every window)"
    )
    lines.append(_meaning(args, cost, spent))
    return lines


def _budget(cost) -> str:
    return f"ε={cost.epsilon:g}" + (f", γ={cost.gamma:g}" if cost.gamma else "")


def _meaning(args, cost, spent) -> str:
    """What the guarantee says, in one line."""
    if args.mechanism == "record":
        return (
            f"meaning: adding or removing any one record changes the probability of "
            f"anything this run outputs by a factor of at most e^{cost.epsilon:g} = "
            f"{math.exp(cost.epsilon):.3g}; a person with records in k windows: "
            f"e^(k·{cost.epsilon:g})"
        )
    if not cost.gamma:
        return (
            f"meaning: adding or removing one count cell changes the probability of "
            f"anything this run outputs by a factor of at most e^{spent.epsilon:g}"
        )
    return (
        f"meaning: for all but a fraction {spent.gamma:.3g} of the count cells drawn "
        f"from {_PAIRS[args.mechanism]}, adding or removing the cell changes the "
        f"probability of anything this run outputs by a factor of at most "
        f"e^{spent.epsilon:g}; for the other cells there is no bound"
    )


def _detector_line(args, det) -> str:
    if args.detector == "kse":
        return (
            f"detector: kse (the paper's rule), threshold {args.threshold:g} on the normalised "
            "scores; it has no false-alarm level and flags cells in windows with no anomaly too"
        )
    line = (
        f"detector: baseline, false-alarm level alpha={args.alpha:g} per window; the first "
        f"{args.learning_windows} window(s) teach the baseline ({args.count_model} "
        "counts) and are not tested"
    )
    if math.isfinite(det.detectable_excess_):
        line += (
            f"; a typical cell is flagged when its count exceeds its expected count by "
            f"about {det.detectable_excess_:.3g}"
        )
    return line


def _sensitivity_text(args, release) -> str:
    if args.max_count is None and args.mechanism != "record":
        # derived from the window's record count: not printed
        return "sensitivity not shown (it depends on the record count without --max-count)"
    if release.space == "disentangled":
        return (
            f"sensitivity Δ={release.sensitivity:.4g} on the disentangled scale g(count) "
            f"in [0, 1] ({release.phase})"
        )
    return f"sensitivity Δ={release.sensitivity:.4g} counts ({release.phase})"


def _cell_entries(anomalies, release, report) -> list:
    """``(cell, noisy count, expected count)`` of each flagged cell."""
    from ..dpoad._analyst import release_counts

    noisy, _ = release_counts(release)  # count units, as the analyst tests them
    expected = report.expected_counts
    return [
        (int(c), float(noisy[c]), None if expected is None else float(expected[c]))
        for c in np.flatnonzero(anomalies)
    ]


def _window_line(args, label, anomalies, release, report, edges) -> str:
    cells = []
    for cell, noisy, expected in _cell_entries(anomalies, release, report):
        values = f"noisy count {noisy:.4g}" + (
            "" if expected is None else f", expected {expected:.4g}"
        )
        cells.append(f"{_cell_text(cell, edges, args.columns)} ({values})")
    flagged = f"{len(cells)} flagged" + (f" {'; '.join(cells)}" if cells else "")
    if args.detector == "baseline" and report.p_values is None:
        flagged += " (learning window: not tested)"
    return f"window {label}: {flagged} | {_sensitivity_text(args, release)}"


def _windows(det, labels):
    """``(label, anomalies, release, report)`` of each window."""
    return zip(labels, det.anomalies_, det.releases_, det.reports_)


def _print_result(args, det, labels, edges, leaked: bool) -> None:
    names = ", ".join(repr(c) for c in args.columns)
    print(
        f"DPOAD, mechanism {args.mechanism}: {det.n_windows_} windows of {names} over "
        f"{det.n_bins_} cells"
    )
    for line in _privacy_lines(args, det, leaked):
        print(line)
    print(_detector_line(args, det))
    for label, anomalies, release, report in _windows(det, labels):
        print(_window_line(args, label, anomalies, release, report, edges))
    flagged = [label for label, hit in zip(labels, det.anomalous_windows_) if hit]
    print(
        f"anomalous windows: {len(flagged)} of {det.n_windows_}"
        + (f": {', '.join(flagged)}" if flagged else "")
    )
    if args.output is not None:
        print(f"wrote {args.output}")
    seed_note(args)


def _cost_dict(cost) -> dict:
    # the unit protected is stated beside it: the cost's own relation names records
    return {"epsilon": cost.epsilon, "gamma": cost.gamma, "notion": cost.notion}


def _write_json(args, det, labels, edges, leaked: bool) -> None:
    from ..dpoad import to_json

    windows = [
        {
            "label": label,
            "phase": release.phase,
            "sensitivity": release.sensitivity,
            "tested": report.p_values is not None,
            "flagged_cells": [
                {
                    "cell": cell,
                    "bins": _cell_text(cell, edges, args.columns),
                    "noisy_count": noisy,
                    "expected_count": expected,
                }
                for cell, noisy, expected in _cell_entries(anomalies, release, report)
            ],
        }
        for label, anomalies, release, report in _windows(det, labels)
    ]
    document = {
        "command": "dpoad",
        "mechanism": args.mechanism,
        "detector": args.detector,
        "alpha": args.alpha if args.detector == "baseline" else None,
        "columns": args.columns,
        "bins": [e.tolist() for e in edges],
        "max_count": args.max_count,
        "privacy": {
            "unit": _unit(args),
            "differentially_private": not leaked,
            "per_window": None if leaked else _cost_dict(det.privacy_cost()),
            "spent": None if leaked else _cost_dict(det.privacy_spent_),
        },
        "windows": windows,
        "releases": [json.loads(to_json(r)) for r in det.releases_],
        "reports": [json.loads(to_json(r)) for r in det.reports_],
    }
    with open(args.output, "w") as fh:
        json.dump(document, fh, ensure_ascii=False, indent=1)


def _check_stream_length(det, n_windows: int) -> None:
    """Refuse, before any release, a stream whose random-DP γ would reach 1."""
    gamma = det.privacy_cost().gamma
    if gamma and n_windows * gamma >= 1.0:
        raise ValueError(
            f"--gamma {gamma:g} over the {n_windows} windows of the input gives a random-DP "
            f"γ of {n_windows * gamma:.3g}, and a γ of 1 or more guarantees nothing: use "
            f"--gamma below {1 / n_windows:.3g}, or --mechanism record."
        )


def run(args) -> int:
    det, edges = _checked_detector(args)
    labels, windows = read_windows(
        args.input, args.columns, args.window_column, delimiter=args.delimiter
    )
    _check_stream_length(det, len(windows))
    with library_calls("dpoad") as shown:
        _fit_windows(det, windows)
    leaked = any(map(is_privacy_leak, shown))
    if args.output is not None:
        _write_json(args, det, labels, edges, leaked)
    _print_result(args, det, labels, edges, leaked)
    return 0
