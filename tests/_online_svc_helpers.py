"""Shared by the PrivateOnlineActiveSVC tests of the paper's mechanics."""

from skdp_anomaly import PrivateOnlineActiveSVC


def paper_svc(**params):
    """The estimator with the paper's updates (no intercept): the mechanics these
    tests pin down (the default DP-FTRL update has tests of its own)."""
    return PrivateOnlineActiveSVC(**{"update": "flmb", "fit_intercept": False, **params})
