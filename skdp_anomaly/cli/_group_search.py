"""``skdp-anomaly group-search``: find the anomaly of a CSV score column by noisy group queries.

Prints the candidate rows, the queries made and the anomaly-restricted ε spent.
"""

from __future__ import annotations

# the reader is looked up when a command runs, never bound when this module is imported
from . import _changepoint
from ._common import (
    add_delimiter_option,
    add_random_state_option,
    add_renamed_alpha,
    check_delimiter,
    check_epsilon_option,
    check_input_file,
    library_calls,
    seed_note,
)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "group-search",
        help="find the anomaly of a score column by private noisy group queries",
        description=(
            "Search the rows of a CSV file for the single anomaly of a score column with noisy "
            "group queries (Bittner, Sarwate and Wright, Using Noisy Binary Search for "
            "Differentially Private Anomaly Detection). Non-anomalous scores must lie in [0, "
            "--low] and the anomaly at or above --high; the search is anomaly-restricted "
            "epsilon-DP in all, over queries that each cost a share of it (the anomaly itself is "
            "not protected). Prints the candidate rows (0-based), or that there is no anomaly or "
            "none was found, the number of queries and the epsilon spent."
        ),
    )
    p.add_argument("input", metavar="IN.csv", help="CSV file with a header row")
    p.add_argument(
        "--column",
        required=True,
        metavar="SCORE",
        help="name of the column of anomaly scores (>= 0)",
    )
    p.add_argument(
        "--epsilon",
        required=True,
        type=float,
        help="the most the search spends, anomaly-restricted ε in all, in [1e-6, 30] "
        "(the ε rule below); split over its queries",
    )
    p.add_argument(
        "--query-epsilon",
        type=float,
        default=None,
        help="ε of one query, at most --epsilon, for reproducing the paper: the "
        "search then makes at most --epsilon / --query-epsilon queries "
        "(default: chosen from the number of rows, --low and --high)",
    )
    p.add_argument(
        "--low", required=True, type=float, help="t_l: public bound of the non-anomalous scores"
    )
    p.add_argument(
        "--high",
        required=True,
        type=float,
        help="t_h: public lower bound of the anomaly's score (> --low)",
    )
    p.add_argument(
        "--oracle",
        choices=("direct", "binarized", "randomized_response"),
        default="direct",
        help="how a query is answered and used (default: direct)",
    )
    p.add_argument(
        "--posterior-threshold",
        type=float,
        default=0.5,
        metavar="TAU",
        help="the paper's τ: stop when the largest posterior entry exceeds it, in (0, 1) (default "
        "0.5). Formerly --alpha, which now means a false-alarm level in every command",
    )
    add_renamed_alpha(p, "--posterior-threshold", "the posterior threshold τ of group-search")
    p.add_argument(
        "--candidates", type=int, default=4, help="rows reported as candidates (default 4)"
    )
    add_random_state_option(p)
    add_delimiter_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..group_search import NoisyGroupSearch

    check_input_file(args.input, "IN.csv")
    check_delimiter(args.delimiter)
    if args.query_epsilon is not None:
        check_epsilon_option(args.query_epsilon, "--query-epsilon")
        if args.query_epsilon > args.epsilon:
            raise ValueError(
                f"--query-epsilon must be at most --epsilon (one query's share of "
                f"the total); got {args.query_epsilon:g} > {args.epsilon:g}."
            )
    search = NoisyGroupSearch(
        epsilon=args.epsilon,
        query_epsilon=args.query_epsilon,
        oracle=args.oracle,
        low=args.low,
        high=args.high,
        alpha=args.posterior_threshold,
        n_candidates=args.candidates,
        random_state=args.random_state,
    )
    with library_calls("group-search"):
        search.privacy_cost()  # every parameter and low < high: before the data
    scores, _ = _changepoint.read_column(args.input, args.column, delimiter=args.delimiter)
    with library_calls("group-search"):
        search.fit(scores.reshape(-1, 1))
    rows = ", ".join(str(int(i)) for i in search.candidates_)
    if rows:
        print(f"candidate rows (0-based): {rows}")
    elif search.halted_by_ == "no_anomaly":
        print("no anomaly: no row is flagged")
    else:
        print("not found: the search did not concentrate within --epsilon; no row is flagged")
    print(
        f"queries: {search.n_queries_} of {search.n_queries_planned_} planned, ε = "
        f"{search.query_epsilon_:.4g} each (stopped by {search.halted_by_})"
    )
    print(f"privacy spent: {search.privacy_spent_}; the anomaly itself is not protected")
    seed_note(args)
    return 0
