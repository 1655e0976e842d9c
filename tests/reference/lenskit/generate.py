"""Generate LensKit 2025.8.1's own per-user and system values, stored as test references.

This script runs ONLY in a LensKit venv (not rankeval's)::

    python3.11 -m venv /tmp/peers/lenskit2025
    /tmp/peers/lenskit2025/bin/pip install --only-binary=:all: lenskit==2025.8.1 torch==2.13.0
    /tmp/peers/lenskit2025/bin/python tests/reference/lenskit/generate.py

LensKit 2025.x requires torch (``torch~=2.4``): ``lenskit.data.items`` imports it, and every
metric takes ``ItemList`` objects. The CPU wheel (``torch==2.13.0+cpu``, 190 MB) installed
from the machine's local wheel directory in about a minute; nothing else is heavy. No
LensKit release without torch has the 2025 metrics: 0.14.4 (the last before 2025, no torch)
is run by ``tests/reference/lenskit014/generate.py``. It takes a few seconds.

What it writes (next to this file)
----------------------------------
- ``pred.csv``, ``truth.csv``: ``peer_dataset.make_dataset(SEED)`` (see
  ``tests/reference/peer_dataset.py``): 300 users with a list and truth rows, 8 truth-only
  users, 4 pred-only users, lists of 1-25 items, tied scores for about a quarter of the
  users, rows shuffled.
- ``lenskit_ranking.csv``: ``user_id, item_id, rank``: LensKit's own order of each list,
  ``ItemList(item_ids, scores).top_n()`` (what ``lenskit.basic.TopNRanker`` does), from
  the rows of ``pred.csv`` in file order. Its sort is not stable: tied scores do not keep
  their row order (see the test module).
- ``lenskit_per_user.csv``: ``metric, user_id, value``: ``RunAnalysis.measure(...)
  .list_metrics(fill_missing=False)``, empty for NaN. ``metric`` is LensKit's label
  (``NDCG@10``, ``AveragePrecision``, ...), with ``[gain=rating]`` for the graded NDCG.
- ``lenskit_system.csv``: ``metric, value``: ``list_summary()["mean"]`` (NaN filled with
  each metric's ``default``, 0.0).
- ``lenskit_with_pred_only.csv``: ``metric, user_id, value``: a second run whose outputs
  also hold the 4 pred-only lists (``AveragePrecision`` left out: it raises
  ``ZeroDivisionError`` on a list without test items, ``_map.py`` ``ap_sum / min(len(test),
  len(recs))``): the system values (``user_id`` ``sys``) and the pred-only users' values.
- ``provenance.json``.

The calls
---------
``outputs = ItemListCollection`` of the ``top_n()`` lists keyed by ``user_id`` (the 300
users with a list and test items; see above for the pred-only lists), ``test = ItemListCollection.from_df(truth, "user_id")`` with the rating
as a ``rating`` field. ``RunAnalysis(...)`` with, for n in (None, 5, 10) where the metric
takes it: ``Precision(n)``, ``Recall(n)``, ``Hit(n)``, ``RecipRank(n)``,
``AveragePrecision(n)``, ``NDCG(n)``, ``DCG(n)``, ``RBP(n)`` (patience 0.85) and
``NDCG(n, gain="rating")``; every other argument is LensKit's default. Every test item is
relevant (LensKit has no threshold).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import peer_dataset  # noqa: E402

SEED = 20250602
NS = (None, 5, 10)


def read(name: str) -> pd.DataFrame:
    return pd.read_csv(os.path.join(HERE, name), dtype={"user_id": str, "item_id": str})


def metrics():
    from lenskit.metrics.ranking import DCG, NDCG, RBP, AveragePrecision, Hit, Precision, Recall, RecipRank

    out = []
    for n in NS:
        out += [(f"Precision(n={n})", Precision(n), None), (f"Recall(n={n})", Recall(n), None),
                (f"RecipRank(n={n})", RecipRank(n), None), (f"AveragePrecision(n={n})", AveragePrecision(n), None),
                (f"NDCG(n={n})", NDCG(n), None), (f"DCG(n={n})", DCG(n), None), (f"RBP(n={n})", RBP(n), None),
                (f"NDCG(n={n}, gain='rating')", NDCG(n, gain="rating"), "[gain=rating]")]
        if n is not None:
            out.append((f"Hit(n={n})", Hit(n), None))
    return out


def main() -> None:
    import lenskit
    import torch
    from lenskit.data import ItemList, ItemListCollection
    from lenskit.metrics import RunAnalysis

    pred, truth, _, _ = peer_dataset.make_dataset(SEED)
    pred.to_csv(os.path.join(HERE, "pred.csv"), index=False, float_format="%.17g")
    truth.to_csv(os.path.join(HERE, "truth.csv"), index=False, float_format="%.17g")
    pred, truth = read("pred.csv"), read("truth.csv")

    # LensKit ranks each list itself: top_n() on the scores, rows in file order
    outputs = ItemListCollection(["user_id"])
    ranking = []
    for user, rows in pred.groupby("user_id", sort=True):
        ranked = ItemList(item_ids=rows.item_id.to_numpy(), scores=rows.score.to_numpy()).top_n()
        outputs.add(ranked, user)
        ranking += [(user, str(i), int(r)) for i, r in zip(ranked.ids(), ranked.ranks())]
    test = ItemListCollection.from_df(truth.rename(columns={"score": "rating"}), "user_id")

    def run(outputs, skip=()):
        analysis = RunAnalysis()
        labels = {}
        for call, metric, suffix in metrics():
            label = metric.label + (suffix or "")
            if label.split("@")[0] in skip:
                continue
            analysis.add_metric(metric, label=label)
            labels[label] = call
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = analysis.measure(outputs, test)
        return labels, result.list_metrics(fill_missing=False), result.list_summary()

    # the pred-only lists (no test items) make AveragePrecision raise ZeroDivisionError
    # (_map.py: ap_sum / min(len(test), len(recs))): the main run measures the lists of the
    # users with test items; a second run adds the pred-only lists, without AveragePrecision
    with_truth = ItemListCollection(["user_id"])
    for key, il in outputs:
        if key[0] in set(truth.user_id):
            with_truth.add(il, *key)
    try:
        run(outputs)
        raise SystemExit("AveragePrecision no longer raises on a list without test items")
    except ZeroDivisionError:
        pass
    labels, users, summary = run(with_truth)
    per_user = [(label, str(u), float(v)) for label in labels for u, v in users[label].items()]
    system = [(label, float(summary.loc[label, "mean"])) for label in labels]
    for label, value in system:
        print(f"{label:32s} {value:.6f}  NaN users {int(users[label].isna().sum())}")
    labels_all, users_all, summary_all = run(outputs, skip=("AveragePrecision",))
    pred_only = sorted(set(pred.user_id) - set(truth.user_id))
    with_pred_only = [(label, "sys", float(summary_all.loc[label, "mean"])) for label in labels_all]
    with_pred_only += [(label, u, float(users_all.loc[u, label])) for label in labels_all for u in pred_only]

    pd.DataFrame(ranking, columns=["user_id", "item_id", "rank"]).to_csv(
        os.path.join(HERE, "lenskit_ranking.csv"), index=False)
    pd.DataFrame(per_user, columns=["metric", "user_id", "value"]).to_csv(
        os.path.join(HERE, "lenskit_per_user.csv"), index=False, float_format="%.17g")
    pd.DataFrame(system, columns=["metric", "value"]).to_csv(
        os.path.join(HERE, "lenskit_system.csv"), index=False, float_format="%.17g")
    pd.DataFrame(with_pred_only, columns=["metric", "user_id", "value"]).to_csv(
        os.path.join(HERE, "lenskit_with_pred_only.csv"), index=False, float_format="%.17g")
    info = {
        "peer": "LensKit", "package": "lenskit", "version": lenskit.__version__, "torch": torch.__version__,
        "install": ["python3.11 -m venv /tmp/peers/lenskit2025",
                    "/tmp/peers/lenskit2025/bin/pip install --only-binary=:all: lenskit==2025.8.1 torch==2.13.0"],
        "python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__,
        "date": datetime.date.today().isoformat(), "seed": SEED,
        "ranking": "ItemList(item_ids, scores).top_n() per user, rows in pred.csv order",
        "test": "ItemListCollection.from_df(truth renamed score -> rating, 'user_id')",
        "run": "RunAnalysis(); add_metric(metric, label=label); measure(outputs, test), outputs = the lists "
               "of the users with test items (a list without test items makes AveragePrecision raise "
               "ZeroDivisionError)",
        "run_with_pred_only": "the same on every list, without AveragePrecision: lenskit_with_pred_only.csv "
                              "(user_id 'sys': list_summary()['mean']; the pred-only users' list_metrics)",
        "per_user": "list_metrics(fill_missing=False)", "system": "list_summary()['mean']",
        "metrics": {label: f"lenskit.metrics.ranking.{call}" for label, call in labels.items()},
        "dataset": peer_dataset.summary(pred, truth),
    }
    with open(os.path.join(HERE, "provenance.json"), "w") as fh:
        json.dump(info, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
