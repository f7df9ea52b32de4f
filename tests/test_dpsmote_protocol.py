"""DPSMOTE under the privacy protocol (skdp_anomaly/privacy/_protocol.py).

* ``privacy_cost()`` refuses every bad parameter setting with the error
  ``fit_resample`` gives, before anything is read or charged;
* ``fit_resample`` is a transaction: a failure at any stage (RuntimeError or
  KeyboardInterrupt) leaves the sampler exactly as it was, except that
  ``privacy_spent_`` and the accountant keep the charges of the releases
  already made; a retry then succeeds;
* ``privacy_spent_`` is the composition of the mechanisms' costs charged;
* the audit helpers run the fit's own release steps: with the fit's noise
  stream they return the fit's releases exactly.

Deterministic: fixed seeds and data, no statistical assertion.
"""

import ast
import inspect
import warnings

import numpy as np
import pytest
from _accountants import Ledger, LedgerRefused
from _faults import same, state
from audit_scenarios.dpsmote import release_gaussian_batch, release_synopsis_batch
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import check_is_fitted

from skdp_anomaly.over_sampling import DPSMOTE
from skdp_anomaly.exceptions import DPSMOTENoiseWarning
from skdp_anomaly._data import blocks as _blocks
from skdp_anomaly.over_sampling import _dpsmote, _release, _statistics, _synthesis
from skdp_anomaly.over_sampling._release import sum_mechanism
from skdp_anomaly.privacy import GeometricMechanism, PrivacyCost, compose_sequential

PARAMS = {
    "epsilon",
    "sampling_strategy",
    "bounds",
    "synopsis",
    "spread",
    "granularity",
    "connectivity",
    "class_counts",
    "count_share",
    "histogram",
    "classes",
    "random_state",
    "accountant",
}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=300, n_features=3, n_informative=3, n_redundant=0, weights=[0.8], random_state=0
    )
    return X, y


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DPSMOTENoiseWarning)
        yield


# -- privacy_cost() refuses what fit refuses ---------------------------------------------
SINGLE = [  # one parameter out of its range: sklearn's InvalidParameterError
    {"epsilon": 0},
    {"epsilon": -1.0},
    {"epsilon": np.nan},
    {"epsilon": np.inf},
    {"epsilon": 1000.0},
    {"epsilon": "1"},
    {"sampling_strategy": "most"},
    {"sampling_strategy": 1.5},
    {"sampling_strategy": 0.0},
    {"bounds": "wide"},
    {"synopsis": "kde"},
    {"spread": 0},
    {"spread": np.inf},
    {"spread": np.nan},
    {"spread": "wide"},
    {"granularity": 0},
    {"granularity": 1.5},
    {"granularity": "fine"},
    {"connectivity": -1},
    {"connectivity": 1.5},
    {"class_counts": "exact"},
    {"count_share": 0.0},
    {"count_share": 1.0},
    {"histogram": "hash"},
    {"classes": 5},
    {"random_state": -1},
    {"random_state": "seed"},
    {"accountant": "ledger"},
]
CROSS = [  # parameters that contradict each other: a ValueError naming the parameter
    ({"epsilon": 40.0}, "'epsilon'"),
    ({"epsilon": 31.0, "class_counts": "public"}, "'epsilon'"),
    ({"classes": [0]}, "'classes'"),
    ({"classes": [0, 0, 1]}, "'classes'"),
    ({"classes": [[0, 1], [2, 3]]}, "'classes'"),
    ({"classes": [0, 1, 2], "sampling_strategy": 0.5}, "'sampling_strategy'"),
    ({"classes": [0, 1], "sampling_strategy": {7: 10}}, "'sampling_strategy'"),
    ({"sampling_strategy": {1: -5}}, "'sampling_strategy'"),
    ({"bounds": (1, 1)}, "bounds"),
    ({"bounds": (5, -5)}, "bounds"),
    ({"bounds": (0, np.inf)}, "bounds"),
    ({"bounds": ([0, 0], [1, 1, 1])}, "bounds"),
    ({"bounds": (0,)}, "bounds"),
    ({"bounds": ("low", "high")}, "bounds"),
    # per-feature bounds fix d: the grid that d needs is checked before any data
    ({"bounds": ([0] * 14, [1] * 14), "synopsis": "grid", "histogram": "dense"}, "histogram"),
    (
        {
            "bounds": ([0] * 40, [1] * 40),
            "synopsis": "grid",
            "histogram": "dense",
            "granularity": 1.0,
        },
        "histogram",
    ),
    ({"bounds": ([0] * 60, [1] * 60), "synopsis": "grid", "connectivity": 6}, "connectivity"),
]


def _error(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the test compares what is raised
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("params", SINGLE, ids=[repr(p) for p in SINGLE])
def test_single_bad_parameter_is_refused_alike_by_privacy_cost_and_fit(data, params):
    ledger = Ledger()
    est = DPSMOTE(**{"bounds": (-6, 6), "accountant": ledger, **params})
    refused = _error(est.privacy_cost)
    assert refused is not None and issubclass(refused[0], InvalidParameterError)
    assert _error(lambda: est.fit_resample(*data)) == refused
    assert _error(lambda: est.fit(*data)) == refused
    assert ledger.spent == [] and not [k for k in vars(est) if k not in PARAMS]


@pytest.mark.parametrize("params, name", CROSS, ids=[repr(p) for p, _ in CROSS])
def test_contradicting_parameters_are_refused_alike_by_privacy_cost_and_fit(data, params, name):
    params = {"bounds": (-6, 6), **params}
    ledger = Ledger()
    est = DPSMOTE(accountant=ledger, **params)
    refused = _error(est.privacy_cost)
    assert refused is not None and refused[0] is ValueError, refused
    assert name in refused[1]
    assert _error(lambda: est.fit_resample(*data)) == refused
    assert ledger.spent == [] and not [k for k in vars(est) if k not in PARAMS]


def test_the_cap_is_on_each_release_not_on_epsilon():
    # 20 + 20 and 30 + 30 under the cap of 30 per release; 31 on one release is refused
    assert DPSMOTE(epsilon=40.0, count_share=0.5).privacy_cost().epsilon == 40.0
    assert DPSMOTE(epsilon=60.0, count_share=0.5).privacy_cost().epsilon == 60.0


def test_data_shape_checks_come_before_any_release(data):
    """What needs the data's shape (d without per-feature bounds) is still refused before
    any charge: a dense grid of 4**14 cells, bounds of the wrong length."""
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(50, 14)), np.r_[np.zeros(40, int), np.ones(10, int)]
    ledger = Ledger()
    est = DPSMOTE(bounds=(0, 1), synopsis="grid", histogram="dense", accountant=ledger)
    est.privacy_cost()  # d is not known from the parameters
    with pytest.raises(ValueError, match=r"4\*\*14 cells"):
        est.fit_resample(X, y)
    with pytest.raises(ValueError, match="shape"):
        DPSMOTE(bounds=([0, 0], [1, 1]), accountant=ledger).fit_resample(*data)
    assert ledger.spent == []


def test_privacy_leaks_name_data_derived_bounds():
    assert "bounds=None" in DPSMOTE().privacy_leaks()[0]
    assert DPSMOTE(bounds=(0, 1)).privacy_leaks() == ()


# -- privacy_spent_ is what was charged ----------------------------------------------------
@pytest.mark.parametrize("synopsis", ["gaussian", "grid"])
@pytest.mark.parametrize("counts", ["private", "public"])
def test_privacy_spent_is_the_composition_of_the_charged_costs(data, synopsis, counts):
    X, y = data
    ledger = Ledger()
    est = DPSMOTE(
        epsilon=0.7,
        bounds=(-6, 6),
        synopsis=synopsis,
        class_counts=counts,
        random_state=0,
        accountant=ledger,
    )
    est.fit_resample(X, y)
    sizes = (
        [] if counts == "public" else [GeometricMechanism(0.7 * 0.1, neighbours="add_remove").cost]
    )
    eps_hist = 0.7 if counts == "public" else 0.7 * 0.9
    synopsis_cost = (
        sum_mechanism(eps_hist, X.shape[1]).cost
        if synopsis == "gaussian"
        else GeometricMechanism(eps_hist, neighbours="add_remove").cost
    )
    expected = compose_sequential(sizes + [synopsis_cost])
    assert est.privacy_spent_ == expected
    assert est.privacy_spent_.epsilon == pytest.approx(est.privacy_cost().epsilon)
    assert [e for e, _ in ledger.spent] == pytest.approx(
        [c.under("replace").epsilon for c in sizes + [synopsis_cost]]
    )


def test_privacy_spent_without_synthetic_rows(data):
    X, y = data
    est = DPSMOTE(bounds=(-6, 6), sampling_strategy={0: 0}, random_state=0)
    with pytest.warns(UserWarning, match="no synthetic rows"):
        est.fit_resample(X, y)
    assert est.privacy_spent_ == PrivacyCost.pure(0.1, neighbours="add_remove")
    public = DPSMOTE(
        bounds=(-6, 6),
        sampling_strategy={0: 0},
        class_counts="public",
        classes=[0, 1],
        random_state=0,
        accountant=Ledger(),
    )
    with pytest.warns(UserWarning, match="no synthetic rows"):
        public.fit_resample(X, y)
    assert public.privacy_spent_.epsilon == 0 and public.accountant.spent == []


# -- fault injection: every stage of fit_resample ---------------------------------------
def _raise(exc):
    def boom(*args, **kwargs):
        raise exc("injected")

    return boom


# (stage, synopsis, where to inject, which of the releases were charged before it)
STAGES = [
    ("reading the data", "gaussian", (_dpsmote, "validate_data"), 0),
    ("after the budget check", "gaussian", (_dpsmote, "encode_labels"), 0),
    ("computing the statistics", "gaussian", (_statistics, "class_fixed_sums"), 0),
    ("inside the size mechanism", "gaussian", (GeometricMechanism, "randomise"), 1),
    ("between the releases", "gaussian", (_release, "n_synthetic"), 1),
    ("inside the sum mechanism", "gaussian", (_release, "release_means"), 2),
    ("writing the rows", "gaussian", (_synthesis, "append_drawn_rows"), 2),
    ("inside the size mechanism", "grid", (GeometricMechanism, "randomise"), 1),
    ("choosing the grid", "grid", (_dpsmote, "choose_grid"), 1),
    ("inside the cell mechanism", "grid", (_release, "release_dense"), 2),
    ("phase 2", "grid", (_synthesis, "sample_synthetic"), 2),
]


def _state(est) -> dict:
    return {k: v for k, v in state(est).items() if k not in ("privacy_spent_", "_charges")}


def _costs(synopsis, d):
    sizes = GeometricMechanism(0.1, neighbours="add_remove").cost
    synopsis_cost = (
        sum_mechanism(0.9, d).cost
        if synopsis == "gaussian"
        else GeometricMechanism(0.9, neighbours="add_remove").cost
    )
    return [sizes, synopsis_cost]


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("fitted", [False, True], ids=["fresh", "refit"])
@pytest.mark.parametrize(
    "stage, synopsis, target, n_charged", STAGES, ids=[f"{s[1]}: {s[0]}" for s in STAGES]
)
def test_a_failed_call_leaves_the_sampler_as_it_was(
    data, monkeypatch, stage, synopsis, target, n_charged, fitted, exc
):
    X, y = data
    ledger = Ledger()
    est = DPSMOTE(bounds=(-6, 6), synopsis=synopsis, random_state=0, accountant=ledger)
    expected_X, _ = clone(est).set_params(accountant=None).fit_resample(X, y)
    spent_before, charged_before = 0.0, 0
    if fitted:
        est.fit_resample(X[:200], y[:200])  # an earlier fit, on other data
        spent_before, charged_before = est.privacy_spent_.epsilon, len(ledger.spent)
    before = _state(est)
    with monkeypatch.context() as patch:
        patch.setattr(*target, _raise(exc))
        with pytest.raises(exc, match="injected"):
            est.fit_resample(X, y)
    made = _costs(synopsis, X.shape[1])[:n_charged]
    # exactly as before the call, but for the charges of the releases made
    assert same(_state(est), before)
    if not fitted:
        with pytest.raises(NotFittedError):
            check_is_fitted(est)
    if n_charged or fitted:
        assert est.privacy_spent_.epsilon == pytest.approx(
            spent_before + sum(c.epsilon for c in made)
        )
    else:
        assert not hasattr(est, "privacy_spent_")
    assert [e for e, _ in ledger.spent[charged_before:]] == pytest.approx(
        [c.under("replace").epsilon for c in made]
    )
    # the retry succeeds, releases what an untouched sampler releases, and pays in full
    X_res, _ = est.fit_resample(X, y)
    np.testing.assert_array_equal(X_res, expected_X)
    check_is_fitted(est)
    assert est.privacy_spent_ == compose_sequential(_costs(synopsis, X.shape[1]))
    assert ledger.total()[0] == pytest.approx(
        2 * (spent_before + sum(c.epsilon for c in made) + 1.0)
    )


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_fit_is_the_same_transaction(data, monkeypatch, exc):
    X, y = data
    ledger = Ledger()
    est = DPSMOTE(bounds=(-6, 6), random_state=0, accountant=ledger)
    with monkeypatch.context() as patch:
        patch.setattr(_release, "release_means", _raise(exc))
        with pytest.raises(exc, match="injected"):
            est.fit(X, y)
    assert _state(est) == {} and est.privacy_spent_ == compose_sequential(_costs("gaussian", 3))
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    assert est.fit(X, y) is est and check_is_fitted(est) is None
    assert ledger.total()[0] == pytest.approx(4.0)


def test_refused_budget_charges_nothing_and_leaves_the_sampler_unfitted(data):
    ledger = Ledger(epsilon=1.5)
    est = DPSMOTE(bounds=(-6, 6), random_state=0, accountant=ledger)
    with pytest.raises(LedgerRefused):
        est.fit_resample(*data)
    assert ledger.spent == [] and _state(est) == {} and not hasattr(est, "privacy_spent_")
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


# -- the audit helpers run the fit's release steps ------------------------------------------
def _noise_stream(seed):
    """The fit's noise stream for ``random_state=seed`` (the first of its two children)."""
    return np.random.default_rng(seed).spawn(2)[0]


def test_gaussian_batch_of_one_run_is_the_fits_release(data):
    X, y = data
    est = DPSMOTE(bounds=(-6, 6), random_state=3)
    est.fit_resample(X, y)
    sampler = DPSMOTE(bounds=(-6, 6))
    before = dict(vars(sampler))
    sizes, means = release_gaussian_batch(
        sampler, X, y, 1, mean_class=1, random_state=_noise_stream(3)
    )
    assert sizes[0].tolist() == [est.noisy_class_counts_[0], est.noisy_class_counts_[1]]
    np.testing.assert_array_equal(means[0] * 6.0, est.noisy_means_[1])  # unit box of ±6
    assert vars(sampler) == before  # nothing set on the estimator


@pytest.mark.parametrize("counts", ["private", "public"])
def test_grid_batch_of_one_run_is_the_fits_release(data, counts):
    X, y = data
    kw = dict(bounds=(-6, 6), synopsis="grid", granularity=0.5, class_counts=counts)
    est = DPSMOTE(random_state=4, **kw)
    est.fit_resample(X, y)
    sampler = DPSMOTE(**kw)
    batch = release_synopsis_batch(
        sampler, X, y, 1, histogram_class=1, random_state=_noise_stream(4)
    )
    if counts == "private":
        assert batch.noisy_class_counts[0].tolist() == list(est.noisy_class_counts_.values())
    assert batch.n_synthetic[0].tolist() == [0, est.sampling_strategy_[1]]
    np.testing.assert_array_equal(batch.noisy_counts[0], est.noisy_counts_[1].ravel())
    assert not hasattr(sampler, "n_features_in_")


def test_audit_helpers_refuse_what_fit_refuses(data):
    with pytest.raises(ValueError, match="'epsilon'"):
        release_gaussian_batch(DPSMOTE(epsilon=40.0), *data, 2, mean_class=1)
    with pytest.raises(InvalidParameterError):
        release_synopsis_batch(DPSMOTE(granularity=2.0), *data, 2, histogram_class=1)


# -- module boundaries -------------------------------------------------------------------
def _imported_modules(module) -> set:
    tree = ast.parse(inspect.getsource(module))
    return {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}


@pytest.mark.parametrize("module", [_statistics, _release, _synthesis, _blocks])
def test_the_stages_and_the_data_layer_do_not_import_the_estimator(module):
    # the estimator calls the stages, never the reverse; the data layer's writer and the
    # synthesis take no estimator
    assert not any(m and m.endswith("_dpsmote") for m in _imported_modules(module))
    assert "est" not in inspect.signature(_blocks.append_drawn_rows).parameters
    assert "est" not in inspect.signature(_synthesis.synthesize_gaussian).parameters


def test_the_cli_calls_public_methods_of_the_sampler_only():
    from skdp_anomaly.cli import _resample

    tree = ast.parse(inspect.getsource(_resample))
    private = [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "sampler"
        and node.attr.startswith("_")
    ]
    assert private == []
