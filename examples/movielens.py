"""5-fold evaluation of popularity vs random recommendations on MovieLens-100k.

MovieLens may not be redistributed, so download it yourself from
https://grouplens.org/datasets/movielens/100k/ and pass the path of ``u.data``
(tab-separated ``user item rating timestamp``)::

    .venv/bin/python examples/movielens.py ~/data/ml-100k/u.data [--out results/]

Each user's ratings are split into 5 folds; each recommender lists 10 items the user
did not rate in training; an item is relevant when its rating is >= the user's mean.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

import rankeval as rk
from rankeval.datasets import recommend, train_test_folds

METRICS = [rk.NDCGAtK(10), rk.MAPAtK(10), rk.MRRAtK(10), rk.PrecisionAtK(10), rk.RecallAtK(10),
           rk.HitRateAtK(10)]


def read_u_data(path: Path) -> pd.DataFrame:
    try:
        ratings = pd.read_csv(path, sep="\t", header=None, names=["user_id", "item_id", "score", "timestamp"],
                              dtype={"user_id": "int64", "item_id": "int64", "score": "float64"})
    except FileNotFoundError:
        sys.exit(f"error: {path} not found; download ml-100k and pass the path of its u.data")
    except (ValueError, pd.errors.ParserError) as exc:
        sys.exit(f"error: {path} is not a MovieLens u.data file (user<TAB>item<TAB>rating<TAB>timestamp): {exc}")
    return ratings.drop(columns="timestamp")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, help="MovieLens-100k u.data")
    parser.add_argument("--out", type=Path, default=None, help="directory for the result CSV files")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    ratings = read_u_data(args.path)
    print(f"{args.path}: {ratings['user_id'].nunique()} users, {ratings['item_id'].nunique()} items, "
          f"{len(ratings)} ratings")
    folds = list(train_test_folds(ratings, n_folds=5, seed=0))
    truths = [test for _, test in folds]
    table = {}
    for name in ("popularity", "random"):
        preds = [recommend(train, test, name, n=10, seed=i) for i, (train, test) in enumerate(folds)]
        sys_result, users_result = rk.EvalModel(preds, truths, METRICS).fit()
        table[name] = sys_result.loc["mean"]
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            sys_result.to_csv(args.out / f"{name}_system.csv")
            users_result.to_csv(args.out / f"{name}_users.csv")
    with pd.option_context("display.precision", 4, "display.width", 120):
        print("\nmean over 5 folds:")
        print(pd.DataFrame(table).T)
    print(f"\ndone in {time.perf_counter() - start:.1f}s")


if __name__ == "__main__":
    main()
