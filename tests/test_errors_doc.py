"""docs/errors.md stays true: every example there is run here and must give the message quoted.

Each case is (section, the code a user writes, what causes it, the fix). The test runs the
code, catches the ValueError or the rankeval warning, and checks that docs/errors.md quotes
the start of the message. ``python tests/test_errors_doc.py`` prints the tables of the
page (the messages as rankeval prints them today), to paste when a message changes.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankeval as rk

DOC = Path(__file__).resolve().parent.parent / "docs" / "errors.md"

P = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["a", "b", "a"], "score": [0.9, 0.5, 0.3]})
T = pd.DataFrame({"user_id": ["u1", "u2"], "item_id": ["a", "a"], "score": [5.0, 2.0]})
T3 = pd.concat([T, pd.DataFrame({"user_id": ["u3"], "item_id": ["a"], "score": [4.0]})], ignore_index=True)
RANKED = P.drop(columns="score").assign(rank=[1, 2, 1])
CTX = {"rk": rk, "pd": pd, "np": np, "P": P, "T": T, "T3": T3, "RANKED": RANKED}

#: (section, code, cause, fix)
ERRORS = [
    ("frames", 'rk.Split(P.drop(columns="item_id"), T)',
     "a required column is absent (names are case-sensitive)",
     "rename the column, or pass `user_col=`, `item_col=`, `score_col=`, `rank_col=`"),
    ("frames", 'rk.Split(pd.concat([P, P[["score"]]], axis=1), T)',
     "two columns share a name (after a merge, say)", "drop or rename one"),
    ("frames", "rk.Split(P.iloc[:0], T)", "a frame with no rows", "check the filter or file that made it"),
    ("frames", 'rk.Split(P.assign(user_id=["u1", None, "u2"]), T)',
     "a missing id (None, NaN, pd.NA) in an id column", "drop or fill those rows"),
    ("frames", "rk.Split(pd.concat([P, P.iloc[:1]]), T)",
     "the same (user, item) twice in a frame", "deduplicate (keep the best score, or the latest rating)"),
    ("frames", "rk.Split(P, T.assign(score=[np.nan, 2.0]))", "a truth score that is NaN or infinite",
     "drop those ratings or fill them"),
    ("frames", 'rk.Split(P, T.assign(score=["5", "2"]))', "scores read as text",
     "`pd.to_numeric` the column (the CLI reads scores as numbers)"),
    ("frames", "rk.Split(P.assign(score=[np.nan, 0.5, 0.3]), T)", "a predicted score that is NaN",
     "drop those rows, or give them a score"),
    ("frames", "rk.Split(RANKED.assign(rank=[0, 1, 2]), T)", "ranks must be whole numbers from 1",
     "renumber the ranks (1 = best)"),
    ("frames", "rk.Split(RANKED.assign(rank=[1, 1, 1]), T)", "two items of one list share a rank",
     "break the tie, or give scores and a `ties=` rule"),
    ("frames", "rk.Split(P.assign(item_id=[1, 2, 1]), T)",
     "ids of kinds that can never match (numbers in one frame, text in the other: one file from "
     "Parquet, the other from CSV)", "cast one side: `df['item_id'] = df['item_id'].astype(str)`"),
    ("frames", 'rk.Split(P.assign(user_id=["x", "x", "y"]), T)', "no user of `pred` is in `truth`",
     "check that both frames come from the same split and spell ids alike"),
    ("frames", 'rk.Split(P[P["user_id"] == "u1"], T, missing_users="error")',
     "`missing_users=\"error\"` and truth users without a list", "recommend for them, or choose "
     "`\"ignore\"` (leave them out) or `\"zero\"` (score them 0)"),
    ("frames", 'rk.Split(P.assign(item_id=[["a"], ["b"], ["a"]]), T)', "ids that are lists, dicts or sets",
     "one hashable id per row: explode or join the values first"),
    ("frames", 'rk.NDCG(gains="exponential").perform(rk.Split(P, T.assign(score=[1100.0, 2.0])))',
     "`2^r - 1` of a grade overflows a float", "use `gains=\"linear\"`, or rescale the grades"),
    ("metrics", "rk.NDCGAtK(0)", "a cutoff below 1", "k >= 1 (None, where allowed, means the whole list)"),
    ("metrics", "rk.NDCGAtK(2.0)", "a cutoff that is not an integer (floats and bools are refused; "
     "NumPy integers are fine)", "`int(k)`"),
    ("metrics", "rk.NDCGAtK([5, 5, 10])", "a list of cutoffs with a repeat", "give each cutoff once"),
    ("metrics", 'rk.parse_metric("NDGC@10")', "a metric name rankeval does not know",
     "the message lists the valid forms; `rk.metric_names()`"),
    ("metrics", 'rk.parse_metric("HR")', "a name without the cutoff the metric needs", "write `HR@10`"),
    ("metrics", "rk.MAE().perform(rk.Split(RANKED, T))",
     "an error metric on lists without predicted scores", "give `pred` a score column"),
    ("metrics", "rk.Novelty(5).perform(rk.Split(P, T))",
     "a beyond-accuracy metric without the side data it reads", "pass `train=` (or `catalog=`, "
     "`item_features=`, as the message says) to Split, EvalModel or compare"),
    ("evaluation", "rk.EvalModel(P, T, [rk.MRR(), rk.MRR()])", "two metrics with one name",
     "pass `name=` to one of them"),
    ("evaluation", 'rk.EvalModel([P, P], [T, T], [rk.MRR()], split_names=["a"])',
     "`split_names` of another length than the splits", "one name per split"),
    ("evaluation", 'rk.EvalModel(P, T, [rk.MRR()], convention="treceval")', "an unknown convention",
     "one of `rk.conventions.names()`"),
    ("evaluation", 'rk.BPref().with_convention("recbole")', "a metric the peer of a convention does not have",
     "evaluate it without `convention=`"),
    ("compare", 'rk.compare({"a": P}, T, [rk.MRR()])', "fewer than two systems", "give two or more"),
    ("compare", 'rk.compare({"a": P, "b": P}, T, [rk.MRR()], n_resamples=20)',
     "too few resamples for the level: no p-value could fall below alpha",
     "at least ceil(2 / alpha) (40 at 0.05); 10,000 is the default"),
    ("compare", 'rk.compare({"a": P, "b": P}, T, [rk.MRR()], alpha=1.5)', "alpha outside (0, 1)",
     "e.g. 0.05"),
    ("side data", 'rk.Split(P, T, catalog=[])', "an empty catalog", "give the recommendable items"),
    ("side data", 'rk.Split(P, T, train=pd.DataFrame({"user_id": ["u1"], "item_id": [1]}))',
     "training ids of another kind than the lists'", "cast one side"),
    ("side data", 'rk.Split(P, T, item_features=pd.DataFrame({"g": ["x|y", "y"]}, index=["a", "b"]))',
     "categories given as text", "split them into sets: `df['g'].str.split('|').map(set)`"),
]

#: (warning class, code, what it counts, when to silence it)
WARNINGS = [
    ("MissingUsersWarning", "rk.Split(P, T3)",
     "truth users without a list (left out, or scored 0 with `missing_users=\"zero\"`) and list users "
     "without ratings (left out)", "when you know the lists cover only some users"),
    ("LowOverlapWarning", 'rk.Split(P, T.assign(item_id=["z", "z"]))',
     "listed rows with a truth score, when under 1 % of them have one (ids that do not match)",
     "beyond-accuracy runs where truth is not used"),
    ("UnusedColumnsWarning", 'rk.Split(P.rename(columns={"score": "pred"}), T)',
     "numeric columns left unused while the lists keep their row order", "pass `score_col=` instead"),
    ("DroppedUnitsWarning",
     'rk.compare({"a": P, "b": P.iloc[:2]}, T, [rk.MRR()], n_resamples=100)',
     "(split, user) units left out of a test because a system has no value there",
     "when systems list different users on purpose"),
    ("RankevalWarning", 'rk.compare({"a": P.iloc[:2], "b": P.iloc[:2]}, T, [rk.MRR()], n_resamples=100)',
     "a test with fewer than 2 paired units (NaN statistic, p-value and CI), a popularity group with no "
     "user, items without features, ...", "rarely: it says a number is missing or thin"),
]


#: messages that name a dtype (object on pandas 2, str on pandas 3): quoted up to before it
SHORTER = {'rk.Split(P, T.assign(score=["5", "2"]))': 40,
           'rk.Split(P, T, train=pd.DataFrame({"user_id": ["u1"], "item_id": [1]}))': 40}


def _message(code: str, expect: type) -> str:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            eval(code, dict(CTX))  # noqa: S307 - the page's own examples
        except ValueError as exc:
            if expect is ValueError:
                return str(exc)
            raise
    found = [w for w in caught if issubclass(w.category, expect) and
             (expect is not rk.RankevalWarning or w.category is rk.RankevalWarning)]
    assert found, f"{code}: no {expect.__name__}, got {[w.category.__name__ for w in caught]}"
    return str(found[0].message)


def _quoted(message: str, n: int = 60) -> str:
    """The start of a message as the page quotes it: at most n characters, cut at a word."""
    text = message if len(message) <= n else message[:n].rsplit(" ", 1)[0] + " ..."
    return text.replace("|", "\\|")


def _doc_text() -> str:
    return re.sub(r"\s+", " ", DOC.read_text(encoding="utf-8"))


@pytest.mark.parametrize("section, code, cause, fix", ERRORS, ids=[c[1][:40] for c in ERRORS])
def test_every_documented_error_is_raised_as_quoted(section, code, cause, fix):
    quoted = _quoted(_message(code, ValueError), SHORTER.get(code, 60))
    assert quoted in _doc_text(), f"docs/errors.md does not quote: {quoted}"


@pytest.mark.parametrize("name, code, counts, silence", WARNINGS, ids=[w[0] for w in WARNINGS])
def test_every_documented_warning_is_emitted_as_quoted(name, code, counts, silence):
    message = _message(code, getattr(rk, name))
    assert _quoted(message) in _doc_text(), f"docs/errors.md does not quote: {_quoted(message)}"


def test_every_warning_class_is_documented():
    classes = [n for n in rk.__all__ if isinstance(getattr(rk, n), type)
               and issubclass(getattr(rk, n), rk.RankevalWarning)]
    assert len(classes) >= 5
    text = DOC.read_text(encoding="utf-8")
    assert not [c for c in classes if f"`{c}`" not in text]


def tables() -> str:
    """The page's tables, from the messages of today's code."""
    out, section = [], None
    for sec, code, cause, fix in ERRORS:
        if sec != section:
            out += ["", f"### {sec}", "", "| you wrote | rankeval says | cause | fix |", "|---|---|---|---|"]
            section = sec
        shown = code.replace("|", "\\|")
        out.append(f"| `{shown}` | {_quoted(_message(code, ValueError), SHORTER.get(code, 60))} | {cause} | {fix} |")
    out += ["", "| warning | example | rankeval says | counts | silence it |", "|---|---|---|---|---|"]
    for name, code, counts, silence in WARNINGS:
        message = _quoted(_message(code, getattr(rk, name)))
        out.append(f"| `{name}` | `{code}` | {message} | {counts} | {silence} |")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(tables() + "\n")
