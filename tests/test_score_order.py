"""score_order: lower-is-better scores, and ranks given in the score column (RanksAsScoresWarning).

Worked out by hand below; MovieLens-100K (RecBole's copy, as tests/test_split_movielens.py
reads it) for the issue's case: a popularity recommender's ranks written into ``score``.
"""

from __future__ import annotations

import io
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.split import temporal_holdout

from .test_split_movielens import ml100k  # noqa: F401 (the fixture)

L = np.log2

# u1 lists a, b, c at distances 0.1, 0.5, 0.3 (lower is better: a, c, b); truth b=5, c=3
#   (mean 4: b alone relevant). u2 lists y, x, z at 0.2, 0.2, 0.1 (z first, then the tie y, x);
#   truth x=5, y=1, z=1 (mean 7/3: x alone relevant).
PRED = pd.DataFrame({"user_id": ["u1"] * 3 + ["u2"] * 3, "item_id": ["a", "b", "c", "y", "x", "z"],
                     "score": [0.1, 0.5, 0.3, 0.2, 0.2, 0.1]})
TRUTH = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u2"], "item_id": ["b", "c", "x", "y", "z"],
                      "score": [5.0, 3.0, 5.0, 1.0, 1.0]})


def _users(metric: rk.RankingMetric, **options) -> list[float]:
    return metric.perform(rk.Split(PRED, TRUTH, **options)).users[str(metric)].tolist()


@pytest.mark.parametrize("ties, mrr_u2", [
    # ascending: z first; the tied y, x keep their rows (y, x: x third) or go by item id (x, y: x second)
    pytest.param("row_order", 1 / 3, id="row-order"),
    pytest.param("item_id", 1 / 2, id="item-id"),
])
def test_ascending_orders_lower_first_with_the_same_tie_rule(ties, mrr_u2):
    # u1: a, c, b -> b third
    assert _users(rk.MRR(), score_order="ascending", ties=ties) == pytest.approx([1 / 3, mrr_u2], abs=1e-15)
    # descending (the default) as before: u1 b first; u2 y, x, z or x, y, z
    assert _users(rk.MRR(), ties=ties) == pytest.approx([1.0, 1 / 2 if ties == "row_order" else 1.0], abs=1e-15)


def test_ascending_ndcg_by_hand():
    # u1 gains a=0, c=3, b=5 at positions 1, 2, 3; ideal 5, 3
    expected = (3 / L(3) + 5 / L(4)) / (5 + 3 / L(3))
    assert _users(rk.NDCGAtK(3), score_order="ascending")[0] == pytest.approx(expected, rel=1e-15)
    assert expected == pytest.approx(4.39279 / 6.89279, abs=1e-5)  # 0.63730


def test_score_values_read_as_a_preference_and_refused_as_ratings():
    # u1's judged items b (5) at distance 0.5 and c (3) at 0.3: the closer item is the worse one,
    # a disagreement: Pearson -1 read lower-is-better, +1 read as given
    assert _users(rk.Correlation(), score_order="ascending")[0] == pytest.approx(-1.0)
    assert _users(rk.Correlation())[0] == pytest.approx(1.0)
    for metric in (rk.MAE(), rk.RMSE(), rk.LogLoss(relevant_threshold=4)):
        with pytest.raises(ValueError, match=r"score_order='ascending' \(lower is better, CLI --score-order\)"):
            metric.perform(rk.Split(PRED, TRUTH, score_order="ascending"))


def test_a_bad_score_order_is_named():
    with pytest.raises(ValueError, match=r"`score_order` must be one of \['descending', 'ascending'\], got 'up'"):
        rk.Split(PRED, TRUTH, score_order="up")
    with pytest.raises(ValueError, match=r"`score_order` must be one of"):
        rk.EvalModel(PRED, TRUTH, [rk.MRR()], score_order="lower")


def test_score_order_reaches_evalmodel_compare_and_report(tmp_path):
    ascending = rk.EvalModel(PRED, TRUTH, [rk.MRR()], score_order="ascending").fit()[0]
    assert ascending.loc["fold1", "MRR"] == pytest.approx((1 / 3 + 1 / 3) / 2)
    res = rk.compare({"d": PRED, "n": PRED.assign(score=-PRED["score"])}, TRUTH, [rk.MRR()],
                     score_order="ascending", n_resamples=100)
    row = res.table.iloc[0]
    # negated distances read lower-is-better are the descending order: u1 1, u2 1/2
    assert (row["mean_a"], row["mean_b"]) == pytest.approx((1 / 3, 3 / 4))
    page = rk.report(systems={"d": PRED}, truth=TRUTH, metrics=[rk.MRR()], score_order="ascending",
                     path=tmp_path / "r.html")
    assert "0.3333" in page.html and "0.7500" not in page.html  # descending: 0.7500
    assert "lower is better (score_order=&#39;ascending&#39;)" in page.html  # the metric card says so


# ----------------------------------------------------------------- ranks in the score column
RANKS = pd.DataFrame({"user_id": ["u1"] * 3 + ["u2"] * 3, "item_id": ["b", "a", "c", "x", "y", "z"],
                      "score": [1, 2, 3, 1, 3, 2]})


def _rank_warnings(pred: pd.DataFrame, **options) -> tuple[rk.Split, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        split = rk.Split(pred, TRUTH, **options)
    return split, [str(w.message) for w in caught if issubclass(w.category, rk.RanksAsScoresWarning)]


def test_ranks_in_the_score_column_warn_with_the_count():
    split, said = _rank_warnings(RANKS)
    assert said == ["`pred`'s 'score' column looks like ranks: each of the 2 users' scores are exactly 1..n (n = "
                    "the user's number of listed rows), so read as higher-is-better every list is upside down "
                    "(rank 1 last). If they are ranks, give them as a rank column (rank_col=, CLI --rank-col; "
                    "'rank' by default); if lower scores are better, pass score_order='ascending' (CLI "
                    "--score-order ascending), which also orders ranks 1..n as a rank column does"]
    # read as scores, b (rank 1, relevant) comes last: the wrong number the warning is about
    assert rk.MRR().perform(split).users["MRR"].tolist() == pytest.approx([1 / 3, 1 / 3])
    as_ranks, said_ranks = _rank_warnings(RANKS.rename(columns={"score": "rank"}))
    ascending, said_ascending = _rank_warnings(RANKS, score_order="ascending")
    assert said_ranks == said_ascending == []
    for s in (as_ranks, ascending):
        assert rk.MRR().perform(s).users["MRR"].tolist() == pytest.approx([1.0, 1.0])
    assert rk.Split.__init__.__kwdefaults__["score_order"] == "descending"


@pytest.mark.parametrize("pred", [
    pytest.param(RANKS.assign(score=[1, 2, 3, 3, 1, 4]), id="one-user-not-1..n"),
    pytest.param(RANKS.assign(score=[1.0, 2.0, 3.0, 3.0, 1.0, 2.5]), id="a-fraction"),
    pytest.param(RANKS.iloc[[0, 3]].assign(score=[1, 1]), id="lists-of-one-item"),
    pytest.param(RANKS.iloc[[0, 1, 2, 3]], id="one-list-of-2+-items"),
    pytest.param(RANKS.assign(score=[3, 2, 1, 3, 2, 1]), id="written-best-first"),
])
def test_no_warning_where_the_scores_are_no_ranks_or_it_cannot_matter(pred):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.MissingUsersWarning)
        assert _rank_warnings(pred)[1] == []


def test_the_warning_counts_users_without_truth_too():
    pred = pd.concat([RANKS, pd.DataFrame({"user_id": ["u9", "u9"], "item_id": ["a", "b"], "score": [2, 1]})])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.MissingUsersWarning)
        said = _rank_warnings(pred, name="f")[1]
    assert len(said) == 1 and "column in split 'f' looks like ranks: each of the 3 users'" in said[0]


# ----------------------------------------------------------------- MovieLens-100K: the case
def _popularity_ranks(train: pd.DataFrame, test: pd.DataFrame, n: int = 50) -> pd.DataFrame:
    """Every test user's n most popular training items they have not seen, ranked 1..n in ``score``."""
    popular = train.groupby("item_id").size().sort_values(ascending=False, kind="stable").index[: n + 400]
    users = test["user_id"].unique()
    candidates = pd.DataFrame({"user_id": np.repeat(users, len(popular)),
                               "item_id": np.tile(popular.to_numpy(), len(users))})
    seen = candidates.merge(train[["user_id", "item_id"]], how="left", indicator=True)["_merge"] == "both"
    lists = candidates.loc[~seen.to_numpy()].groupby("user_id", sort=False).head(n)
    return lists.assign(score=lists.groupby("user_id", sort=False).cumcount() + 1).reset_index(drop=True)


def test_movielens_ranks_as_scores(ml100k):  # noqa: F811 (the fixture)
    train, test = temporal_holdout(ml100k, test_size=0.2)[0]
    pred = _popularity_ranks(train, test)
    truth = test.rename(columns={"rating": "score"})[["user_id", "item_id", "score"]]
    metrics = [rk.NDCGAtK(10), rk.MAPAtK(10)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wrong = rk.EvalModel(pred, truth, metrics).fit()[0]
    said = [str(w.message) for w in caught if issubclass(w.category, rk.RanksAsScoresWarning)]
    assert len(said) == 1 and f"each of the {pred['user_id'].nunique():,} users'" in said[0]
    right = rk.EvalModel(pred.rename(columns={"score": "rank"}), truth, metrics).fit()[0]
    ascending = rk.EvalModel(pred, truth, metrics, score_order="ascending").fit()[0]
    pd.testing.assert_frame_equal(ascending, right, check_exact=True)
    # read higher-is-better, every list is the ranked list backwards
    backwards = pred.assign(rank=pred.groupby("user_id")["score"].transform("max") + 1 - pred["score"])
    pd.testing.assert_frame_equal(wrong, rk.EvalModel(backwards.drop(columns="score"), truth, metrics).fit()[0],
                                  check_exact=True)
    assert right.loc["mean", "NDCG@10"] > 2 * wrong.loc["mean", "NDCG@10"]


# ----------------------------------------------------------------- the command line
def test_cli_score_order_and_the_warning(tmp_path):
    PRED.to_csv(tmp_path / "p.csv", index=False)
    RANKS.to_csv(tmp_path / "r.csv", index=False)
    TRUTH.to_csv(tmp_path / "t.csv", index=False)

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "rankeval", "evaluate", "--truth", str(tmp_path / "t.csv"),
                               "-m", "MRR", "--format", "csv", "-q", *argv], capture_output=True, text=True)

    out = run("--pred", str(tmp_path / "p.csv"), "--score-order", "ascending")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1:] == [f"fold1,{1 / 3!r}", f"mean,{1 / 3!r}"]
    out = run("--pred", str(tmp_path / "r.csv"))
    assert out.returncode == 0 and "mean,0.3333333333333333" in out.stdout
    assert ("rankeval: warning: `pred`'s 'score' column in split 'fold1' looks like ranks: each of the 2 users'"
            in out.stderr)
    # the CLI's words: each option named once, no Python argument
    assert ("give them as a rank column (--rank-col; 'rank' by default); if lower scores are better, "
            "pass --score-order ascending, which also orders" in out.stderr), out.stderr
    assert "score_order" not in out.stderr and "CLI" not in out.stderr
    out = run("--pred", str(tmp_path / "r.csv"), "--score-order", "ascending")
    assert out.returncode == 0 and out.stderr == "" and "mean,1.0" in out.stdout
    out = run("--pred", str(tmp_path / "r.csv"), "--score-order", "up")
    assert out.returncode == 2 and "--score-order: invalid choice: 'up'" in out.stderr


def test_side_entry_points_read_lower_first():
    from rankeval.metrics.beyond import baseline_lists
    from rankeval.plot import top_k_lists

    top = top_k_lists(PRED, 2, score_order="ascending")
    # u1: a (0.1), c (0.3); u2: z (0.1), then the tie y, x in row order
    assert sorted(zip(top["user_id"], top["item_id"])) == [("u1", "a"), ("u1", "c"), ("u2", "y"), ("u2", "z")]
    assert sorted(top_k_lists(PRED, 1)["item_id"]) == ["b", "y"]
    assert sorted(top_k_lists(PRED, 1, score_order="ascending")["item_id"]) == ["a", "z"]
    lists = baseline_lists(PRED, score_order="ascending")
    assert lists["item"].astype(str).tolist() == ["a", "c", "b", "z", "y", "x"]
    with pytest.raises(ValueError, match=r"`score_order` must be one of"):
        baseline_lists(PRED, score_order="Ascending")


def test_cli_compare_reads_every_system_lower_first(tmp_path):
    PRED.to_csv(tmp_path / "p.csv", index=False)
    PRED.assign(score=-PRED["score"]).to_csv(tmp_path / "n.csv", index=False)
    TRUTH.to_csv(tmp_path / "t.csv", index=False)
    out = subprocess.run([sys.executable, "-m", "rankeval", "compare", "--system", f"d={tmp_path / 'p.csv'}",
                          "--system", f"n={tmp_path / 'n.csv'}", "--truth", str(tmp_path / "t.csv"), "-m", "MRR",
                          "--score-order", "ascending", "--n-resamples", "100", "--format", "csv", "-q"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    row = pd.read_csv(io.StringIO(out.stdout)).iloc[0]
    # distances read lower first: d's MRR (1/3 + 1/3) / 2; n's negated distances: (1 + 1/2) / 2
    assert (row["mean_a"], row["mean_b"]) == pytest.approx((1 / 3, 3 / 4), rel=1e-15)
