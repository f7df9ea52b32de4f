"""Audit scenarios and replays of the package's releases, for the tests and benchmarks.

Not part of the package: the public auditor is :mod:`skdp_anomaly.auditing`
(``audit``, ``clopper_pearson``, ``floating_point_audit``); these modules hold
the worst-case neighbours, events and many-run replays the test suite and
``benchmarks/`` feed it. Tests import them as ``from audit_scenarios.xxx import
...`` (pytest puts ``tests/`` on ``sys.path``); benchmarks add ``tests/`` to
``sys.path`` first.

* :mod:`.mechanisms`: every mechanism of :mod:`skdp_anomaly.privacy`;
* :mod:`.float_releases`: the floating-point attack on the real-valued releases;
* :mod:`.selection`: the private choice of :mod:`skdp_anomaly.model_selection`;
* :mod:`.changepoint`: worst-case neighbouring series of the change-point detector;
* :mod:`.dpsmote`: many phase-1 releases of DPSMOTE at once;
* :mod:`.dpoad`: neighbouring windows and a learnt analyst report for DPOAD.
"""
