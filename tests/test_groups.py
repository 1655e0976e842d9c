"""EvalModel.by_group against values worked out in the test with plain pandas and scipy.

The documented convention (``EvalModel.by_group``, docs/beyond_accuracy.md §4): ``gap`` is
the group's mean minus the baseline's, and the test is of the group against the baseline,
``scipy.stats.mannwhitneyu(group, baseline)`` (its U is the group's) or
``scipy.stats.ttest_ind(group, baseline, equal_var=False)`` (its t has the gap's sign).
The cases have groups of unequal size, gaps of both signs in every split and a U that is
not the same both ways, so that a gap computed as baseline − group, or the two samples of
a test swapped, fails here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankeval as rk

K = 4
#: hits in each user's list of K items, per split; the hits are the last ones of the list
HITS = {
    "fold1": {"a0": 2, "a1": 2, "a2": 1, "a3": 3, "a4": 2, "b0": 4, "b1": 3, "b2": 4,
              "c0": 0, "c1": 1, "c2": 0, "c3": 2, "z0": 4},
    "fold2": {"a0": 1, "a1": 0, "a2": 1, "a3": 1, "a4": 2, "b0": 0, "b1": 0, "b2": 1,
              "c0": 4, "c1": 3, "c2": 2, "c3": 4, "z0": 0},
}
#: a's user with no relevant item (NaN for both metrics, so left out of a's n_users), and a user
#: of group c with no list and no truth (never evaluated)
NO_RELEVANT, NEVER_SEEN = "a5", "c9"
GROUPS = {"a": ["a0", "a1", "a2", "a3", "a4", NO_RELEVANT], "b": ["b0", "b1", "b2"],
          "c": ["c0", "c1", "c2", "c3", NEVER_SEEN]}  # z0: in no group
SIGN = ("gap = the group's mean − the baseline's (EvalModel.by_group: 'value minus the baseline's'); "
        "the test is of the group vs the baseline: mannwhitneyu(group, baseline), U the group's")


def _frames(hits: dict[str, int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """K items a user, scores K..1; relevant (score 1) are the last ``hits`` of them and one item
    outside the list (so that every user has a relevant item); NO_RELEVANT's truth scores 0."""
    pred_rows, truth_rows = [], []
    for user, h in {**hits, NO_RELEVANT: 2}.items():
        items = [f"{user}-{j}" for j in range(K)]
        pred_rows += [(user, item, float(K - j)) for j, item in enumerate(items)]
        score = 0.0 if user == NO_RELEVANT else 1.0
        truth_rows += [(user, item, score) for item in items[K - h:] + [f"{user}-elsewhere"]]
    columns = ["user_id", "item_id", "score"]
    return pd.DataFrame(pred_rows, columns=columns), pd.DataFrame(truth_rows, columns=columns)


def _per_user(pred: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    """P@K and MRR of every user with a relevant item, in plain pandas."""
    ranked = pred.assign(rank=pred.groupby("user_id")["score"].rank(ascending=False, method="first"))
    relevant = truth[truth["score"] >= 1.0]
    hit = ranked.merge(relevant[["user_id", "item_id"]], on=["user_id", "item_id"], how="left", indicator=True)
    hit["hit"] = hit["_merge"] == "both"
    users = relevant["user_id"].unique()
    hit = hit[hit["user_id"].isin(users)]
    precision = hit[hit["rank"] <= K].groupby("user_id")["hit"].sum() / K
    first = hit[hit["hit"]].groupby("user_id")["rank"].min()
    mrr = (1.0 / first).reindex(precision.index, fill_value=0.0)
    return pd.DataFrame({f"P@{K}": precision, "MRR": mrr})


@pytest.fixture(scope="module")
def case() -> dict:
    frames = [_frames(HITS[split]) for split in HITS]
    model = rk.EvalModel([p for p, _ in frames], [t for _, t in frames],
                         [rk.PrecisionAtK(K, relevant_threshold=1.0), rk.MRR(relevant_threshold=1.0)])
    model.fit()
    expected = {split: _per_user(p, t) for split, (p, t) in zip(HITS, frames)}
    return {"model": model, "expected": expected}


def _values(per_user: pd.DataFrame, metric: str, group: str) -> np.ndarray:
    return per_user.loc[per_user.index.isin(GROUPS[group]), metric].to_numpy()


def test_the_case_is_one_a_swap_or_a_flipped_sign_changes(case):
    """Guards the test's own data: non-zero gaps of both signs in every split, unequal groups, a U
    that differs from its mirror n_a * n_b - U."""
    for split, per_user in case["expected"].items():
        for metric in per_user.columns:
            a = _values(per_user, metric, "a")
            gaps = [_values(per_user, metric, g).mean() - a.mean() for g in "bc"]
            assert min(gaps) < 0 < max(gaps), (split, metric, gaps)
            for g in "bc":
                values = _values(per_user, metric, g)
                assert len(values) != len(a)
                u = stats.mannwhitneyu(values, a, alternative="two-sided").statistic
                assert u != len(a) * len(values) - u, (split, metric, g)


@pytest.mark.parametrize("baseline", [None, "b", "c"])
def test_by_group_values_gaps_and_mann_whitney_against_pandas_and_scipy(case, baseline):
    table = case["model"].by_group(GROUPS, baseline=baseline)
    base = baseline or "a"
    assert table.attrs["baseline"] == base and table.attrs["test"] == "mannwhitneyu"
    assert table.index.tolist() == [(s, m, g) for s in HITS for m in [f"P@{K}", "MRR"] for g in GROUPS]
    for split, per_user in case["expected"].items():
        for metric in per_user.columns:
            reference = _values(per_user, metric, base)
            for group in GROUPS:
                values = _values(per_user, metric, group)
                row = table.loc[(split, metric, group)]
                where = (split, metric, group, f"baseline {base}")
                assert row["n_users"] == len(values), where
                assert row["value"] == pytest.approx(values.mean(), abs=1e-12), where
                if group == base:
                    assert pd.isna(row["baseline"]) and row[["gap", "statistic", "p_value"]].isna().all()
                    continue
                assert row["baseline"] == base
                assert row["gap"] == pytest.approx(values.mean() - reference.mean(), abs=1e-12), (where, SIGN)
                ref = stats.mannwhitneyu(values, reference, alternative="two-sided")
                assert row["statistic"] == pytest.approx(ref.statistic), (where, SIGN)
                assert row["p_value"] == pytest.approx(ref.pvalue), where


def test_by_group_welch_t_has_the_sign_of_the_gap(case):
    """Welch's t of the group vs the baseline; a Series user id -> group gives the same groups."""
    labels = pd.Series({user: group for group, users in GROUPS.items() for user in users})
    table = case["model"].by_group(labels, test="welch", baseline="b")
    assert table.attrs["test"] == "welch"
    for split, per_user in case["expected"].items():
        for metric in per_user.columns:
            reference = _values(per_user, metric, "b")
            for group in "ac":
                values = _values(per_user, metric, group)
                row = table.loc[(split, metric, group)]
                ref = stats.ttest_ind(values, reference, equal_var=False)
                gap = values.mean() - reference.mean()
                assert row["gap"] == pytest.approx(gap, abs=1e-12), (split, metric, group, SIGN)
                assert (row["statistic"], row["p_value"]) == pytest.approx((ref.statistic, ref.pvalue)), SIGN
                assert np.sign(row["statistic"]) == np.sign(gap) != 0, (split, metric, group, SIGN)
