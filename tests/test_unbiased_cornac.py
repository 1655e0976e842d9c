"""Popularity strata equal Cornac 3.0.1's PropensityStratifiedEvaluation on the same data.

Cornac's ``PropensityStratifiedEvaluation`` (cornac/eval_methods/propensity_stratified_evaluation.py,
3.0.1) does not run as shipped: four call sites use APIs that moved in 3.0.1. The test patches
exactly those call sites and nothing of the stratification, the propensities or the weighting:

1. ``__init__``: ``RatioSplit.validate_size(val_size, test_size, data)`` -- 3.0.1's
   ``validate_size`` takes the data's size (``ratio_split.py``: ``validate_size(val_size,
   test_size, data_size)``); the module's ``RatioSplit`` is given a shim passing ``len(data)``.
2. ``evaluate``: ``self._organize_metrics(metrics)`` -- 3.0.1's ``BaseMethod`` has the static
   ``organize_metrics(metrics)`` returning ``(rating_metrics, ranking_metrics)``; a method of
   that name sets both from it.
3. ``ranking_eval``: ``train_set.is_unk_user(user_idx)`` -- 3.0.1's ``Dataset`` has no such
   method; its own ``ranking_eval`` (``base_method.py``) tests ``user_idx < train_mat.shape[0]``,
   which the patched method returns negated.
4. ``ranking_eval``: ``mt.compute(gt_pos=u_gt_pos, ...)`` passes a dense 0/1 vector, while
   3.0.1's ranking metrics take the positive items' indices (``base_method.py`` passes
   ``np.nonzero(u_gt_pos_mask)[0]``); each metric is wrapped to take the indices of the vector.

The IPS row of Cornac (the dense vector divided by the propensities) needs patch 4 to keep the
weights, which 3.0.1's metrics cannot read, so only the plain, per-stratum and stratum-weighted
rows are compared. Cornac's MAP ranks by the scores with ties at their last rank (its
``rankdata(-pd_scores, "max")``), another list than the one ranked, so it is not compared.
"""

from __future__ import annotations

import types
import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.unbiased import strata_of, stratified

from ._require import require


def _patched_cornac(monkeypatch):
    require("powerlaw")
    pse_mod = require("cornac.eval_methods.propensity_stratified_evaluation")
    from cornac.data import Dataset
    from cornac.eval_methods.ratio_split import RatioSplit

    # 1. validate_size takes the data's size in 3.0.1
    monkeypatch.setattr(pse_mod, "RatioSplit", types.SimpleNamespace(
        validate_size=lambda val, test, data: RatioSplit.validate_size(val, test, len(data))))

    # 2. organize_metrics is a static method returning both lists in 3.0.1
    def _organize_metrics(self, metrics):
        self.rating_metrics, self.ranking_metrics = self.organize_metrics(metrics)
    monkeypatch.setattr(pse_mod.PropensityStratifiedEvaluation, "_organize_metrics", _organize_metrics, raising=False)

    # 3. Dataset.is_unk_user is gone: 3.0.1's ranking_eval tests user_idx < train_mat.shape[0]
    monkeypatch.setattr(Dataset, "is_unk_user", lambda self, u: not u < self.csr_matrix.shape[0], raising=False)
    return pse_mod


def _indices_metric(metric):
    """4. 3.0.1's ranking metrics take the positive items' indices, not the dense vector."""
    base = type(metric)

    class Indices(base):  # type: ignore[misc, valid-type]
        def compute(self, gt_pos, pd_rank, **kwargs):
            return base.compute(self, gt_pos=np.flatnonzero(gt_pos), pd_rank=pd_rank, **kwargs)

    out = Indices.__new__(Indices)
    out.__dict__.update(metric.__dict__)
    return out


def _data(seed):
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, 31) ** 0.7
    rows = []
    for u in range(120):
        items = rng.choice(30, size=rng.integers(8, 20), replace=False, p=weights / weights.sum())
        rows += [(f"u{u}", f"i{i}", 1.0) for i in items]
    return rows


@pytest.mark.parametrize(("seed", "n_strata"), [(0, 2), (1, 3), (2, 4)])
def test_strata_equal_cornac(monkeypatch, seed, n_strata):
    pse_mod = _patched_cornac(monkeypatch)
    from cornac.metrics import MRR, NDCG, Precision, Recall
    from cornac.models import MostPop

    data = _data(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # powerlaw's and tqdm's own warnings
        pse = pse_mod.PropensityStratifiedEvaluation(data, test_size=0.3, n_strata=n_strata, rating_threshold=1.0,
                                                     seed=seed, exclude_unknowns=True)
        model = MostPop()
        metrics = [Recall(k=5), NDCG(k=5), Precision(k=5), MRR()]
        result, _ = pse.evaluate(model, [_indices_metric(m) for m in metrics], user_based=True)

    users = {idx: uid for uid, idx in pse.global_uid_map.items()}
    items = {idx: iid for iid, idx in pse.global_iid_map.items()}
    u, i, _ = pse.test_set.uir_tuple
    truth = pd.DataFrame({"user_id": [users[x] for x in u], "item_id": [items[x] for x in i], "score": 1.0})
    assert len(truth) == pse.test_size  # no test row was an unknown user or item: the same rows
    # every test user's list: Cornac's own ranking of every known item (the order it evaluates)
    lists = []
    for uid in truth.user_id.unique():
        ranked, _ = model.rank(pse.global_uid_map[uid])
        lists.append(pd.DataFrame({"user_id": uid, "item_id": [items[x] for x in ranked],
                                   "score": -np.arange(len(ranked), dtype=float)}))
    pred = pd.concat(lists, ignore_index=True)
    props = pd.Series(dict(pse.props), dtype=float)

    # the same strata: Cornac's stratum sets hold the test rows our bins put there
    ours = strata_of(props[truth.item_id].to_numpy(), n_strata)
    assert sorted(f"Q{q}" for q in np.unique(ours)) == sorted(pse.stratified_sets)
    for name, qset in pse.stratified_sets.items():
        assert qset.num_ratings == int((ours == int(name[1:])).sum())

    ranking = [rk.RecallAtK(5, relevant_threshold=1), rk.NDCGAtK(5, gains="binary", relevant_threshold=1),
               rk.PrecisionAtK(5, relevant_threshold=1), rk.MRR(relevant_threshold=1)]
    table = stratified(pred, truth, ranking, props, n_strata)
    names = {"R@5": "Recall@5", "NDCG@5": "NDCG@5", "P@5": "Precision@5", "MRR": "MRR"}
    rows = {"all": result[0]} | {f"Q{f - 1}": result[f] for f in range(2, len(result) - 1)}
    rows["strata"] = result[-1]
    # Cornac's strata rows come in the order of the sorted labels: Q1, Q2, ... (fewer than 10 here)
    assert list(table.index) == ["all", *[f"Q{q}" for q in sorted(int(n[1:]) for n in pse.stratified_sets)],
                                 "strata"]
    for ours_row, theirs in zip(table.index, rows.values()):
        for col, cornac_name in names.items():
            assert table.loc[ours_row, col] == pytest.approx(theirs.metric_avg_results[cornac_name], rel=1e-12,
                                                            abs=1e-15), (ours_row, col)
        if ours_row != "strata":
            assert table.loc[ours_row, "size"] == theirs.metric_avg_results["SIZE"]
