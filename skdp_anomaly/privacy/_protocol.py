"""The privacy protocol every estimator of this package follows (:class:`PrivacyCostMixin`).

``privacy_cost()`` validates every parameter (raising the error ``fit`` would) and returns the cost
with its relation. Every public fitting method is one transaction
(:meth:`PrivacyCostMixin._transaction`): validate; reserve the whole planned cost on the accountant
atomically; read the data; charge each release right before it; set ``privacy_spent_`` (charges stay
even if the call then fails: a release cannot be taken back). An accountant is any object with
``spend(epsilon, delta)`` (optionally ``check``), charged under its ``neighbours`` attribute, else
under replace-one neighbours (:data:`ACCOUNTANT_NEIGHBOURS`, diffprivlib's: an add/remove ε counts
2ε); an add/remove ledger refuses a cost that needs ``n`` public before any release.
"""

from __future__ import annotations

import copy
import inspect
import threading
from numbers import Real

import numpy as np
from sklearn import config_context, get_config
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    make_constraint,
    validate_parameter_constraints,
)

from ..exceptions import naming
from ._cost import PrivacyCost, compose_sequential
from ._mechanisms import MIN_EPSILON

#: The neighbouring relation of the (ε, δ) a diffprivlib ``BudgetAccountant`` is charged.
ACCOUNTANT_NEIGHBOURS = "replace"


def epsilon_constraint(upper: float | None = None) -> list:
    """sklearn's constraint on ``epsilon``: from :data:`MIN_EPSILON` to ``upper`` (inclusive).

    The shared floor makes ``privacy_cost()`` refuse a smaller ε before any charge.
    """
    return [Interval(Real, MIN_EPSILON, upper, closed="left" if upper is None else "both")]


#: The constraints every estimator shares; each adds its own (and may narrow these).
PRIVACY_PARAMETER_CONSTRAINTS = {
    "epsilon": epsilon_constraint(),
    "random_state": ["random_state", np.random.Generator],
    "accountant": [HasMethods(["spend"]), None],
}


def _relation(accountant) -> str:
    """The relation an accountant is charged under: its own, else replace-one."""
    return getattr(accountant, "neighbours", ACCOUNTANT_NEIGHBOURS)


class _Reservations:
    """Budget reserved on each accountant by fits under way (process-wide, under a lock).

    ``check`` then ``spend`` is not atomic across threads, so checks count
    what other fits reserved and have not spent yet.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._held: dict[int, list] = {}  # id(accountant) -> [ε, δ, number of holders]

    def reserve(self, accountant, epsilon: float, delta: float) -> None:
        with self._lock:
            held = self._held.get(id(accountant), [0.0, 0.0, 0])
            if hasattr(accountant, "check") and (epsilon > 0 or delta > 0):
                accountant.check(epsilon + held[0], delta + held[1])
            self._held[id(accountant)] = [held[0] + epsilon, held[1] + delta, held[2] + 1]

    def spend(self, accountant, epsilon: float, delta: float, reserved: bool) -> None:
        with self._lock:
            held = self._held.get(id(accountant))
            if reserved and held is not None:
                # the reservation covers this charge: the accountant sees it once
                held[0], held[1] = max(held[0] - epsilon, 0.0), max(held[1] - delta, 0.0)
            accountant.spend(epsilon, delta)

    def release(self, accountant, epsilon: float, delta: float) -> None:
        with self._lock:
            held = self._held.get(id(accountant))
            if held is None:
                return
            held[0], held[1] = max(held[0] - epsilon, 0.0), max(held[1] - delta, 0.0)
            held[2] -= 1
            if held[2] <= 0:
                del self._held[id(accountant)]


_RESERVATIONS = _Reservations()


class _Run:
    """One fit's reservation on the accountant and the charges made under it."""

    def __init__(self, accountant, planned: tuple[float, float]):
        self.accountant = accountant
        self.left = list(planned)  # reserved and not spent yet
        self.open = False

    def reserve(self) -> None:
        if self.accountant is not None:
            _RESERVATIONS.reserve(self.accountant, *self.left)
            self.open = True

    def spend(self, epsilon: float, delta: float) -> None:
        if self.accountant is None or (epsilon == 0 and delta == 0):
            return
        _RESERVATIONS.spend(self.accountant, epsilon, delta, reserved=self.open)
        self.left = [max(self.left[0] - epsilon, 0.0), max(self.left[1] - delta, 0.0)]

    def close(self) -> None:
        if self.open:
            _RESERVATIONS.release(self.accountant, *self.left)
            self.open = False


class PrivacyCostMixin:
    """The privacy protocol: validated costs, reserved budgets, transactional fits.

    Subclasses write ``_privacy_cost()`` (the cost of valid parameters),
    ``_more_validate_params()`` when parameters constrain each other, and
    their private steps: ``_private_fit``, ``_private_partial_fit``,
    ``_private_fit_resample``. The mixin writes the public ``fit``,
    ``partial_fit`` and ``fit_resample`` of each step a class defines (its
    docstring and signature are the step's), each one transaction
    (``_transaction``): validate and reserve (``_reservation``), run
    the step, which calls ``_charge()`` right before each release, and record
    ``privacy_spent_``.
    """

    #: private step -> the public method the mixin writes for it
    _steps = {
        "_private_fit": "fit",
        "_private_partial_fit": "partial_fit",
        "_private_fit_resample": "fit_resample",
    }
    #: sklearn's ``prefer_skip_nested_validation``: False for meta-estimators, whose
    #: members validate their own parameters
    _skip_nested_validation = True

    #: parameters that, left ``None``, are read from the data: name -> where it goes
    _data_derived_params: dict = {}
    #: private attributes that hold the state of a run (forgotten with the fitted ones)
    _private_state: tuple = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for step, public in cls._steps.items():
            if step in cls.__dict__ and public not in cls.__dict__:
                setattr(cls, public, _template(public, cls.__dict__[step]))

    # -- the public side ------------------------------------------------------
    def privacy_cost(self) -> PrivacyCost:
        """Return the cost the parameters imply, once every parameter is validated.

        Returns
        -------
        PrivacyCost
            The cost of one fit (one full run for a stream), with its relation.

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError, ValueError
            A parameter out of range, or contradicting parameters (named).
        """
        self._check_params()
        return self._privacy_cost()

    def own_privacy_cost(self) -> PrivacyCost:
        """Return the cost of this estimator's own releases, without its children's.

        Returns
        -------
        PrivacyCost
            :meth:`privacy_cost` for an estimator without members; a
            meta-estimator overrides it.
        """
        return self.privacy_cost()

    def privacy_children(self) -> list:
        """Return the members fitted on every record, as ``(name, estimator)`` pairs.

        Returns
        -------
        list of (str, estimator)
            Empty except for meta-estimators.
        """
        return []

    def privacy_assumptions(self) -> tuple:
        """Return what the guarantee of :meth:`privacy_cost` takes as public, in words.

        Returns
        -------
        tuple of str
            Empty when the guarantee rests on the parameters alone.
        """
        return ()

    def privacy_leaks(self) -> tuple:
        """Return what the current setting leaves unprotected (bounds left ``None``), in words.

        Returns
        -------
        tuple of str
            One sentence per leak; empty when nothing leaks.
        """
        params = self.get_params(deep=False)
        return tuple(
            f"{type(self).__name__} has {name}=None, so it is computed from the data at fit "
            f"(PrivacyLeakWarning, {where}): the ε does not hold for the records that "
            f"determine it. Pass {name} from domain knowledge."
            for name, where in self._data_derived_params.items()
            if name in params and params[name] is None
        )

    def __sklearn_is_fitted__(self) -> bool:
        return bool(getattr(self, "_fitted", False))

    # -- validation -----------------------------------------------------------
    def _check_params(self) -> None:
        """sklearn's constraints (failures raise :class:`~skdp_anomaly.exceptions.ParameterError`),
        then the cross-parameter hook."""
        try:
            self._validate_params()
        except InvalidParameterError as exc:
            raise self._parameter_error(exc) from None
        self._more_validate_params()

    def _parameter_error(self, exc: InvalidParameterError):
        """``exc`` with its fields: the first parameter that fails on its own."""
        from ..exceptions import ParameterError

        name = type(self).__name__
        for parameter, value in self.get_params(deep=False).items():
            constraints = self._parameter_constraints.get(parameter, "no_validation")
            if constraints == "no_validation":
                continue
            try:
                validate_parameter_constraints(
                    {parameter: constraints}, {parameter: value}, caller_name=name
                )
            except InvalidParameterError:
                return ParameterError(
                    str(exc),
                    estimator=name,
                    parameter=parameter,
                    value=value,
                    constraints=[make_constraint(c) for c in constraints],
                )
        return exc

    def _more_validate_params(self) -> None:
        """Checks between parameters (raise ``ValueError`` naming the parameter)."""

    def _privacy_cost(self) -> PrivacyCost:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- accounting, in this order: start, then charge before each release -----
    def _start_private_fit(self, planned: PrivacyCost | None = None) -> None:
        """Forget any earlier fit and reserve ``planned`` (default: ``privacy_cost()``).

        Call before reading the data, so that a refused budget computes nothing.
        """
        planned = self.privacy_cost() if planned is None else planned
        self._forget()
        self._open_run(planned)

    def _open_run(self, planned: PrivacyCost) -> None:
        self._close_run()
        accountant = getattr(self, "accountant", None)
        ledger = _relation(accountant)
        relation = {"replace": "replace-one", "add_remove": "add/remove"}.get(ledger, ledger)
        name = type(self).__name__
        try:
            entry = self._ledger_entry(planned)
        except ValueError as exc:  # a cost that does not hold under the ledger's relation
            prefix = f"{name} cannot be charged to an accountant under {relation} neighbours: "
            raise _prefixed(ValueError, prefix, exc) from None
        run = _Run(accountant, entry)
        try:
            run.reserve()
        except ValueError as exc:  # diffprivlib's BudgetError is a ValueError
            epsilon, delta = entry
            prefix = (
                f"{name} needs ε={epsilon:.6g}, δ={delta:.3g} from the accountant ({planned} "
                f"is charged under {relation} neighbours, the accountant's relation): "
            )
            raise _prefixed(type(exc), prefix, exc) from None
        self.__dict__["_budget_run"] = run

    def _close_run(self) -> None:
        run = self.__dict__.pop("_budget_run", None)
        if run is not None:
            run.close()

    def _forget(self) -> None:
        """Drop every fitted attribute and the private state of a run."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, name)
        for name in (*self._private_state, "_fitted", "_charges"):
            self.__dict__.pop(name, None)

    def _charge(self, cost: PrivacyCost) -> None:
        """Charge ``cost`` right before the release it pays for.

        Recorded even if the call fails later; paid from the fit's reservation.
        """
        epsilon, delta = self._ledger_entry(cost)
        run = self.__dict__.get("_budget_run")
        if run is None:  # a release outside a started fit: reserve just this one
            self._open_run(cost)
            run = self.__dict__["_budget_run"]
        run.spend(epsilon, delta)
        self.__dict__.setdefault("_charges", []).append(cost)

    def _spent(self) -> PrivacyCost:
        """Everything charged in the current run (zero when nothing was)."""
        charges = self.__dict__.get("_charges", [])
        if not charges:
            return PrivacyCost.zero()
        return compose_sequential(charges)

    def _ledger_entry(self, cost: PrivacyCost) -> tuple[float, float]:
        # accountants know (ε, δ) only; relaxed notions are charged their (ε, δ)
        # part and the notion is kept in privacy_spent_
        if cost.epsilon == 0 and cost.delta == 0:
            return 0.0, 0.0
        ledger = cost.under(_relation(getattr(self, "accountant", None)))
        return ledger.epsilon, ledger.delta

    # -- the template: every public fitting call is one transaction --------------
    def _reservation(self, method: str) -> PrivacyCost | None:
        """Validate the parameters; return what ``method`` reserves before it reads data.

        ``None``: nothing (a later call of a run under way, or a stream's resumable run,
        which reserves itself once it has checked its arguments).
        """
        if method == "partial_fit" and self.__sklearn_is_fitted__():
            self._check_params()  # a run under way was reserved at its first call
            return None
        return self.privacy_cost()

    def _record(self) -> None:
        """The last stage of a call: ``privacy_spent_`` from the run's charges."""
        self.privacy_spent_ = self._spent()

    def _transaction(self, method: str, step, *args, **kwargs):
        """Validate → reserve → ``step(*args, **kwargs)`` → record, or roll back.

        On any exception (``KeyboardInterrupt`` included) the estimator is put back, its
        charges kept (in ``privacy_spent_`` and on the accountant); on success it is marked
        fitted. The reservation is released unless a stream's run stays open
        (``_keeps_run_open``).
        """
        snapshot = self._snapshot()
        charges_before = list(self.__dict__.get("_charges", []))
        skip = self._skip_nested_validation or get_config()["skip_parameter_validation"]
        try:
            planned = self._reservation(method)
            if planned is not None:
                self._start_private_fit(planned)
            with config_context(skip_parameter_validation=skip):
                result = step(*args, **kwargs)
            self._record()
        except BaseException:
            made = _new_charges(charges_before, self.__dict__.get("_charges", []))
            self._close_run()
            self._restore(snapshot, made)
            raise
        self.__dict__["_fitted"] = True
        if not getattr(self, "_keeps_run_open", False):
            self._close_run()
        return result

    @classmethod
    def _parameter_names(cls) -> frozenset:
        # cached per class: a stream fed point by point snapshots at every call
        names = cls.__dict__.get("_parameter_names_cache")
        if names is None:
            names = frozenset(cls._get_param_names())
            cls._parameter_names_cache = names
        return names

    def _snapshot(self) -> dict:
        """A copy of everything a call may change (not the parameters)."""
        params = self._parameter_names()
        state = {k: v for k, v in vars(self).items() if k not in params and k != "_budget_run"}
        return copy.deepcopy(state)

    def _restore(self, snapshot: dict, made: list) -> None:
        """Put back ``snapshot``; keep (and report) the charges ``made`` since it was taken."""
        params = self._parameter_names()
        for name in [k for k in vars(self) if k not in params]:
            del self.__dict__[name]
        self.__dict__.update(snapshot)
        if made:
            self.__dict__["_charges"] = list(snapshot.get("_charges", [])) + list(made)
            self.privacy_spent_ = compose_sequential(self.__dict__["_charges"])


def _template(public: str, step):
    """The public ``public`` method of a class whose private step is ``step``."""

    def method(self, *args, **kwargs):
        return self._transaction(public, getattr(self, step.__name__), *args, **kwargs)

    method.__name__ = public
    method.__qualname__ = step.__qualname__.rsplit(".", 1)[0] + "." + public
    method.__module__ = step.__module__
    method.__doc__ = step.__doc__
    method.__signature__ = inspect.signature(step)
    return method


def _prefixed(kind: type, prefix: str, exc: Exception) -> Exception:
    """A ``kind`` error reading ``prefix + str(exc)``, keeping the settings ``exc`` names."""
    template = getattr(exc, "settings_template", None)
    return kind(prefix + str(exc)) if template is None else naming(kind, prefix + template)


def _new_charges(before: list, now: list) -> list:
    """The charges added to ``now`` since ``before`` (a fit may have reset the list)."""
    if len(now) >= len(before) and all(a is b for a, b in zip(before, now)):
        return list(now[len(before) :])
    return list(now)
