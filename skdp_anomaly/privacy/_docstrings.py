"""Parameter descriptions every estimator shares, written once.

A placeholder line (``    {accountant}``) in a docstring is replaced by
:func:`fill_doc` (no ``str.format``: other braces stay as written).
"""

from __future__ import annotations

SHARED_PARAMETERS = {
    "accountant": """accountant : object with ``spend(epsilon, delta)``, default=None
        A diffprivlib ``BudgetAccountant`` or any object with
        ``spend(epsilon, delta)`` and optionally ``check``. The whole planned
        cost is reserved on it before the data are read (atomically: fits
        sharing it in several threads cannot overspend), so a fit it cannot
        pay is refused and releases nothing; each release is then charged
        right before it is made. It is charged under replace-one neighbours,
        the relation of diffprivlib's models (an add/remove ε counts 2ε).
        ``None`` charges no accountant; ``BudgetAccountant.load_default(None)``
        shares diffprivlib's default one.""",
    "random_state": """random_state : None, int or numpy.random.Generator, default=None
        Source of the privacy noise. ``None`` (fresh OS entropy) is the only
        safe choice in deployment; an int or a Generator makes runs
        reproducible, for tests and experiments only (anyone who knows the
        seed can subtract the noise). No generator is kept in fitted state.""",
}


def fill_doc(obj):
    """``obj`` (a class or function), the placeholders of its docstring filled in."""
    doc = obj.__doc__
    if doc:
        for name, text in SHARED_PARAMETERS.items():
            doc = doc.replace("{" + name + "}", text)
        obj.__doc__ = doc
    return obj
