"""One rank-weight object wherever a metric weights positions; the older strings and floats as aliases.

RBP takes ``p`` or a ``GeometricWeight``; ExposureGini any weight; Miscalibration ``"uniform"``,
``"log2"`` or any weight; DCG and the NDCG family ``"log2"``/``"jarvelin"`` or a ``LogWeight``.
An alias and its object give the same values, bit for bit, and the alias keeps its name and repr.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankeval as rk

PRED = pd.DataFrame({"user_id": [1] * 5 + [2] * 4, "item_id": list("abcde") + list("bdfa"),
                     "score": [9, 8, 7, 6, 5, 4, 3, 2, 1]})
TRUTH = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": list("acebf"), "score": [5.0, 3.0, 4.0, 2.0, 5.0]})
GENRES = pd.DataFrame({"genres": [{"x"}, {"y"}, {"x", "y"}, {"z"}, {"y"}, {"x"}]}, index=list("abcdef"))
TRAIN = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": list("abcd")})


def values(metric):
    split = rk.Split(PRED, TRUTH, train=TRAIN, item_features=GENRES)
    result = metric.perform(split)
    return result.users.to_numpy() if not getattr(metric, "system_level", False) else result.system.to_numpy()


@pytest.mark.parametrize("alias, obj", [
    (rk.RBP(0.8), rk.RBP(rk.GeometricWeight(0.8))),
    (rk.RBP(0.95, relevant_threshold=3), rk.RBP(rk.GeometricWeight(0.95), relevant_threshold=3)),
    (rk.RBP(0.5, gains="graded"), rk.RBP(rk.GeometricWeight(0.5), gains="graded")),
    (rk.Miscalibration(rank_weight="uniform"), rk.Miscalibration(rank_weight=rk.UniformWeight())),
    (rk.Miscalibration(3, rank_weight="log2"), rk.Miscalibration(3, rank_weight=rk.LogWeight(offset=1))),
    (rk.NDCG(), rk.NDCG(discount=rk.LogWeight(offset=1))),
    (rk.NDCGAtK(3, discount="jarvelin"), rk.NDCGAtK(3, discount=rk.LogWeight())),
    (rk.DCGAtK(3, discount_log=np.log10), rk.DCGAtK(3, discount=rk.LogWeight(base=10, offset=1))),
    (rk.DCG(discount="jarvelin", discount_log=np.log), rk.DCG(discount=rk.LogWeight(base=np.e))),
], ids=lambda m: repr(m)[:60])
def test_alias_and_object_give_identical_values_and_one_name(alias, obj):
    got, expected = values(obj), values(alias)
    assert got.tobytes() == expected.tobytes()
    assert str(obj) == str(alias)


def test_the_objects_are_the_weights_they_name():
    # RBP and Miscalibration with a weight that no alias spells: the formula with those weights
    split = rk.Split(PRED, TRUTH)
    got = rk.RBP(rk.GeometricWeight(0.6), relevant_threshold=3).perform(split).users.to_numpy().ravel()
    # user 1 relevant at positions 1, 3, 5 (a, c, e); user 2 at 3 (f)
    expected = [0.4 * (1 + 0.6 ** 2 + 0.6 ** 4), 0.4 * 0.6 ** 2]
    np.testing.assert_allclose(got, expected, rtol=1e-15)
    assert str(rk.RBP(rk.GeometricWeight(0.6))) == "RBP.6"
    geometric = values(rk.Miscalibration(rank_weight=rk.GeometricWeight(0.5)))
    assert not np.allclose(geometric, values(rk.Miscalibration()), equal_nan=True)
    # ExposureGini with uniform weights is the Gini index of the recommended items
    assert values(rk.ExposureGini(weight=rk.UniformWeight()))[0, 0] == pytest.approx(
        values(rk.GiniIndex())[0, 0], rel=1e-12)


def test_aliases_keep_their_repr_and_objects_show_theirs():
    assert repr(rk.Miscalibration(rank_weight="log2")).startswith("Miscalibration(k=None, alpha=0.01, rank_weight='log2'")
    assert "rank_weight=LogWeight(base=2.0, offset=1)" in repr(rk.Miscalibration(rank_weight=rk.LogWeight(offset=1)))
    assert repr(rk.RBP(0.9)).startswith("RBP(p=0.9,")
    assert repr(rk.RBP(rk.GeometricWeight(0.9))).startswith("RBP(p=GeometricWeight(patience=0.9),")
    # a LogWeight discount is its alias: one NDCG, one repr
    assert repr(rk.NDCGAtK(10, discount=rk.LogWeight(offset=1))) == repr(rk.NDCGAtK(10))
    assert rk.NDCGAtK(10, discount=rk.LogWeight()) == rk.NDCGAtK(10, discount="jarvelin")
    assert str(rk.RBP(rk.GeometricWeight(0.8))) == "RBP"


@pytest.mark.parametrize("make, match", [
    (lambda: rk.RBP(rk.LogWeight()), r"`p`=LogWeight\(base=2.0, offset=0\): RBP cannot use a LogWeight \(its 1 - p "
                                      r"normalization is the sum of geometric weights\); it takes GeometricWeight"),
    (lambda: rk.RBP(rk.UniformWeight()), r"RBP cannot use a UniformWeight"),
    (lambda: rk.RBP(1.5), r"`p` must be a number in \(0, 1\), got 1.5"),
    (lambda: rk.Miscalibration(rank_weight="exp"),
     r"`rank_weight` must be a rank weighting: GeometricWeight\(...\), LogWeight\(...\), UniformWeight\(...\), "
     r"'uniform', 'log2'; got 'exp'"),
    (lambda: rk.Miscalibration(rank_weight=0.5), r"`rank_weight` must be a rank weighting"),
    (lambda: rk.ExposureGini(weight="log2"), r"`weight` must be a rank weighting: GeometricWeight"),
    (lambda: rk.NDCGAtK(10, discount=rk.GeometricWeight(0.5)),
     r"`discount`=GeometricWeight\(patience=0.5\): NDCGAtK divides a gain by a logarithm of its position; it "
     r"takes LogWeight\(base, offset=1\)"),
    (lambda: rk.NDCG(discount=rk.LogWeight(offset=2)), r"NDCG divides a gain by a logarithm"),
    (lambda: rk.DCG(discount=rk.LogWeight(base=3)), r"the base of a DCG discount must be 2, e or 10"),
    (lambda: rk.DCG(discount=rk.LogWeight(base=10), discount_log=np.log),
     r"`discount`=LogWeight\(base=10.0, offset=0\) and `discount_log`=<ufunc 'log'> both set the logarithm"),
    (lambda: rk.NDCG(discount="log10"), r"`discount` must be one of \['log2', 'jarvelin'\]"),
])
def test_a_weight_a_metric_cannot_use_is_a_clear_error(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_a_weight_in_a_metric_survives_conventions():
    metric = rk.NDCGAtK(10, discount=rk.LogWeight(offset=1)).with_convention("recbole")
    assert metric == rk.NDCGAtK(10).with_convention("recbole")
    assert rk.RBP(rk.GeometricWeight(0.9)).with_convention("ranx").rank_weight == rk.GeometricWeight(0.9)


def test_base_2_log_weights_are_the_packages_log2_discount_bit_for_bit():
    # so Miscalibration's "log2" keeps its numbers, and LogWeight(offset=1) is NDCG's discount exactly
    ranks = np.arange(1, 2000)
    assert rk.LogWeight(offset=1).weights(ranks).tobytes() == (1.0 / np.log2(ranks + 1.0)).tobytes()
    assert rk.LogWeight().weights(ranks).tobytes() == (1.0 / np.log2(np.maximum(ranks, 2.0))).tobytes()
    np.testing.assert_allclose(rk.LogWeight(base=10, offset=1).weights(ranks), 1.0 / np.log10(ranks + 1.0),
                               rtol=1e-15)
