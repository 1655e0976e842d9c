"""Messy real data: ids that cannot match, frames that barely overlap, misnamed scores,
metrics that write where they should not, shuffled rows, and what compare names."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval as rk


def _frames(n_users: int = 300, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Integer ids; distinct scores per list; truth grades 0-5 with thirds and tenths (sums round)."""
    rng = np.random.default_rng(seed)
    pred_rows, truth_rows = [], []
    for u in range(n_users):
        items = rng.choice(40, size=10, replace=False)
        scores = rng.permutation(10) / 10 + u  # distinct within a list: no tie rule involved
        pred_rows += [(u * 7 + 1, int(i), float(s)) for i, s in zip(items, scores)]
        for i in rng.choice(40, size=rng.integers(2, 8), replace=False):
            truth_rows.append((u * 7 + 1, int(i), float(rng.choice([0.1, 0.2, 1 / 3, 2.5, 4.0, 5.0]))))
    return (pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"]),
            pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"]))


METRICS = [rk.NDCGAtK(5), rk.MAPAtK(10), rk.MRR(), rk.RecallAtK(5), rk.Correlation("pearson")]


# ---------------------------------------------------------------- ids that can never match
@pytest.mark.parametrize("column", ["user_id", "item_id"])
def test_numbers_in_pred_and_text_in_truth_is_an_error_naming_column_and_dtypes(column):
    pred, truth = _frames(20)
    truth = truth.assign(**{column: truth[column].astype(str)})
    with pytest.raises(ValueError, match=rf"`pred`\['{column}'\] holds numbers \(dtype int64, e.g. \d+\) but "
                                         rf"`truth`\['{column}'\] holds text \(dtype (object|str), e.g. '\d+'\): "
                                         rf"no id could ever match. Convert `pred`'s ids to text: "
                                         rf"pred\['{column}'\] = pred\['{column}'\]\.astype\(str\)$"):
        rk.EvalModel(pred, truth, METRICS).fit()


def test_integer_and_float_ids_holding_whole_numbers_compare_as_numbers():
    pred, truth = _frames(30)
    expected = rk.EvalModel(pred, truth, METRICS).fit()[1]
    got = rk.EvalModel(pred.astype({"item_id": np.float64}), truth.astype({"user_id": np.float64}), METRICS).fit()[1]
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())


# ---------------------------------------------------------------- barely any overlap
def _possible(pred: pd.DataFrame, truth: pd.DataFrame) -> int:
    """By plain pandas: per user in both frames, the smaller of the list's length and the truth's size."""
    both = pd.concat([pred.groupby("user_id").size().rename("listed"),
                      truth.groupby("user_id").size().rename("rated")], axis=1, join="inner")
    return int(both.min(axis=1).sum())


def _low_overlap(judged: int, listed: int, possible: int, where: str = "") -> str:
    return (f"only {judged} of {listed} listed (user, item) rows{where} have a truth score, "
            f"{100 * judged / possible:.2g}% of the {possible} the lists could hold (per user the smaller of the "
            f"list's length and the truth's size): every metric will be near zero. Check that `pred`['item_id'] "
            f"and `truth`['item_id'] hold the same ids (same spelling, same type)")


def test_no_shared_pair_warns_that_nothing_is_judged_once_per_split():
    pred, truth = _frames(20)
    shifted = pred.assign(item_id=pred["item_id"] + 1000)  # same users, items from another id space
    with pytest.warns(rk.LowOverlapWarning) as caught:
        sys_result, _ = rk.EvalModel([shifted, shifted], [truth, truth], [rk.NDCGAtK(5)]).fit()
    messages = [str(w.message) for w in caught if issubclass(w.category, rk.LowOverlapWarning)]
    possible = _possible(pred, truth)
    assert messages == [_low_overlap(0, 200, possible, f" in split '{s}'") for s in ("fold1", "fold2")]
    assert (sys_result["NDCG@5"] == 0).all()


def test_under_one_percent_of_the_possible_judged_rows_warns():
    # 100 users, lists of 10, truths of 20 items: at most 10 judged rows per user, 1000 in all
    rng = np.random.default_rng(3)
    pred = pd.DataFrame({"user_id": np.repeat(np.arange(100), 10), "item_id": np.tile(np.arange(10), 100),
                         "score": rng.random(1000)})
    unlisted = pd.DataFrame({"user_id": np.repeat(np.arange(100), 20), "item_id": np.tile(np.arange(100, 120), 100),
                             "score": 1.0})

    def truth_with(judged_users):  # each of these users' first truth item becomes a listed one
        first = unlisted.groupby("user_id").cumcount() == 0
        return unlisted.assign(item_id=np.where(first & unlisted["user_id"].isin(judged_users), 0,
                                                unlisted["item_id"]))

    with pytest.warns(rk.LowOverlapWarning) as caught:
        rk.Split(pred, truth_with(range(5)))
    assert [str(w.message) for w in caught] == [_low_overlap(5, 1000, 1000)]
    with warnings.catch_warnings():  # 10 of 1000 is 1%: no warning
        warnings.simplefilter("error", rk.LowOverlapWarning)
        rk.Split(pred, truth_with(range(10)))


def test_leave_one_out_truths_met_by_long_lists_do_not_warn():
    # one held-out item per user, lists of 100: at most 1 judged row in 100, and 5% of users hit;
    # the ids match, so nothing to warn about (the share is of the 200 rows the lists could hold)
    rng = np.random.default_rng(4)
    pred = pd.DataFrame({"user_id": np.repeat(np.arange(200), 100), "item_id": np.tile(np.arange(100), 200),
                         "score": rng.random(20_000)})
    truth = pd.DataFrame({"user_id": np.arange(200), "item_id": np.where(np.arange(200) % 20 == 0, 7, 500),
                          "score": 1.0})
    with warnings.catch_warnings():
        warnings.simplefilter("error", rk.LowOverlapWarning)
        rk.Split(pred, truth)
    # the same truth with no listed item at all still warns
    with pytest.warns(rk.LowOverlapWarning, match=r"only 0 of 20000 listed .* 0% of the 200 the lists could hold"):
        rk.Split(pred, truth.assign(item_id=500))


# ---------------------------------------------------------------- a score under another name
def test_unused_numeric_columns_are_named_when_lists_fall_back_on_row_order():
    pred, truth = _frames(5)
    renamed = pred.rename(columns={"score": "prediction"}).assign(note="x")
    with pytest.warns(rk.UnusedColumnsWarning, match=r"`pred` has no 'score' or 'rank' column, so every list is "
                                                     r"taken in row order; its numeric column\(s\) \['prediction'\] "
                                                     r"are not used. Pass score_col="):
        rk.Split(renamed, truth)
    with warnings.catch_warnings():  # nothing to say once the column is named, or when there is none
        warnings.simplefilter("error", rk.UnusedColumnsWarning)
        rk.Split(renamed.rename(columns={"prediction": "p"}), truth.rename(columns={"score": "p"}), score_col="p")
        rk.Split(pred.drop(columns="score"), truth)


# ---------------------------------------------------------------- metrics cannot write through
class _Vandal(rk.RankingMetric):
    """A custom metric that writes into the arrays it is handed."""

    stem = "Vandal"

    def __init__(self, target: str, **kw) -> None:
        super().__init__(**kw)
        self.target = target

    def per_user(self, lists):
        getattr(lists, self.target)[0] = -1
        return np.zeros(lists.n_users)


@pytest.mark.parametrize("target", ["pred_score", "item_ids", "truth_score", "position", "offsets", "user_ids",
                                    "relevant", "n_relevant", "threshold", "truth_values"])
def test_every_array_a_metric_is_handed_is_read_only(target):
    pred, truth = _frames(5)
    pred = pred.astype({"item_id": object})
    before = pred.copy(deep=True), truth.copy(deep=True)
    split = rk.Split(pred, truth)
    with pytest.raises(ValueError, match="read-only"):
        _Vandal(target).perform(split)
    pd.testing.assert_frame_equal(pred, before[0])
    pd.testing.assert_frame_equal(truth, before[1])
    # the split's shared lists are intact for the next metric
    assert rk.MRR().perform(split).system.iloc[0, 0] == rk.MRR().perform(rk.Split(*before)).system.iloc[0, 0]


# ---------------------------------------------------------------- row order never moves a bit
def test_system_values_are_bit_identical_under_any_row_order():
    pred, truth = _frames(300)
    expected_sys, expected_users = rk.EvalModel(pred, truth, METRICS).fit()
    rng = np.random.default_rng(1)
    for _ in range(5):
        p = pred.iloc[rng.permutation(len(pred))]
        t = truth.iloc[rng.permutation(len(truth))]
        sys_result, users = rk.EvalModel(p, t, METRICS).fit()
        assert sys_result.to_numpy().tobytes() == expected_sys.to_numpy().tobytes()
        pd.testing.assert_frame_equal(users.sort_index(), expected_users.sort_index(), check_exact=True)


def test_system_mean_is_the_exactly_rounded_mean_of_the_users():
    pred, truth = _frames(300)
    users = rk.MAPAtK(10).perform(rk.Split(pred, truth)).users["MAP@10"].to_numpy()
    from fractions import Fraction
    kept = users[~np.isnan(users)]
    exact = sum(Fraction(float(v)) for v in kept) / len(kept)
    got = rk.MAPAtK(10).perform(rk.Split(pred, truth)).system.iloc[0, 0]
    assert got == float(exact)  # the exact mean, rounded once


# ---------------------------------------------------------------- how many users stand behind a value
def test_the_number_of_users_behind_every_system_value_is_in_the_result():
    pred, truth = _frames(50)
    users_without_relevant = truth.assign(score=np.where(truth["user_id"] < 70, 0.0, truth["score"]))
    sys_result, users = rk.EvalModel([pred, pred], [truth, users_without_relevant],
                                     [rk.MAPAtK(10, relevant_threshold=1.0), rk.NDCGAtK(5)]).fit()
    counts = sys_result.attrs["n_users"]
    for split in ("fold1", "fold2"):
        per_user = users.xs(split, level="split")
        assert counts[split] == {"MAP@10": int(per_user["MAP@10"].notna().sum()),
                                 "NDCG@5": int(per_user["NDCG@5"].notna().sum())}
    # users with ids below 70 have only 0 grades in fold2: no relevant item, left out of MAP's mean
    fold1 = users.xs("fold1", level="split")["MAP@10"]
    lost = int(fold1[fold1.index < 70].notna().sum())
    assert lost > 0 and counts["fold2"]["MAP@10"] == counts["fold1"]["MAP@10"] - lost
    assert pd.DataFrame(counts).T.loc["fold2", "NDCG@5"] == counts["fold2"]["NDCG@5"]


# ---------------------------------------------------------------- compare
def test_compare_names_the_system_whose_frame_is_wrong():
    pred, truth = _frames(20)
    bad = pd.concat([pred, pred.iloc[:1]])
    with pytest.raises(ValueError, match=r"^system 'knn': `pred` repeats 1 \(user_id, item_id\) pair in 2 rows"):
        rk.compare({"pop": pred, "knn": bad}, truth, [rk.MRR()])
    with pytest.raises(ValueError, match=r"^system 'knn': split 'fold2': `pred` repeats 1 \("):
        rk.compare({"pop": [pred, pred], "knn": [pred, bad]}, [truth, truth], [rk.MRR()])


def test_compare_results_depend_only_on_the_paired_units():
    pred, truth = _frames(60)
    other, _ = _frames(60, seed=7)
    other = other[other["user_id"].isin(pred["user_id"])]
    kw = dict(n_resamples=500, seed=3)
    base = rk.compare({"a": pred, "b": other}, truth, [rk.NDCGAtK(5), rk.MRR()], **kw)
    outsiders = pd.DataFrame({"user_id": [10_001, 10_002], "item_id": [1, 2], "score": [5.0, 4.0]})
    with pytest.warns(rk.MissingUsersWarning, match="2 `truth` user"):
        more = rk.compare({"a": pred, "b": other}, pd.concat([truth, outsiders], ignore_index=True),
                          [rk.NDCGAtK(5), rk.MRR()], **kw)
    pd.testing.assert_frame_equal(more.table, base.table, check_exact=True)
    pd.testing.assert_frame_equal(more.units, base.units, check_exact=True)


# ---------------------------------------------------------------- the mean threshold, exactly and fast
def _relevant_by_fractions(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    from fractions import Fraction
    out, start = [], 0
    for n in counts:
        scores = [Fraction(float(v)) for v in values[start:start + n]]
        total = sum(scores)
        out += [s * n >= total for s in scores]
        start += n
    return np.array(out, dtype=bool)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.1, 0.2, 0.3, 1 / 3, 2 / 3, 0.7, 0.7000000000000001, -0.1, -1e-5, 0.0,
                                          2.5, 5.0, 1e-300, 1e300, 1e-3]), min_size=1, max_size=12),
                min_size=1, max_size=20))
def test_mean_threshold_decides_score_at_or_above_mean_exactly(users):
    from rankeval.data._mean_threshold import exact_mean_threshold
    counts = np.array([len(u) for u in users], dtype=np.int64)
    values = np.array([v for u in users for v in u], dtype=np.float64)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    threshold = exact_mean_threshold(values, offsets, counts)
    np.testing.assert_array_equal(values >= np.repeat(threshold, counts), _relevant_by_fractions(values, counts))


def test_scores_tied_with_their_mean_are_relevant_whatever_the_row_order():
    """0.1, 0.2, 0.3: the float mean is 0.20000000000000004 in one order, 0.2 is relevant in every order."""
    truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [0.1, 0.2, 0.3]})
    pred = pd.DataFrame({"user_id": 1, "item_id": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
    for order in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
        lists = rk.Split(pred, truth.iloc[order]).ranked_lists()
        assert lists.relevant.tolist() == [True, False, True]


# ---------------------------------------------------------------- progress over every stage
def test_progress_covers_validation_and_join_as_well_as_metrics(capsys):
    pred, truth = _frames(20)
    rk.EvalModel([pred, pred], [truth, truth], METRICS, progress=True).fit()
    err = capsys.readouterr().err
    assert "rankeval: validate + join" in err and "2/2" in err
    assert "rankeval: metrics" in err and f"{2 * len(METRICS)}/{2 * len(METRICS)}" in err
    rk.EvalModel([pred, pred], [truth, truth], METRICS, progress=False).fit()
    assert capsys.readouterr().err == ""


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=0, max_size=60),
       st.integers(1, 5))
def test_exact_sums_merge_over_any_partition_into_the_exactly_rounded_mean(values, parts):
    from fractions import Fraction
    from rankeval.data._exact import ExactSum
    x = np.array(values, dtype=np.float64)
    whole = ExactSum.of(x)
    assert whole.total() == sum((Fraction(v) for v in values), Fraction(0))
    merged = ExactSum()
    for chunk in np.array_split(x[::-1], parts):  # another order, another partition
        merged = merged + ExactSum.from_json(ExactSum.of(chunk).to_json())
    assert merged.total() == whole.total() and merged.count == len(values)
    expected = float(whole.total() / len(values)) if values else float("nan")
    np.testing.assert_equal(merged.mean(), expected)


# ---------------------------------------------------------------- gains that overflow
@pytest.mark.parametrize("metric", [rk.NDCG(gains="exponential"), rk.NDCGAtK(5, gains="exponential"),
                                    rk.DCG(gains="exponential")])
def test_exponential_gain_overflow_names_the_user_and_the_grade(metric):
    pred = pd.DataFrame({"user_id": ["u1", "u2"], "item_id": ["a", "b"], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user_id": ["u1", "u2"], "item_id": ["a", "b"], "score": [3.0, 1100.0]})
    with pytest.raises(ValueError, match=r"exponential gains 2\*\*r - 1 overflow float64 for truth grade 1100 of "
                                         r"user 'u2' \(grades must stay below 1024\); use gains='linear'"):
        metric.perform(rk.Split(pred, truth))
    # grade 1023 is the largest that fits: finite values
    ok = truth.assign(score=[3.0, 1023.0])
    assert np.isfinite(metric.perform(rk.Split(pred, ok)).users.to_numpy()).all()


# ---------------------------------------------------------------- Kendall: scipy's value, in n log n
@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-np.inf, np.inf, -2.0, 0.0, 0.5, 1.0, 3.0]),
                          st.sampled_from([0.0, 1.0, 2.0, 5.0])), min_size=0, max_size=40),
       st.integers(1, 4))
def test_kendall_equals_scipy_with_ties_and_infinite_scores(pairs, n_users):
    from scipy import stats
    pred_rows, truth_rows = [], []
    for j, (x, y) in enumerate(pairs):
        user = f"u{j % n_users}"
        pred_rows.append((user, f"i{j}", x))
        truth_rows.append((user, f"i{j}", y))
    if not pairs:
        return
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.UnusedColumnsWarning)
        users = rk.Correlation("kendall").perform(rk.Split(pred, truth)).users["kendall"]
    for user, value in users.items():
        x = pred.loc[pred["user_id"] == user, "score"].to_numpy()
        y = truth.loc[truth["user_id"] == user, "score"].to_numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # Kendall's tau depends only on order: scipy on the ranks (older scipy gives NaN for
            # +-inf itself; scipy >= 1.14 gives the same as on the ranks)
            ranks = pd.Series(x).rank(method="dense").to_numpy()  # (scipy 1.11 ranks inf as NaN)
            expected = stats.kendalltau(ranks, y).statistic if len(x) >= 2 else np.nan
        if np.isnan(expected):
            assert np.isnan(value)
        else:
            assert value == pytest.approx(expected, abs=1e-12)


def test_kendall_on_one_user_with_60000_judged_items_equals_scipy():
    from scipy import stats
    rng = np.random.default_rng(3)
    n = 60_000
    pred = pd.DataFrame({"user_id": 1, "item_id": np.arange(n), "score": rng.random(n)})
    truth = pd.DataFrame({"user_id": 1, "item_id": np.arange(n), "score": rng.integers(0, 5, n).astype(float)})
    got = rk.Correlation("kendall").perform(rk.Split(pred, truth)).system.iloc[0, 0]
    assert got == pytest.approx(stats.kendalltau(pred["score"], truth["score"]).statistic, abs=1e-12)


def test_int_ranks_beyond_float_precision_stay_distinct():
    """2**53 and 2**53 + 1 are one float64: read as int64 they are two ranks, in their order."""
    pred = pd.DataFrame({"user_id": [1, 1, 1], "item_id": ["b", "a", "c"],
                         "rank": np.array([2**53 + 1, 2**53, 5], dtype=np.int64)})
    truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    lists = rk.Split(pred, truth).ranked_lists()
    assert list(lists.item_ids) == ["c", "a", "b"]
    assert rk.MRR().perform(rk.Split(pred, truth)).users.iloc[0, 0] == 0.5
    with pytest.raises(ValueError, match="repeats rank"):
        rk.Split(pred.assign(rank=pred["rank"].astype(np.float64)), truth)
