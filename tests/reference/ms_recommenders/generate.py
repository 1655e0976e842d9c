"""Generate Microsoft Recommenders 1.2.1's own values, stored as test references.

This script runs ONLY in a venv that has Recommenders' evaluation module (not rankeval's)::

    python3.11 -m venv /tmp/peers/ms
    /tmp/peers/ms/bin/pip install --no-deps recommenders==1.2.1
    /tmp/peers/ms/bin/pip install --only-binary=:all: pandas==2.2.3 "numpy<2.3" scikit-learn
    /tmp/peers/ms/bin/python tests/reference/ms_recommenders/generate.py

``recommenders/evaluation/python_evaluation.py`` imports only numpy, pandas, scikit-learn
(``sklearn.metrics``) and two small modules of the package (``utils/constants.py``,
``datasets/pandas_df_utils.py``): ``--no-deps`` leaves out cornac, lightgbm, transformers,
notebook and the rest, which the evaluation code does not use. Recommenders 1.2.1 needs
pandas < 3. It takes about a minute.

What it writes (next to this file)
----------------------------------
- ``pred.csv`` (``user_id, item_id, score``), ``truth.csv`` (``user_id, item_id, score``),
  ``train.csv`` (``user_id, item_id``) and ``features.csv`` (``item_id, f0 ... f5``):
  ``peer_dataset.make_dataset(SEED)``, see ``tests/reference/peer_dataset.py``. The pred
  rows are shuffled and about a quarter of the users have tied scores.
- ``ms_recommenders_system.csv``: ``metric, value``. ``metric`` is the call, e.g.
  ``map_at_k(k=10)``, and ``value`` what it returned on the whole frames (``%.17g``).
- ``ms_recommenders_per_user.csv``: ``metric, user_id, value``: the same call on the frames
  restricted to one user, for every user with a list and truth rows (the functions return
  a system value only; on one user that value is the user's). For ``user_diversity`` the
  rows are what that function returns per user.
- ``provenance.json``.

The calls
---------
The frames are renamed to Recommenders' default columns: ``userID, itemID, rating`` for the
truth and ``userID, itemID, prediction`` for the predictions. Every truth row is a relevant
item (these functions have no relevance threshold: ``relevancy_method`` picks the top k
*predictions*).

- ``precision_at_k``, ``recall_at_k``, ``map_at_k``, ``map``, ``r_precision_at_k`` and
  ``ndcg_at_k`` (``score_type`` "binary", "raw" and "exp") with ``k`` 5 and 10 and the
  default ``relevancy_method="top_k"``: ``get_top_k_items`` sorts by
  ``[userID, prediction]`` (pandas' multi-column sort is stable, so tied predictions keep
  their row order) and keeps k rows per user.
- ``map(relevancy_method=None)``: the whole list, ranked in the order of its rows. For
  that call alone the rows are first put in rank order (stable sort by prediction,
  descending, within user), since ``relevancy_method=None`` means "already ranked".
- On the training data (``train_df``) and the lists of the users that have truth rows
  (``reco_df``): ``catalog_coverage``, ``distributional_coverage``, ``novelty``,
  ``diversity`` and ``user_diversity`` with ``item_sim_measure="item_feature_vector"``
  (cosine of the item vectors in ``features.csv``, as numpy arrays in a ``features``
  column). ``serendipity`` and the co-occurrence similarity have no rankeval counterpart
  and are not run.
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

SEED = 20250601
KS = (5, 10)
COLS = {"user_id": "userID", "item_id": "itemID"}


def read(name: str) -> pd.DataFrame:
    return pd.read_csv(os.path.join(HERE, name), dtype={"user_id": str, "item_id": str})


def write_data() -> None:
    pred, truth, train, features = peer_dataset.make_dataset(SEED)
    for name, df in (("pred", pred), ("truth", truth), ("train", train), ("features", features)):
        df.to_csv(os.path.join(HERE, f"{name}.csv"), index=False, float_format="%.17g")


def main() -> None:
    import recommenders
    from recommenders.evaluation import python_evaluation as pe

    write_data()
    pred, truth, train, features = (read(f"{n}.csv") for n in ("pred", "truth", "train", "features"))
    rating_pred = pred.rename(columns={**COLS, "score": "prediction"})
    rating_true = truth.rename(columns={**COLS, "score": "rating"})
    # relevancy_method=None takes the rows as already ranked: rank them (stable: ties keep row order)
    ranked_pred = rating_pred.sort_values(["userID", "prediction"], ascending=[True, False], kind="stable")

    calls: list[tuple[str, object, dict, pd.DataFrame]] = []
    for k in KS:
        calls += [(f"precision_at_k(k={k})", pe.precision_at_k, {"k": k}, rating_pred),
                  (f"recall_at_k(k={k})", pe.recall_at_k, {"k": k}, rating_pred),
                  (f"map_at_k(k={k})", pe.map_at_k, {"k": k}, rating_pred),
                  (f"map(k={k})", pe.map, {"k": k}, rating_pred),
                  (f"r_precision_at_k(k={k})", pe.r_precision_at_k, {"k": k}, rating_pred)]
        for score_type in ("binary", "raw", "exp"):
            calls.append((f"ndcg_at_k(k={k}, score_type={score_type})", pe.ndcg_at_k,
                          {"k": k, "score_type": score_type}, rating_pred))
    calls.append(("map(relevancy_method=None)", pe.map, {"relevancy_method": None}, ranked_pred))

    both = sorted(set(rating_pred.userID) & set(rating_true.userID))
    system, per_user = [], []
    for label, fn, kwargs, rp in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            system.append((label, float(fn(rating_true, rp, **kwargs))))
            for u in both:
                value = fn(rating_true[rating_true.userID == u], rp[rp.userID == u], **kwargs)
                per_user.append((label, u, float(value)))
        print(f"{label:40s} {system[-1][1]:.6f}")

    # beyond accuracy: the lists of the evaluated users (those with truth rows), as rankeval evaluates
    train_df = train.rename(columns=COLS)
    reco_df = rating_pred[rating_pred.userID.isin(set(rating_true.userID))][["userID", "itemID"]].reset_index(drop=True)
    fcols = [c for c in features.columns if c != "item_id"]
    item_feature_df = pd.DataFrame({"itemID": features.item_id,
                                    "features": list(features[fcols].to_numpy(dtype=float))})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        system += [("catalog_coverage()", float(pe.catalog_coverage(train_df, reco_df))),
                   ("distributional_coverage()", float(pe.distributional_coverage(train_df, reco_df))),
                   ("novelty()", float(pe.novelty(train_df, reco_df)))]
        div = dict(item_feature_df=item_feature_df, item_sim_measure="item_feature_vector")
        system.append(("diversity(item_sim_measure=item_feature_vector)", float(pe.diversity(train_df, reco_df, **div))))
        user_div = pe.user_diversity(train_df, reco_df, **div)
    per_user += [("user_diversity(item_sim_measure=item_feature_vector)", u, float(v))
                 for u, v in zip(user_div.userID, user_div.user_diversity)]
    for label, value in system[-4:]:
        print(f"{label:40s} {value:.6f}")

    pd.DataFrame(system, columns=["metric", "value"]).to_csv(
        os.path.join(HERE, "ms_recommenders_system.csv"), index=False, float_format="%.17g")
    pd.DataFrame(per_user, columns=["metric", "user_id", "value"]).to_csv(
        os.path.join(HERE, "ms_recommenders_per_user.csv"), index=False, float_format="%.17g")
    info = {
        "peer": "Microsoft Recommenders", "package": "recommenders", "version": recommenders.__version__,
        "module": "recommenders/evaluation/python_evaluation.py",
        "install": ["python3.11 -m venv /tmp/peers/ms",
                    "/tmp/peers/ms/bin/pip install --no-deps recommenders==1.2.1",
                    "/tmp/peers/ms/bin/pip install --only-binary=:all: pandas==2.2.3 'numpy<2.3' scikit-learn"],
        "python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__,
        "date": datetime.date.today().isoformat(), "seed": SEED,
        "columns": {"truth": ["userID", "itemID", "rating"], "pred": ["userID", "itemID", "prediction"]},
        "calls": [{"metric": label, "function": f"python_evaluation.{fn.__name__}",
                   "arguments": {**kwargs, **({} if "relevancy_method" in kwargs else {"relevancy_method": "top_k"})},
                   "pred_rows": "ranked by prediction (stable)" if rp is ranked_pred else "as in pred.csv"}
                  for label, fn, kwargs, rp in calls]
        + [{"metric": f"{name}()", "function": f"python_evaluation.{name}",
            "arguments": {"train_df": "train.csv", "reco_df": "pred.csv rows of the users in truth.csv"}}
           for name in ("catalog_coverage", "distributional_coverage", "novelty")]
        + [{"metric": f"{name}(item_sim_measure=item_feature_vector)", "function": f"python_evaluation.{name}",
            "arguments": {"train_df": "train.csv", "reco_df": "pred.csv rows of the users in truth.csv",
                          "item_feature_df": "features.csv as numpy arrays in a 'features' column",
                          "item_sim_measure": "item_feature_vector"}}
           for name in ("diversity", "user_diversity")],
        "per_user": "each ranking function called on the frames restricted to one user, for every user "
                    "with a list and truth rows; user_diversity returns per-user values itself",
        "dataset": peer_dataset.summary(pred, truth),
    }
    with open(os.path.join(HERE, "provenance.json"), "w") as fh:
        json.dump(info, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
