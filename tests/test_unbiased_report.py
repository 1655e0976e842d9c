"""The report's unbiased parts: the metric card names the propensity model; the strata section."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.unbiased import Propensity, Unbiased, stratified

from ._require import require


def _data():
    rng = np.random.default_rng(0)
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(40), 4),
                          "item_id": np.concatenate([rng.choice(30, 4, replace=False) for _ in range(40)]),
                          "score": 1.0})
    p = pd.Series(rng.uniform(0.05, 1, 30), index=np.arange(30))
    systems = {n: pd.DataFrame({"user_id": np.repeat(np.arange(40), 10),
                                "item_id": np.concatenate([rng.permutation(30)[:10] for _ in range(40)])})
               for n in ("a", "b")}
    return systems, truth, p


def test_card_names_the_propensity_model_and_the_strata_section(tmp_path):
    require("jinja2")
    require("matplotlib")
    systems, truth, p = _data()
    plain = rk.RecallAtK(5, relevant_threshold=1)
    metrics = [plain, Unbiased(plain, Propensity.given(p, floor=0.1), "snips")]
    strata = {n: stratified(s, truth, [plain], p, 3) for n, s in systems.items()}
    with pytest.warns(rk.RankevalWarning):  # the floor clips some rows: counted
        out = rk.report(systems=systems, truth=truth, metrics=metrics, strata=strata, progress=False)
    assert out.sections[-2:] == ("strata", "card")
    card = re.search(r"<dt>propensities</dt><dd>([^<]*)</dd>", out.html)
    assert card is not None and card.group(1).startswith("given, one per item (30 values), floor 0.1: R@5-SNIPS")
    section = out.html[out.html.index('<section id="strata"'):out.html.index('<section id="card"')]
    values = json.loads(re.search(r'data-values="([^"]*)"', section).group(1).replace("&#34;", '"'))
    for panel_line, (system, frame) in zip(values["panels"][0]["lines"], strata.items()):
        assert panel_line["system"] == system
        np.testing.assert_array_equal(panel_line["value"], frame.loc[["Q1", "Q2", "Q3"], "R@5"].to_numpy())
        assert panel_line["combined"] == frame.loc["strata", "R@5"]


def test_strata_of_a_wrong_kind():
    systems, truth, _ = _data()
    with pytest.raises(TypeError, match=r"`strata` must be a DataFrame of rankeval.unbiased.stratified"):
        rk.report(systems=systems, truth=truth, metrics=[rk.RecallAtK(5)], strata=[1], progress=False)
    with pytest.raises(ValueError, match=r"`strata`\['x'\] is not a frame of rankeval.unbiased.stratified"):
        rk.report(systems=systems, truth=truth, metrics=[rk.RecallAtK(5)], strata={"x": pd.DataFrame()},
                  progress=False)
