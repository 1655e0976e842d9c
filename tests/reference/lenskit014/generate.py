"""Generate LensKit 0.14.4's own per-user values, stored as test references.

This script runs ONLY in a LensKit 0.14 venv (not rankeval's)::

    python3.11 -m venv /tmp/peers/lenskit014
    /tmp/peers/lenskit014/bin/pip install --only-binary=:all: lenskit==0.14.4 numpy==1.24.4 pandas==1.5.3 \\
        numba==0.58.1
    /tmp/peers/lenskit014/bin/python tests/reference/lenskit014/generate.py

LensKit 0.14.4 (2023, the last release before the 2025 rewrite) needs no torch: numpy, pandas,
scipy, numba < 0.59, csr, binpickle, seedbank. It takes a few seconds.

What it writes (next to this file)
----------------------------------
- ``pred.csv``, ``truth.csv``: ``peer_dataset.make_dataset(SEED)`` (see
  ``tests/reference/peer_dataset.py``): 300 users with a list and truth rows, 8 truth-only
  users, 4 pred-only users, lists of 1-25 items, tied scores for about a quarter of the
  users, rows shuffled.
- ``lenskit014_recs.csv``: ``user, item, score, rank``: LensKit's own ranking,
  ``lenskit.batch.recommend(TopN(predictor), users, n=100, candidates, n_jobs=1)``, where the
  predictor returns each user's scores from ``pred.csv`` for the listed items (in file
  order). ``TopN.recommend`` ranks them with ``Series.nlargest(n)``, which keeps tied items
  in their row order.
- ``lenskit014_per_user.csv``: ``metric, user_id, value``: ``RecListAnalysis().compute(recs,
  truth)`` with the metrics below, one row per list (pred-only users included: LensKit
  measures them), empty for NaN. Metrics with a bulk implementation use it (the recs have a
  ``rank`` column), as ``RecListAnalysis`` does.
- ``provenance.json``.

The metrics: ``precision``, ``recall``, ``recip_rank`` (k None, 5, 10), ``hit`` (k 5, 10),
``ndcg`` (k None, 5, 10) and ``dcg``, on the truth as ``user, item`` (every test item has
gain 1), and ``ndcg`` (k None, 5, 10) on the truth with a ``rating`` column (graded gains),
labelled ``ndcg[rating]``. All from ``lenskit.topn``.
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

SEED = 20250604
KS = (None, 5, 10)


def read(name: str) -> pd.DataFrame:
    return pd.read_csv(os.path.join(HERE, name), dtype={"user_id": str, "item_id": str})


def main() -> None:
    import lenskit
    from lenskit import batch, topn
    from lenskit.algorithms import Predictor
    from lenskit.algorithms.ranking import TopN

    pred, truth, _, _ = peer_dataset.make_dataset(SEED)
    pred.to_csv(os.path.join(HERE, "pred.csv"), index=False, float_format="%.17g")
    truth.to_csv(os.path.join(HERE, "truth.csv"), index=False, float_format="%.17g")
    pred, truth = read("pred.csv"), read("truth.csv")

    class Scores(Predictor):
        """The scores of pred.csv, as a LensKit predictor."""

        def fit(self, ratings=None, **kwargs):
            self.scores_ = {u: pd.Series(g.score.to_numpy(), index=g.item_id.to_numpy())
                            for u, g in pred.groupby("user_id")}
            return self

        def predict_for_user(self, user, items, ratings=None):
            return self.scores_[user].reindex(items)

    algo = TopN(Scores().fit())
    users = sorted(pred.user_id.unique())
    candidates = {u: g.item_id.to_numpy() for u, g in pred.groupby("user_id")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recs = batch.recommend(algo, users, 100, candidates, n_jobs=1)
    recs = recs[["user", "item", "score", "rank"]]
    assert len(recs) == len(pred)

    binary = truth.rename(columns={"user_id": "user", "item_id": "item"})[["user", "item"]]
    graded = truth.rename(columns={"user_id": "user", "item_id": "item", "score": "rating"})
    calls = []
    analysis = topn.RecListAnalysis(n_jobs=1)
    for k in KS:
        for fn in (topn.precision, topn.recall, topn.recip_rank, topn.hit, topn.ndcg):
            if fn is topn.hit and k is None:
                continue
            name = fn.__name__ if k is None else f"{fn.__name__}@{k}"
            analysis.add_metric(fn, name=name, **({} if k is None else {"k": k}))
            calls.append((name, f"lenskit.topn.{fn.__name__}", {} if k is None else {"k": k}, "user, item"))
    analysis.add_metric(topn.dcg, name="dcg")
    calls.append(("dcg", "lenskit.topn.dcg", {}, "user, item"))
    graded_analysis = topn.RecListAnalysis(n_jobs=1)
    for k in KS:
        name = "ndcg[rating]" if k is None else f"ndcg@{k}[rating]"
        graded_analysis.add_metric(topn.ndcg, name=name, **({} if k is None else {"k": k}))
        calls.append((name, "lenskit.topn.ndcg", {} if k is None else {"k": k}, "user, item, rating"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = analysis.compute(recs.drop(columns=["score"]), binary)
        res_graded = graded_analysis.compute(recs.drop(columns=["score"]), graded)
    res = res.join(res_graded.drop(columns=["nrecs"]))

    per_user = [(name, str(u), float(v)) for name, *_ in calls for u, v in res[name].items()]
    for name, *_ in calls:
        print(f"{name:16s} mean {res[name].mean():.6f}  NaN lists {int(res[name].isna().sum())}")

    recs.to_csv(os.path.join(HERE, "lenskit014_recs.csv"), index=False, float_format="%.17g")
    pd.DataFrame(per_user, columns=["metric", "user_id", "value"]).to_csv(
        os.path.join(HERE, "lenskit014_per_user.csv"), index=False, float_format="%.17g")
    info = {
        "peer": "LensKit", "package": "lenskit", "version": lenskit.__version__,
        "install": ["python3.11 -m venv /tmp/peers/lenskit014",
                    "/tmp/peers/lenskit014/bin/pip install --only-binary=:all: lenskit==0.14.4 numpy==1.24.4 "
                    "pandas==1.5.3 numba==0.58.1"],
        "python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__,
        "date": datetime.date.today().isoformat(), "seed": SEED,
        "ranking": "lenskit.batch.recommend(TopN(predictor returning pred.csv's scores), users, 100, "
                   "candidates = each user's listed items, n_jobs=1)",
        "run": "lenskit.topn.RecListAnalysis(n_jobs=1); add_metric(fn, name=..., k=...); "
               "compute(recs[user, item, rank], truth)",
        "calls": [{"metric": name, "function": fn, "arguments": kwargs, "truth_columns": cols}
                  for name, fn, kwargs, cols in calls],
        "dataset": peer_dataset.summary(pred, truth),
    }
    with open(os.path.join(HERE, "provenance.json"), "w") as fh:
        json.dump(info, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
