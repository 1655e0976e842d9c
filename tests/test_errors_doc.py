"""docs/errors.md stays true: its examples are run here and must give the messages it quotes.

Each row of the tables below is one row of the page: the code a user writes, the error or
warning it gives, and the page's words for the cause and the fix. The tests run the code,
catch the error or the rankeval warning, and check that docs/errors.md quotes the start of
the message (at most 60 characters, cut at a word and ended with "...", as the page does).
``python tests/test_errors_doc.py`` prints those rows as the page writes them, from the
messages of today's code, to paste into the page when a message changes.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path
import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.cli import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "errors.md"

# the frames of the page's examples (its first code block)
P = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["a", "b", "a"], "score": [0.9, 0.5, 0.3]})
T = pd.DataFrame({"user_id": ["u1", "u2"], "item_id": ["a", "a"], "score": [5.0, 2.0]})
T3 = pd.concat([T, pd.DataFrame({"user_id": ["u3"], "item_id": ["a"], "score": [4.0]})], ignore_index=True)
RANKED = P.drop(columns="score").assign(rank=[1, 2, 1])
I = pd.DataFrame({"user_id": ["u1"] * 4 + ["u2"] * 4, "item_id": list("abcdabcd"), "score": 5.0,  # noqa: E741 (the name docs/errors.md uses)
                  "timestamp": [1, 2, 3, 4, 1, 2, 3, 4]})
CTX = {"rk": rk, "pd": pd, "np": np, "P": P, "T": T, "T3": T3, "RANKED": RANKED, "I": I}
CMP = 'rk.compare({"a": P, "b": P}, T, [rk.MRR()], n_resamples=100)'  # a finished comparison

#: (section, code, exception, cause, fix): the error tables of the page
ERRORS = [
    ("types", "rk.Split(P.to_numpy(), T)", TypeError, "a frame that is not a DataFrame",
     "pass a pandas, polars or Arrow frame (Spark frames go to EvalModel or compare)"),
    ("types", 'rk.EvalModel(P, T, ["MRR"])', TypeError, "a metric name where a metric object belongs",
     "`rk.parse_metric(\"MRR\")` or `rk.MRR()`"),
    ("types", 'rk.compare([P, P], T, [rk.MRR()])', TypeError, "systems given as a list",
     "name them: `{\"knn\": P1, \"als\": P2}`"),
    ("types", "rk.Split(P, T, catalog=5)", TypeError, "side data of the wrong type",
     "the message says what each argument takes"),
    ("frames", 'rk.Split(P.drop(columns="item_id"), T)', ValueError,
     "a required column is absent (names are case-sensitive)",
     "rename the column, or pass `user_col=`, `item_col=`, `score_col=`, `rank_col=`"),
    ("frames", 'rk.Split(pd.concat([P, P[["score"]]], axis=1), T)', ValueError,
     "two columns share a name (after a merge, say)", "drop or rename one"),
    ("frames", 'rk.Split(P, T, user_col="id", item_col="id")', ValueError,
     "two of the column arguments name one column", "give each role its own column"),
    ("frames", 'rk.Split(P, T.rename(columns={"user_id": "userId"}))', ValueError,
     "the held-out file names its ids otherwise than the lists (MovieLens' `userId`, `movieId`); the message "
     "names the option when exactly one usual name is there",
     "pass `truth_user_col=\"userId\"` (and `truth_item_col=`, `truth_score_col=`); `train=` uses the same names"),
    ("frames", "rk.Split(P.iloc[:0], T)", ValueError, "a frame with no rows", "check the filter or file that made it"),
    ("frames", 'rk.Split(P.assign(user_id=["u1", None, "u2"]), T)', ValueError,
     "a missing id (None, NaN, pd.NA) in an id column", "drop or fill those rows"),
    ("frames", 'rk.Split(P.assign(item_id=[["a"], ["b"], ["a"]]), T)', ValueError,
     "ids that are lists, dicts or sets", "one hashable id per row: explode or join the values first"),
    ("frames", "rk.Split(pd.concat([P, P.iloc[:1]]), T)", ValueError,
     "the same (user, item) twice in a frame; the message names each repeated pair with its rows (the first five "
     "pairs, then how many more)", "deduplicate (keep the best score, or the latest rating)"),
    ("frames", "rk.Split(P.assign(item_id=[1, 2, 1]), T)", ValueError,
     "ids of kinds that can never match: numbers in one frame, text in the other (one file read from "
     "Parquet, the other from CSV); the same for `user_id`. Integer and float ids holding whole numbers "
     "do match", "run the conversion the message ends with: it converts the frame holding the numbers to "
     "text (`pred['item_id'] = pred['item_id'].astype(str)` here), or, when side data (`train`, `catalog`, "
     "`item_features`, `item_groups`) is the odd one out, that side data"),
    ("frames", 'rk.Split(P.assign(item_id=pd.Series([1, "b", "a"], dtype=object)), T)', ValueError,
     "one id column mixing kinds that never match each other (some ids quoted in a file, two sources appended): "
     "the ids of one kind could never match the other frame's, and their lists would silently score 0; the same "
     "for `user_id` and for `truth`", "make the column one type: `df['item_id'] = df['item_id'].astype(str)`"),
    ("frames", 'rk.Split(P.assign(user_id=["x", "x", "y"]), T)', ValueError, "no user of `pred` is in `truth`",
     "check that both frames come from the same split and spell ids alike"),
    ("frames", 'rk.Split(P[P["user_id"] == "u1"], T, missing_users="error")', ValueError,
     "`missing_users=\"error\"` and truth users without a list", "recommend for them, or choose "
     "`\"ignore\"` (leave them out) or `\"zero\"` (score them 0)"),
    ("frames", 'rk.Split(P, T.assign(score=["5", "2"]))', ValueError,
     "scores read as text (or complex numbers)", "`pd.to_numeric` the column"),
    ("frames", 'rk.Split(P, T, score_order="up")', ValueError, "an unknown direction of the scores",
     '`"descending"` (higher is better) or `"ascending"` (lower is better)'),
    ("frames", "rk.Split(P, T.assign(score=[np.nan, 2.0]))", ValueError, "a truth score that is NaN or infinite",
     "drop those ratings or fill them"),
    ("frames", "rk.Split(P.assign(score=[np.nan, 0.5, 0.3]), T)", ValueError,
     "a predicted score that is NaN (±inf is allowed: first or last)", "drop those rows, or give them a score"),
    ("frames", "rk.Split(RANKED.assign(rank=[0, 1, 2]), T)", ValueError,
     "a rank below 1 or not a whole number (1.5)", "renumber the ranks (1 = best)"),
    ("frames", "rk.Split(RANKED.assign(rank=[1, 1, 1]), T)", ValueError, "two items of one list share a rank",
     "break the tie, or give scores and a `ties=` rule"),
    ("metrics", "rk.NDCGAtK(0)", ValueError, "a cutoff below 1", "k >= 1"),
    ("metrics", "rk.NDCGAtK(2.0)", ValueError, "a cutoff that is not an integer (floats and bools are refused; "
     "NumPy integers are fine)", "`int(k)`"),
    ("metrics", "rk.NDCGAtK(2**40)", ValueError, "a cutoff above 2**31 - 1 (no list is that long)",
     "for the whole list use the metric without `AtK` (`NDCG`), or `k=None` where allowed"),
    ("metrics", "rk.NDCGAtK([5, 5, 10])", ValueError, "a list of cutoffs with a repeat", "give each cutoff once"),
    ("metrics", 'rk.NDCGAtK([5, 10], name="my-ndcg")', ValueError, "one `name=` for several columns",
     "one metric per cutoff, each with its name"),
    ("metrics", 'rk.NDCG(gains="exp")', ValueError, "a string option outside its choices (also `ties`, "
     "`missing_users`, `no_relevant`, `test`, `correction`, `ci_method`)", "one of the choices listed"),
    ("metrics", 'rk.PrecisionAtK(5, relevant_threshold=float("nan"))', ValueError, "a NaN threshold",
     "a number, or None for each user's mean truth score"),
    ("metrics", "rk.RBP(p=1.5)", ValueError, "a parameter out of its range (`p` of RBP, `beta` of F, ...)",
     "a value in the range the message gives"),
    ("metrics", 'rk.NDCGAtK(5, ideal="min_k_ones")', ValueError,
     "an ideal for binary gains with graded gains", "add `gains=\"binary\"`"),
    ("metrics", 'rk.parse_metric("NDGC@10")', ValueError, "a metric name rankeval does not know",
     "the message offers the three nearest names, with the cutoffs typed; every name: `rk.metric_names()` "
     "(case does not matter when one name is so spelled: `ndcg@10` is `NDCG@10`)"),
    ("metrics", 'rk.parse_metric("HR")', ValueError, "a name without the cutoff the metric needs", "write `HR@10`"),
    ("metrics", 'rk.parse_metric("BPref@5")', ValueError, "a cutoff on a metric that takes none", "write `BPref`"),
    ("metrics", 'rk.parse_metric("kendall-IPS")', ValueError,
     "a propensity-weighted form (`-IPS`, `-SNIPS`) of a metric that is no sum over relevant items",
     "one of the metrics the message lists (docs/unbiased.md)"),
    ("metrics", 'rk.unbiased.Propensity.given(pd.Series({"a": 1.5}))', ValueError,
     "a propensity outside (0, 1] (or NaN, or not a number)", "give probabilities; 0 is never observed and "
     "cannot be weighted"),
    ("metrics", 'rk.unbiased.Unbiased(rk.RecallAtK(2), rk.unbiased.Propensity.given(pd.Series({"b": 0.5})))'
     '.perform(rk.Split(P, T))', ValueError, "a relevant truth item without a propensity (the message counts the "
     "rows)", "give one for every relevant truth item, or use an estimated form "
     "(`Propensity.popularity`, `Propensity.power_law`)"),
    ("metrics", 'rk.parse_metric("R@2-IPS").perform(rk.Split(P, T))', ValueError,
     "an estimated propensity without the training interactions it is estimated from",
     "pass `train=` (`--train`), or given propensities (`--propensity FILE`)"),
    ("metrics", 'rk.NDCG(gains="exponential").perform(rk.Split(P, T.assign(score=[1100.0, 2.0])))', ValueError,
     "`2^r - 1` of a grade >= 1024 overflows a float", "use `gains=\"linear\"`, or rescale the grades"),
    ("metrics", 'rk.MAE().perform(rk.Split(P, T, score_order="ascending"))', ValueError,
     "an error metric (MAE, MSE, RMSE, LogLoss) on lower-is-better scores, which are no predicted ratings",
     "higher-is-better predicted ratings, or a ranking metric"),
    ("metrics", "rk.ERRAtK(5, max_grade=3).perform(rk.Split(P, T))", ValueError,
     "a `max_grade` below a truth grade", "`max_grade=None` (the split's largest grade)"),
    ("metrics", "rk.MAE().perform(rk.Split(RANKED, T))", ValueError,
     "an error metric on lists without predicted scores", "give `pred` a score column"),
    ("metrics", "rk.Novelty(5).perform(rk.Split(P, T))", ValueError,
     "a beyond-accuracy metric without the side data it reads", "pass `train=` (or `catalog=`, "
     "`item_features=`, as the message says) to Split, EvalModel or compare"),
    ("metrics", "rk.RBP(rk.LogWeight())", ValueError, "a rank weight the metric cannot use",
     "one the message lists (RBP: a float or `GeometricWeight`; docs/metrics.md has the table)"),
    ("metrics", "rk.NDCGAtK(10, discount=rk.GeometricWeight(0.5))", ValueError,
     "a discount that is no logarithm", "`\"log2\"`, `\"jarvelin\"` or a `LogWeight` with offset 1 or 0"),
    ("evaluation", "rk.EvalModel(P, T, [])", ValueError, "no metric", "give at least one"),
    ("evaluation", "rk.EvalModel(P, T, [rk.MRR(), rk.MRR()])", ValueError, "two metrics with one name",
     "pass `name=` to one of them"),
    ("evaluation", "rk.EvalModel([P, P], [T], [rk.MRR()])", ValueError, "lists of pred and truth frames of "
     "different lengths", "one pred and one truth frame per split, in the same order"),
    ("evaluation", 'rk.EvalModel([P, P], [T, T], [rk.MRR()], split_names=["a"])', ValueError,
     "`split_names` of another length than the splits (or repeated, or `'mean'`)", "one distinct name per split"),
    ("evaluation", 'rk.EvalModel(P, T, [rk.MRR()], convention="treceval")', ValueError, "an unknown convention",
     "one of `rk.conventions.names()`"),
    ("evaluation", 'rk.BPref().with_convention("recbole")', ValueError,
     "a metric the peer of a convention does not have", "evaluate it without `convention=`"),
    ("evaluation", 'rk.EvalModel(P, T, [rk.MRR()]).fit(user_id_list=["zz"])', ValueError,
     "`user_id_list` keeps no user of a split", "check the ids (and their type)"),
    ("evaluation", 'rk.EvalModel(P, T, [rk.MRR()]).by_group({"g": ["u1"]})', ValueError,
     "`by_group` before `fit`", "call `fit()` first"),
    ("evaluation", "rk.EvalModel(P, T, [rk.MRR()], gamma=0.5)", ValueError,
     "`gamma` (or an `estimator` other than the default) without `sampled=`",
     "pass the design, `sampled=rk.SampledCandidates(n_items, n_negatives)`"),
    ("evaluation", 'rk.EvalModel(P, T, [rk.MRR()], sampled=rk.SampledCandidates(100, 1), estimator="rescaled", '
     'gamma=0.5)', ValueError, "`gamma` with an estimator that has no variance weight",
     "drop `gamma`, or use `estimator=\"bias_variance\"`"),
    ("compare", 'rk.compare({"a": P}, T, [rk.MRR()])', ValueError, "fewer than two systems", "give two or more"),
    ("compare", 'rk.compare({1: P, "1": P}, T, [rk.MRR()])', ValueError, "two names that print alike",
     "rename one"),
    ("compare", 'rk.compare({"a": P, "b": P}, T, [rk.MRR()], baseline="c")', ValueError,
     "a `baseline` that is not a system", "one of the names in `systems`"),
    ("compare", 'rk.compare({"a": P, "b": P}, T, [rk.RBO()])', ValueError,
     "`RBO` or `LIP` without the system whose lists they compare with",
     "`baseline=\"a\"` (CLI `--baseline a`), or `RBO(reference=\"a\")`"),
    ("compare", "rk.LIP().perform(rk.Split(P, T))", ValueError,
     "`RBO` or `LIP` outside `compare` without reference lists",
     "`LIP(reference=frame)` with the base ranking's lists, or `compare` with `baseline=`"),
    ("compare", "rk.RBO(reference=pd.concat([P, P])).perform(rk.Split(P, T))", ValueError,
     "a reference list naming an item twice (its overlap is undefined)", "one row per (user, item) in the reference"),
    ("compare", 'rk.compare({"a": P, "b": [P, P]}, T, [rk.MRR()])', ValueError,
     "a system with another number of splits than `truth`", "one pred frame per truth frame, in order"),
    ("compare", 'rk.report(systems={"a": P, "b": P}, truth=T, metrics=[rk.MRR()], n_bootstrap=10**12)',
     ValueError, "more bootstrap resamples of the report's bands than memory can hold (every resampled mean is "
     "kept); checked before the comparison runs", "1,000 (the default) is plenty"),
    ("compare", 'rk.compare({"a": P, "b": P}, T, [rk.MRR()], n_resamples=20)', ValueError,
     "too few resamples for the level: no p-value could fall below alpha",
     "at least ceil(2 / alpha) (40 at 0.05); 10,000 is the default"),
    ("compare", 'rk.compare({"a": P, "b": P}, T, [rk.MRR()], alpha=1.5)', ValueError, "alpha outside (0, 1)",
     "e.g. 0.05"),
    ("compare", 'rk.compare({"a": P, "b": P}, T, [rk.MRR()], alpha=1e-12)', ValueError,
     "an alpha that needs more resamples than the 100,000,000 allowed", "alpha >= 2e-08"),
    ("compare", 'rk.compare({"a": P, "b": P}, T, [rk.MRR()], seed=-1)', ValueError,
     "a negative, float or bool seed", "an integer >= 0"),
    ("compare", 'rk.compare({"a": P, "b": P.drop(columns="item_id")}, T, [rk.MRR()])', ValueError,
     "any error above in one system's frames", "the message starts with the system (and split) at fault"),
    ("compare", CMP + '.plot_critical_difference("MRR")', ValueError,
     "a critical-difference diagram of two systems", "compare three or more systems"),
    ("compare", CMP + '.plot_critical_difference("NDCG")', ValueError, "a metric the comparison did not test",
     "one of `res.metrics`"),
    ("compare", 'rk.compare({"a": P, "b": P}, T, [rk.MRR()], equivalence_margin="1")', ValueError,
     'an equivalence margin that is neither a positive number nor a share such as `"1%"`',
     '`0.01` (the metric\'s units) or `"1%"` (of system a\'s mean)'),
    ("compare", 'rk.compare({"a": P, "b": P}, T, [rk.MRR()], equivalence_margin={"NDCG@10": 0.01})', ValueError,
     "a margin for a metric the comparison does not test", "name the metrics as `res.metrics` does"),
    ("compare", 'rk.compare({"a": P, "b": {}}, T, [rk.MRR()])', ValueError,
     "a system given as seeds, but with none", "`{seed label: lists, ...}`, one entry per training run"),
    ("compare", 'rk.compare({"a": P, "b": {"s0": P}, "b[s0]": P}, T, [rk.MRR()])', ValueError,
     "a seed run's name (`system[seed]`) is another system's name", "rename the system or the seed"),
    ("compare", CMP + '.power(power=1.2)', ValueError, "a power outside (0, 1)", "e.g. 0.8 (the default)"),
    ("compare", 'rk.stats.ttest_mde(100, alpha=0.1, power=0.05)', ValueError,
     "a power no higher than alpha: an effect of 0 is detected with probability alpha", "a power above alpha"),
    ("compare", 'rk.stats.ttest_mde(1)', ValueError, "fewer than 2 users", "2 users or more"),
    ("compare", 'rk.stats.power_analysis([0.2, 0.2, 0.2])', ValueError,
     "every user's difference is the same: the t-based MDE and power divide by their sd",
     "differences that vary (a comparison's per-user values, or a pilot's)"),
    ("side data", 'rk.Split(P, T, catalog=[])', ValueError, "an empty catalog", "give the recommendable items"),
    ("side data", 'rk.Split(P, T, train=pd.DataFrame({"user_id": ["u1"], "item_id": [1]}))', ValueError,
     "training ids of another kind than the lists'", "the conversion the message ends with (here the "
     "training ids to text)"),
    ("side data", 'rk.Split(P, T, train=T, side=rk.SideData(train=T))', ValueError,
     "both `side=` and `train=`/`catalog=`/`item_features=`", "give one of them"),
    ("side data", 'rk.EvalModel([P, P], [T, T], [rk.MRR()], train=[T, T, T])', ValueError,
     "a list of side data with another length than the splits", "one per split, or one frame for all"),
    ("side data", 'rk.Split(P, T, item_features=pd.DataFrame({"f": [1.0, 2.0]}, index=["a", "a"]))', ValueError,
     "two feature rows for one item (missing ids in the index fail alike)", "one row per item, indexed by item id"),
    ("side data", 'rk.Split(P, T, item_features=pd.DataFrame({"f": [1.0, np.nan]}, index=["a", "b"]))',
     ValueError, "a NaN or infinite feature", "fill it (0 if absent)"),
    ("side data", 'rk.Split(P, T, item_features=pd.DataFrame({"g": ["x|y", "y"]}, index=["a", "b"]))', ValueError,
     "categories given as text", "split them into sets: `df['g'].str.split('|').map(set)`"),
    ("side data", 'rk.groups.popularity_groups(T, {"a": 0.5, "b": 0.2})', ValueError,
     "popularity-group shares that do not add up to 1", "add a group or redistribute the shares"),
    ("side data", 'rk.groups.popularity_groups(T, {"a": 0.2, "b": 0.2, "c": 0.6})', ValueError,
     "more popularity groups than training users", "fewer groups"),
    ("side data", '(m := rk.EvalModel(P, T, [rk.MRR()])).fit() and m.by_group({"a": ["u1"], "b": ["u1"]})',
     ValueError, "user groups that overlap", "one group per user"),
    ("split", "rk.split.temporal_holdout(T3, n_last=1)", ValueError, "a temporal splitter without a time column",
     "name yours with `time_col=`, or use `random_holdout`"),
    ("split", "rk.split.random_holdout(I, 1.5)", ValueError, "a share outside (0, 1)", "e.g. 0.2"),
    ("split", "rk.split.temporal_holdout(I, n_last=0)", ValueError, "leave-last-N with N < 1", "N >= 1"),
    ("split", "rk.split.temporal_holdout(I, test_size=0.5, n_last=1)", ValueError, "both a share and a count",
     "one of them"),
    ("split", "rk.split.global_temporal(I)", ValueError, "a global cut without a time or a share",
     "`cutoff=` or `test_size=`"),
    ("split", 'rk.split.global_temporal(I, cutoff="x")', ValueError,
     "a cutoff of another kind than the time column", "a time of the column's kind"),
    ("split", "rk.split.kfold(I, 1)", ValueError, "fewer than two folds", "2 or more"),
    ("split", "rk.split.kfold(I, 9)", ValueError,
     "more folds than any user has interactions (users below `n_splits` stay in train, with a warning)",
     "fewer folds, or `by=\"record\"`"),
    ("split", 'rk.split.random_holdout(I, by="item")', ValueError, "an unknown stratification",
     "`\"user\"` or `\"record\"`"),
    ("split", "rk.split.temporal_holdout(I.assign(timestamp=[1, 2, None, 4, 1, 2, 3, 4]), n_last=1)", ValueError,
     "rows without a time", "drop or fill them"),
    ("split", "rk.audit(I, I.assign(user_id=1))", ValueError, "ids of different kinds in train and test",
     "the conversion the message ends with (of the frame holding numbers)"),
    ("split", "rk.EvalModel(P, rk.split.random_holdout(I, 0.5), [rk.MRR()], train=T)", ValueError,
     "a Splits truth brings its train frames", "the Splits object alone, or `splits.tests` with your own `train=`"),
    ("split", "rk.audit(I, I, session_gap=-1)", ValueError, "a negative gap between sessions",
     "seconds >= 0, or a `timedelta`"),
    ("split", 'rk.EvalModel(P, T, [rk.MRR()], truth_items="repeat")', ValueError,
     "repeat or new items asked for without the train that tells them apart",
     "pass `train=` (or a Splits truth, or side data with train)"),
    ("split", 'rk.EvalModel(P, T, [rk.MRR()], train=I, truth_items="explore")', ValueError,
     "no truth user has an item of the kind asked for", "evaluate the other kind, or all items"),
    ("rank", "rk.rank.top_k(np.ones((2, 3)), np.ones((4, 2)), 2)", ValueError,
     "user and item vectors of different dimensions", "pass the two matrices of the same model"),
    ("rank", "rk.rank.top_k(np.array([[1.0, np.nan]]), np.ones((4, 2)), 2)", ValueError,
     "a vector holding NaN or an infinity (a diverged training)", "fix or drop those rows"),
    ("rank", 'rk.rank.top_k(np.ones((2, 2)), np.ones((3, 2)), 2, item_ids=["a", "b", "a"])', ValueError,
     "an id given to two vectors", "one vector per id: deduplicate the ids"),
    ("rank", "rk.rank.top_k(np.ones((2, 2)), np.ones((3, 2)), 2, memory=100)", ValueError,
     "a `memory` budget below one block (one user x min(items, 4k) items) plus the fixed arrays",
     "the message gives the smallest budget that works: pass at least that"),
    ("rank", "rk.rank.top_k(np.ones((2, 2)), np.ones((3, 2)), 2, exclude=T)", ValueError,
     "`exclude` ids of another kind than the vectors' ids (text against positions here), so nothing would be "
     "excluded", "pass `user_ids=`, `item_ids=` of the same kind as the training frame's ids"),
    ("rank", "rk.EvalModel(rk.rank.top_k(np.ones((2, 2)), np.ones((3, 2)), 2), T, [rk.MRR()])", ValueError,
     "a `TopK` whose ids are of another kind than the truth's: ranked without `user_ids=` (positions 0, 1, "
     "...) against text ids here", "rank with `user_ids=`, `item_ids=` of the truth's kind, or convert the "
     "truth's column"),
    ("rank", "rk.EvalModel.from_model(np.ones((2, 2)), np.ones((3, 2)), [T, T], [rk.MRR()], k=2)", ValueError,
     "a truth of several splits given to one model's vectors", "evaluate each split's model on its own truth, "
     "or rank each split with `top_k` and pass the lists to `EvalModel`"),
]

#: (warning class, code, what it counts, when to silence it): the warning table of the page
WARNINGS = [
    ("ShortListsWarning", "rk.rank.top_k(np.ones((1, 2)), np.ones((3, 2)), 5)",
     "users of `rk.rank.top_k` with fewer than `k` items that may be listed (the catalog, their candidates, "
     "minus their excluded items): their lists are shorter, by the rows counted",
     "when short lists are expected (users who saw most of the catalog)"),
    ("ProtocolWarning", "rk.EvalModel(P, T, [rk.MRR()], train=T).fit()",
     "with `train` known: listed rows recommending an item the user already has in train, test pairs also in "
     "train, test users without a train row (per split; `compare` names the system for the first)",
     "never silently: exclude seen items from the lists, split again (`rankeval.split`), or read "
     "`rk.audit(train, test, pred)` and accept it knowingly"),
    ("ProtocolWarning", 'rk.EvalModel(P, T, [rk.MRR()], catalog=["a"]).fit()',
     "with a `catalog` given: listed rows whose item is not in it, the distinct items and the users (per split)",
     "never silently: these items do not exist (a generative recommender's made-up ids, or the wrong catalog)"),
    ("MissingUsersWarning", 'rk.EvalModel(P, T, [rk.MRR()], train=T.iloc[:1], truth_items="repeat")',
     "truth users without a truth row of the kind `truth_items` asks for: left out, with their listed rows",
     "when you evaluate repeat (or new) items on purpose: those users have nothing to be judged on"),
    ("RankevalWarning", 'rk.compare({"a": P.assign(score=[np.inf, 1, 2]), "b": P}, T, [rk.MAE()], n_resamples=100)',
     "tests whose paired units hold an infinite per-user value (means infinite, statistics may be NaN)",
     "rarely: an infinite error is usually an infinite predicted score"),
    ("MissingUsersWarning", "rk.Split(P, T3)",
     "truth users without a list: left out (`missing_users=\"ignore\"`, the default) or scored 0 "
     "(`\"zero\"`)", "when you know the lists cover only some users"),
    ("MissingUsersWarning", "rk.Split(P, T.iloc[:1])", "list users without a truth rating (always left out)",
     "when pred lists every user and truth holds a test sample"),
    ("MissingUsersWarning", 'rk.EvalModel(P, T, [rk.MRR()]).fit(user_id_list=["u1", "zz"])',
     "ids of `user_id_list` in no split", "rarely: usually ids of another type"),
    ("LowOverlapWarning", 'rk.Split(P, T.assign(item_id=["z", "z"]))',
     "listed rows with a truth score, when under 1 % of the most the lists could hold (per user the smaller of "
     "the list's length and the truth's size) have one: ids that do not match. Leave-one-out truths and "
     "sampled-candidate lists do not set it off",
     "beyond-accuracy runs where truth is not used, or a truly sparse test set"),
    ("RanksAsScoresWarning", "rk.Split(I.assign(score=[1, 2, 3, 4] * 2), T)",
     "pred users, when every one's scores are exactly 1..n_u (ranks in the score column, read backwards) and two "
     "or more lists hold 2+ items; not when the rows already run best first (pandas), with a rank column or with "
     "`score_order=\"ascending\"`",
     "never: pass the ranks as `rank_col=` (`--rank-col`), or `score_order=\"ascending\"` (`--score-order "
     "ascending`) for lower-is-better scores"),
    ("UnusedColumnsWarning", 'rk.Split(P.rename(columns={"score": "pred"}), T)',
     "numeric columns left unused while the lists keep their row order",
     "never: pass `score_col=`/`rank_col=`, or drop the columns"),
    ("DroppedUnitsWarning", 'rk.compare({"a": P, "b": P.iloc[:2]}, T, [rk.MRR()], n_resamples=100)',
     "(split, user) units left out of a test because a system has no value there (also from "
     "`friedman()`, `nemenyi()`, `tukey_hsd()`)", "when systems list different users on purpose"),
    ("RankevalWarning", 'rk.compare({"a": P.iloc[:2], "b": P.iloc[:2]}, T, [rk.MRR()], n_resamples=100)',
     "tests with fewer than 2 paired units (NaN statistic, p-value and CI)", "rarely"),
    ("RankevalWarning", CMP + ".friedman()", "post-hoc tests without enough units or systems (NaN values)",
     "rarely"),
    ("RankevalWarning", 'rk.IntraListDiversity(2).perform(rk.Split(P, T, item_features=pd.DataFrame('
     '{"f": [1.0, 0.0]}, index=["a", "c"])))', "listed items without features, left out of the pairs",
     "when the catalog has items without features on purpose"),
    ("RankevalWarning", 'rk.groups.popularity_groups(T, {"a": 0.8, "b": 0.2})',
     "popularity groups that get no user", "rarely: use fewer groups"),
]

#: messages that name a dtype (object on pandas 2, str on pandas 3): quoted up to before it
SHORTER = {'rk.Split(P, T.assign(score=["5", "2"]))': 40,
           'rk.Split(P, T, train=pd.DataFrame({"user_id": ["u1"], "item_id": [1]}))': 40}

PREFIX = "rankeval: error: "

#: (argv, cause, fix): the command-line table; the files are p.csv and t.csv of the page
CLI = [
    ("evaluate --pred p.csv --truth t.csv -m NDGC@10", "any error of the tables above", "as above"),
    ("evaluate --pred nope.csv --truth t.csv -m MRR", "a file that does not exist", "check the path"),
    ("evaluate --pred p.csv --truth t.csv -m MRR --metric-module nope.py",
     "a --metric-module file that does not exist, a module that cannot be imported, or one that fails while it "
     "runs (the message then names the exception)",
     "the path of your metrics' Python file, or a module on the Python path"),
    ("evaluate --pred p.csv --pred p.csv --truth t.csv -m MRR", "another number of --pred than --truth",
     "one --pred and one --truth per split, in order"),
    ("evaluate --pred p.csv --truth t.csv -m MRR --per-user /no/such/folder/u.csv",
     "an output folder that does not exist, is not writable, or is a file (also --plot, --system-values)",
     "create the folder first"),
    ("evaluate --pred p.csv --truth t.csv -m MRR --per-user ./p.csv",
     "an output (--per-user, --out, --plot, --system-values) that is one of the input files, by any path to it "
     "(another spelling, a link)", "choose another output path: the input is left as it was"),
    ("evaluate --pred p.csv --truth t.csv -m MRR --digits -1", "a number of decimals no table can show", "0 to 17"),
    ("compare --system a=p.csv --truth t.csv -m MRR", "fewer than two `--system`", "give two or more"),
    ("rank --users p.csv --items p.csv -k 2", "`rank` with nothing to do: neither lists to write nor a truth",
     "`--out lists.parquet`, or `--truth test.csv -m NDCG@10` to evaluate the lists as they are ranked"),
    ("rank --users p.csv --items p.csv -k 2 --truth t.csv", "`--truth` without `-m` (or `-m` without `--truth`)",
     "give both"),
    ("compare --system a=p.csv --system b=p.csv,p.csv --truth t.csv -m MRR",
     "a system with another number of files than --truth", "one file per split, in the order of --truth"),
    ("compare --system a=p.csv --system b=p.csv --truth t.csv -m MRR --alpha 2",
     "an option out of range: the message names the option, not the Python parameter", "as the message says"),
    ("evaluate --pred p_eu.csv --truth t.csv -m MRR",
     "numbers written with a decimal comma (`0,9`) in a score or rating column", "`--decimal ,`"),
    ("evaluate --pred p.csv --truth t.csv -m MRR --sep ;",
     "a separator the file does not use: the header is read as one column (the message then says the separator "
     "used and to pass --sep); rows that do not split into the header's columns say the same",
     "leave `--sep` out (each file's separator is read from its header line), or give the file's own"),
    ("split --in t.inter --method random --out-dir s --user-col user_id:token",
     "a RecBole atomic file's column named with its `:type` suffix", "the bare name: `--user-col user_id`"),
    ("audit --train t.csv --truth t.csv --truth-user-col userId",
     "a `--train` or `--truth` file without the id column named (audit takes evaluate's column options)",
     "the file's own names with `--truth-user-col`, `--truth-item-col` (default `--user-col`, `--item-col`)"),
    ("evaluate --pred p.csv --truth t.csv -m MRR --gamma 0.5",
     "--gamma, --estimator or --sampled-n-items without --sampled", "add --sampled (see docs/sampled.md)"),
    ("evaluate --pred p.csv --truth t.csv -m MRR --sampled 100:1 --sampled-n-items t.csv",
     "--sampled N_ITEMS:N_NEGATIVES beside a file of per-user sizes", "--sampled N_NEGATIVES alone"),
]


def _message(code: str, expect: type) -> str:
    """Run one example; the message of the `expect` error or warning it gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            eval(code, dict(CTX))  # noqa: S307 - the page's own examples
        except (ValueError, TypeError) as exc:
            if isinstance(exc, expect):  # a subclass of ValueError (IdKindError) is one
                return str(exc)
            raise
    assert expect not in (ValueError, TypeError), f"{code}: no {expect.__name__}"
    found = [w for w in caught if w.category is expect]
    assert found, f"{code}: no {expect.__name__}, got {[w.category.__name__ for w in caught]}"
    return str(found[0].message)


def _quoted(message: str, n: int = 60) -> str:
    """The start of a message as the page quotes it: at most n characters, cut at a word."""
    text = message if len(message) <= n else message[:n].rsplit(" ", 1)[0] + " ..."
    return text.replace("|", "\\|")


def _doc_text() -> str:
    return re.sub(r"\s+", " ", DOC.read_text(encoding="utf-8"))


def _cell(code: str) -> str:
    return "`" + code.replace("|", "\\|") + "`"


def _run_cli(argv: str, folder: Path) -> tuple[int, str]:
    """Run ``rankeval argv`` in folder, next to the page's p.csv and t.csv (and p_eu.csv, p.csv with ';' and
    decimal commas; t.inter, t.csv as a RecBole atomic file): (status, stderr)."""
    (folder / "p.csv").write_text("user_id,item_id,score\nu1,a,0.9\nu1,b,0.5\nu2,a,0.3\n")
    (folder / "t.csv").write_text("user_id,item_id,score\nu1,a,5\nu2,a,2\n")
    (folder / "p_eu.csv").write_text("user_id;item_id;score\nu1;a;0,9\nu1;b;0,5\nu2;a;0,3\n")
    (folder / "t.inter").write_text("user_id:token\titem_id:token\trating:float\nu1\ta\t5\nu2\ta\t2\n")
    err, here = io.StringIO(), os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = main(argv.split())
    finally:
        os.chdir(here)
    return status, err.getvalue()


@pytest.mark.parametrize("section, code, error, cause, fix", ERRORS, ids=[c[1][:50] for c in ERRORS])
def test_every_documented_error_is_raised_as_quoted(section, code, error, cause, fix):
    quoted = _quoted(_message(code, error), SHORTER.get(code, 60))
    text = _doc_text()
    assert _cell(code) in text, f"docs/errors.md does not show the example {code}"
    assert quoted in text, f"docs/errors.md does not quote: {quoted}"


@pytest.mark.parametrize("name, code, counts, silence", WARNINGS, ids=[f"{w[0]}-{w[1][:30]}" for w in WARNINGS])
def test_every_documented_warning_is_emitted_as_quoted(name, code, counts, silence):
    message = _message(code, getattr(rk, name))
    text = _doc_text()
    assert _cell(code) in text, f"docs/errors.md does not show the example {code}"
    assert _quoted(message) in text, f"docs/errors.md does not quote: {_quoted(message)}"


def test_every_warning_class_is_documented():
    classes = [n for n in rk.__all__ if isinstance(getattr(rk, n), type)
               and issubclass(getattr(rk, n), rk.RankevalWarning)]
    assert {"RankevalWarning", "MissingUsersWarning", "LowOverlapWarning"} <= set(classes)
    text = DOC.read_text(encoding="utf-8")
    assert [c for c in classes if f"`{c}`" not in text] == []
    # and every one of them has a row in the warning table, where it is said what it counts
    rows = {line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| `")}
    assert [c for c in classes if f"`{c}`" not in rows] == []


@pytest.mark.parametrize("argv, cause, fix", CLI, ids=[c[0][:50] for c in CLI])
def test_every_documented_command_line_error_is_one_line_and_status_2(argv, cause, fix, tmp_path):
    status, err = _run_cli(argv, tmp_path)
    assert status == 2
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(PREFIX), err
    text = _doc_text()
    assert f"`rankeval {argv}`" in text, f"docs/errors.md does not show: rankeval {argv}"
    quoted = _quoted(lines[0][len(PREFIX):])
    assert quoted in text, f"docs/errors.md does not quote: {quoted}"


def test_spark_breaks_tied_scores_by_item_id_with_a_warning(spark):
    pred = spark.createDataFrame(P.assign(score=[0.5, 0.5, 0.3]))
    with pytest.warns(rk.TiedScoresWarning) as record:
        rk.EvalModel(pred, spark.createDataFrame(T), [rk.MRR()]).fit()
    message = next(str(w.message) for w in record if w.category is rk.TiedScoresWarning)
    assert _quoted(message) in _doc_text(), f"docs/errors.md does not quote: {_quoted(message)}"


def tables() -> str:
    """The rows of the page's tables, from the messages of today's code."""
    out, section = [], None
    for sec, code, error, cause, fix in ERRORS:
        if sec != section:
            out += ["", f"### {sec}", "", "| you wrote | rankeval says | cause | fix |", "|---|---|---|---|"]
            section = sec
        out.append(f"| {_cell(code)} | {_quoted(_message(code, error), SHORTER.get(code, 60))} | {cause} | {fix} |")
    out += ["", "| warning | example | rankeval says | counts | silence it |", "|---|---|---|---|---|"]
    for name, code, counts, silence in WARNINGS:
        out.append(f"| `{name}` | {_cell(code)} | {_quoted(_message(code, getattr(rk, name)))} | {counts} | "
                   f"{silence} |")
    out += ["", "| you typed | `rankeval: error:` ... | cause | fix |", "|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as folder:
        for argv, cause, fix in CLI:
            line = _run_cli(argv, Path(folder))[1].strip()[len(PREFIX):]
            out.append(f"| `rankeval {argv}` | {_quoted(line)} | {cause} | {fix} |")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(tables() + "\n")
