"""Docstring fragments shared by the two private searches."""

SHARED_DOC = """
    Parameters
    ----------
    estimator : classifier
        A private classifier (or a pipeline ending in one); every candidate is
        a clone of it with a candidate's parameters. Its cost is priced by
        :func:`~skdp_anomaly.check_privacy_budget`; one that learns without
        privacy is refused.
    {candidates}
    epsilon : float or None, default=None
        ε of the choice, on top of the candidates' own costs, in ``[1e-6, 30]``
        (the candidates keep the ε they are given). For
        ``selection="repeated"`` it must be at least the cost of the dearest
        candidate, ``ε_run``; ``2·ε_run`` is Liu and Talwar's random stopping
        (``3·ε_run`` in all). Give this or ``total_epsilon``, not both.
    total_epsilon : float or None, default=None
        ε of the whole search (candidates, choice and refit), in
        ``[1e-6, 30]``: the search sets every candidate's ``epsilon``
        parameter itself and adds the estimator's own setting of the searched
        parameters as the first candidate. A public rule of ``n``, ``d``, the
        number of classes and ε decides whether a search can pay; where it
        cannot, the estimator as given is fitted once at the whole
        ``total_epsilon`` (``searched_`` is False). :ref:`proofs-private-search`
        gives the split and the rule. The estimator needs an ``epsilon`` parameter whose cost is
        proportional to it (every private classifier of this package), and
        the grid must not search over ``epsilon``.
    force_search : bool, default=False
        With ``total_epsilon``: search even where the rule says one fit of
        the estimator as given is the better use of the budget.
    selection : {{"repeated", "holdout-noisy-max", "cv-noisy-max"}}, default="repeated"
        How the candidate is chosen (Notes). ``"repeated"`` with
        ``refit=False`` gave the best model at equal total ε in our
        measurements; ``"holdout-noisy-max"`` evaluates every candidate once,
        has a fixed run time and suits a grid of 2–3 candidates.
    n_runs : "auto" or float >= 1, default="auto"
        Mean number of runs of ``selection="repeated"``: ``"auto"`` is half
        the fits of a ``GridSearchCV`` with the same grid and ``cv``
        (candidates × splits / 2). The number itself is random and stays
        private.
    cv : int, cross-validation generator, iterable or None, default=None
        ``None`` or an int ``k``: ``KFold(k, shuffle=True)`` with a permutation
        drawn from ``random_state`` (``None`` is 5 folds). Never stratified:
        label-dependent folds move other records when one label changes
        (the budget validator reports such a splitter as a leak).
        ``"repeated"`` draws one split per run; ``"holdout-noisy-max"`` uses
        the first split; ``"cv-noisy-max"`` every split.
    scoring : {{"accuracy", "balanced_accuracy", "recall"}} or None, default=None
        The validation score, a weighted count of correct predictions whose
        change from one record is bounded (:ref:`proofs-private-search`). None
        means accuracy.
        ``"balanced_accuracy"`` (the mean of the per-class recalls) and
        ``"recall"`` (of ``pos_label``) tune imbalanced problems; balanced
        accuracy (and recall under ``"repeated"``) first releases the noisy
        class sizes of all of ``y`` once, at a quarter of the choice's ε, so
        the total does not change. Any other score is refused.
    pos_label : int, float, bool or str, default=1
        The class whose recall ``scoring="recall"`` scores (the anomalies);
        it must be in the public label set. Ignored by the other scores.
    refit : bool, default=True
        Refit the chosen candidate on all of ``X`` (its cost is added: the
        dearest candidate is charged). With ``refit=False``, ``best_estimator_``
        is a model the search already fitted and paid for: the winning run's
        model (``"repeated"``), or the chosen candidate's model on the first
        split; no extra cost.
    classes : array-like of shape (n_classes,) or None, default=None
        The public label set. Every candidate fit is given it (through its
        ``classes`` parameter, or its ``fit``'s), whatever labels its
        training part holds, so a released model's ``classes_`` never tells
        which labels a part held. ``None`` takes the labels of ``y`` as
        public (an assumption the budget report states). A candidate that
        can take no label set is refused (a leak).
    n_jobs : int or None, default=None
        Candidate fits run in parallel with joblib (``None``: one at a time,
        ``-1``: every core). The splits, the runs, the fits' seeds and the
        noise are drawn in the calling process in a fixed order, so a fixed
        ``random_state`` gives the same search for every ``n_jobs``.
    random_state : None, int or numpy.random.Generator, default=None
        Draws the splits' permutation, the runs and the noise (from separate
        streams; no generator is kept). ``None`` for deployment. A
        candidate's ``random_state`` (at any depth of a pipeline) left
        ``None`` stays ``None`` (fresh OS entropy per fit); one set to an int
        or a generator is replaced, fit by fit, by a seed from a stream of its
        own, so that no two fits share noise (the repetitions' guarantee
        assumes independent runs; a fixed seed would replay one noise draw).
    {{accountant}}
        The whole cost is reserved on it before the data are read. A
        candidate's own ``accountant`` parameter is deep-copied with every
        clone (scikit-learn's ``clone``), so the candidates' fits never reach
        it: this one is the search's ledger.
"""

ATTRIBUTES_DOC = """
    Attributes
    ----------
    best_estimator_ : estimator
        The refitted chosen candidate (``refit=True``), or the chosen
        candidate's model from the search (``refit=False``), or, when the
        search did not pay (``searched_`` False), the estimator as given
        fitted at the whole ``total_epsilon``.
    best_index_ : int
        Index of the chosen candidate in ``cv_results_["params"]`` (a DP output).
    best_params_ : dict
        Parameters of the chosen candidate (a DP output).
    best_score_ : float
        ``selection="repeated"`` only, after a search: the winning run's
        noisy validation score (a DP output). Absent for the noisy-max rules,
        which release the index only, and when no search was run.
    cv_results_ : dict
        ``params`` and one masked ``param_<name>`` column per parameter.
        Nothing else: per-candidate scores, ranks and fit times are
        data-dependent and are not released. When no search was run, the
        one candidate fitted.
    searched_ : bool
        False when ``total_epsilon`` was given and the rule found that no
        search pays (and ``force_search`` was False): the estimator as given
        was fitted once at the whole ε. True otherwise.
    n_splits_ : int
        Number of splits of the splitter.
    classes_ : ndarray
        Class labels of ``best_estimator_``.
    n_features_in_ : int
        Number of features, when ``best_estimator_`` has it.
    multimetric_ : bool
        Always False (one score).
    privacy_spent_ : PrivacyCost
        The search's charges (the candidate fits and choice, then the refit).
"""

NOTES_DOC = """
    Notes
    -----
    **Privacy.** Pure ε-DP under replace-one-record neighbours (``n``
    public; a record keeps its index, so index-based splits are public), the
    relation of diffprivlib's models; :func:`~skdp_anomaly.check_privacy_budget`
    prices this search row by row with no leak. ``privacy_cost()`` is the
    total, with ``ε_run`` the cost of the dearest candidate:
    ``"repeated"`` (default; a random number of runs, each a candidate on a
    split with a noisy validation score, the best released) costs
    ``ε_run + epsilon``, with ``epsilon >= ε_run``; ``"holdout-noisy-max"``
    costs ``Σ_c ε_c + epsilon``; ``"cv-noisy-max"`` costs
    ``memberships·Σ_c ε_c + epsilon``; ``refit=True`` adds the dearest
    candidate once more. Scores are bounded counts (accuracy, balanced
    accuracy, recall); the total is the same for every score.

    **Total ε.** With ``total_epsilon=T`` the search runs only where its
    noise terms are small (public quantities: ``n``, ``d``, the label set,
    ``T``); otherwise the estimator as given is fitted once on every row at
    ``T``. Either way it spends exactly ``T``. At equal total ε,
    ``"repeated"`` with ``refit=False`` did best on small data.

    Differences from :class:`~sklearn.model_selection.GridSearchCV`: the
    candidates must be classifiers scored by a bounded count; ``cv_results_``
    holds the parameters only; ``best_score_`` exists for ``"repeated"``
    only; an int ``cv`` is a shuffled ``KFold`` (not stratified); no fit
    times (a timing channel). Proofs, the scores' sensitivities and the
    measurements: :ref:`proofs-private-search` on :doc:`/proofs`.

    References
    ----------
    .. [1] J. Liu and K. Talwar. Private selection from private candidates.
       STOC 2019 (random stopping, §3).
    .. [2] N. Papernot and T. Steinke. Hyperparameter tuning with Rényi
       differential privacy. ICLR 2022, Theorem 2 (truncated negative
       binomial number of runs).
    .. [3] F. McSherry and K. Talwar. Mechanism design via differential
       privacy. FOCS 2007 (report-noisy-max).
    .. [4] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
       private empirical risk minimization. JMLR 12, 2011 (excess risk of
       objective perturbation).
"""
