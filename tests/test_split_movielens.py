"""The splitters on MovieLens-100K against the peers' own rules, and the audit's leakage of each split.

MovieLens-100K is not committed (GroupLens' licence does not allow redistributing it): the
tests read ``recbole/dataset_example/ml-100k/ml-100k.inter`` from RecBole 1.2.1's wheel on
PyPI, fetched once with ``pip download`` into a cache folder (``RANKEVAL_DATA_CACHE``, else
``~/.cache/rankeval``) and checked against its SHA-256. ``RANKEVAL_RECBOLE_WHEEL`` may point
at a wheel already on disk. Without network the tests are skipped, unless
``RANKEVAL_REQUIRE_PEERS`` is set (``make test``), where a missing wheel fails them.

Each peer's rule is written out below as the peer's code does it (file and line of the
snapshot read: MS Recommenders b02c95e, LensKit 3bd1c17, RecBole 7b02be5), run on the
same frame, and compared row for row with ours. ``temporal_holdout(rounding=)`` is compared
with the peers' own code instead: MS Recommenders 1.2.1's ``python_chrono_split`` (installed
with ``--no-deps`` by ``make test``) run here, LensKit 0.14.4's ``LastFrac`` stored by
``tests/reference/lenskit014/generate_lastfrac.py``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rankeval.datasets import read_movielens
from rankeval.exceptions import RankevalWarning
from rankeval.split import audit, global_temporal, kfold, random_holdout, temporal_holdout

from ._require import require, unavailable

LASTFRAC = Path(__file__).parent / "reference" / "lenskit014" / "lastfrac_ml100k.csv"
WHEEL = "recbole-1.2.1-py3-none-any.whl"
WHEEL_SHA256 = "9c9948202011f37eb0a7c6768129313f00d6403ad221ec940d5e2d5d5f33a407"
MEMBER = "recbole/dataset_example/ml-100k/ml-100k.inter"


def _wheel() -> Path | None:
    given = os.environ.get("RANKEVAL_RECBOLE_WHEEL")
    if given:
        return Path(given)
    cache = Path(os.environ.get("RANKEVAL_DATA_CACHE", Path.home() / ".cache" / "rankeval"))
    path = cache / WHEEL
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
                            "-q", "recbole==1.2.1", "-d", str(cache)], check=True, timeout=300,
                           capture_output=True)
        except (subprocess.SubprocessError, OSError):
            return None
    return path if path.exists() else None


@pytest.fixture(scope="module")
def ml100k(tmp_path_factory) -> pd.DataFrame:
    wheel = _wheel()
    if wheel is None:
        unavailable("recbole", "RecBole 1.2.1's wheel (MovieLens-100K) could not be fetched with pip")
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == WHEEL_SHA256
    folder = tmp_path_factory.mktemp("ml100k")
    with zipfile.ZipFile(wheel) as archive:
        target = folder / "ml-100k.inter"
        target.write_bytes(archive.read(MEMBER))
    frame = read_movielens(target)
    assert frame.shape == (100_000, 4) and frame["user_id"].nunique() == 943
    return frame


def _rows(frame: pd.DataFrame) -> list[int]:
    return sorted(frame.index.tolist())


# --------------------------------------------------------------------------- #
# the peers' rules, written as their code does it
# --------------------------------------------------------------------------- #
def recbole_leave_one_out(frame: pd.DataFrame) -> list[int]:
    """RecBole's time-ordered leave-one-out test rows (``order: TO``, ``split: {LS: test_only}``).

    recbole/data/interaction.py:347 sorts by time with ``np.argsort(key, kind="stable")``;
    recbole/data/dataset/dataset.py:1666-1685 groups the rows by user in that order and
    leaves ``min(1, n_u - 1)`` last rows out (``legal_leave_one_num``).
    """
    order = np.argsort(frame["timestamp"].to_numpy(), kind="stable")
    groups: dict[int, list[int]] = {}
    for row in order:
        groups.setdefault(int(frame["user_id"].iloc[row]), []).append(int(row))
    test = []
    for rows in groups.values():
        legal = min(1, len(rows) - 1)
        test += rows[len(rows) - legal:]
    return sorted(frame.index[test].tolist())


def lenskit_last(frame: pd.DataFrame, *, n: int | None = None, fraction: float | None = None) -> dict[int, list[int]]:
    """LensKit's ``LastN`` / ``LastFrac`` test rows per user (src/lenskit/splitting/_holdout.py).

    LastN (lines 121-128): a user with ``len <= n`` is wholly test, else the last ``n`` of
    ``np.argsort(timestamp)``. LastFrac (lines 150-156): the last ``round(len * f)``. LensKit's
    argsort is numpy's default (unstable on ties); stable here, so that ties follow the input's
    order as ours do (the documented difference: LensKit leaves ties to the sort algorithm).
    """
    out = {}
    for user, rows in frame.groupby("user_id", sort=False):
        times = rows["timestamp"].to_numpy()
        ordered = np.argsort(times, kind="stable")
        if n is not None:
            take = ordered if len(rows) <= n else ordered[-n:]
        else:
            count = round(len(rows) * fraction)
            take = ordered[-count:] if count else ordered[:0]  # LensKit's ordered[-0:] would take all
        out[user] = sorted(rows.index[take].tolist())
    return out


def ms_chrono_split(frame: pd.DataFrame, ratio: float) -> tuple[list[int], list[int]]:
    """MS Recommenders' ``python_chrono_split(ratio)`` (recommenders/datasets/python_splitters.py:97-115):
    sort by (user, timestamp), rank within user, train = rank <= round(ratio * count)."""
    data = frame.sort_values(["user_id", "timestamp"])
    groups = data.groupby("user_id")
    count = groups["user_id"].transform("count")
    rank = groups.cumcount() + 1
    train = data[rank <= round(ratio * count)]
    test = data[rank > round(ratio * count)]
    return sorted(train.index.tolist()), sorted(test.index.tolist())


def lenskit_temporal_fraction(frame: pd.DataFrame, fraction: float) -> tuple[list[int], list[int]]:
    """LensKit's ``split_temporal_fraction`` (src/lenskit/splitting/_temporal.py:139: the cut is
    ``df["timestamp"].quantile(1 - test_fraction)``) through ``split_global_time`` (line 88: test
    ``ts >= t``; line 90: train ``filter_interactions(max_time=t)``, i.e. ``ts < t``)."""
    point = frame["timestamp"].quantile(1 - fraction)
    return sorted(frame.index[frame["timestamp"] < point].tolist()), sorted(frame.index[frame["timestamp"] >= point]
                                                                          .tolist())


# --------------------------------------------------------------------------- #
# the comparisons
# --------------------------------------------------------------------------- #
def test_leave_last_one_out_is_recboles(ml100k):
    train, test = temporal_holdout(ml100k)[0]
    assert _rows(test) == recbole_leave_one_out(ml100k)
    assert len(test) == 943 and len(train) == 100_000 - 943
    # ML-100K's users share times: the rule for ties was exercised
    last = ml100k.loc[test.index]
    tied = ml100k.merge(last[["user_id", "timestamp"]], on=["user_id", "timestamp"])
    assert len(tied) > len(last)


def test_the_same_split_whatever_the_row_order(ml100k):
    shuffled = ml100k.sample(frac=1.0, random_state=3)
    for split in (lambda f: random_holdout(f, 0.2, seed=5), lambda f: kfold(f, 5, seed=5)):
        a, b = split(ml100k), split(shuffled)
        for (train_a, test_a), (train_b, test_b) in zip(a, b):
            assert _rows(test_a) == _rows(test_b) and _rows(train_a) == _rows(train_b)


@pytest.mark.parametrize("n", [1, 3, 25])
def test_last_n_is_lenskits_where_both_keep_the_user(ml100k, n):
    counts = ml100k.groupby("user_id").size()
    kept = int((counts <= n).sum())
    if kept:
        with pytest.warns(RankevalWarning, match=f"{kept} of 943 user.* no more than n_last={n} interactions"):
            ours = temporal_holdout(ml100k, n_last=n).tests[0]
    else:
        ours = temporal_holdout(ml100k, n_last=n).tests[0]
    theirs = lenskit_last(ml100k, n=n)
    by_user = {user: sorted(rows.index.tolist()) for user, rows in ours.groupby("user_id")}
    compared = 0
    for user, rows in theirs.items():
        if counts[user] <= n:  # LensKit: wholly in test; ours: wholly in train
            assert user not in by_user and len(rows) == counts[user]
            continue
        assert by_user[user] == rows
        compared += 1
    assert compared == (counts > n).sum() > 800


def test_last_fraction_is_lenskits_where_the_rounding_agrees(ml100k):
    ours = temporal_holdout(ml100k, test_size=0.25).tests[0]
    theirs = lenskit_last(ml100k, fraction=0.25)
    counts = ml100k.groupby("user_id").size()
    by_user = {user: sorted(rows.index.tolist()) for user, rows in ours.groupby("user_id")}
    agree = 0
    for user, rows in theirs.items():
        floor = int(np.floor(0.25 * counts[user]))
        if round(0.25 * counts[user]) == floor:
            assert by_user.get(user, []) == rows
            agree += 1
        else:  # LensKit rounds up where the fraction passes one half: one interaction more
            assert len(rows) == floor + 1 and set(by_user[user]) < set(rows)
    assert agree > 400


def test_chrono_split_is_ms_recommenders_where_the_rounding_agrees(ml100k):
    ours_train, ours_test = temporal_holdout(ml100k, test_size=0.25)[0]
    train, test = ms_chrono_split(ml100k, ratio=0.75)
    counts = ml100k.groupby("user_id").size()
    # n_test = n - round(0.75 n) (half to even) against floor(0.25 n): equal unless 0.25 n has a fraction >= .5
    agree = counts[counts - np.round(0.75 * counts) == np.floor(0.25 * counts)].index
    assert len(agree) > 400

    def pick(rows):
        return sorted(ml100k.loc[rows].index[ml100k.loc[rows, "user_id"].isin(agree)].tolist())

    assert pick(_rows(ours_test)) == pick(test)
    assert pick(_rows(ours_train)) == pick(train)


# --------------------------------------------------------------------------- #
# rounding=: each peer's own split, user for user
# --------------------------------------------------------------------------- #
def _tie_broken(frame: pd.DataFrame) -> pd.DataFrame:
    """ML-100K with its ties in time broken by item id (``timestamp * 2000 + item_id``, item ids < 2000):
    the peers' sorts do not keep equal times in row order, so the comparison gives them none."""
    out = frame.assign(timestamp=frame["timestamp"].astype("int64") * 2000 + frame["item_id"].astype("int64"))
    assert out.groupby("user_id")["timestamp"].nunique().sum() == len(out)
    return out


def _digest(items) -> str:
    """As tests/reference/lenskit014/generate_lastfrac.py writes it."""
    return hashlib.sha256(",".join(str(int(i)) for i in sorted(items)).encode()).hexdigest()[:16]


@pytest.mark.parametrize("fraction", [0.1, 0.25, 0.5])
def test_half_even_rounding_is_lenskit_last_frac_for_every_user(ml100k, fraction):
    """LensKit 0.14.4's own ``partition_users(frame, 1, LastFrac(f))`` (stored; see generate_lastfrac.py)."""
    frame = _tie_broken(ml100k)
    theirs = pd.read_csv(LASTFRAC).query("fraction == @fraction").set_index("user_id")
    ours = temporal_holdout(frame, test_size=fraction, rounding="half_even").tests[0].groupby("user_id")["item_id"]
    got = pd.DataFrame({"n_test": ours.size(), "items": ours.agg(_digest)})
    assert len(theirs) == len(got) == 943  # ML-100K's users have 20 ratings or more: LensKit keeps none whole
    pd.testing.assert_frame_equal(got.sort_index(), theirs[["n_test", "items"]].sort_index(), check_names=False)
    # the rule was exercised: LensKit's counts are not the floor for many users (ties at .5 too, when f = 0.5)
    floor = np.floor(fraction * frame.groupby("user_id").size())
    assert (theirs["n_test"] != floor.loc[theirs.index]).sum() > 100


@pytest.mark.parametrize("fraction", [0.1, 0.25, 0.3, 0.5])
def test_train_half_even_rounding_is_ms_recommenders_chrono_split_for_every_user(ml100k, fraction):
    """MS Recommenders 1.2.1's own ``python_chrono_split(ratio=1 - f)``, run here."""
    splitters = require("recommenders.datasets.python_splitters")
    frame = _tie_broken(ml100k)
    train, test = splitters.python_chrono_split(frame.copy(), ratio=1 - fraction, col_user="user_id",
                                                col_item="item_id", col_timestamp="timestamp")
    ours_train, ours_test = temporal_holdout(frame, test_size=fraction, rounding="train_half_even")[0]
    by_user = {user: sorted(rows.index) for user, rows in ours_test.groupby("user_id")}
    assert {user: sorted(rows.index) for user, rows in test.groupby("user_id")} == by_user
    assert len(by_user) == 943 and _rows(ours_train) == _rows(train)
    floor = np.floor(fraction * frame.groupby("user_id").size())
    assert (test.groupby("user_id").size() != floor).sum() > 100


@pytest.mark.parametrize("fraction", [0.1, 0.2, 0.5])
def test_global_split_is_lenskits_temporal_fraction(ml100k, fraction):
    splits = global_temporal(ml100k, test_size=fraction)
    train, test = splits[0]
    theirs_train, theirs_test = lenskit_temporal_fraction(ml100k, fraction)
    assert _rows(train) == theirs_train and _rows(test) == theirs_test
    assert splits.params["cutoff"] == ml100k["timestamp"].quantile(1 - fraction)


def test_leakage_of_leave_one_out_and_of_the_global_split(ml100k):
    loo = audit(*temporal_holdout(ml100k)[0]).table
    cut = audit(*global_temporal(ml100k, test_size=0.2)[0]).table
    assert cut.loc["temporal leakage, global", "count"] == 0
    assert cut.loc["temporal leakage, per user", "count"] == 0
    # leave-last-one-out: most of train comes after the first test interaction
    assert loo.loc["temporal leakage, global", "share"] > 0.9
    assert loo.loc["temporal leakage, per user", "count"] == 0  # each user's own test is their latest


def test_read_movielens_reads_every_layout_of_the_same_ratings(ml100k, tmp_path):
    head = ml100k.head(500)
    (tmp_path / "u.data").write_text(head.to_csv(sep="\t", header=False, index=False,
                                                 float_format="%g"))
    lines = [f"{u}::{i}::{int(s)}::{t}" for u, i, s, t in head.itertuples(index=False)]
    (tmp_path / "ratings.dat").write_text("\n".join(lines) + "\n")
    head.rename(columns={"user_id": "userId", "item_id": "movieId", "score": "rating"}).to_csv(
        tmp_path / "ratings.csv", index=False)
    head.to_csv(tmp_path / "ratings.csv.gz", index=False)
    for name in ("u.data", "ratings.dat", "ratings.csv", "ratings.csv.gz"):
        pd.testing.assert_frame_equal(read_movielens(tmp_path / name), head, check_dtype=True)
    pd.testing.assert_frame_equal(read_movielens(tmp_path), head)  # the folder: u.data first


def test_the_profile_lines_docs_protocol_shows(ml100k):
    """docs/protocol.md's MovieLens-100K profile: the audit's counts, and the same from plain pandas."""
    loo_train, loo_test = temporal_holdout(ml100k)[0]
    cut_train, cut_test = global_temporal(ml100k, test_size=0.2)[0]
    lists = {"a": loo_test[["user_id", "item_id"]], "b": loo_test[["user_id", "item_id"]]}
    loo = audit(loo_train, loo_test, lists).table
    cut = audit(cut_train, cut_test).table
    # plain pandas: rows sharing (user, second), the first gap over an hour, the user's last train time
    tied = ml100k.duplicated(["user_id", "timestamp"], keep=False)
    ordered = ml100k.sort_values(["user_id", "timestamp"])
    breaks = ordered.groupby("user_id")["timestamp"].diff().gt(3600).groupby(ordered["user_id"]).cumsum()
    first = breaks.eq(0)
    last = loo_train.groupby("user_id")["timestamp"].max()
    at_last = loo_test["timestamp"].to_numpy() == last.reindex(loo_test["user_id"]).to_numpy()
    for table in (loo, cut):
        assert table.loc["tied timestamps", "count"] == tied.sum() == 75_772
        assert table.loc["first-session interactions", "count"] == first.sum() == 70_190
        assert table.loc["users mostly in their first session", "count"] == \
            (first.groupby(ordered["user_id"]).mean() > 0.5).sum() == 750
        assert table.loc["repeat test interactions", "count"] == 0
    assert loo.loc["test at the last train time", "count"] == at_last.sum() == 415
    assert loo.loc["tied timestamps, test", "count"] == 415
    assert cut.loc["tied timestamps, test", "count"] == 15_137
    assert cut.loc["test at the last train time", "count"] == 0
    assert loo.loc["minimum detectable effect", "count"] == 943
    assert f"d_z = {0.09132519698675629:.4g}" in loo.loc["minimum detectable effect", "note"]
