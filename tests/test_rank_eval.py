"""A TopK of rankeval.rank evaluated as it is: the values equal those of its pred frame with plain id columns.

The reference is ``EvalModel(topk.to_frame(categorical=False), truth, ...)``: the lists written out with
the caller's ids, one per row, read by the usual frame path (hashing every row). The TopK path reads
them as codes; both must give the same per-user and system values, to the bit, and the same warnings.
"""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval.rank import TopK, top_k

from ._require import require

DOC = Path(__file__).resolve().parents[1] / "docs" / "rank.md"
METRICS = [rk.NDCGAtK([1, 3]), rk.RecallAtK(5), rk.MRR(), rk.MAPAtK(4), rk.PrecisionAtK(2), rk.HitRateAtK(3)]


def fit_recording(*args, **kwargs) -> tuple[pd.DataFrame, pd.DataFrame, list[tuple[type, str]]]:
    """``EvalModel(*args, **kwargs).fit()`` and the rankeval warnings it gave (category, message)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sys_result, users = rk.EvalModel(*args, **kwargs).fit()
    return sys_result, users, [(w.category, str(w.message)) for w in caught
                               if issubclass(w.category, rk.RankevalWarning)]


def ids(n: int, kind: str, prefix: str) -> np.ndarray:
    """``n`` distinct ids of a kind; integers not in row order, so that the tie rules differ."""
    if kind == "int":
        return (np.arange(n) * 7919) % 10007 + 100
    return np.array([f"{prefix}{(i * 7) % 97}" for i in range(n)], dtype=object)


@st.composite
def problems(draw):
    """Small-integer vectors (many tied scores), seen items, a truth with users ranked and not."""
    n_users, n_items, d = draw(st.integers(1, 10)), draw(st.integers(1, 25)), draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    users = rng.integers(-2, 3, (n_users, d)).astype(dtype)
    items = rng.integers(-2, 3, (n_items, d)).astype(dtype)
    user_ids = ids(n_users, draw(st.sampled_from(["int", "str"])), "u")
    item_ids = ids(n_items, draw(st.sampled_from(["int", "str"])), "i")
    seen = rng.random((n_users, n_items)) < draw(st.sampled_from([0.0, 0.3, 0.7]))
    if draw(st.booleans()):
        seen[0] = True  # a user who saw every item: an empty list, a truth user without recommendations
    rows, cols = np.nonzero(seen)
    exclude = pd.DataFrame({"user_id": user_ids[rows], "item_id": item_ids[cols]})
    rated = rng.random((n_users, n_items)) < 0.4
    rows, cols = np.nonzero(rated)
    truth = pd.DataFrame({"user_id": user_ids[rows], "item_id": item_ids[cols],
                          "score": rng.integers(1, 6, len(rows)).astype(float)})
    if draw(st.booleans()):  # a truth user the model never ranked
        stranger = user_ids[:1] + 50_000 if user_ids.dtype.kind == "i" else np.array(["stranger"], dtype=object)
        truth = pd.concat([truth, pd.DataFrame({"user_id": stranger, "item_id": item_ids[:1], "score": 4.0})],
                          ignore_index=True)
    k = draw(st.integers(1, n_items + 2))
    rank_ties = draw(st.sampled_from(["row_order", "item_id", "item_id_desc"]))
    # the evaluation's tie rule: given, or a convention's (trec_eval: item ids descending), or the default
    eval_ties = draw(st.sampled_from([{"ties": "row_order"}, {"ties": "item_id"}, {"convention": "trec_eval"}, {}]))
    return users, items, user_ids, item_ids, exclude, truth, k, rank_ties, eval_ties


@settings(max_examples=120)
@given(problems())
def test_a_top_k_evaluates_as_its_pred_frame_to_the_bit(problem):
    users, items, user_ids, item_ids, exclude, truth, k, rank_ties, eval_ties = problem
    if truth.empty:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.ShortListsWarning)
        lists = top_k(users, items, k, user_ids=user_ids, item_ids=item_ids, exclude=exclude, ties=rank_ties)
    if len(lists) == 0 or not truth["user_id"].isin(lists.to_frame(categorical=False)["user_id"]).any():
        return  # no user both ranked and rated: both paths refuse it (checked below on a fixed case)
    kept = (lists.items.copy(), lists.scores.copy())
    plain = lists.to_frame(categorical=False)
    want = fit_recording(plain, truth, METRICS, **eval_ties)
    got = fit_recording(lists, truth, METRICS, **eval_ties)
    pd.testing.assert_frame_equal(got[0], want[0], check_exact=True)
    pd.testing.assert_frame_equal(got[1], want[1], check_exact=True)
    assert got[2] == want[2]  # truth users without lists counted alike (MissingUsersWarning), and the rest
    # distances: the TopK's scores are higher-is-better whatever score_order says; nothing of it is changed
    lower = fit_recording([lists], truth, METRICS, score_order="ascending", **eval_ties)
    pd.testing.assert_frame_equal(lower[1], want[1], check_exact=True)
    assert np.array_equal(lists.items, kept[0]) and np.array_equal(lists.scores, kept[1])


def _small() -> tuple[TopK, pd.DataFrame, pd.DataFrame]:
    """Three users, four text items; the truth of users a, b, c and d (d not ranked)."""
    users = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    items = np.array([[3.0, 1.0], [1.0, 2.0], [2.0, 2.0], [0.0, 1.0]])
    train = pd.DataFrame({"user_id": ["a", "c"], "item_id": ["x", "z"]})
    lists = top_k(users, items, 2, user_ids=["a", "b", "c"], item_ids=["x", "y", "z", "w"], exclude=train)
    truth = pd.DataFrame({"user_id": ["a", "a", "b", "c", "d"], "item_id": ["y", "z", "x", "y", "x"],
                          "score": [5.0, 3.0, 4.0, 2.0, 5.0]})
    return lists, truth, train


def test_a_hand_worked_top_k_gives_its_values():
    lists, truth, _ = _small()
    # relevant: a truth score at least the user's mean (a: y 5, not z 3). a: x seen, z (2) then y (1): y at
    # rank 2; b: y, z (2 each, row order), x unlisted; c: z seen, x (4) then y (3): y at rank 2
    assert lists.to_frame(categorical=False)["item_id"].tolist() == ["z", "y", "y", "z", "x", "y"]
    with pytest.warns(rk.MissingUsersWarning, match=r"1 `truth` user\(s\) .* e\.g\. \[.d.\]"):
        _, users = rk.EvalModel(lists, truth, [rk.MRR(), rk.RecallAtK(2)]).fit()
    assert users["MRR"].tolist() == [0.5, 0.0, 0.5]
    assert users["R@2"].tolist() == [1.0, 0.0, 1.0]
    # some users only: the frame of codes is cut as any pred frame
    with pytest.warns(rk.MissingUsersWarning):
        sys_result, users = rk.EvalModel(lists, truth, [rk.MRR()]).fit(user_id_list=["c", "b"])
    assert users["MRR"].tolist() == [0.0, 0.5] and sys_result.loc["mean", "MRR"] == 0.25


def test_compare_mixes_a_top_k_and_a_frame():
    lists, truth, _ = _small()
    other = pd.DataFrame({"user_id": ["a", "b", "c"], "item_id": ["y", "x", "w"], "score": 1.0})
    # metrics that read another system's lists (the baseline, here the TopK) read it as a frame too
    metrics = [rk.MRR(), rk.NDCGAtK(2), rk.RBO(), rk.Unexpectedness(baseline="mf")]
    with pytest.warns(rk.MissingUsersWarning):
        got = rk.compare({"mf": lists, "pop": other}, truth, metrics, n_resamples=200, baseline="mf")
    with pytest.warns(rk.MissingUsersWarning):
        want = rk.compare({"mf": lists.to_frame(categorical=False), "pop": other}, truth, metrics, n_resamples=200,
                          baseline="mf")
    pd.testing.assert_frame_equal(got.units, want.units, check_exact=True)
    pd.testing.assert_frame_equal(got.table, want.table, check_exact=True)
    assert got.units[("MRR", "mf")].tolist() == [0.5, 0.0, 0.5]
    assert got.units[("Unexpectedness", "pop")].tolist() == [0.0, 1.0, 1.0]  # b: x, c: w, neither in mf's lists
    # a list of splits, TopK and frame side by side, under the truth's own column names
    renamed = truth.rename(columns={"user_id": "userId", "item_id": "movieId", "score": "rating"})
    options = dict(user_col="userId", item_col="movieId", truth_score_col="rating")
    with pytest.warns(rk.MissingUsersWarning):
        sys_result, _ = rk.EvalModel([lists, lists.to_frame(user_col="userId", item_col="movieId")],
                                     [renamed, renamed], [rk.MRR()], **options).fit()
    assert sys_result["MRR"].tolist() == [1 / 3] * 3


def test_from_model_equals_top_k_then_eval_model():
    rng = np.random.default_rng(3)
    users, items = rng.integers(-3, 4, (30, 4)).astype(float), rng.integers(-3, 4, (50, 4)).astype(float)
    user_ids, item_ids = np.arange(30) + 1000, np.array([f"m{i}" for i in range(50)], dtype=object)
    pairs = pd.DataFrame({"userId": user_ids[rng.integers(0, 30, 400)], "movieId": item_ids[rng.integers(0, 50, 400)],
                          "rating": rng.integers(1, 6, 400).astype(float)}).drop_duplicates(["userId", "movieId"])
    train, test = pairs.iloc[:250], pairs.iloc[250:]
    metrics = [rk.NDCGAtK(10), rk.RecallAtK(20), rk.MRR()]
    options = dict(user_col="userId", item_col="movieId", score_col="rating")
    allowed = item_ids[:45]
    got = rk.EvalModel.from_model(users, items, test, metrics, k=20, user_ids=user_ids, item_ids=item_ids,
                                  exclude=train, candidates=allowed, similarity="cosine", ties="item_id",
                                  train=train, **options).fit()
    lists = top_k(users, items, 20, user_ids=user_ids, item_ids=item_ids, similarity="cosine", ties="item_id",
                  candidates=allowed, exclude=train.rename(columns={"userId": "user_id", "movieId": "item_id"}))
    want = rk.EvalModel(lists.to_frame(user_col="userId", item_col="movieId", score_col="rating",
                                       categorical=False), test, metrics, train=train, **options).fit()
    pd.testing.assert_frame_equal(got[0], want[0], check_exact=True)
    pd.testing.assert_frame_equal(got[1], want[1], check_exact=True)
    # the training items were left out: no list holds a pair of train (the protocol check would warn)
    assert not (set(zip(train.userId, train.movieId)) & set(zip(*lists.to_frame(categorical=False).iloc[:, :2].T.values)))


def test_from_model_reads_a_splits_truth_and_refuses_several_splits():
    rng = np.random.default_rng(5)
    interactions = pd.DataFrame({"user_id": np.repeat(np.arange(20), 6), "item_id": rng.integers(0, 30, 120),
                                 "score": 1.0}).drop_duplicates(["user_id", "item_id"])
    one = rk.split.random_holdout(interactions, test_size=0.3, seed=1)
    users, items = rng.normal(size=(20, 3)), rng.normal(size=(30, 3))
    got = rk.EvalModel.from_model(users, items, one, [rk.NDCGAtK(5)], k=5, exclude=one.trains[0]).fit()
    lists = top_k(users, items, 5, exclude=one.trains[0])
    want = rk.EvalModel(lists.to_frame(categorical=False), one, [rk.NDCGAtK(5)]).fit()
    pd.testing.assert_frame_equal(got[1], want[1], check_exact=True)
    with pytest.raises(ValueError, match="has 2 splits, but one model's vectors rank one split"):
        rk.EvalModel.from_model(users, items, [one.tests[0], one.tests[0]], [rk.NDCGAtK(5)], k=5)


def test_ids_of_another_kind_than_the_truths_are_refused():
    lists, truth, _ = _small()
    with pytest.raises(ValueError, match=r"`pred_list` \(a TopK\) has item ids that are text \(e\.g\. 'x'\) but "
                                         r"the truth's 'item_id' holds numbers"):
        rk.EvalModel(lists, truth.assign(item_id=[1, 2, 3, 4, 5]), [rk.MRR()])
    numbered = top_k(np.eye(2), np.eye(2), 1)  # ids 0, 1: numbers
    with pytest.raises(ValueError, match=r"`systems\['mf'\]\[0\]` \(a TopK\) has user ids that are numbers"):
        rk.compare({"mf": [numbered], "pop": [truth]}, [truth], [rk.MRR()])
    # a truth of another frame kind: the join's own check, naming the pred column
    pa = require("pyarrow")
    with pytest.raises(ValueError, match=r"`pred`\['item_id'\] holds text .* no id could ever match"):
        rk.EvalModel(lists, pa.Table.from_pandas(truth.assign(item_id=[1, 2, 3, 4, 5])), [rk.MRR()])
    # no user ranked and rated: refused as any pred frame is
    with pytest.raises(ValueError, match="no user of `pred` appears in `truth`"):
        rk.EvalModel(lists, truth[truth.user_id == "d"], [rk.MRR()])


def test_the_docs_example_runs_and_gives_the_frame_values():
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Evaluating without writing lists", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```", section, flags=re.DOTALL | re.MULTILINE)
    assert blocks, "docs/rank.md lost its example"
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "rank.md", "exec"), namespace)
    pd.testing.assert_frame_equal(namespace["per_user"], namespace["from_frame"][1], check_exact=True)
    pd.testing.assert_frame_equal(namespace["sys_result"], namespace["from_frame"][0], check_exact=True)


def test_the_rank_command_evaluates_the_lists_without_a_pred_file(tmp_path, capsys, monkeypatch):
    from rankeval.cli import main
    from rankeval.io._files import EXACT_FLOATS

    rng = np.random.default_rng(8)
    users, items = rng.integers(-3, 4, (15, 3)).astype(float), rng.integers(-3, 4, (30, 3)).astype(float)
    pd.DataFrame(users, columns=["a", "b", "c"]).assign(user_id=[f"u{i}" for i in range(15)]).to_csv(
        tmp_path / "u.csv", index=False)
    pd.DataFrame(items, columns=["a", "b", "c"]).assign(item_id=[f"i{i}" for i in range(30)]).to_csv(
        tmp_path / "v.csv", index=False)
    pairs = pd.DataFrame({"user_id": [f"u{i}" for i in rng.integers(0, 16, 200)],  # u15: not ranked
                          "item_id": [f"i{i}" for i in rng.integers(0, 30, 200)],
                          "rating": rng.integers(1, 6, 200).astype(float)}).drop_duplicates(["user_id", "item_id"])
    train, test = pairs.iloc[:100], pairs.iloc[100:]
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    monkeypatch.chdir(tmp_path)
    status = main(["rank", "--users", "u.csv", "--items", "v.csv", "-k", "8", "--exclude", "train.csv",
                   "--truth", "test.csv", "--truth-score-col", "rating", "-m", "NDCG@5", "-m", "R@8",
                   "--format", "csv", "--out", "lists.csv"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "lists.csv" in err and "lists.csv" not in out  # stdout holds the table alone
    assert "1 `truth` user(s) in split 'fold1' have no recommendations" in err  # u15, counted as always
    got = pd.read_csv(io.StringIO(out), index_col=0, **EXACT_FLOATS)
    lists = top_k(users, items, 8, user_ids=[f"u{i}" for i in range(15)], item_ids=[f"i{i}" for i in range(30)],
                  exclude=train)
    with pytest.warns(rk.MissingUsersWarning):
        want, _ = rk.EvalModel(lists.to_frame(categorical=False), test, [rk.NDCGAtK(5), rk.RecallAtK(8)],
                               truth_score_col="rating").fit()
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    assert list(got.columns) == list(want.columns)
    for args, message in ((["--truth", "test.csv"], "--truth and -m go together"),
                          ([], "rank needs --out")):
        assert main(["rank", "--users", "u.csv", "--items", "v.csv", "-k", "3", *args]) == 2
        assert message in capsys.readouterr().err


def test_a_top_k_with_a_spark_truth_keeps_its_order(spark):
    # every score tied: the Spark engine, which has no row order, would break the ties by item id
    lists = top_k(np.ones((3, 2)), np.ones((6, 2)), 4, user_ids=["a", "b", "c"],
                  item_ids=["f", "e", "d", "c", "b", "a"])
    truth = pd.DataFrame({"user_id": ["a", "b", "c"], "item_id": ["e", "d", "a"], "score": 1.0})
    want = rk.EvalModel(lists.to_frame(categorical=False), truth, [rk.MRR()]).fit()[1]
    assert want["MRR"].tolist() == [0.5, 1 / 3, 0.0]  # the lists are f, e, d, c: the items' row order
    got = rk.EvalModel(lists, spark.createDataFrame(truth), [rk.MRR()]).fit()[1].toPandas()
    assert got.sort_values("user_id")["MRR"].tolist() == want["MRR"].tolist()
    with pytest.raises(ValueError, match="`user_vectors` is a Spark DataFrame: rank it with rankeval.rank.top_k"):
        rk.EvalModel.from_model(spark.createDataFrame(pd.DataFrame({"user_id": [1], "vector": [[1.0]]})),
                                np.ones((2, 1)), truth, [rk.MRR()], k=1)
