"""Generate LensKit 0.14.4's own ``LastFrac`` test sets on MovieLens-100K, stored as digests.

This script runs ONLY in a LensKit 0.14 venv (not rankeval's), set up as ``generate.py``
says, and reads MovieLens-100K from RecBole 1.2.1's wheel (the file the tests cache)::

    /tmp/peers/lenskit014/bin/python tests/reference/lenskit014/generate_lastfrac.py \\
        ~/.cache/rankeval/recbole-1.2.1-py3-none-any.whl

What it runs: ``lenskit.crossfold.partition_users(frame, 1, LastFrac(f))`` (every user in
the one test partition; ``LastFrac.__call__`` is ``n = round(len(udf) * frac)`` then
``udf.sort_values("timestamp").iloc[-n:]``) for each fraction below.

Ties in time. ``sort_values`` is NumPy's quicksort, which does not keep equal times in row
order, and ML-100K's users rate many movies in the same second. So the frame given to LensKit
(and to rankeval in ``tests/test_split_movielens.py``) breaks them by item id: its timestamp
is ``timestamp * 2000 + item_id`` (item ids are below 2000), unique within a user and in the
order of (time, item id). Any sort then gives the same order.

What it writes (next to this file)
----------------------------------
- ``lastfrac_ml100k.csv``: ``fraction, user_id, n_test, items``: per fraction and user, how
  many of the user's interactions LensKit put in test and a digest of which (the first 16 hex
  digits of the SHA-256 of the sorted test item ids joined by commas). Digests rather than the
  items: MovieLens' licence does not allow redistributing its ratings.
- ``provenance_lastfrac.json``.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import sys
import zipfile

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
MEMBER = "recbole/dataset_example/ml-100k/ml-100k.inter"
WHEEL_SHA256 = "9c9948202011f37eb0a7c6768129313f00d6403ad221ec940d5e2d5d5f33a407"
FRACTIONS = (0.1, 0.25, 0.5)


def digest(items) -> str:
    return hashlib.sha256(",".join(str(int(i)) for i in sorted(items)).encode()).hexdigest()[:16]


def main(wheel: str) -> None:
    import lenskit
    from lenskit.crossfold import LastFrac, partition_users

    raw = open(wheel, "rb").read()
    assert hashlib.sha256(raw).hexdigest() == WHEEL_SHA256, "not RecBole 1.2.1's wheel"
    with zipfile.ZipFile(wheel) as archive, archive.open(MEMBER) as handle:
        frame = pd.read_csv(handle, sep="\t")
    frame.columns = ["user", "item", "rating", "timestamp"]
    frame["timestamp"] = frame["timestamp"].astype("int64") * 2000 + frame["item"].astype("int64")
    assert frame.groupby("user")["timestamp"].nunique().sum() == len(frame) == 100_000

    rows = []
    for fraction in FRACTIONS:
        (pair,) = list(partition_users(frame, 1, LastFrac(fraction), rng_spec=0))
        for user, test in pair.test.groupby("user"):
            rows.append((fraction, int(user), len(test), digest(test["item"])))
        assert pair.test["user"].nunique() == frame["user"].nunique()  # every user has a test row
    out = pd.DataFrame(rows, columns=["fraction", "user_id", "n_test", "items"])
    out.sort_values(["fraction", "user_id"]).to_csv(os.path.join(HERE, "lastfrac_ml100k.csv"), index=False)
    provenance = {"lenskit": lenskit.__version__, "pandas": pd.__version__, "python": platform.python_version(),
                  "call": "lenskit.crossfold.partition_users(frame, 1, LastFrac(f), rng_spec=0)",
                  "fractions": list(FRACTIONS), "data": f"{MEMBER} in recbole-1.2.1 (sha256 {WHEEL_SHA256})",
                  "ties": "timestamp * 2000 + item_id",
                  "date": datetime.date.today().isoformat()}
    with open(os.path.join(HERE, "provenance_lastfrac.json"), "w") as handle:
        json.dump(provenance, handle, indent=2)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/rankeval/recbole-1.2.1-py3-none-any.whl"))
