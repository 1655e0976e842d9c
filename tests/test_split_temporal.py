"""temporal_holdout and global_temporal against plain-Python loops, their tie rule, and bad time columns."""

from __future__ import annotations

import datetime as dt
import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.exceptions import RankevalWarning
from rankeval.split import audit, global_temporal, temporal_holdout


def share(test_size, n, rounding):
    """The peers' arithmetic, written as their code does it: RecBole's floor (of the decimal written here),
    LensKit's ``round(len * frac)``, MS Recommenders' train share ``round(ratio * count)`` (ties to even)."""
    if rounding == "floor":
        return math.floor(Fraction(repr(test_size)) * n)
    if rounding == "half_even":
        return round(n * test_size)
    return n - round((1 - test_size) * n)


def ref_temporal(frame, *, n_last=None, test_size=None, min_interactions=1, by="user", rounding="floor"):
    """Each user's rows by time, ties in input order (Python's sort is stable); the last ones to test."""
    if by == "record":
        counts = frame["user_id"].value_counts()
        rows = [p for p in range(len(frame)) if counts[frame["user_id"].iloc[p]] >= min_interactions]
        rows.sort(key=lambda p: frame["timestamp"].iloc[p])
        n = n_last if n_last is not None else share(test_size, len(rows), rounding)
        test = set(rows[len(rows) - min(n, len(rows)):])
        for user in counts.index:
            mine = set(np.flatnonzero(frame["user_id"].to_numpy() == user))
            if mine <= test:
                test -= mine
        return sorted(test)
    per_user: dict = {}
    for pos, (user, time) in enumerate(zip(frame["user_id"], frame["timestamp"])):
        per_user.setdefault(user, []).append((time, pos))
    test = []
    for rows in per_user.values():
        rows = [pos for _, pos in sorted(rows, key=lambda r: r[0])]
        n = n_last if n_last is not None else share(test_size, len(rows), rounding)
        if len(rows) < min_interactions or n >= len(rows):
            continue
        test += rows[len(rows) - n:]
    return sorted(test)


@st.composite
def timed(draw):
    n = draw(st.integers(1, 40))
    return pd.DataFrame({
        "user_id": draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)),
        "item_id": draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)),
        "timestamp": draw(st.lists(st.integers(-3, 4), min_size=n, max_size=n)),
    })


def quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        try:
            return call()
        except ValueError as exc:
            assert "is empty" in str(exc) or "puts every interaction" in str(exc)
            return None


def positions(part, frame):
    return sorted(frame.index.get_indexer(part.index).tolist())


@settings(max_examples=150)
@given(frame=timed(), amount=st.one_of(
    st.integers(1, 4).map(lambda n: {"n_last": n}),
    st.tuples(st.sampled_from([0.1, 0.2, 0.29, 0.3, 0.5, 0.8]),
              st.sampled_from(["floor", "half_even", "train_half_even"])).map(
        lambda t: {"test_size": t[0], "rounding": t[1]})),
       min_interactions=st.integers(1, 4), by=st.sampled_from(["user", "record"]))
def test_temporal_holdout_is_the_loop(frame, amount, min_interactions, by):
    expected = ref_temporal(frame, min_interactions=min_interactions, by=by, **amount)
    splits = quiet(lambda: temporal_holdout(frame, min_interactions=min_interactions, by=by, **amount))
    if not expected:
        assert splits is None
        return
    train, test = splits[0]
    assert positions(test, frame) == expected
    assert positions(train, frame) == sorted(set(range(len(frame))) - set(expected))


@settings(max_examples=150)
@given(frame=timed(), cut=st.one_of(st.integers(-3, 5).map(lambda c: {"cutoff": c}),
                                    st.sampled_from([0.1, 0.3, 0.5]).map(lambda t: {"test_size": t})),
       min_interactions=st.integers(1, 3))
def test_global_temporal_is_the_loop(frame, cut, min_interactions):
    point = cut.get("cutoff", frame["timestamp"].quantile(1 - cut.get("test_size", 0)))
    times = frame["timestamp"].tolist()
    counts = frame["user_id"].value_counts()
    train = [p for p, t in enumerate(times) if t < point]
    test = [p for p, t in enumerate(times) if t >= point and counts[frame["user_id"].iloc[p]] >= min_interactions]
    splits = quiet(lambda: global_temporal(frame, min_interactions=min_interactions, **cut))
    if not train or not test:
        assert splits is None
        return
    assert positions(splits.trains[0], frame) == train and positions(splits.tests[0], frame) == test
    leak = audit(*splits[0], time_col="timestamp").table
    assert leak.loc["temporal leakage, global", "count"] == 0 == leak.loc["temporal leakage, per user", "count"]


@pytest.mark.parametrize("rounding, sizes, kept", [
    # n_u = 1, 2, 3, 5, 6, 7 at test_size 0.5: f·n_u = 0.5, 1, 1.5, 2.5, 3, 3.5
    ("floor", [0, 1, 1, 2, 3, 3], "1 would get no test interaction (⌊0.5·n_u⌋ = 0)"),
    # ties to even: round(0.5) = 0, round(1.5) = 2, round(2.5) = 2, round(3.5) = 4
    ("half_even", [0, 1, 2, 2, 3, 4], "1 would get no test interaction (round(0.5·n_u) = 0)"),
    # the train share rounded, ties to even: n_u - round(0.5·n_u) = 1, 1, 1, 3, 3, 3
    ("train_half_even", [1, 1, 1, 3, 3, 3], "1 would have every interaction in test (n_u - round(0.5·n_u) = n_u: "
                                            "train would be empty)"),
])
def test_rounding_rules_at_ties_and_small_users(rounding, sizes, kept):
    counts = [1, 2, 3, 5, 6, 7]
    frame = pd.DataFrame({"user_id": np.repeat(np.arange(6), counts), "item_id": np.arange(sum(counts)),
                          "timestamp": np.arange(sum(counts))})
    with pytest.warns(RankevalWarning, match=rf"temporal_holdout: \d of 6 user\(s\) .* stay whole in train: "
                                             rf"{re.escape(kept)}"):
        splits = temporal_holdout(frame, test_size=0.5, rounding=rounding)
    got = splits.tests[0].groupby("user_id").size().reindex(range(6), fill_value=0).tolist()
    # a user whose count is 0 or n_u stays whole in train (the peers put such a user wholly in test)
    assert got == [s if 0 < s < n else 0 for s, n in zip(sizes, counts)]
    assert splits.params["rounding"] == rounding
    assert splits.tests[0].groupby("user_id")["timestamp"].min().tolist() == \
        [frame["timestamp"][frame["user_id"] == u].max() - s + 1 for u, s in enumerate(got) if s]  # the latest


def test_rounding_is_checked():
    frame = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [1, 2, 3], "timestamp": [1, 2, 3]})
    with pytest.raises(ValueError, match=r"`rounding` must be one of \['floor', 'half_even', 'train_half_even'\], "
                                         r"got 'up'"):
        temporal_holdout(frame, 0.5, rounding="up")
    with pytest.raises(ValueError, match=r"`rounding`='half_even' rounds `test_size` · n_u, but no test_size was "
                                         r"given \(n_last=2 is a count\)"):
        temporal_holdout(frame, n_last=2, rounding="half_even")


def test_ties_in_time_the_later_row_is_later():
    frame = pd.DataFrame({"user_id": [1, 1, 1, 1], "item_id": list("abcd"), "timestamp": [5, 9, 9, 1]})
    assert temporal_holdout(frame).tests[0]["item_id"].tolist() == ["c"]
    assert temporal_holdout(frame.iloc[[0, 2, 1, 3]]).tests[0]["item_id"].tolist() == ["b"]
    assert temporal_holdout(frame, n_last=2).tests[0]["item_id"].tolist() == ["b", "c"]


def test_datetimes_naive_aware_and_objects():
    times = pd.to_datetime(["2020-01-01 10:00", "2020-01-02 00:00", "2020-01-03 00:00", "2020-01-01 00:00",
                            "2020-01-05 00:00"])
    frame = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": list("abcab"), "timestamp": times})
    expected = ["c", "b"]
    assert temporal_holdout(frame).tests[0]["item_id"].tolist() == expected
    aware = frame.assign(timestamp=times.tz_localize("Europe/Paris"))
    assert temporal_holdout(aware).tests[0]["item_id"].tolist() == expected
    # aware times of several zones are instants: 2020-01-03 00:30+02:00 is before 2020-01-02 23:00 UTC
    zones = frame.assign(timestamp=[pd.Timestamp("2020-01-01", tz="UTC"), pd.Timestamp("2020-01-02 23:00", tz="UTC"),
                                    pd.Timestamp("2020-01-03 00:30", tz="Etc/GMT-2"),
                                    pd.Timestamp("2020-01-01", tz="UTC"), pd.Timestamp("2020-01-05", tz="UTC")])
    assert temporal_holdout(zones).tests[0]["item_id"].tolist() == ["b", "b"]
    objects = frame.assign(timestamp=np.array([t.to_pydatetime() for t in times], dtype=object))
    assert temporal_holdout(objects).tests[0]["item_id"].tolist() == expected
    for cutoff in ("2020-01-03", dt.datetime(2020, 1, 3), pd.Timestamp("2020-01-03"), np.datetime64("2020-01-03")):
        assert global_temporal(frame, cutoff).tests[0]["item_id"].tolist() == ["c", "b"]
    assert global_temporal(aware, pd.Timestamp("2020-01-03", tz="Europe/Paris")).tests[0]["item_id"].tolist() == \
        ["c", "b"]
    split = global_temporal(aware, test_size=0.4)
    assert split.params["cutoff"] == aware["timestamp"].quantile(0.6).isoformat()


def test_bad_time_columns():
    frame = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1], "timestamp": [1.0, 2.0, 3.0]})
    aware = dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
    for bad, message in [
        (frame.drop(columns="timestamp"), r"`frame` is missing column\(s\) \['timestamp'\]"),
        (frame.assign(timestamp=[1.0, np.nan, 3.0]), r"`frame`\['timestamp'\] has 1 NaN or infinite time\(s\) at rows \[1\]"),
        (frame.assign(timestamp=[1.0, np.inf, 3.0]), r"has 1 NaN or infinite time"),
        (frame.assign(timestamp=pd.to_datetime(["2020", None, "2021"])), r"has 1 missing \(NaT\) time\(s\) at rows \[1\]"),
        (frame.assign(timestamp=["2020-01-01", "2020-01-02", "2020-01-03"]), r"must hold numbers or datetimes"),
        (frame.assign(timestamp=[True, False, True]), r"must hold numbers or datetimes, got dtype bool"),
        (frame.assign(timestamp=np.array([aware, dt.datetime(2020, 1, 2), aware], dtype=object)),
         r"`frame`\['timestamp'\] mixes 2 timezone-aware and 1 naive times \(aware at rows \[0, 2\], naive at rows \[1\]\)"),
    ]:
        with pytest.raises(ValueError, match=message):
            temporal_holdout(bad)
        with pytest.raises(ValueError, match=message):
            global_temporal(bad, test_size=0.5)
    with pytest.raises(ValueError, match=r"`frame` is missing column\(s\) \['when'\]"):
        temporal_holdout(frame, time_col="when")


def test_bad_amounts_and_cutoffs():
    frame = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1], "timestamp": [1, 2, 3]})
    stamps = frame.assign(timestamp=pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03"]))
    for call, message in [
        (lambda: temporal_holdout(frame, 0.5, n_last=1), r"pass one of `test_size` .* and `n_last`"),
        (lambda: temporal_holdout(frame, n_last=0), r"`n_last` must be an integer >= 1, got 0"),
        (lambda: temporal_holdout(frame, 1.5), r"`test_size` must be a number in \(0, 1\)"),
        (lambda: global_temporal(frame), r"pass exactly one of `cutoff` .* and `test_size`"),
        (lambda: global_temporal(frame, 2, test_size=0.2), r"pass exactly one of"),
        (lambda: global_temporal(frame, "2020-01-01"), r"`cutoff` must be a finite number"),
        (lambda: global_temporal(stamps, 3), r"`cutoff` must be a datetime, pd.Timestamp or ISO text"),
        (lambda: global_temporal(stamps, "noon"), r"`cutoff` 'noon' is not a time"),
        (lambda: global_temporal(stamps, pd.Timestamp("2020-01-02", tz="UTC")),
         r"is timezone-aware but `frame`\['timestamp'\] holds naive datetimes"),
        (lambda: global_temporal(frame, 10), r"the cut at 10 puts every interaction in train: the times .* run "
                                             r"from 1 to 3"),
        (lambda: global_temporal(frame, 0), r"puts every interaction in test"),
        (lambda: global_temporal(frame.assign(timestamp=5), test_size=0.3), r"puts every interaction in test"),
    ]:
        with pytest.raises(ValueError, match=message):
            call()


def test_min_interactions_in_a_global_split_drops_test_rows_counted():
    frame = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3], "item_id": [1, 2, 3, 1, 2, 1],
                          "timestamp": [1, 2, 5, 1, 6, 7]})
    with pytest.warns(RankevalWarning, match=r"global_temporal: 2 of 3 user\(s\) \(66.7%\) with fewer than "
                                             r"min_interactions=3 interactions keep only their train rows: their 2 "
                                             r"interaction\(s\) after the cut are dropped"):
        train, test = global_temporal(frame, 5, min_interactions=3)[0]
    assert train["timestamp"].tolist() == [1, 2, 1] and test["timestamp"].tolist() == [5]


def test_users_with_one_interaction_stay_in_train_in_leave_one_out():
    frame = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1], "timestamp": [1, 2, 3]})
    with pytest.warns(RankevalWarning, match=r"1 of 2 user\(s\) \(50.0%\) stay whole in train: 1 have no more "
                                             r"than n_last=1 interactions \(train would be empty\)"):
        train, test = temporal_holdout(frame)[0]
    assert test["item_id"].tolist() == [2] and train["user_id"].tolist() == [1, 2]
