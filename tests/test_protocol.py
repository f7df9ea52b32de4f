"""The privacy protocol, asserted the same way for every estimator.

One path for every fit: parameters validated (``privacy_cost()`` raises what
``fit`` raises) → the whole planned cost reserved on the accountant → data
read → each release charged right before it is made → ``privacy_spent_``.
Fits are transactions: an exception (``KeyboardInterrupt`` included) puts the
estimator back as it was, and ``privacy_spent_`` and the accountant keep
every charge made. The estimator-specific fault injections (a label oracle, a
chunk of a stream, a worker) are in each estimator's test module.
"""

import ast
import re
import threading
from pathlib import Path

import numpy as np
import pytest
from _accountants import Ledger, LedgerRefused
from _faults import state
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import check_is_fitted

from skdp_anomaly import (
    PrivateLogisticRegression,
    DPOAD,
    DPSMOTE,
    NoisyGroupSearch,
    PrivateChangePointDetector,
    PrivateHBOS,
    PrivateOnlineActiveSVC,
)
from skdp_anomaly.privacy import PrivacyCostMixin

PACKAGE = Path(__file__).resolve().parents[1] / "skdp_anomaly"

_RNG = np.random.default_rng(0)
_X2 = np.clip(_RNG.normal(size=(300, 2)), -4, 4)
_Y2 = (_RNG.random(300) < 0.2).astype(int)
_SERIES = np.r_[np.zeros(100), np.ones(100)] + _RNG.normal(size=200)
_SCORES = np.r_[_RNG.uniform(0, 1, 199), 3.0].reshape(-1, 1)
_WINDOW = _RNG.uniform(0, 1, 200)

# name -> (make(**params), fit(estimator)); every estimator with valid data
ESTIMATORS = {
    "DPSMOTE": (
        lambda **kw: DPSMOTE(**{"bounds": (-4, 4), "classes": [0, 1], **kw}),
        lambda est: est.fit_resample(_X2, _Y2),
    ),
    "PrivateChangePointDetector": (
        lambda **kw: PrivateChangePointDetector(**kw),
        lambda est: est.fit(_SERIES),
    ),
    "NoisyGroupSearch": (
        lambda **kw: NoisyGroupSearch(**{"low": 1.0, "high": 2.5, **kw}),
        lambda est: est.fit(_SCORES),
    ),
    "PrivateOnlineActiveSVC": (
        lambda **kw: PrivateOnlineActiveSVC(**kw),
        lambda est: est.fit(_X2 / 8, _Y2, classes=[0, 1]),
    ),
    "DPOAD": (
        lambda **kw: DPOAD(
            **{"bins": np.linspace(0, 1, 6), "max_count": 200, "mechanism": "record", **kw}
        ),
        lambda est: est.fit(_WINDOW),
    ),
    "PrivateLogisticRegression": (
        lambda **kw: PrivateLogisticRegression(**{"data_norm": 6.0, **kw}),
        lambda est: est.fit(_X2, _Y2),
    ),
    "PrivateHBOS": (
        lambda **kw: PrivateHBOS(**{"bounds": (-4, 4), "contamination": 0.1, **kw}),
        lambda est: est.fit(_X2),
    ),
}

# bad settings every estimator must refuse in privacy_cost() as fit does
BAD_EPSILONS = [0, -1.0, np.nan, "1"]


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("epsilon", BAD_EPSILONS)
def test_bad_epsilon_same_error_from_privacy_cost_and_fit(name, epsilon):
    make, fit = ESTIMATORS[name]
    with pytest.raises((InvalidParameterError, ValueError)) as from_cost:
        make(epsilon=epsilon).privacy_cost()
    ledger = Ledger()
    est = make(epsilon=epsilon, accountant=ledger)
    with pytest.raises(type(from_cost.value)) as from_fit:
        fit(est)
    assert "epsilon" in str(from_cost.value) and "epsilon" in str(from_fit.value)
    assert ledger.spent == []
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_estimator_takes_an_accountant_and_charges_what_it_reports(name):
    make, fit = ESTIMATORS[name]
    ledger = Ledger()
    est = make(accountant=ledger, random_state=0)
    fit(est)
    check_is_fitted(est)
    spent = est.privacy_spent_.under("replace")
    assert ledger.total() == pytest.approx((spent.epsilon, spent.delta))
    assert spent.epsilon <= est.privacy_cost().under("replace").epsilon + 1e-12


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_full_fit_charges_every_release_it_planned(name):
    """A release made without its charge would leave ``privacy_spent_`` short of the plan."""
    make, fit = ESTIMATORS[name]
    est = make(random_state=0)
    fit(est)
    spent = est.privacy_spent_.under("replace").epsilon
    if name == "NoisyGroupSearch":  # stops when the posterior decides: its queries made
        assert est.n_queries_ < est.n_queries_planned_  # the early stop is exercised
        assert spent == pytest.approx(est.n_queries_ * est.query_epsilon_)
    else:
        assert spent == pytest.approx(est.privacy_cost().under("replace").epsilon)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_refused_budget_charges_nothing_and_leaves_the_estimator_unfitted(name):
    make, fit = ESTIMATORS[name]
    ledger = Ledger(epsilon=1e-6)
    est = make(accountant=ledger, random_state=0)
    with pytest.raises(LedgerRefused):
        fit(est)
    assert ledger.spent == []
    assert state(est) == {}
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


class _Interrupt(BaseException):
    """Stands for KeyboardInterrupt without stopping the test runner."""


def _fail_after_each_charge(monkeypatch, exc):
    """Every charge is made, then ``exc`` is raised before the release it pays for."""
    charge = PrivacyCostMixin._charge

    def charge_then_fail(self, cost):
        charge(self, cost)
        raise exc("injected after the charge, before the release")

    monkeypatch.setattr(PrivacyCostMixin, "_charge", charge_then_fail)


@pytest.mark.parametrize("exc", [_Interrupt, KeyboardInterrupt, RuntimeError])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_failure_right_after_the_first_charge_rolls_back_and_keeps_the_charge(
    name, exc, monkeypatch
):
    make, fit = ESTIMATORS[name]
    ledger = Ledger()
    est = make(accountant=ledger, random_state=0)
    _fail_after_each_charge(monkeypatch, exc)
    with pytest.raises(exc):
        fit(est)
    monkeypatch.undo()
    (charged,) = ledger.spent  # charged once, before its release
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    assert est.privacy_spent_.under("replace").epsilon == pytest.approx(charged[0])
    assert set(state(est)) <= {"privacy_spent_", "_charges"}  # nothing else survived
    fit(est)  # a retry works and is charged again
    check_is_fitted(est)
    assert len(ledger.spent) >= 2


@pytest.mark.parametrize("name", ESTIMATORS)
def test_failed_refit_restores_the_earlier_fit(name, monkeypatch):
    make, fit = ESTIMATORS[name]
    est = make(random_state=0)
    fit(est)
    before = {k: v for k, v in state(est).items() if k not in ("privacy_spent_", "_charges")}
    _fail_after_each_charge(monkeypatch, RuntimeError)
    with pytest.raises(RuntimeError):
        fit(est)
    monkeypatch.undo()
    after = {k: v for k, v in state(est).items() if k not in ("privacy_spent_", "_charges")}
    assert set(after) == set(before)
    check_is_fitted(est)


def test_reservations_make_check_and_charge_atomic():
    # two fits sharing an accountant: the second cannot pass the check on budget
    # the first has reserved and not yet spent
    ledger = Ledger(epsilon=3.0)  # 1.5 fits' worth under replace-one (DPSMOTE ε=1 → 2)
    first, second = (DPSMOTE(epsilon=1.0, accountant=ledger) for _ in range(2))
    first._start_private_fit()
    with pytest.raises(LedgerRefused):
        second._start_private_fit()
    first._close_run()
    second._start_private_fit()
    second._close_run()
    assert ledger.spent == []


def test_threads_sharing_an_accountant_never_overspend():
    ledger = Ledger(epsilon=6.0)  # three DPSMOTE fits at ε = 1 (2 under replace-one)
    outcomes = []

    def one_fit():
        try:
            DPSMOTE(epsilon=1.0, bounds=(-4, 4), classes=[0, 1], accountant=ledger).fit_resample(
                _X2, _Y2
            )
            outcomes.append("fitted")
        except LedgerRefused:
            outcomes.append("refused")

    threads = [threading.Thread(target=one_fit) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ledger.total()[0] <= 6.0 + 1e-9
    assert outcomes.count("fitted") == 3 and outcomes.count("refused") == 5


# -- the code base -------------------------------------------------------------------
def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _imports(name, path):
    """Modules of the package that ``name`` imports, at module level or in a function."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("skdp_anomaly")}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("skdp_anomaly"):
                out.add(target)
                out |= {f"{target}.{a.name}" for a in node.names}
    return out


def test_no_module_imports_form_a_cycle():
    modules = dict(_modules())
    graph = {
        name: {m for m in _imports(name, path) if m in modules and m != name}
        for name, path in modules.items()
    }
    # a package's __init__ re-exports its modules; a module importing a name from
    # its own or another package goes through that __init__: count the edges to
    # the modules that define things, not to the re-exporting packages
    packages = {n for n, p in modules.items() if p.name == "__init__.py"}
    cycles = []
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in graph[node]:
            if nxt in packages:
                continue
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for name in graph:
        if name not in state and name not in packages:
            visit(name, [name])
    assert cycles == []


def test_no_package_file_exceeds_800_lines():
    long = {
        str(p.relative_to(PACKAGE)): n
        for _, p in _modules()
        if (n := len(p.read_text().splitlines())) > 800
    }
    assert long == {}


def test_no_benchmark_file_exceeds_600_lines():
    scripts = sorted((PACKAGE.parent / "benchmarks").glob("*.py"))
    assert len(scripts) > 30  # the benchmarks were found
    long = {p.name: n for p in scripts if (n := len(p.read_text().splitlines())) > 600}
    assert long == {}


def test_the_cli_calls_no_private_method_of_an_estimator():
    calls = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr.startswith("_")
                and not node.func.attr.startswith("__")
                and not (
                    isinstance(node.func.value, ast.Name) and node.func.value.id in ("self", "cls")
                )
            ):
                calls.append(f"{path.name}:{node.lineno} .{node.func.attr}()")
    assert calls == []


def test_user_facing_text_names_papers_not_seeds_or_issues():
    pattern = re.compile(r"seed 00\d|\bissue \d|\bIssue \d|thesis 00\d")
    roots = [PACKAGE, PACKAGE.parent / "docs", PACKAGE.parent / "examples"]
    hits = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix not in (".py", ".md", ".rst") or "_build" in path.parts:
                continue
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line):
                    hits.append(f"{path.relative_to(PACKAGE.parent)}:{i}")
    readme = (PACKAGE.parent / "README.md").read_text()
    hits += [
        f"README.md:{i}" for i, line in enumerate(readme.splitlines(), 1) if pattern.search(line)
    ]
    assert hits == []


# -- the CLI refuses what privacy_cost() refuses, before reading data ----------------
def _cli_cases(tmp_path):
    labelled = tmp_path / "labelled.csv"
    labelled.write_text(
        "a,b,y\n" + "".join(f"{i % 7 / 10},{i % 3 / 10},{i % 2}\n" for i in range(40))
    )
    series = tmp_path / "series.csv"
    series.write_text("t,v\n" + "".join(f"{i},{i % 5}\n" for i in range(60)))
    out = tmp_path / "out.csv"
    return {
        "resample": ["resample", labelled, "--target", "y", "--bounds", "0", "1", "-o", out],
        "changepoint": ["changepoint", series, "--column", "v"],
        "online-svc": ["online-svc", labelled, "--target", "y", "--classes", "0", "1"],
        "group-search": ["group-search", series, "--column", "v", "--low", "5", "--high", "9"],
        "dpoad": [
            "dpoad",
            series,
            "--column",
            "v",
            "--window-column",
            "t",
            "--bins",
            "0:5:6",
            "--max-count",
            "10",
        ],
    }


@pytest.mark.parametrize(
    "command", ["resample", "changepoint", "online-svc", "group-search", "dpoad"]
)
@pytest.mark.parametrize("epsilon", ["0", "-1"])
def test_cli_refuses_a_bad_epsilon_naming_the_option(command, epsilon, tmp_path, capsys):
    from skdp_anomaly.cli import main

    argv = [str(a) for a in _cli_cases(tmp_path)[command]]
    code = main([*argv, f"--epsilon={epsilon}"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "--epsilon" in err and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "name", ["DPSMOTE", "PrivateOnlineActiveSVC", "PrivateLogisticRegression", "PrivateHBOS"]
)
def test_one_dimensional_X_is_refused_without_quoting_it_before_any_charge(name):
    # sklearn's own message ("Expected 2D array, got 1D array instead: array=[...]")
    # quotes the data; an exception message is not a DP output
    make, _ = ESTIMATORS[name]
    ledger = Ledger()
    est = make(accountant=ledger, random_state=0)
    fit = getattr(est, "fit_resample", None) or est.fit
    with pytest.raises(ValueError, match="Reshape your data") as info:
        fit(np.array([1.2345, 2.5, 3.75, 4.0]), np.array([0, 1, 0, 1]))
    assert "1.2345" not in str(info.value) and ledger.spent == []
