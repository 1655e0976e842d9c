"""BPref, RBP, ERRAtK and trec_eval's counts (num_ret, num_rel, num_rel_ret).

Hand-computed values, the plain-loop oracles under hypothesis, trec_eval (pytrec_eval) and
ranx run inside the tests, and gdeval's ERR (through ir_measures, not a test dependency:
its numbers are stored below with the script that printed them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval import RBP, BPref, ERRAtK, NumRel, NumRelRet, NumRet, Split

from ._load import assert_system, assert_users, load_sibling, nanmean, quiet_split
from .._require import require

oracles = load_sibling("_oracles")
strategies = load_sibling("strategies")

pytestmark = [pytest.mark.filterwarnings("ignore::rankeval.LowOverlapWarning"),
              pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")]

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def one_user(items, grades_by_item, user="q"):
    pred = pd.DataFrame({"user_id": user, "item_id": items, "score": np.arange(len(items), 0, -1, dtype=float)})
    truth = pd.DataFrame({"user_id": user, "item_id": list(grades_by_item), "score": list(grades_by_item.values())})
    return pred, truth


# --------------------------------------------------------------------------- #
# hand-computed
# --------------------------------------------------------------------------- #
def test_bpref_by_hand():
    # relevant (grade >= 1): a, b, c (R = 3); judged non-relevant: n1, n2 (M = 2); x unjudged
    # list: n1 a x n2 b        a: 1 - 1/2;  b: 1 - 2/2;  c not listed
    pred, truth = one_user(["n1", "a", "x", "n2", "b"], {"a": 2, "b": 1, "c": 1, "n1": 0, "n2": 0})
    value = BPref(relevant_threshold=1).perform(Split(pred, truth)).users.iloc[0, 0]
    assert value == pytest.approx((0.5 + 0.0) / 3, rel=1e-12)
    # no judged non-relevant item at all: every listed relevant item counts 1 (trec_eval)
    pred, truth = one_user(["x", "a"], {"a": 1, "b": 1})
    assert BPref(relevant_threshold=1).perform(Split(pred, truth)).users.iloc[0, 0] == 0.5
    # no relevant item: NaN, or 0 (trec_eval, ranx)
    pred, truth = one_user(["a"], {"a": 0})
    assert np.isnan(BPref(relevant_threshold=1).perform(Split(pred, truth)).users.iloc[0, 0])
    assert BPref(relevant_threshold=1, no_relevant="zero").perform(Split(pred, truth)).users.iloc[0, 0] == 0.0


def test_rbp_by_hand():
    pred, truth = one_user(["a", "x", "b", "c"], {"a": 1, "b": 3, "c": 0})
    s = Split(pred, truth)
    assert RBP(relevant_threshold=1).perform(s).users.iloc[0, 0] == pytest.approx(0.2 * (1 + 0.8**2), rel=1e-12)
    assert RBP(0.5, relevant_threshold=1).perform(s).users.iloc[0, 0] == pytest.approx(0.5 * (1 + 0.25), rel=1e-12)
    graded = RBP(relevant_threshold=1, gains="graded").perform(s).users.iloc[0, 0]
    assert graded == pytest.approx(0.2 * (1 + 3 * 0.8**2), rel=1e-12)


def test_err_by_hand():
    # grades 2 (a), 0 (b), unjudged x, 3 (c); g_max = 3 (the truth's largest)
    pred, truth = one_user(["a", "b", "x", "c"], {"a": 2, "b": 0, "c": 3, "d": 1})
    s = Split(pred, truth)
    r_a, r_c = 3 / 8, 7 / 8
    expected = r_a / 1 + (1 - r_a) * r_c / 4
    assert ERRAtK(4).perform(s).users.iloc[0, 0] == pytest.approx(expected, rel=1e-12)
    assert ERRAtK(3).perform(s).users.iloc[0, 0] == pytest.approx(r_a, rel=1e-12)
    # gdeval's fixed scale
    r_a4, r_c4 = 3 / 16, 7 / 16
    assert ERRAtK(4, max_grade=4).perform(s).users.iloc[0, 0] == pytest.approx(r_a4 + (1 - r_a4) * r_c4 / 4, rel=1e-12)
    with pytest.raises(ValueError, match=r"`max_grade`=2 of ERR@4 is below a truth score: user 'q' has 3"):
        ERRAtK(4, max_grade=2).perform(s)


def test_err_max_grade_is_the_whole_truth_frame():
    # user "t" has no list, but their grade 4 sets the scale for everyone
    pred, truth = one_user(["a"], {"a": 2})
    truth = pd.concat([truth, pd.DataFrame({"user_id": ["t"], "item_id": ["z"], "score": [4]})])
    with pytest.warns(rk.MissingUsersWarning):
        s = Split(pred, truth)
    assert ERRAtK(1).perform(s).users.iloc[0, 0] == pytest.approx(3 / 16, rel=1e-12)


def test_err_negative_and_missing_grades():
    pred, truth = one_user(["a", "b"], {"a": -2, "b": 1})
    assert ERRAtK(2).perform(Split(pred, truth)).users.iloc[0, 0] == pytest.approx(0.5 / 2, rel=1e-12)
    pred, truth = one_user(["a"], {"a": 0, "b": -1})  # no positive grade: undefined (gdeval skips the user)
    assert np.isnan(ERRAtK(2).perform(Split(pred, truth)).users.iloc[0, 0])
    assert ERRAtK(2, no_relevant="zero").perform(Split(pred, truth)).users.iloc[0, 0] == 0.0


def test_counts_by_hand_and_sum():
    pred = pd.DataFrame({"user_id": ["u1", "u1", "u1", "u2"], "item_id": ["a", "x", "b", "c"]})
    truth = pd.DataFrame({"user_id": ["u1", "u1", "u1", "u2"], "item_id": ["a", "b", "c", "c"],
                          "score": [1, 0, 1, 0]})
    s = Split(pred, truth)
    for metric, users in ((NumRet(), [3, 1]), (NumRel(relevant_threshold=1), [2, 0]),
                          (NumRelRet(relevant_threshold=1), [1, 0])):
        res = metric.perform(s)
        assert res.users[str(metric)].tolist() == users
        assert res.system.iloc[0, 0] == sum(users)  # trec_eval's summary: the sum over users
        assert not metric.system_is_user_mean
        mean = type(metric)(**{**metric._params(), "average": "macro"})
        assert str(mean) == str(metric) + "-macro" and mean.system_is_user_mean
        assert mean.perform(s).system.iloc[0, 0] == np.mean(users)
        assert rk.parse_metric(str(mean)) == type(metric)(average="macro")  # the name holds no threshold


def test_names_and_parameters():
    assert [str(m) for m in (BPref(), RBP(), RBP(0.95), RBP(0.5), ERRAtK(10), NumRet(), NumRel(), NumRelRet())] == [
        "BPref", "RBP", "RBP.95", "RBP.5", "ERR@10", "num_ret", "num_rel", "num_rel_ret"]
    for text in ("BPref", "RBP", "RBP.95", "ERR@10", "num_ret", "num_rel", "num_rel_ret", "num_ret-macro"):
        assert str(rk.parse_metric(text)) == text
    with pytest.raises(ValueError, match="needs a cutoff"):
        rk.parse_metric("ERR")
    with pytest.raises(ValueError, match=r"`p` must be a number in \(0, 1\)"):
        RBP(1.0)
    with pytest.raises(ValueError, match="`max_grade` must be a finite number or None"):
        ERRAtK(5, max_grade=float("inf"))
    with pytest.raises(ValueError, match=r"'RBP.0'.*`p` must be"):
        rk.parse_metric("RBP.0")
    with pytest.raises(ValueError, match=r"takes average=\['sum', 'macro'\], not 'micro'"):
        rk.parse_metric("num_ret-micro")


# --------------------------------------------------------------------------- #
# oracles, under hypothesis
# --------------------------------------------------------------------------- #
@SETTINGS
@given(data=strategies.frames(), thr=strategies.thresholds(), p=st.sampled_from([0.5, 0.8, 0.95]),
       gains=st.sampled_from(["binary", "graded"]))
def test_bpref_rbp_counts_match_the_oracle(data, thr, p, gains):
    pred, truth = data
    split = quiet_split(pred, truth)
    checks = [(BPref(thr), oracles.bpref(pred, truth, relevant_threshold=thr)),
              (RBP(p, thr, gains=gains), oracles.rbp(pred, truth, p, relevant_threshold=thr, gains=gains))]
    for cls, kind in ((NumRet, "num_ret"), (NumRel, "num_rel"), (NumRelRet, "num_rel_ret")):
        metric = cls(average="macro") if cls is NumRet else cls(thr, average="macro")
        checks.append((metric, oracles.counts(pred, truth, kind, relevant_threshold=thr)))
    for metric, expected in checks:
        res = assert_users(metric, split, expected, pred, truth)
        assert_system(res, str(metric), nanmean(expected), pred, truth)
    summed = NumRelRet(thr).perform(split)
    assert_system(summed, "num_rel_ret", float(oracles.counts(pred, truth, "num_rel_ret", thr).sum()))


@SETTINGS
@given(data=strategies.frames(), k=st.sampled_from([1, 3, 20]), max_grade=st.sampled_from([None, 10.0]))
def test_err_matches_the_oracle(data, k, max_grade):
    pred, truth = data
    split = quiet_split(pred, truth)
    expected = oracles.err(pred, truth, k, max_grade=max_grade)
    res = assert_users(ERRAtK(k, max_grade=max_grade), split, expected, pred, truth)
    assert_system(res, f"ERR@{k}", nanmean(expected), pred, truth)


# --------------------------------------------------------------------------- #
# peers
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_trec_eval_bpref_and_counts_agree(seed):
    pytrec_eval = require("pytrec_eval")
    peer_data = load_sibling("_peer_data")
    pred, truth = peer_data.peer_frames(seed)
    s = quiet_split(pred, truth)
    evaluator = pytrec_eval.RelevanceEvaluator(peer_data.as_qrels(truth), {"bpref", "num_ret", "num_rel",
                                                                          "num_rel_ret"}, relevance_level=1)
    results = evaluator.evaluate(peer_data.as_run(pred))
    for measure, metric in [("bpref", BPref(1)), ("num_ret", NumRet()), ("num_rel", NumRel(1)),
                            ("num_rel_ret", NumRelRet(1))]:  # the counts' default system value: the sum
        peer = pd.Series({q: v[measure] for q, v in results.items()}, dtype=float)
        preset = metric.with_convention("trec_eval")
        res = preset.perform(s)
        ours = res.users[str(preset)].loc[peer.index]
        np.testing.assert_allclose(ours.to_numpy(), peer.to_numpy(), rtol=1e-12, atol=1e-12, err_msg=measure)
        if measure.startswith("num"):  # trec_eval's summary line of a count is the sum
            assert res.system.iloc[0, 0] == peer.sum()
        else:
            assert res.system.iloc[0, 0] == pytest.approx(peer.mean(), rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ranx_bpref_and_rbp_agree(seed):
    ranx = require("ranx")
    peer_data = load_sibling("_peer_data")
    pred, truth = peer_data.peer_frames(seed)
    s = quiet_split(pred, truth, missing_users="zero")
    qrels_dict, run_dict = peer_data.as_qrels(truth), peer_data.as_run(pred)
    qrels = ranx.Qrels(qrels_dict)
    run = ranx.Run(run_dict).make_comparable(qrels)
    scores = ranx.evaluate(qrels, run, ["rbp.8", "rbp.95"], return_mean=False, threads=1, save_results_in_run=False)
    q_ids = list(run.get_query_ids())
    for name, metric in [("rbp.8", RBP(0.8, 1)), ("rbp.95", RBP(0.95, 1))]:
        peer = pd.Series(scores[name], index=q_ids)
        preset = metric.with_convention("ranx")
        ours = preset.perform(s).users[str(preset)].loc[q_ids]
        np.testing.assert_allclose(ours.to_numpy(), peer.to_numpy(), rtol=1e-12, atol=1e-12, err_msg=name)
    # bpref one query at a time: on this data ranx 0.3.21 evaluating every query in one call
    # returned 0 for many queries that score more alone (and in trec_eval); not investigated
    listed = [q for q in q_ids if q in run_dict]
    peer = pd.Series([ranx.evaluate(ranx.Qrels({q: qrels_dict[q]}), ranx.Run({q: run_dict[q]}), "bpref", threads=1)
                      for q in listed], index=listed)
    ours = BPref(1).with_convention("ranx").perform(s).users["BPref"].loc[listed]
    # ranx divides by min(R, judged non-relevant): NaN for a user with none of the latter and a
    # relevant item listed, where trec_eval and rankeval count 1 per such item
    nan = peer.isna()
    assert nan.any() and (ours[nan] > 0).all()
    np.testing.assert_allclose(ours[~nan].to_numpy(), peer[~nan].to_numpy(), rtol=1e-12, atol=1e-12)


def test_ranx_rbp_weights_by_the_grade_and_bpref_nan_without_nonrelevant():
    ranx = require("ranx")
    peer_data = load_sibling("_peer_data")
    pred, truth = one_user(["a", "x", "b"], {"a": 3, "b": 1})
    qrels, run = ranx.Qrels(peer_data.as_qrels(truth)), ranx.Run(peer_data.as_run(pred))
    peer_rbp = ranx.evaluate(qrels, run, "rbp.8", threads=1)
    assert peer_rbp == pytest.approx(0.2 * (3 + 1 * 0.8**2), rel=1e-12)  # graded, not binary
    s = Split(pred, truth)
    assert RBP(relevant_threshold=1).with_convention("ranx").perform(s).users.iloc[0, 0] == pytest.approx(peer_rbp)
    assert RBP(relevant_threshold=1).perform(s).users.iloc[0, 0] == pytest.approx(0.2 * (1 + 0.8**2))
    peer_bpref = ranx.evaluate(qrels, run, "bpref", threads=1)
    assert np.isnan(peer_bpref)
    assert BPref(relevant_threshold=1).perform(s).users.iloc[0, 0] == 1.0  # trec_eval: 1 per listed relevant item


# gdeval.pl (the TREC Web track's ERR) through ir_measures, which is not a test dependency.
# These values were printed by this script, run from the repository root in a separate venv
# (python3.11 -m venv /tmp/vpeer; /tmp/vpeer/bin/pip install ir-measures pandas numpy ->
# ir_measures 0.4.3; gdeval needs perl and numeric topic ids, hence "u7" -> "7"):
#
#   PYTHONPATH=. /tmp/vpeer/bin/python - <<'EOF'
#   import ir_measures
#   from tests._peer_data import peer_frames, as_qrels, as_run
#   pred, truth = peer_frames(7, min_users=20)
#   keep = [f"u{i}" for i in range(16)]
#   pred, truth = pred[pred.user_id.isin(keep)], truth[truth.user_id.isin(keep)]
#   pred, truth = pred.assign(user_id=pred.user_id.str[1:]), truth.assign(user_id=truth.user_id.str[1:])
#   for k in (5, 20):
#       print(k, {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.ERR @ k], as_qrels(truth),
#                                                                     as_run(pred))})
#   EOF
GDEVAL_ERR: dict[int, dict[str, float]] = {
    5: {"0": 0.21875, "1": 0.0, "2": 0.10376, "3": 0.11641, "4": 0.15859, "5": 0.03125, "6": 0.07266,
        "7": 0.0625, "8": 0.0, "9": 0.0, "10": 0.0, "11": 0.56714, "12": 0.0, "13": 0.0625, "14": 0.0875,
        "15": 0.07734},
    20: {"0": 0.25391, "1": 0.03323, "2": 0.10376, "3": 0.13514, "4": 0.16848, "5": 0.03125, "6": 0.07266,
         "7": 0.11353, "8": 0.0, "9": 0.0, "10": 0.0, "11": 0.57023, "12": 0.0, "13": 0.0625, "14": 0.10043,
         "15": 0.08193},
}


def test_gdeval_err():
    peer_data = load_sibling("_peer_data")
    pred, truth = peer_data.peer_frames(7, min_users=20)
    keep = [f"u{i}" for i in range(16)]
    pred, truth = pred[pred.user_id.isin(keep)], truth[truth.user_id.isin(keep)]
    pred, truth = pred.assign(user_id=pred.user_id.str[1:]), truth.assign(user_id=truth.user_id.str[1:])
    s = Split(pred, truth, ties="item_id_desc")  # gdeval: score descending, then docno descending
    for k, values in GDEVAL_ERR.items():
        # gdeval fixes the top grade at 4; users 8 and 12 have no positive grade: gdeval.pl prints
        # nothing for them and ir_measures reports 0, rankeval's no_relevant="zero"
        ours = ERRAtK(k, max_grade=4, no_relevant="zero").perform(s).users[f"ERR@{k}"]
        assert sorted(ours.index) == sorted(values)
        for user, value in values.items():
            assert ours[user] == pytest.approx(value, abs=5e-6), (k, user)  # gdeval prints 5 decimals
        undefined = ERRAtK(k, max_grade=4).perform(s).users[f"ERR@{k}"]
        assert sorted(undefined.index[undefined.isna()]) == ["12", "8"]
