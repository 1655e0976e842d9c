"""The audit's profile lines worked by hand, the truth's repeat and new items, items outside a catalog.

The plain-loop reference of every line under hypothesis is in tests/test_audit.py; the
Spark table against the pandas one in tests/test_split_spark.py. Here: small cases whose
counts are worked out in the comments, ``truth_items`` against a truth filtered with sets
and loops (per user, through EvalModel and compare), the warning about items outside a
given catalog, and the command's ``--catalog`` and ``--session-gap``.
"""

from __future__ import annotations

import datetime
import io
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval.data._truth_items import repeat_rows
from rankeval.page._page import _audits
from rankeval.stats import ttest_mde

from .test_audit import time_reference

# the fixture of test_cli: main() in-process in tmp_path, giving (status, stdout, stderr)
from .test_cli import run  # noqa: F401
# ruff: noqa: F811

TRAIN = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": ["a", "b", "c", "a", "d"],
                      "timestamp": [0, 0, 5000, 10, 20], "score": [1.0, 2, 3, 4, 5]})
TEST = pd.DataFrame({"user_id": [1, 2, 2], "item_id": ["a", "e", "f"], "timestamp": [5000, 20, 9000],
                     "score": [4.0, 5, 3]})
LISTS = {"x": pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "zz"]}),
         "y": pd.DataFrame({"user_id": [1], "item_id": ["b"]})}
CATALOG = ["a", "b", "c", "d", "e", "f"]


def _row(table, check):
    row = table.loc[check]
    return tuple(None if pd.isna(row[c]) else int(row[c]) for c in ("count", "of", "users_affected"))


def test_the_profile_lines_worked_by_hand():
    table = rk.audit(TRAIN, TEST, LISTS, catalog=CATALOG).table
    # user 1: times 0, 0, 5000 (train) and 5000 (test): two ties of two rows; user 2: 10, 20 (train),
    # 20, 9000 (test): one tie of two rows. 6 of the 8 rows, both users
    assert _row(table, "tied timestamps") == (6, 8, 2)
    # the test rows at 5000 (user 1) and 20 (user 2) tie; 9000 does not
    assert _row(table, "tied timestamps, test") == (2, 3, 2)
    # the users' last train times are 5000 and 20: the same two test rows
    assert _row(table, "test at the last train time") == (2, 3, 2)
    # one hour: user 1's 0, 0 | 5000, 5000 (a gap of 5000 s): 2 of 4 rows, not over half;
    # user 2's 10, 20, 20 | 9000: 3 of 4, over half
    assert _row(table, "first-session interactions") == (5, 8, None)
    assert _row(table, "users mostly in their first session") == (1, 2, 1)
    # user 1's test item a is in their train; user 2's e and f are not
    assert _row(table, "repeat test interactions") == (1, 3, 1)
    # x lists zz, outside the catalog, for user 2; y lists only b
    assert _row(table, "items not in the catalog (x)") == (1, 2, 1)
    assert _row(table, "items not in the catalog (y)") == (0, 1, 0)
    assert "(1 distinct)" in table.loc["items not in the catalog (x)", "note"]
    # both test users have an item at or above their mean score; the paired t-test over 2 users
    assert _row(table, "minimum detectable effect") == (2, None, None)
    assert f"d_z = {ttest_mde(2):.4g}" in table.loc["minimum detectable effect", "note"]


def test_the_verdict_names_every_count_and_the_gap_moves_the_sessions():
    result = rk.audit(TRAIN, TEST, LISTS, catalog=CATALOG, session_gap=6000)
    # a gap of 6000 s: every row of user 1 is in their first session; user 2's 9000 is not (8980 s after 20)
    assert _row(result.table, "first-session interactions") == (7, 8, None)
    assert "items not in the catalog (x) 1 (50.0% of listed rows)" in result.verdict
    assert "test at the last train time 2 (66.7% of test interactions)" in result.verdict
    profile = result.verdict.split("Profile: ")[1]
    for text in ("tied timestamps 6 (75.0% of interactions in train ∪ test)",
                 "tied timestamps, test 2 (66.7% of test interactions)",
                 "first-session interactions 7 (87.5% of interactions in train ∪ test)",
                 "users mostly in their first session 2 (100.0% of users in train ∪ test)",
                 "repeat test interactions 1 (33.3% of test interactions)",
                 "test users with a relevant item 2 (100.0% of test users)",
                 f"minimum detectable effect d_z {ttest_mde(2):.3g} over 2 users"):
        assert text in profile
    assert result.mde == ttest_mde(2)
    assert rk.audit(TRAIN, TEST, LISTS["x"]).mde is None  # one system: no comparison
    assert "minimum detectable effect" not in rk.audit(TRAIN, TEST, LISTS["x"]).table.index


def test_datetimes_take_the_gap_in_seconds():
    start = pd.Timestamp("2024-05-01 12:00", tz="UTC")

    def stamped(frame):
        return frame.assign(timestamp=start + pd.to_timedelta(frame["timestamp"], unit="s"))

    expected = rk.audit(TRAIN, TEST, LISTS).table
    for gap in (3600, datetime.timedelta(hours=1), pd.Timedelta(minutes=60)):
        got = rk.audit(stamped(TRAIN), stamped(TEST), LISTS, session_gap=gap).table
        pd.testing.assert_frame_equal(got, expected)


def test_bad_gap_and_catalog():
    for gap in (-1, float("nan"), "1h", True):
        with pytest.raises(ValueError, match=r"`session_gap` must be a non-negative number of seconds"):
            rk.audit(TRAIN, TEST, session_gap=gap)
    with pytest.raises(ValueError, match=r"`catalog` is empty"):
        rk.audit(TRAIN, TEST, LISTS, catalog=[])
    with pytest.raises(ValueError, match=r"holds text .* but `catalog`\['item_id'\] holds numbers"):
        rk.audit(TRAIN, TEST, LISTS, catalog=[1, 2])
    # a catalog without lists: said, not run
    assert rk.audit(TRAIN, TEST, catalog=CATALOG).skipped["items not in the catalog"] == "no `pred` given"


# ---------------------------------------------------------------------- repeat and new items

def _kept_by_loop(truth, train, which):
    """The truth rows of the kind asked for, with a set of the train pairs."""
    pairs = set(zip(train.user_id, train.item_id))
    keep = [((u, i) in pairs) == (which == "repeat") for u, i in zip(truth.user_id, truth.item_id)]
    return truth[keep]


def test_repeat_and_new_items_worked_by_hand():
    train = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": ["a", "b", "a", "c"]})
    truth = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": ["a", "c", "b", "c", "d"], "score": 1.0})
    pred = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": ["c", "a", "c", "b", "d"],
                         "score": [0.9, 0.8, 0.9, 0.8, 0.5]})
    assert repeat_rows(truth, train, "user_id", "item_id").tolist() == [True, False, False, False, False]
    metrics = [rk.MRR(), rk.PrecisionAtK(2)]
    with pytest.warns(rk.MissingUsersWarning, match=r"truth_items='repeat': 2 truth user\(s\) .* have no repeat"):
        _, repeat = rk.EvalModel(pred, truth, metrics, train=train, truth_items="repeat").fit()
    # user 1's only repeat item, a, is listed second: MRR 1/2, P@2 1/2; users 2 and 3 have none
    assert repeat.loc[("fold1", 1)].tolist() == [0.5, 0.5]
    assert repeat.index.get_level_values(1).tolist() == [1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.ProtocolWarning)  # a is recommended again: the lists' own matter
        _, explore = rk.EvalModel(pred, truth, metrics, train=train, truth_items="explore").fit()
        _, every = rk.EvalModel(pred, truth, metrics, train=train).fit()
    # new items: user 1 c (first), user 2 b and c (both listed), user 3 d (first)
    assert explore["MRR"].tolist() == [1.0, 1.0, 1.0] and explore["P@2"].tolist() == [0.5, 1.0, 0.5]
    assert every["MRR"].tolist() == [1.0, 1.0, 1.0] and every["P@2"].tolist() == [1.0, 1.0, 0.5]


@st.composite
def _frames(draw):
    def ids(n, top):
        return draw(st.lists(st.integers(0, top), min_size=n, max_size=n))
    n_train, n_truth, n_pred = draw(st.integers(1, 25)), draw(st.integers(1, 20)), draw(st.integers(1, 30))
    train = pd.DataFrame({"user_id": ids(n_train, 5), "item_id": ids(n_train, 7)})
    truth = pd.DataFrame({"user_id": ids(n_truth, 5), "item_id": ids(n_truth, 7),
                          "score": draw(st.lists(st.integers(1, 5), min_size=n_truth, max_size=n_truth))})
    truth = truth.drop_duplicates(["user_id", "item_id"])
    pred = pd.DataFrame({"user_id": ids(n_pred, 5), "item_id": ids(n_pred, 7)}).drop_duplicates()
    pred["score"] = np.arange(len(pred), 0, -1, dtype=float)
    return train, truth, pred


@settings(max_examples=40)
@given(data=_frames(), which=st.sampled_from(["repeat", "explore"]))
def test_truth_items_is_the_metric_on_the_truth_filtered_by_a_loop(data, which):
    train, truth, pred = data
    kept = _kept_by_loop(truth, train, which)
    metrics = [rk.NDCGAtK(3), rk.RecallAtK(2), rk.MRR()]
    if not len(kept):
        with pytest.raises(ValueError, match=rf"truth_items='{which}' leaves split 1 with no truth row"):
            rk.EvalModel(pred, truth, metrics, train=train, truth_items=which)
        return
    if not pred.user_id.isin(kept.user_id).any():  # no user left to evaluate: an error, as without truth_items
        with warnings.catch_warnings(), pytest.raises(ValueError, match=r"`pred` is empty|no user of `pred`"):
            warnings.simplefilter("ignore", rk.RankevalWarning)
            rk.EvalModel(pred, truth, metrics, train=train, truth_items=which)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        got = rk.EvalModel(pred, truth, metrics, train=train, truth_items=which).fit()[1]
        both = rk.compare({"p": pred, "q": pred.iloc[::-1]}, truth, metrics, train=train, truth_items=which,
                          n_resamples=100)
        expected = rk.EvalModel(pred[pred.user_id.isin(kept.user_id) | ~pred.user_id.isin(truth.user_id)], kept,
                                metrics, train=train).fit()[1]
    pd.testing.assert_frame_equal(got, expected)
    # compare tests the same per-user values: the first system's are EvalModel's
    index = pd.MultiIndex.from_arrays([both.units[("split", "")], both.units[("user_id", "")]])
    for metric in expected.columns:
        shown = pd.Series(both.units[(metric, "p")].to_numpy(), index=index).dropna()
        assert np.allclose(shown.to_numpy(), expected[metric].reindex(shown.index).to_numpy())
        assert len(shown) == expected[metric].notna().sum()


def test_truth_items_needs_train_and_a_known_choice():
    truth = pd.DataFrame({"user_id": [1], "item_id": [1], "score": [1.0]})
    with pytest.raises(ValueError, match=r"truth_items='repeat' or 'explore' needs each split's `train`"):
        rk.EvalModel(truth, truth, [rk.MRR()], truth_items="repeat")
    with pytest.raises(ValueError, match=r"`truth_items`"):
        rk.EvalModel(truth, truth, [rk.MRR()], train=truth, truth_items="new")


# ---------------------------------------------------------------------- items outside a catalog

def test_evalmodel_warns_about_items_outside_a_given_catalog():
    truth = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": ["a", "c", "b", "c", "d"], "score": 1.0})
    pred = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": ["a", "zz", "c", "zz", "yy"],
                         "score": [0.9, 0.8, 0.9, 0.8, 0.5]})
    with pytest.warns(rk.ProtocolWarning, match=r"split 'fold1': 3 of 5 listed rows \(60.00%\) recommend 2 item\(s\) "
                                                r"not in the `catalog`, for 3 user\(s\)"):
        rk.EvalModel(pred, truth, [rk.MRR()], catalog=["a", "b", "c", "d"]).fit()
    with warnings.catch_warnings():
        warnings.simplefilter("error", rk.ProtocolWarning)  # no catalog given: nothing to say
        rk.EvalModel(pred, truth, [rk.MRR()]).fit()
        rk.EvalModel(pred, truth, [rk.MRR()], catalog=["a", "b", "c", "d", "zz", "yy"]).fit()


def test_the_report_audits_with_the_catalog_given():
    audits = _audits(LISTS, [TEST], {"train": TRAIN, "catalog": CATALOG}, ["fold1"])
    assert audits is not None
    pd.testing.assert_frame_equal(audits[0][1].table, rk.audit(TRAIN, TEST, LISTS, catalog=CATALOG).table)


def test_the_command_audits_with_a_catalog_and_a_gap(run, tmp_path):
    TRAIN.to_csv(tmp_path / "train.csv", index=False)
    TEST.to_csv(tmp_path / "test.csv", index=False)
    for name, frame in LISTS.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    (tmp_path / "catalog.txt").write_text("\n".join(CATALOG) + "\n")
    status, out, err = run("audit", "--train", "train.csv", "--truth", "test.csv", "--system", "x=x.csv",
                           "--system", "y=y.csv", "--catalog", "catalog.txt", "--session-gap", "6000",
                           "--format", "csv")
    assert status == 0, err
    shown = pd.read_csv(io.StringIO(out), index_col="check")
    expected = rk.audit(TRAIN, TEST, LISTS, catalog=CATALOG, session_gap=6000).table
    assert shown["count"].tolist() == expected["count"].astype(int).tolist()
    assert shown.loc["first-session interactions", "count"] == 7
    assert shown.loc["items not in the catalog (x)", "count"] == 1
    status, _, err = run("audit", "--train", "train.csv", "--truth", "test.csv", "--session-gap", "-5")
    assert status != 0 and "--session-gap must be a non-negative number of seconds" in err


@pytest.mark.filterwarnings("ignore::FutureWarning:pyspark", "ignore::DeprecationWarning:pyspark")
def test_truth_items_on_spark_is_the_pandas_result(spark):
    rng = np.random.default_rng(4)
    train = pd.DataFrame({"user_id": rng.integers(0, 30, 300), "item_id": rng.integers(0, 40, 300)})
    truth = pd.DataFrame({"user_id": rng.integers(0, 30, 150), "item_id": rng.integers(0, 40, 150),
                          "score": rng.integers(1, 6, 150).astype(float)}).drop_duplicates(["user_id", "item_id"])
    pred = pd.DataFrame({"user_id": rng.integers(0, 30, 400), "item_id": rng.integers(0, 40, 400),
                         "score": rng.random(400)}).drop_duplicates(["user_id", "item_id"])
    metrics = [rk.NDCGAtK(5), rk.RecallAtK(3)]
    for which in ("repeat", "explore"):
        with warnings.catch_warnings(record=True) as on_pandas:
            warnings.simplefilter("always")
            expected = rk.EvalModel(pred, truth, metrics, train=train, truth_items=which).fit()
        with warnings.catch_warnings(record=True) as on_spark:
            warnings.simplefilter("always")
            sys_result, users = rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), metrics,
                                             train=train, truth_items=which).fit()
        got = users.toPandas().set_index(["split", "user_id"]).sort_index()
        pd.testing.assert_frame_equal(got, expected[1].sort_index()[got.columns], check_exact=False)
        pd.testing.assert_frame_equal(sys_result, expected[0], check_exact=False)
        said = [str(w.message) for w in on_pandas if "truth_items" in str(w.message)]
        assert said and said == [str(w.message) for w in on_spark if "truth_items" in str(w.message)]


@settings(max_examples=60)
@given(data=st.data(), kind=st.sampled_from(["float", "wide", "negative"]), gap=st.sampled_from([0, 1.5, 2 ** 62]))
def test_time_lines_of_any_number_kind_are_the_loop_counts(data, kind, gap):
    """Float times and integers too wide to share a word with the user (ranked), negative ones."""
    values = {"float": st.sampled_from([-2.5, 0.0, 0.25, 1.0, 3.0, 1e300]),
              "wide": st.sampled_from([-(2 ** 63), -5, 0, 7, 2 ** 62, 2 ** 63 - 1]),
              "negative": st.integers(-6, 0)}[kind]

    def frame(n_min):
        n = data.draw(st.integers(n_min, 15))
        times = data.draw(st.lists(values, min_size=n, max_size=n))
        return pd.DataFrame({"user_id": data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)),
                             "item_id": data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)),
                             "timestamp": np.array(times, dtype=np.float64 if kind == "float" else np.int64)})

    train, test = frame(1), frame(1)
    table = rk.audit(train, test, session_gap=gap).table
    for check, expected in time_reference(train, test, gap).items():
        assert _row(table, check) == expected, check
