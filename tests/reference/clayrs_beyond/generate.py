"""Generate ClayRS 0.5.1's own beyond-accuracy values, stored as test references.

Like ``tests/reference/clayrs/generate.py`` (whose docstring says how the ClayRS venv is
built): this script runs ONLY in the ClayRS venv and writes the files next to it, which
``tests/metrics/test_beyond_clayrs.py`` (rankeval's venvs, no ClayRS import) checks
rankeval against::

    /tmp/clayrs-venv/bin/python tests/reference/clayrs_beyond/generate.py

What it runs (clayrs 0.5.1, ``clayrs/evaluation/metrics/fairness_metrics.py``)
------------------------------------------------------------------------------
On two systems over the same train/truth: ``pop`` (each user's 15 most popular training
items they did not have, some users 5) and ``random`` (15 random catalog items they did
not have, some users 5), both ranked by a score column in row order:

- ``GiniIndex(top_n)`` for top_n None, 5, 10 (counts of the recommended items only);
- ``PredictionCoverage(catalog)`` and ``CatalogCoverage(catalog, top_n)`` for top_n 5,
  10 (a percentage rounded to 2 decimals);
- ``DeltaGap(user_groups, user_profiles=train, original_ratings=train, top_n,
  pop_percentage)`` for two group settings and top_n None, 5, 10;
- ``GroupFairnessMetric.split_user_in_groups`` (the popularity groups) for both settings.

Ties: ClayRS breaks popularity ties (items, users' popularity ratios) by order of first
appearance, rankeval by id. The seeded data is redrawn until no tie straddles a cut of
either group setting, so both rules give the same groups (rankeval's tie rule has its own
tests). Written: ``train.csv``, ``truth.csv``, ``pred_pop.csv``, ``pred_random.csv``,
``catalog.csv``, ``clayrs_system.csv`` (system, metric, value, ``%.17g``), ``groups.csv``
(setting, group, user_id) and ``provenance.json``.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.normpath(os.path.join(HERE, "..", "..", "..", "benchmarks"))
sys.path.insert(0, BENCH)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

N_USERS, N_ITEMS, N_TRAIN_ITEMS = 60, 150, 120
SETTINGS = {
    "clayrs_default": ({"blockbuster": 0.2, "niche": 0.2, "diverse": 0.6}, 0.2),
    "two_groups": ({"mainstream": 0.3, "rest": 0.7}, 0.1),
}


def make_data(seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    users = [f"u{u:03d}" for u in range(N_USERS)]
    items = np.array([f"i{i:03d}" for i in range(N_ITEMS)])
    weight = 1.0 / (np.arange(N_TRAIN_ITEMS) + 3.0) ** 1.1
    weight = weight[rng.permutation(N_TRAIN_ITEMS)]  # popularity not in id order
    train_rows, truth_rows, pop_rows, rnd_rows = [], [], [], []
    profiles = {}
    for u in users:
        n = int(rng.integers(4, 30))
        keys = np.log(weight) + rng.gumbel(size=N_TRAIN_ITEMS)
        profile = items[np.argsort(-keys)[:n]]
        profiles[u] = set(profile)
        train_rows += [(u, i, float(rng.integers(1, 6))) for i in profile]
    train = pd.DataFrame(train_rows, columns=["user_id", "item_id", "score"])
    popularity = train["item_id"].value_counts()
    ranked = sorted(popularity.index, key=lambda i: (-popularity[i], i))
    for j, u in enumerate(users):
        length = 5 if j % 7 == 3 else 15
        unseen = [i for i in items if i not in profiles[u]]
        top = [i for i in ranked if i not in profiles[u]][:length]
        pop_rows += [(u, i, float(length - r)) for r, i in enumerate(top)]
        chosen = rng.choice(unseen, size=length, replace=False)
        rnd_rows += [(u, i, float(length - r) + 0.5) for r, i in enumerate(chosen)]
        held = rng.choice(unseen, size=int(rng.integers(3, 9)), replace=False)
        truth_rows += [(u, i, float(rng.integers(1, 6))) for i in held]
    return {"train": train, "truth": pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"]),
            "pred_pop": pd.DataFrame(pop_rows, columns=["user_id", "item_id", "score"]),
            "pred_random": pd.DataFrame(rnd_rows, columns=["user_id", "item_id", "score"]),
            "catalog": pd.DataFrame({"item_id": items})}


def ties_at_cuts(train: pd.DataFrame) -> bool:
    """Whether a popularity tie straddles a cut of the most-popular items or of a group."""
    pop = train.groupby("item_id")["user_id"].nunique()
    n_users = train["user_id"].nunique()
    for groups, pct in SETTINGS.values():
        values = np.sort(pop.to_numpy())[::-1]
        n_top = round(len(values) * pct)
        if 0 < n_top < len(values) and values[n_top - 1] == values[n_top]:
            return True
        top = set(sorted(pop.index, key=lambda i: (-pop[i], i))[:n_top])
        ratio = train.groupby("user_id")["item_id"].agg(lambda s: len(set(s) & top) / len(set(s)))
        r = np.sort(ratio.to_numpy())[::-1]
        total = 0.0
        for share in groups.values():
            total += share
            cut = round(n_users * total)
            if 0 < cut < n_users and r[cut - 1] == r[cut]:
                return True
    return False


def main() -> None:
    import clayrs_real

    eva, Ratings, Rank, Split, ver, _stubs = clayrs_real.import_clayrs()
    from clayrs.evaluation.metrics.fairness_metrics import (CatalogCoverage, DeltaGap, GiniIndex,
                                                             GroupFairnessMetric, PredictionCoverage)
    from clayrs.evaluation.utils import get_item_popularity, get_most_popular_items

    seed = 20250101
    while True:
        data = make_data(seed)
        if not ties_at_cuts(data["train"]):
            break
        seed += 1
    for name, frame in data.items():
        frame.to_csv(os.path.join(HERE, f"{name}.csv"), index=False, float_format="%.17g")

    train_r = Ratings.from_dataframe(data["train"], user_column="user_id", item_column="item_id",
                                     score_column="score")
    truth_r = Ratings.from_dataframe(data["truth"], user_column="user_id", item_column="item_id",
                                     score_column="score")
    catalog = set(data["catalog"]["item_id"])
    rows = []
    for system in ("pop", "random"):
        pred_r = Rank.from_dataframe(data[f"pred_{system}"], user_column="user_id", item_column="item_id",
                                     score_column="score")
        metrics = [("GiniIndex()", GiniIndex()), ("GiniIndex(top_n=5)", GiniIndex(top_n=5)),
                   ("GiniIndex(top_n=10)", GiniIndex(top_n=10)),
                   ("PredictionCoverage(catalog)", PredictionCoverage(catalog)),
                   ("CatalogCoverage(catalog, top_n=5)", CatalogCoverage(catalog, top_n=5)),
                   ("CatalogCoverage(catalog, top_n=10)", CatalogCoverage(catalog, top_n=10))]
        for setting, (groups, pct) in SETTINGS.items():
            for top_n in (None, 5, 10):
                metrics.append((f"DeltaGap({setting}, top_n={top_n})",
                                DeltaGap(groups, user_profiles=[train_r], original_ratings=train_r, top_n=top_n,
                                         pop_percentage=pct)))
        for label, metric in metrics:
            frame = metric.perform(Split(pred_r, truth_r))
            sys_row = frame.set_index("user_id").loc["sys"]
            for column, value in sys_row.items():
                rows.append((system, label, str(column), float(value)))
    if clayrs_real.STUB_USES:
        raise SystemExit(f"a stand-in module was used: {clayrs_real.STUB_USES[:5]}")
    pd.DataFrame(rows, columns=["system", "metric", "column", "value"]).to_csv(
        os.path.join(HERE, "clayrs_system.csv"), index=False, float_format="%.17g")

    group_rows = []
    pop_by_item = get_item_popularity(train_r)
    for setting, (groups, pct) in SETTINGS.items():
        top = get_most_popular_items(pop_by_item, pct)
        split = GroupFairnessMetric.split_user_in_groups(train_r, groups, top)
        for g, members in split.items():
            group_rows += [(setting, g, u) for u in sorted(members)]
    pd.DataFrame(group_rows, columns=["setting", "group", "user_id"]).to_csv(
        os.path.join(HERE, "groups.csv"), index=False)

    with open(os.path.join(HERE, "provenance.json"), "w") as fh:
        json.dump({"clayrs": ver, "numpy": np.__version__, "pandas": pd.__version__,
                   "python": sys.version.split()[0], "seed": seed, "n_users": N_USERS, "n_items": N_ITEMS},
                  fh, indent=2)
    print(f"seed {seed}: wrote {len(rows)} system values and {len(group_rows)} group memberships")


if __name__ == "__main__":
    main()
