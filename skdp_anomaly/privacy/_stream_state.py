"""The private state of a stream in progress: in memory while needed, never in a pickle.

An open window's rows, a true partial sum, a noisy threshold are no DP output:
:class:`StreamState` pickles without them and an unpickled run refuses to go on.
``copy.deepcopy`` keeps everything (it is not a release).
"""

from __future__ import annotations

import copy


class StreamState:
    """Base of a run's private state.

    Subclasses' ``_without_data()`` returns ``(replacements, what is left out in words)``.
    """

    #: what an earlier zeroing (a pickle, the end of a fit) left out, in words
    left_out: str = ""
    #: the owner's explicit choice to pickle everything (a run moved between trusted
    #: processes, e.g. dask-ml's Incremental): such a pickle is data
    pickle_data: bool = False

    def _without_data(self) -> tuple[dict, str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        if self.pickle_data:
            return state
        replacements, what = self._without_data()
        state.update(replacements)
        state["left_out"] = "; ".join(filter(None, [self.left_out, what]))
        return state

    def __deepcopy__(self, memo):
        clone = object.__new__(type(self))
        memo[id(self)] = clone
        clone.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return clone

    def check_resumable(self, owner: str) -> None:
        """A ValueError (naming estimator ``owner``) when data the run needs was left out."""
        if self.left_out:
            raise ValueError(
                f"this {owner}'s run was unpickled or ended without the data it needs to go "
                f"on ({self.left_out}): a pickle holds no training row, raw statistic or "
                "secret noise, and going on without them would drop data. The fitted "
                "attributes still hold; start a new run with fit, or partial_fit on a clone."
            )
