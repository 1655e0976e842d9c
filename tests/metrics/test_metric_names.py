"""Metric names as a user types them: any case when one stem is so spelled, "did you mean"
with the three nearest names (cutoffs kept) for the rest, and never a list of every name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rankeval as rk
from rankeval.cli import main

PARSED = [
    ("ndcg@10", "NDCG@10"), ("NDCG@10", "NDCG@10"), ("map", "MAP"), ("Map@5", "MAP@5"), ("mrr", "MRR"),
    ("P@1,5,10", "P@1,5,10"), ("p@1,5,10", "P@1,5,10"), ("r@20", "R@20"), ("hr@10", "HR@10"),
    ("err@5", "ERR@5"), ("rprec", "RPrec"), ("bpref", "BPref"), ("logloss", "LogLoss"), ("gini@10", "Gini@10"),
    ("f2@10", "F2@10"), ("f0.5", "F0.5"), ("rbp.95", "RBP.95"), ("rbp", "RBP"), ("Kendall@10", "kendall@10"),
    ("NUM_REL_RET", "num_rel_ret"), ("p@10-micro", "P@10-micro"), ("ndcg@1,5,10", "NDCG@1,5,10"),
]


@pytest.mark.parametrize("text, name", PARSED)
def test_a_name_in_any_case_is_the_metric_so_spelled(text, name):
    metric = rk.parse_metric(text)
    assert str(metric) == name
    assert repr(metric) == repr(rk.parse_metric(name))


_EVERY = r" \(every name: rankeval.metric_names\(\), or docs/cli.md#metric-names\)$"

UNKNOWN = [
    ("NDGC@10", r"unknown metric 'NDGC@10'; did you mean NDCG@10\?" + _EVERY),
    ("NDGC@1,5,10", r"did you mean NDCG@1,5,10\?"),  # every cutoff typed is kept
    ("Recall@20", r"unknown metric 'Recall@20'; did you mean R@20 or kendall@20\?"),  # RecBole's name first
    ("Hit@10", r"did you mean HR@10\?"),
    ("precison@5", r"did you mean P@5, RPrec or pearson@5\?"),  # three at most; RPrec takes no cutoff
    ("kendal@10", r"did you mean kendall@10\?"),
    ("hti", r"did you mean HR@k\?"),  # a cutoff the name needs is shown as @k
    ("recall@10-micro", r"did you mean R@10-micro or kendall@10\?"),  # kendall has no micro average
    ("xyzzy@10", r"unknown metric 'xyzzy@10': no metric has a name close to 'xyzzy'" + _EVERY),
    ("NDCG@", r"malformed metric name 'NDCG@': write STEM, STEM@k or STEM@k1,k2,\.\.\. with integers k >= 1" + _EVERY),
    ("hr", r"metric 'hr' needs a cutoff: write HR@k, e.g. HR@10"),
    ("mae@10", r"metric 'MAE' takes no cutoff, got 'mae@10'"),
]


@pytest.mark.parametrize("text, match", UNKNOWN)
def test_an_unknown_name_gets_the_nearest_names_not_every_name(text, match):
    with pytest.raises(ValueError, match=match) as info:
        rk.parse_metric(text)
    assert len(str(info.value)) < 200  # the old message listed ~70 names in 900 characters
    assert "ACLT, ACLT@k" not in str(info.value)


def test_stems_differing_only_by_case_are_not_guessed_between():
    rk.register_metric("Judged", lambda k: rk.PrecisionAtK(k, name=f"Judged@{k}"), cutoff="required")
    rk.register_metric("judged", lambda k: rk.RecallAtK(k, name=f"judged@{k}"), cutoff="required")
    try:
        assert str(rk.parse_metric("Judged@5")) == "Judged@5"  # a stem spelled exactly is that stem
        assert str(rk.parse_metric("judged@5")) == "judged@5"
        with pytest.raises(ValueError, match=r"metric name 'JUDGED' is ambiguous: Judged and judged differ only "
                                             r"by case; write one of them exactly"):
            rk.parse_metric("JUDGED@5")
    finally:
        rk.unregister_metric("Judged")
        rk.unregister_metric("judged")


def test_every_stem_is_named_in_the_page_the_message_points_to():
    text = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Metric names", 1)[1].split("\n## ", 1)[0]
    missing = [form for form in rk.metric_names() if f"`{form}`" not in section]
    assert not missing, f"docs/cli.md#metric-names does not name {missing}"


def test_the_command_line_takes_any_case_and_suggests(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.csv").write_text("user_id,item_id,score\nu1,a,0.9\nu1,b,0.5\nu2,a,0.3\n")
    (tmp_path / "t.csv").write_text("user_id,item_id,score\nu1,a,5\nu2,a,2\n")
    assert main(["evaluate", "--pred", "p.csv", "--truth", "t.csv", "-m", "ndcg@10", "-m", "map",
                 "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split(",")[1:] == ["NDCG@10", "MAP"]
    assert main(["evaluate", "--pred", "p.csv", "--truth", "t.csv", "-m", "NDGC@10"]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"rankeval: error: unknown metric 'NDGC@10'; did you mean NDCG@10\? .*\n", err), err


def test_a_class_declaring_names_is_registered_when_defined():
    class Whole(rk.RankingMetric):
        stem = "Twin"
        names = ("Twin",)

        def __init__(self, *, name=None):  # no k: the name takes no cutoff
            super().__init__(None, None, name)

        def per_user(self, lists):
            return lists.n_listed.astype(float)

    try:
        assert "Twin" in rk.metric_names() and "Twin@k" not in rk.metric_names()
        assert type(rk.parse_metric("twin")) is Whole

        class Cut(Whole):
            names = ("Twin",)

            def __init__(self, k, *, name=None):  # k without a default: the name needs a cutoff
                rk.RankingMetric.__init__(self, k, None, name)

        class Renamed(Cut):  # names inherited, not declared: registers nothing
            stem = "Renamed"

        # one class without @k and one with it share the stem, as NDCG and NDCGAtK do
        assert [f for f in rk.metric_names() if f.startswith("Twin")] == ["Twin", "Twin@k"]
        assert type(rk.parse_metric("Twin")) is Whole and type(rk.parse_metric("Twin@3")) is Cut
        assert rk.parse_metric("Twin@3").k == 3 and "Renamed" not in rk.metric_names()
        with pytest.raises(ValueError, match=r"Bad.names holds 'Tw@in': a name must be a stem without '@'"):
            class Bad(Whole):
                names = ("Twin2", "Tw@in")
        assert "Twin2" not in rk.metric_names()  # checked before any name is entered
    finally:
        rk.unregister_metric("Twin")
    with pytest.raises(ValueError, match="unknown metric 'Twin'"):
        rk.parse_metric("Twin")
