"""``skdp-anomaly online-svc``: stream a CSV through the private online active SVC.

Both files are read through, every cell checked, before the first update (a bad row
found halfway would stop the command after budget was spent). The rows then go to
:class:`~skdp_anomaly.PrivateOnlineActiveSVC` in file order; only the labels the
private selection picks are used. Accuracy is reported on ``--test`` only: on the
training stream it would read every private label and not be DP.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ._common import (
    LEAK_LINE,
    add_delimiter_option,
    add_random_state_option,
    add_renamed_alpha,
    check_delimiter,
    check_input_file,
    finite_cell,
    header_row,
    is_privacy_leak,
    library_calls,
    missing_column,
    seed_note,
)

_CHUNK = 4096
_NEEDS_NUMBERS = "the classifier needs finite numbers."
_CITE = (
    "Ghassemi, Sarwate and Wright, Differentially Private Online Active Learning "
    "with Applications to Anomaly Detection, AISec 2016"
)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "online-svc",
        help="learn a linear SVM privately from a CSV stream, asking for few labels",
        description=(
            "Stream the rows of a CSV file (in file order) through a private online active linear "
            f"SVM ({_CITE}): a private selection step picks the rows whose labels are used, and "
            "noisy releases of gradient sums and of a threshold learn the classifier and its "
            "intercept. The classifier is epsilon-DP under replace-one-row neighbours, given a "
            "public --data-norm and public --classes. Prints the labels requested, the updates, "
            "the privacy spent and, with --test, the accuracy on that file."
        ),
    )
    p.add_argument("input", metavar="IN.csv", help="training stream: CSV with a header row")
    p.add_argument("--target", required=True, metavar="COL", help="name of the label column")
    p.add_argument(
        "--classes",
        required=True,
        nargs=2,
        metavar=("NEG", "POS"),
        help="the two labels of the target column (public)",
    )
    p.add_argument(
        "--epsilon",
        required=True,
        type=float,
        help="ε of the classifier, for each row of the stream, in [1e-6, 30] (the ε rule below)",
    )
    p.add_argument(
        "--data-norm",
        type=float,
        default=1.0,
        help="public bound M on a row's L2 norm; longer rows are shrunk to it (default 1)",
    )
    p.add_argument(
        "--selection",
        choices=("bernoulli", "exponential", "all"),
        default="bernoulli",
        help="how rows are chosen for labelling; 'all' reads every label (default: bernoulli)",
    )
    p.add_argument(
        "--update",
        choices=("ftrl", "flmb", "flsw"),
        default="ftrl",
        help="ftrl: private follow-the-regularised-leader over windows of rows with a private "
        "intercept; flmb/flsw: the paper's noisy gradient step every --batch-size selected rows "
        "(flmb) or observed rows (flsw) (default: ftrl)",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="rows of a gradient window (ftrl; default: max(5, 16·d/ε)) or the "
        "paper's mini-batch / window size (default 5)",
    )
    p.add_argument(
        "--no-intercept",
        action="store_true",
        help="a hyperplane through the origin (the paper's model)",
    )
    p.add_argument(
        "--class-weight",
        choices=("balanced", "none"),
        default="balanced",
        help="ftrl with an intercept: the error the cut minimises: balanced (the "
        "mean of the two classes' error rates, so that a rare class is not "
        "given up; default) or none (the error, with the DP class prior)",
    )
    p.add_argument(
        "--noise",
        choices=("independent", "tree"),
        default="independent",
        help="ftrl: noise per released window, or binary-tree aggregation (default: independent)",
    )
    p.add_argument(
        "--lambda",
        dest="reg_lambda",
        type=float,
        default=None,
        metavar="λ",
        help="L2 regularisation λ of the SVM objective (default: M²/3 for ftrl, 0.01 for "
        "flmb/flsw). Formerly --alpha, which now means a false-alarm level in every command",
    )
    add_renamed_alpha(p, "--lambda", "the L2 regularisation λ of online-svc")
    p.add_argument(
        "--average",
        action="store_true",
        help="release the mean of the iterates (post-processing, no extra ε)",
    )
    p.add_argument(
        "--test",
        metavar="TEST.csv",
        default=None,
        help="held-out CSV with the same columns, for the accuracy",
    )
    add_random_state_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_delimiter_option(p, "IN.csv and --test")
    p.set_defaults(func=run)


def _header(reader, path, target: str, delimiter: str = ",") -> tuple[int, list]:
    """The target's position and the feature names, from the header row."""
    header = header_row(reader, path)
    if target not in header:
        raise missing_column("--target", target, header, Path(path).name, delimiter)
    t = header.index(target)
    names = header[:t] + header[t + 1 :]
    if not names:
        raise ValueError(f"{Path(path).name} has no feature columns besides the target.")
    return t, names


def read_chunks(
    path, target: str, chunk: int = _CHUNK, *, classes=None, delimiter: str = ","
) -> Iterator[tuple[np.ndarray, list]]:
    """``(X, labels)`` blocks of ``chunk`` rows; the label cells stay text, unread. With
    ``classes``, each label cell is also checked to be one of them (an error names its line, never
    its text)."""
    with Path(path).open(newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        t, names = _header(reader, path, target, delimiter)
        width = len(names) + 1
        columns = list(zip([*range(t), *range(t + 1, width)], names))
        rows, labels = [], []
        for row in reader:
            line = reader.line_num
            if len(row) != width:
                raise ValueError(f"line {line} has {len(row)} fields, the header {width}.")
            labels.append(row[t].strip())
            if classes is not None and labels[-1] not in classes:
                raise ValueError(
                    f"column {target!r} on line {line} holds a label that is not one of --classes."
                )
            rows.append([finite_cell(row[j], c, line, _NEEDS_NUMBERS) for j, c in columns])
            if len(rows) == chunk:
                yield np.asarray(rows), labels
                rows, labels = [], []
        if rows:
            yield np.asarray(rows), labels


def _check_file(path, target: str, classes, delimiter: str) -> tuple[list, int]:
    """Read ``path`` through, checking every cell; its feature names and row count."""
    with Path(path).open(newline="") as fh:
        _, names = _header(csv.reader(fh, delimiter=delimiter), path, target, delimiter)
    # every chunk, not the first one only: a bad row anywhere must stop the command
    chunks = read_chunks(path, target, classes=classes, delimiter=delimiter)
    n_rows = sum(X.shape[0] for X, _ in chunks)
    if n_rows == 0:
        raise ValueError(f"{Path(path).name} has no data rows.")
    return names, n_rows


def _checked_inputs(args) -> int:
    """Every input file read and checked before anything is fitted; returns the training
    stream's length (public: neighbours have the same), which sets the default windows."""
    classes = set(args.classes)
    names, n_rows = _check_file(args.input, args.target, classes, args.delimiter)
    if args.test is None:
        return n_rows
    try:
        test_names, _ = _check_file(args.test, args.target, classes, args.delimiter)
    except ValueError as exc:
        raise ValueError(f"--test {args.test}: {exc}") from None
    if test_names != names:
        raise ValueError(
            f"--test {args.test} has the feature columns {', '.join(test_names)}; IN.csv has "
            f"{', '.join(names)} (the same columns in the same order are needed)."
        )
    return n_rows


def _checked_estimator(args):
    """The estimator, once every option passed the checks that need no data."""
    from ..active_learning import PrivateOnlineActiveSVC

    check_input_file(args.input, "IN.csv")
    if args.test is not None:
        check_input_file(args.test, "--test")
    check_delimiter(args.delimiter)
    if args.classes[0] == args.classes[1]:
        raise ValueError("--classes needs two different labels.")
    est = PrivateOnlineActiveSVC(
        epsilon=args.epsilon,
        selection=args.selection,
        update=args.update,
        batch_size=args.batch_size,
        fit_intercept=not args.no_intercept,
        noise=args.noise,
        class_weight=None if args.class_weight == "none" else args.class_weight,
        data_norm=args.data_norm,
        alpha=args.reg_lambda,
        average=args.average,
        random_state=args.random_state,
    )
    with library_calls("online-svc"):
        est.privacy_cost()  # validates every parameter, as partial_fit would
    return est


def run(args) -> int:
    from tqdm import tqdm

    est = _checked_estimator(args)
    est.set_params(n_rows_hint=_checked_inputs(args))
    classes = list(args.classes)
    n_rows = 0
    # disable=None: no bar unless stderr is a terminal (in a log or a pipe its
    # carriage returns would run into the lines printed after it)
    bar = tqdm(unit="row", desc="online-svc", disable=True if args.quiet else None, file=sys.stderr)
    with library_calls("online-svc") as shown, bar:
        for X, labels in read_chunks(args.input, args.target, delimiter=args.delimiter):
            # the label text is read only for the rows the selection picks
            est.partial_fit(X, labels, classes=classes)
            n_rows += X.shape[0]
            bar.update(X.shape[0])
    print(
        f"rows streamed: {n_rows}; labels requested: {est.n_labels_requested_}; "
        f"updates released: {est.n_updates_}"
    )
    if any(map(is_privacy_leak, shown)):
        print(LEAK_LINE)
    else:
        print(f"privacy spent: {est.privacy_spent_}")
    if args.test is not None:
        correct = total = 0
        for X, labels in read_chunks(args.test, args.target, delimiter=args.delimiter):
            correct += int(np.sum(est.predict(X) == np.asarray(labels)))
            total += len(labels)
        print(f"accuracy on {Path(args.test).name}: {correct / max(total, 1):.4f} ({total} rows)")
    seed_note(args)
    return 0
