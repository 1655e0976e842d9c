"""Every line of ``audit`` against a plain-Python count, the checks it skips, and bad input."""

from __future__ import annotations

import statistics

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.split import Audit, audit, cheap_checks, global_temporal, temporal_holdout
from rankeval.stats import ttest_mde

from ._require import require


def time_reference(train, test, gap):
    """The tie and first-session lines, counted row by row with loops."""
    rows = {}
    # Python numbers: differences of wide integers never wrap
    every = list(zip(train.user_id, train.timestamp.tolist())) + list(zip(test.user_id, test.timestamp.tolist()))
    tied = [k for k, row in enumerate(every) if any(j != k and other == row for j, other in enumerate(every))]
    rows["tied timestamps"] = (len(tied), len(every), len({every[k][0] for k in tied}))
    in_test = [k for k in tied if k >= len(train)]
    rows["tied timestamps, test"] = (len(in_test), len(test), len({every[k][0] for k in in_test}))
    last = {}
    for u, t in zip(train.user_id, train.timestamp.tolist()):
        last[u] = max(last.get(u, t), t)
    at_last = [u for u, t in zip(test.user_id, test.timestamp.tolist()) if u in last and t == last[u]]
    rows["test at the last train time"] = (len(at_last), len(test), len(set(at_last)))
    first_rows = over_half = 0
    users = {u for u, _ in every}
    for u in users:
        times = sorted(t for v, t in every if v == u)
        n = 1
        while n < len(times) and times[n] - times[n - 1] <= gap:
            n += 1
        first_rows += n
        over_half += 2 * n > len(times)
    rows["first-session interactions"] = (first_rows, len(every), None)
    rows["users mostly in their first session"] = (over_half, len(users), over_half)
    return rows


def reference(train, test, preds, threshold, gap=3600, catalog=None):
    """The audit's table, counted row by row with sets and loops."""
    rows = {}
    train_pairs = set(zip(train.user_id, train.item_id))
    test_users = set(test.user_id)
    earliest = {u: min(t for v, t in zip(test.user_id, test.timestamp) if v == u) for u in test_users}
    first_test = min(test.timestamp)
    own = [(u, t) for u, t in zip(train.user_id, train.timestamp) if u in earliest and t > earliest[u]]
    late = [(u, t) for u, t in zip(train.user_id, train.timestamp) if t > first_test]
    rows["temporal leakage, per user"] = (len(own), len(train), len({u for u, _ in own}))
    rows["temporal leakage, global"] = (len(late), len(train), len({u for u, _ in late}))
    rows.update(time_reference(train, test, gap))
    first_item = {}
    for i, t in list(zip(train.item_id, train.timestamp)) + list(zip(test.item_id, test.timestamp)):
        first_item[i] = min(first_item.get(i, t), t)
    for name, pred in preds.items():
        suffix = "" if name is None else f" ({name})"
        seen = [(u, i) for u, i in zip(pred.user_id, pred.item_id) if (u, i) in train_pairs]
        rows[f"seen items recommended{suffix}"] = (len(seen), len(pred), len({u for u, _ in seen}))
    for name, pred in preds.items():
        suffix = "" if name is None else f" ({name})"
        future = [(u, i) for u, i in zip(pred.user_id, pred.item_id)
                  if u in earliest and i in first_item and first_item[i] > earliest[u]]
        rows[f"future items recommended{suffix}"] = (len(future), len(pred), len({u for u, _ in future}))
    for name, pred in preds.items():
        if catalog is not None:
            outside = [(u, i) for u, i in zip(pred.user_id, pred.item_id) if i not in set(catalog)]
            rows[f"items not in the catalog{'' if name is None else f' ({name})'}"] = (
                len(outside), len(pred), len({u for u, _ in outside}))
    test_pairs = set(zip(test.user_id, test.item_id))
    both = test_pairs & train_pairs
    rows["overlap train ∩ test"] = (len(both), len(test_pairs), len({u for u, _ in both}))
    for name, frame in (("train", train), ("test", test)):
        pairs = list(zip(frame.user_id, frame.item_id))
        repeated = [p for k, p in enumerate(pairs) if p in pairs[:k]]
        rows[f"duplicates in {name}"] = (len(repeated), len(frame), len({u for u, _ in repeated}))
    repeat = [u for u, i in zip(test.user_id, test.item_id) if (u, i) in train_pairs]
    rows["repeat test interactions"] = (len(repeat), len(test), len(set(repeat)))
    cold_users = test_users - set(train.user_id)
    rows["cold users"] = (len(cold_users), len(test_users), len(cold_users))
    cold_items = set(test.item_id) - set(train.item_id)
    rows["cold items"] = (len(cold_items), len(set(test.item_id)),
                          len({u for u, i in zip(test.user_id, test.item_id) if i in cold_items}))
    all_users = set(train.user_id) | test_users
    rows["test users"] = (len(test_users), len(all_users), None)
    rows["test items"] = (len(set(test.item_id)), len(set(train.item_id) | set(test.item_id)), None)
    rows["test interactions per user"] = (len(test), None, None)
    if threshold is None:
        relevant = test_users  # every user has an item at or above their mean
    else:
        relevant = {u for u, s in zip(test.user_id, test.score) if s >= threshold}
    rows["test users with a relevant item"] = (len(relevant), len(test_users), len(relevant))
    if len(preds) > 1 and len(relevant) > 1:
        rows["minimum detectable effect"] = (len(relevant), None, None)
    return rows


@st.composite
def frames(draw):
    def frame(n_min, columns):
        n = draw(st.integers(n_min, 25))
        return pd.DataFrame({
            "user_id": draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)),
            "item_id": [f"i{i}" for i in draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))],
            **({"score": draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)),
                "timestamp": draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))} if columns else {}),
        })
    return frame(1, True), frame(1, True), frame(0, False), frame(0, False)


@settings(max_examples=150)
@given(data=frames(), threshold=st.sampled_from([None, 3.0]), named=st.booleans(), gap=st.sampled_from([3600, 2, 0]),
       catalog=st.sampled_from([None, ["i0", "i2", "i3", "i5", "i7"]]))
def test_every_line_is_the_loop_count(data, threshold, named, gap, catalog):
    train, test, pred_a, pred_b = data
    preds = {"a": pred_a, "b": pred_b} if named else {None: pred_a}
    result = audit(train, test, preds if named else pred_a, relevant_threshold=threshold, session_gap=gap,
                   catalog=catalog)
    expected = reference(train, test, preds, threshold, gap, catalog)
    assert list(result.table.index) == list(expected)
    for check, (count, of, users) in expected.items():
        row = result.table.loc[check]
        assert (row["count"], None if pd.isna(row["of"]) else row["of"],
                None if pd.isna(row["users_affected"]) else row["users_affected"]) == (count, of, users), check
        if of:
            assert row["share"] == count / of
    per_user = test.groupby("user_id").size()
    assert result.table.loc["test interactions per user", "note"] == (
        f"test interactions; per user: min {per_user.min()}, median {statistics.median(per_user):g}, "
        f"max {per_user.max()}")
    if "minimum detectable effect" in expected:
        assert result.mde == ttest_mde(expected["minimum detectable effect"][0])
    else:
        assert result.mde is None
    assert result.skipped == {}
    problems = [c for c in ("temporal leakage, per user", "temporal leakage, global", "overlap train ∩ test",
                            "duplicates in train", "duplicates in test", "cold users", "cold items",
                            "test at the last train time")
                if expected[c][0]] + [c for c in expected if c.startswith(("seen", "future", "items not"))
                                      and expected[c][0]]
    assert sorted(result.problems) == sorted(problems)


def test_a_global_split_leaks_nothing_and_leave_last_out_does():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"user_id": rng.integers(0, 50, 2000), "item_id": rng.integers(0, 300, 2000),
                          "timestamp": rng.integers(0, 10_000, 2000)}).drop_duplicates(["user_id", "item_id"])
    cut = audit(*global_temporal(frame, test_size=0.2)[0])
    assert cut.table.loc[["temporal leakage, per user", "temporal leakage, global"], "count"].tolist() == [0, 0]
    loo = audit(*temporal_holdout(frame)[0])
    assert loo.table.loc["temporal leakage, global", "share"] > 0.1
    assert "temporal leakage, global" in loo.verdict and "temporal leakage" not in cut.verdict


def test_checks_it_cannot_run_are_skipped_and_said():
    train = pd.DataFrame({"user_id": [1, 2], "item_id": [1, 1]})
    test = pd.DataFrame({"user_id": [1, 3], "item_id": [2, 1], "timestamp": [4, 5]})
    result = audit(train, test)
    assert result.skipped == {
        "temporal leakage, per user": "no 'timestamp' column in train",
        "temporal leakage, global": "no 'timestamp' column in train",
        "time ties and first sessions": "no 'timestamp' column in train",
        "future items recommended": "no 'timestamp' column in train",
        "seen items recommended": "no `pred` given",
        "test users with a relevant item": "no 'score' column in test",
    }
    assert "temporal leakage" not in result.table.index
    assert result.verdict == ("2 problem(s): cold users 1 (50.0% of test users); cold items 1 (50.0% of test items). "
                              "Profile: repeat test interactions 0 (0.0% of test interactions). "
                              "Not checked: temporal leakage, per user (no 'timestamp' column in train); temporal "
                              "leakage, global (no 'timestamp' column in train); time ties and first sessions (no "
                              "'timestamp' column in train); future items recommended (no "
                              "'timestamp' column in train); seen items recommended (no `pred` given); test users "
                              "with a relevant item (no 'score' column in test).")
    assert audit(train.assign(t=1), test.assign(t=2), time_col=None).skipped["temporal leakage, global"] == \
        "time_col=None"


def test_a_clean_split_says_so_and_shows_itself():
    train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "b", "a"], "score": [1.0, 2, 3],
                          "timestamp": [1, 2, 3]})
    test = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "b"], "score": [4.0, 5], "timestamp": [5, 6]})
    test = test.assign(item_id=["b", "b"]).iloc[[1]]
    result = audit(train, test, pred=pd.DataFrame({"user_id": [2], "item_id": ["b"]}))
    assert isinstance(result, Audit)
    assert result.verdict == (
        "no problem found in the 10 checks run. Profile: tied timestamps 0 (0.0% of interactions in train ∪ test); "
        "tied timestamps, test 0 (0.0% of test interactions); first-session interactions 4 (100.0% of interactions "
        "in train ∪ test); users mostly in their first session 2 (100.0% of users in train ∪ test); repeat test "
        "interactions 0 (0.0% of test interactions); test users with a relevant item 1 (100.0% of test users).")
    assert repr(result).startswith("Audit: no problem found") and "temporal leakage, global" in repr(result)
    html = result._repr_html_()
    assert html.startswith("<p><b>Audit:</b> no problem found") and "<table" in html
    assert list(result.table.columns) == ["count", "of", "share", "users_affected", "note"]


def test_cheap_checks_are_the_audits_counts():
    rng = np.random.default_rng(3)

    def make(n):
        return pd.DataFrame({"user_id": rng.integers(0, 30, n), "item_id": rng.integers(0, 40, n)})

    train, test, pred = make(300), make(80), make(120)
    table = audit(train, test, pred).table
    assert cheap_checks(train, test, pred) == {
        "seen_items_recommended": table.loc["seen items recommended", "count"],
        "pred_rows": 120,
        "overlap": table.loc["overlap train ∩ test", "count"],
        "test_pairs": table.loc["overlap train ∩ test", "of"],
        "cold_users": table.loc["cold users", "count"],
        "test_users": table.loc["cold users", "of"],
    }
    assert cheap_checks(train, test)["seen_items_recommended"] is None


def test_ids_of_other_dtypes_and_frame_kinds():
    train = pd.DataFrame({"user_id": [1, 2, 3], "item_id": [10, 20, 30]})
    test = pd.DataFrame({"user_id": [1.0, 4.0], "item_id": [10.0, 40.0]})  # floats: the same ids
    table = audit(train, test, time_col=None).table
    assert table.loc["overlap train ∩ test", "count"] == 1 and table.loc["cold users", "count"] == 1
    polars = require("polars")
    again = audit(polars.from_pandas(train), polars.from_pandas(test), time_col=None).table
    pd.testing.assert_frame_equal(again, table)


def test_bad_input():
    train = pd.DataFrame({"user_id": [1, 2], "item_id": [1, 1], "timestamp": [1, 2]})
    test = pd.DataFrame({"user_id": [1, 3], "item_id": [2, 1], "timestamp": [4, 5]})
    stamps = test.assign(timestamp=pd.to_datetime(["2020-01-01", "2020-01-02"]))
    for call, message in [
        (lambda: audit(train.iloc[:0], test), r"`train` is empty"),
        (lambda: audit(train, test.drop(columns="item_id")), r"`test` is missing column\(s\) \['item_id'\]"),
        (lambda: audit(train, test.assign(user_id=["1", "3"])), r"`train`\['user_id'\] holds numbers .* but "
                                                                r"`test`\['user_id'\] holds text"),
        (lambda: audit(train, test.assign(timestamp=[1.0, np.nan])), r"`test`\['timestamp'\] has 1 NaN"),
        (lambda: audit(train, stamps), r"`train`\['timestamp'\] holds numbers but `test`\['timestamp'\] holds naive "
                                       r"datetimes"),
        (lambda: audit(train, test, {}), r"`pred` is an empty mapping"),
        (lambda: audit(train, test, pd.DataFrame({"user_id": [1]})), r"`pred` is missing column\(s\) \['item_id'\]"),
        (lambda: audit(train, test.assign(score=["a", "b"])), r"`test`\['score'\] must be numeric"),
        (lambda: audit(train, test, relevant_threshold="high"), r"`relevant_threshold` must be None or a number"),
    ]:
        with pytest.raises(ValueError, match=message):
            call()
    with pytest.raises(TypeError, match=r"`train` must be a pandas, polars"):
        audit([1, 2], test)
