"""Conventions: every peer's definitions, on purpose, under one name.

Evaluators disagree: MAP@k has four denominators in the wild; NDCG's gains, ideal list
and discount vary; a user without relevant items counts as 0 or is left out; score ties
break by row, by id descending or at random. Each choice is a parameter of rankeval's
metrics (or of :class:`~rankeval.Split` / :class:`~rankeval.EvalModel`); a convention
bundles one peer's choices, read from the peer's source:

>>> import rankeval as rk
>>> rk.MAPAtK(10).with_convention("recbole")
MAPAtK(k=10, relevant_threshold=-inf, denominator='min_k', name=None, no_relevant='nan')

Parameters the caller passed explicitly win over the preset. A metric the peer does not
have raises ValueError naming the convention, rather than computing something else.
``EvalModel(..., convention=NAME)`` and ``compare(..., convention=NAME)`` apply a preset
to every metric and to the split options, and record it in the results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

# The dependency is one-way: metrics consult this table (RankingMetric.with_convention);
# nothing here imports the metrics. A metric is anything with its constructor parameters.


class _Metric(Protocol):
    def _params(self) -> dict[str, Any]: ...

    @property
    def explicit_params(self) -> frozenset[str]: ...


MetricT = TypeVar("MetricT", bound=_Metric)

__all__ = ["Convention", "CONVENTIONS", "get_convention", "apply_convention", "names"]

ALL_TRUTH_RELEVANT = float("-inf")


@dataclass(frozen=True)
class Convention:
    """One peer's choices: the metric parameters and split options that give its numbers.

    Parameters
    ----------
    name : str
        The name ``convention=`` takes (``"trec_eval"``, ``"ranx"``, ...).
    peer : str
        The peer and the version its definitions were read from (``"trec_eval 9.0
        (pytrec_eval)"``).
    ties : str
        The tie rule of the peer's lists (``"row_order"``, ``"item_id"`` or
        ``"item_id_desc"``), given to every :class:`~rankeval.Split`.
    missing_users : str
        What the peer does with a truth user who has no list: ``"ignore"``, ``"zero"`` or
        ``"error"`` (see :class:`~rankeval.Split`).
    metrics : dict of str to dict
        Metric class name -> its preset parameters; a class missing from it is a metric
        the peer does not have (a ValueError under this convention).
    relevance : str
        ``"keep"``: the caller's relevance threshold (default: the user's mean score);
        ``"all"``: every truth row is relevant.
    sources : dict of str to str
        Where each choice is in the peer's code (a metric or topic -> file and function).
    notes : tuple of str
        Remarks in words: the metrics the peer lacks, the differences left.
    """

    name: str
    peer: str
    ties: str
    missing_users: str
    metrics: dict[str, dict[str, Any]]
    #: "keep" (the caller's threshold, default: user mean) or "all" (every truth row is relevant)
    relevance: str
    sources: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def _binary(no_relevant: str) -> dict[str, Any]:
    return {"no_relevant": no_relevant}


def _family(no_relevant: str, *, map_at_k: str | None, map_full: str | None, p: str, r: str,
            ndcg: dict[str, Any] | None, ndcg_full: bool = True, mrr: bool = True, mrr_at_k: bool = True,
            hr: bool = True, dcg: bool = False, correlation: bool = False,
            p_no_relevant: str | None = None) -> dict[str, dict]:
    out: dict[str, dict[str, Any]] = {}
    if map_at_k is not None:
        out["MAPAtK"] = {"denominator": map_at_k, **_binary(no_relevant)}
    if map_full is not None:
        out["MAP"] = {"denominator": map_full, **_binary(no_relevant)}
    out["PrecisionAtK"] = {"denominator": p, **_binary(p_no_relevant or no_relevant)}
    out["RecallAtK"] = {"denominator": r, **_binary(no_relevant)}
    if mrr:
        out["MRR"] = _binary(no_relevant)
    if mrr_at_k:
        out["MRRAtK"] = _binary(no_relevant)
    if hr:
        out["HitRateAtK"] = _binary(no_relevant)
    if ndcg is not None:
        out["NDCGAtK"] = {**ndcg, "no_relevant": no_relevant}
        if ndcg_full:
            out["NDCG"] = {**ndcg, "no_relevant": no_relevant}
        if dcg:
            dcg_params = {k: v for k, v in ndcg.items() if k in ("gains", "discount", "judged_only")}
            out["DCG"] = dict(dcg_params)
            out["DCGAtK"] = dict(dcg_params)
    if correlation:
        out["Correlation"] = {}
    return out


def _sets(no_relevant: str, *, f_at_k: str | None, rprec: str, errors: bool = False, bpref: bool = False,
          rbp: str | None = None, err: bool = False, counts: bool = False) -> dict[str, dict[str, Any]]:
    """The set, error and IR metrics (F, R-Prec, MAE..., BPref, RBP, ERR, counts): ``f_at_k`` /
    ``rprec`` are the denominators
    (None: the peer lacks F@k), ``rbp`` RBP's gains (None: no RBP), ``counts`` whether the peer
    has trec_eval's counts (their system value is the sum by default, as trec_eval's)."""
    out: dict[str, dict[str, Any]] = {
        "Precision": _binary(no_relevant), "Recall": _binary(no_relevant), "FMeasure": _binary(no_relevant),
        "RPrecision": {"denominator": rprec, **_binary(no_relevant)}}
    if f_at_k is not None:
        out["FMeasureAtK"] = {"denominator": f_at_k, **_binary(no_relevant)}
    if errors:
        out.update(MAE={}, MSE={}, RMSE={})
    if bpref:
        out["BPref"] = _binary(no_relevant)
    if rbp is not None:
        out["RBP"] = {"gains": rbp, **_binary(no_relevant)}
    if err:
        out["ERRAtK"] = _binary(no_relevant)
    if counts:
        out.update(NumRet={}, NumRel={}, NumRelRet={})
    return out


_LINEAR = {"gains": "linear", "ideal": "truth", "discount": "log2", "judged_only": False}

CONVENTIONS: dict[str, Convention] = {c.name: c for c in [
    Convention(
        "rankeval", "rankeval", ties="row_order", missing_users="ignore", relevance="keep",
        metrics={**_family("nan", map_at_k="relevant", map_full="relevant", p="k", r="relevant", ndcg=_LINEAR,
                           dcg=True, correlation=True),
                 **_sets("nan", f_at_k="k", rprec="relevant", errors=True, bpref=True, rbp="binary", err=True,
                         counts=True),
                 "AUC": {}, "GAUC": {}, "LAUC": {}, "LogLoss": {}},
        sources={"all": "rankeval's own defaults (docs/metrics.md)"}),
    Convention(
        "trec_eval", "trec_eval 9.0 (pytrec_eval)", ties="item_id_desc", missing_users="ignore", relevance="keep",
        metrics={**_family("zero", map_at_k="relevant", map_full="relevant", p="k", r="relevant",
                           ndcg={**_LINEAR, "negative_grades": "unjudged"}, mrr_at_k=False),
                 **_sets("zero", f_at_k=None, rprec="relevant", bpref=True, counts=True)},
        sources={
            "ties": "form_res_rels.c, comp_sim_docno: score descending, then docno descending (strcmp)",
            "MAP": "m_map.c te_calc_map: sum of precisions at relevant retrieved docs / num_rel",
            "MAPAtK": "m_map_cut.c: the same over the first k / num_rel",
            "PrecisionAtK": "m_P.c: relevant in the first k / k",
            "RecallAtK": "m_recall.c: relevant in the first k / num_rel",
            "MRR": "m_recip_rank.c: 1 / rank of the first relevant doc, 0 if none",
            "HitRateAtK": "m_success.c: 1 if a relevant doc is in the first k",
            "NDCG": "m_ndcg.c / m_ndcg_cut.c: gain = the raw relevance level, log2(rank + 1), ideal from "
                    "all judged docs sorted by level; form_res_rels.c: a negative qrels level is RELVALUE_UNJUDGED "
                    "(no gain; with -J dropped from the list like an unjudged doc)",
            "missing users": "trec_eval.c: queries without results are skipped unless -c",
            "no relevant": "measures are 0 for a query without relevant docs (it stays in the average)",
            "Precision": "m_set_P.c: num_rel_ret / num_ret", "Recall": "m_set_recall.c: num_rel_ret / num_rel",
            "FMeasure": "m_set_F.c: (x + 1) P R / (x P + R), x = 1 by default (x plays beta^2)",
            "RPrecision": "m_Rprec.c: relevant in the first min(num_ret, num_rel) / num_rel",
            "BPref": "m_bpref.c: judged docs only, 1 - min(nonrel above, R) / min(judged nonrel, R), / R",
            "NumRet": "m_num_ret.c (summary: the sum over queries)", "NumRel": "m_num_rel.c (summary: the sum)",
            "NumRelRet": "m_num_rel_ret.c (summary: the sum)"},
        notes=("trec_eval has no DCG, MRR@k or correlation: they raise ValueError under this convention",
               "trec_eval (9.0, as pytrec_eval) has no F@k, RBP, ERR or error metrics: they raise ValueError",
               "its summary of num_ret, num_rel and num_rel_ret is the sum over queries, as rankeval's default",
               "relevant_threshold is the caller's (trec_eval's -l relevance level); pass relevant_threshold=1",
               "trec_eval reads negative levels as unjudged: the preset's NDCG sets negative_grades='unjudged' "
               "(with judged_only=True it matches trec_eval -J)")),
    Convention(
        "ranx", "ranx 0.3", ties="row_order", missing_users="zero", relevance="keep",
        metrics={**_family("zero", map_at_k="relevant", map_full="relevant", p="k", r="relevant", ndcg=_LINEAR,
                           dcg=True),
                 **_sets("zero", f_at_k="k", rprec="relevant", bpref=True, rbp="graded")},
        sources={
            "MAP": "ranx/metrics/average_precision.py _average_precision: / number of relevant",
            "PrecisionAtK": "ranx/metrics/precision.py: hits / k",
            "RecallAtK": "ranx/metrics/recall.py: hits / number of relevant",
            "NDCG": "ranx/metrics/ndcg.py (jarvelin): linear gains, 1/log2(rank + 1), ideal from the qrels",
            "HitRateAtK": "ranx/metrics/hit_rate.py", "MRR": "ranx/metrics/reciprocal_rank.py",
            "missing users": "Run.make_comparable: queries missing from the run are scored as empty lists (0)",
            "no relevant": "a query without relevant documents scores 0",
            "Precision": "ranx/metrics/precision.py with k=0: hits / len(run)", "Recall": "ranx/metrics/recall.py",
            "FMeasure": "ranx/metrics/f1.py (k=0)", "FMeasureAtK": "ranx/metrics/f1.py: precision = hits / k",
            "RPrecision": "ranx/metrics/r_precision.py: precision at R, / R",
            "BPref": "ranx/metrics/bpref.py: as trec_eval, but / min(R, judged nonrel) is 0/0 = NaN without "
                     "judged non-relevant docs",
            "RBP": "ranx/metrics/rank_biased_precision.py: (1 - p) sum p^(i-1) * grade of the relevant docs"},
        notes=("ranx has no correlation: Correlation raises ValueError under this convention",
               "ranx has no ERR, error metrics or counts: they raise ValueError under this convention",
               "ranx's bpref is NaN for a query with no judged non-relevant doc and a relevant one retrieved "
               "(rankeval, like trec_eval, counts each such relevant doc 1)",
               "relevant_threshold is the caller's (ranx's rel_lvl); pass relevant_threshold=1")),
    Convention(
        "clayrs", "ClayRS", ties="row_order", missing_users="ignore", relevance="keep",
        metrics={**_family("nan", map_at_k="relevant", map_full="relevant", p="listed", r="relevant",
                           ndcg={"gains": "linear", "ideal": "ranked", "discount": "log2", "judged_only": True},
                           hr=False, correlation=True),
                 **_sets("nan", f_at_k="listed", rprec="listed", errors=True),
                 "GiniIndex": {"items": "recommended"}},
        sources={
            "GiniIndex": "clayrs/evaluation/metrics/fairness_metrics.py GiniIndex: over the recommended items",
            "NDCG": "clayrs/evaluation/metrics/ranking_metrics.py NDCG: truth scores of the predicted items "
                    "that are in truth, against the same scores sorted (ideal='ranked', judged_only=True)",
            "MAP": "ranking_metrics.py MAP/MAPAtK: / all relevant truth items (m_u)",
            "PrecisionAtK": "classification_metrics.py PrecisionAtK: relevant / items in the cut list",
            "relevant": "relevant_threshold=None: the user's mean rating, relevant iff >=",
            "ties": "ClayRS ranks by row order and ignores scores: pass lists in the recommender's order",
            "Precision": "classification_metrics.py Precision: tp / (tp + fp) over the whole list",
            "FMeasureAtK": "classification_metrics.py FMeasureAtK: fp = len(list[:k]) - tp (precision / cut list)",
            "RPrecision": "classification_metrics.py RPrecision: tp / len(list[:R]) (the cut list)",
            "average": "ClassificationMetric(sys_average='micro'): F of the confusion matrix summed over the "
                       "users with a relevant item = average='micro'",
            "MAE": "error_metrics.py MAE/MSE/RMSE: over the listed items in truth, mean of the users"},
        notes=("ClayRS has no hit rate, DCG, bpref, RBP, ERR or counts: they raise ValueError under this "
               "convention",)),
    Convention(
        "recbole", "RecBole 1.2", ties="row_order", missing_users="ignore", relevance="all",
        metrics={**_family("nan", map_at_k="min_k", map_full=None, p="k", r="relevant",
                           ndcg={"gains": "binary", "ideal": "min_k_ones", "discount": "log2", "judged_only": False},
                           ndcg_full=False, mrr=False),
                 "GiniIndex": {"items": "catalog"}, "GAUC": {"negatives": "listed", "ties": "half"},
                 "LogLoss": {"eps": 1e-15, "relevant_threshold": None}},
        sources={
            "GiniIndex": "recbole/evaluator/metrics.py GiniIndex.get_gini: over every item (num_items), "
                         "the unrecommended ones counting 0",
            "MAPAtK": "recbole/evaluator/metrics.py MAP: sum_pre / min(pos_len, k)",
            "NDCGAtK": "metrics.py NDCG: binary gains, idcg of min(pos_len, k) ones, 1/log2(rank + 1)",
            "PrecisionAtK": "metrics.py Precision: hits / k", "RecallAtK": "metrics.py Recall: hits / pos_len",
            "relevant": "every test interaction is a positive item",
            "GAUC": "metrics.py GAUC.metric_info: per-user AUC from the average ranks of the positives among the "
                    "non-training items, weighted by the positives; users without a positive or negative removed",
            "LogLoss": "metrics.py LogLoss.metric_info: clip at 1e-15, mean over every (user, item) pair "
                       "(pass average='micro': a preset never changes a metric's name)"},
        notes=("RecBole's GAUC equals GAUC() on full rankings (pred holding every non-training item with its score)",
               "RecBole metrics are all @k: MAP, NDCG, MRR, DCG and correlation without k raise ValueError",)),
    Convention(
        "spark_mllib", "Spark MLlib RankingMetrics", ties="row_order", missing_users="ignore", relevance="all",
        metrics=_family("zero", map_at_k="min_k", map_full="relevant", p="k", r="relevant",
                        ndcg={"gains": "binary", "ideal": "min_k_ones", "discount": "log2", "judged_only": False},
                        ndcg_full=False, mrr=False, mrr_at_k=False, hr=False),
        sources={
            "MAP": "mllib/evaluation/RankingMetrics.scala meanAveragePrecision: / labSet.size",
            "MAPAtK": "RankingMetrics.scala meanAveragePrecisionAt: / min(labSet.size, k)",
            "NDCGAtK": "RankingMetrics.scala ndcgAt: binary gains, ideal of min(labSet.size, k) ones",
            "PrecisionAtK": "precisionAt: hits / k", "RecallAtK": "recallAt: hits / labSet.size",
            "no relevant": "an empty ground truth set scores 0 (with a warning), NDCG too"},
        notes=("MLlib has no MRR, hit rate, full-list NDCG, DCG or correlation: they raise ValueError",)),
    Convention(
        "ms_recommenders", "Microsoft Recommenders", ties="row_order", missing_users="ignore", relevance="all",
        metrics={**_family("nan", map_at_k="min_k", map_full="relevant", p="k", r="relevant",
                           ndcg={"gains": "binary", "ideal": "truth", "discount": "log2", "judged_only": False},
                           ndcg_full=False, mrr=False, mrr_at_k=False, hr=False),
                 "LogLoss": {"relevant_threshold": None}},
        sources={
            "MAPAtK": "recommenders/evaluation/python_evaluation.py map_at_k: / min(actual, k)",
            "MAP": "python_evaluation.py map: / actual",
            "NDCGAtK": "python_evaluation.py ndcg_at_k(score_type='binary'): ideal from the true items",
            "PrecisionAtK": "precision_at_k: hits / k", "RecallAtK": "recall_at_k: hits / actual",
            "missing users": "merge_ranking_true_pred: users in both frames only (ndcg_at_k: every truth user)",
            "LogLoss": "python_evaluation.py logloss: sklearn.metrics.log_loss over every merged (user, item) pair "
                       "(pass average='micro': a preset never changes a metric's name)"},
        notes=("Recommenders has no MRR, hit rate, full-list NDCG, DCG or correlation in "
               "python_evaluation: they raise ValueError",
               "its ndcg_at_k (unlike its other functions) merges with every truth user, so users without "
               "a list count 0 there: evaluate NDCG@k with missing_users='zero' to reproduce it")),
    Convention(
        "lenskit", "LensKit 2025", ties="row_order", missing_users="ignore", relevance="all",
        metrics=_family("nan", map_at_k="listed", map_full="listed", p="listed", r="min_k",
                        ndcg={"gains": "binary", "ideal": "min_k_ones", "discount": "jarvelin",
                              "judged_only": False},
                        dcg=True, p_no_relevant="zero") | {"ExposureGini": {"items": "catalog"}},
        sources={
            "MAP": "lenskit/metrics/ranking/_ap.py AveragePrecision: / min(len(test), len(recs))",
            "PrecisionAtK": "lenskit/metrics/ranking/_pr.py Precision: hits / list length (within k)",
            "RecallAtK": "_pr.py Recall: hits / min(len(test), k)",
            "NDCG": "lenskit/metrics/ranking/_dcg.py NDCG: binary gains, discount 1/log2(max(rank, 2)), "
                    "ideal of min(len(test), k) ones",
            "MRR": "_rr.py RecipRank", "HitRateAtK": "_hit.py Hit",
            "ExposureGini": "lenskit/metrics/ranking/_gini.py ExposureGini: over the item vocabulary (the catalog)"},
        notes=("Precision of a user with no relevant item is 0 in LensKit (no_relevant='zero' for P@k)",)),
]}


def names() -> list[str]:
    """The convention names."""
    return list(CONVENTIONS)


def get_convention(name: str) -> Convention:
    """The convention of this name, or a ValueError listing the names.

    Parameters
    ----------
    name : str
        One of :func:`names`.
    """
    if not isinstance(name, str) or name not in CONVENTIONS:
        raise ValueError(f"`convention` must be one of {names()}, got {name!r}")
    return CONVENTIONS[name]


def apply_convention(metric: MetricT, name: str) -> MetricT:
    """A new metric with the preset's parameters, except those the caller passed explicitly.

    Parameters
    ----------
    metric : RankingMetric
        The metric to convert (unchanged: a new one is returned). A custom metric, which no
        peer defines, comes back as it is.
    name : str
        The convention (one of :func:`names`).
    """
    convention = get_convention(name)
    kind = type(metric).__name__
    preset = convention.metrics.get(kind)
    if preset is None:
        builtin = type(metric).__module__.startswith("rankeval.metrics")
        if not builtin:
            return metric  # a custom metric has no peer definition to follow: unchanged
        raise ValueError(f"the {name!r} convention has no {metric} ({kind}): {convention.peer} does not "
                         f"compute it; evaluate it without convention= or under another convention")
    params = metric._params()
    explicit: frozenset[str] = metric.explicit_params
    updates = {k: v for k, v in preset.items() if k in params and k not in explicit}
    if "relevant_threshold" in params and "relevant_threshold" not in explicit and "relevant_threshold" not in preset:
        # "all": every truth row is relevant; "keep": the caller's choice, and the caller chose none
        updates["relevant_threshold"] = ALL_TRUTH_RELEVANT if convention.relevance == "all" else None
    try:
        converted = type(metric)(**{**params, **updates})
    except ValueError as exc:
        raise ValueError(f"{metric!r} cannot follow the {name!r} convention: {exc}") from exc
    # only what the caller chose is explicit: another convention may replace the rest
    # the type: ignore below: the metric's record of explicit arguments, set on the converted copy
    converted._explicit = explicit  # type: ignore[attr-defined]
    return converted
