"""Differentially private online active learning (Ghassemi, Sarwate and Wright 2016).

:class:`PrivateOnlineActiveSVC` learns a linear SVM from a stream, asking for
the labels of informative rows only (private Bernoulli or exponential
selection) and releasing noisy window sums (DP-FTRL, with a DP class prior)
or the paper's noisy mini-batch updates (FLSW / FLMB).
"""

from ._online_svc import PrivateOnlineActiveSVC

__all__ = ["PrivateOnlineActiveSVC"]
