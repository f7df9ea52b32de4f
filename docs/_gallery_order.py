"""The order of the example gallery (imported by ``docs/conf.py`` by name).

sphinx-gallery takes ``within_subsection_order`` as an importable name so that
the build configuration stays picklable (a function defined in conf.py is not).
"""

# the main use case first, then one example per component, the auditor last
EXAMPLES = [
    "plot_private_oversampling.py",
    "plot_gridsearch_budget.py",
    "plot_private_logistic_regression.py",
    "plot_private_model_selection.py",
    "plot_changepoint_nile.py",
    "plot_changepoint_dependence.py",
    "plot_online_changepoint.py",
    "plot_online_active_svc.py",
    "plot_group_search.py",
    "plot_dpoad.py",
    "plot_private_outlier.py",
    "plot_audit.py",
]


def example_order(filename: str) -> tuple:
    """Sort key: the listed examples in this order, then any other by name."""
    if filename in EXAMPLES:
        return EXAMPLES.index(filename), ""
    return len(EXAMPLES), filename
