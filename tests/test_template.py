"""The template: the mixin writes every public fitting method around a private step.

An estimator writes ``_private_fit`` / ``_private_partial_fit`` /
``_private_fit_resample``; the mixin's transaction validates, reserves, runs
it and records ``privacy_spent_``. These tests pin that every estimator goes
through it, and how far the first noise draw is from the public call.
"""

import sys

import numpy as np
import pytest

from skdp_anomaly.active_learning import PrivateOnlineActiveSVC
from skdp_anomaly.outlier import PrivateHBOS
from skdp_anomaly.over_sampling import DPSMOTE
from skdp_anomaly.privacy import PrivacyCostMixin
from skdp_anomaly.privacy import _mechanisms

import skdp_anomaly


def _estimators() -> list:
    import importlib
    import pkgutil

    for info in pkgutil.walk_packages(skdp_anomaly.__path__, "skdp_anomaly."):
        if not info.name.split(".")[-1].startswith("__"):
            importlib.import_module(info.name)
    found, todo = set(), [PrivacyCostMixin]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("skdp_anomaly.") and not sub.__name__.startswith("_"):
                found.add(sub)
    return sorted(found, key=lambda c: c.__name__)


_DRAWS = {"noise", "noise_steps", "randomise", "randomise_steps", "select", "feed"}
#: public methods that call the transaction themselves, and why
_OWN = {
    (
        PrivateOnlineActiveSVC,
        "partial_fit",
    ): "a call that fails after rows reached the label oracle commits, then re-raises"
}


def _public_methods(cls):
    return [public for step, public in PrivacyCostMixin._steps.items() if hasattr(cls, step)]


@pytest.mark.parametrize("cls", _estimators(), ids=lambda c: c.__name__)
def test_every_public_fitting_method_is_the_template(cls):
    from skdp_anomaly.privacy._protocol import _template

    template = _template("fit", lambda self: None).__code__
    methods = _public_methods(cls)
    assert methods, f"{cls.__name__} defines no private step"
    for public in methods:
        if (cls, public) in _OWN:
            continue
        assert getattr(cls, public).__code__ is template, f"{cls.__name__}.{public}"
    if not hasattr(cls, "_private_partial_fit"):  # no step, no public method
        assert (cls, "partial_fit") in _OWN or not hasattr(cls, "partial_fit")


def test_public_method_carries_the_steps_docstring_and_signature():
    import inspect

    assert DPSMOTE.fit_resample.__doc__ == DPSMOTE._private_fit_resample.__doc__
    assert str(inspect.signature(DPSMOTE.fit_resample)) == "(self, X, y, **params)"
    assert list(inspect.signature(PrivateOnlineActiveSVC().fit).parameters) == [
        "X",
        "y",
        "classes",
        "label_oracle",
    ]
    assert not hasattr(DPSMOTE(), "partial_fit")


def _frames_to_first_draw(call) -> list:
    """The frames from the public call to the first draw of a mechanism."""
    found = []

    def profile(frame, event, arg):
        if found or event != "call":
            return
        if frame.f_code.co_filename == _mechanisms.__file__ and frame.f_code.co_name in _DRAWS:
            stack, f = [], frame.f_back
            while f.f_code.co_name != "<lambda>":  # the test's call of the public method
                stack.append(f.f_code.co_name)
                f = f.f_back
            found.append(stack[::-1])

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return found[0]


@pytest.mark.parametrize(
    "name, make, most",
    [
        (
            "DPSMOTE.fit_resample",
            lambda X, y: DPSMOTE(epsilon=2, bounds=(0, 1), random_state=0).fit_resample(X, y),
            5,
        ),
        (
            "PrivateHBOS.fit",
            lambda X, y: PrivateHBOS(epsilon=2, bounds=(0, 1), random_state=0).fit(X),
            4,
        ),
    ],
)
def test_few_frames_from_the_public_method_to_the_first_noise_draw(name, make, most):
    rng = np.random.default_rng(0)
    X, y = rng.random((200, 3)), (rng.random(200) < 0.2).astype(int)
    frames = _frames_to_first_draw(lambda: make(X, y))
    # the template's method, its transaction, the private step, ...
    assert frames[0] == "method" and len(frames) <= most, frames
