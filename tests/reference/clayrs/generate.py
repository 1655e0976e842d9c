"""Generate ClayRS 0.5.1's own per-user and system values, stored as test references.

Like scipy's ``test_generation`` scripts: this script is kept next to the files it wrote,
and ``tests/test_clayrs_reference.py`` (rankeval's venv, no ClayRS import) checks rankeval
against those files. It runs ONLY in the ClayRS venv::

    /tmp/clayrs-venv/bin/python tests/reference/clayrs/generate.py

It needs a few seconds and rewrites the files below; the values do not depend on the
machine (seeded numpy Generator, float64 only).

Building the ClayRS venv (Python 3.11)
--------------------------------------
``pip install clayrs`` does not work on Python 3.11: clayrs 0.5.1 is an sdist whose
requirements pin ``numpy~=1.22.4`` (no cp311 wheel), ``torch~=1.13.0``,
``transformers~=4.29.2``, ... These commands (copied from ``benchmarks/clayrs_real.py``)
build it::

    python3.11 -m venv /tmp/clayrs-venv
    /tmp/clayrs-venv/bin/pip install --no-deps clayrs==0.5.1
    /tmp/clayrs-venv/bin/pip install --only-binary=:all: pandas==1.5.3 numpy==1.23.5 \\
        "numpy-indexed~=0.3.5" "nest-asyncio~=1.5.5" "distex~=0.7.1" "colorama~=0.4.4" \\
        scipy scikit-learn matplotlib pyyaml
    /tmp/clayrs-venv/bin/pip install "tqdm~=4.62.2" "networkx~=2.6.3" pyaml \\
        "requests~=2.28.2" "validators~=0.20.0" "whoosh~=2.7.4" "SPARQLWrapper~=1.8.5"
    /tmp/clayrs-venv/bin/pip install --only-binary=:all: scikit-learn==1.5.2

(ClayRS's ``RMSE`` calls ``mean_squared_error(..., squared=False)``, which scikit-learn
removed in 1.6: hence 1.5.2.)

``import clayrs.evaluation`` drags in torch, transformers, gensim, ... (not installed):
the import hook of ``benchmarks/clayrs_real.py`` (``import_clayrs()``) gives empty
stand-ins for them, and records any use of a stand-in after the import. This script
fails if one is used, so every value below comes from ClayRS's real evaluation code.

What it writes (next to this file)
----------------------------------
- ``pred.csv``: ``user_id, item_id, score``; each user's rows are sorted by score
  descending, with distinct scores within a user.
- ``truth.csv``: ``user_id, item_id, score``, ratings written with ``%.17g``.
- ``clayrs_per_user.csv``: ``metric, user_id, value``. ``metric`` is the ClayRS call,
  e.g. ``MAPAtK(k=5, relevant_threshold=3)``, and ``value`` is ClayRS's per-user value
  (``%.17g``, empty for NaN).
- ``clayrs_system.csv``: ``metric, value``, the ClayRS ``sys`` row of each metric.
- ``provenance.json``: the clayrs, numpy, pandas and Python versions, and the dataset
  summary.

The metrics are NDCG, NDCGAtK(5), NDCGAtK(10), Precision, PrecisionAtK(5), RecallAtK(5),
MAP, MAPAtK(5), MRR and MRRAtK(5); also Recall, FMeasure (beta 1 and 2),
FMeasureAtK(5), RPrecision, each classification metric with ``sys_average="micro"``
(label ``..., sys_average=micro)``), and the error metrics MAE, MSE and RMSE. Every
metric except NDCG and the error metrics takes ``relevant_threshold``, and each of those is
run with None (the default) and with 3.

The dataset (``make_data``, numpy + pandas only)
------------------------------------------------
The generator has 40 users with string ids and string item ids. The lists have 3 to 30
items, some shorter than 5 or 10 and several of exactly 30. The truth has integer ratings
from 1 to 5 and, for some users, 0.5 steps. A few special users are added:

- users whose ratings are all equal;
- users whose ratings are all below 3, so they have no relevant item at threshold 3;
- a user whose listed items are all unrated (an empty condensed list for NDCG);
- a user whose listed rated items are all rated 0;
- a user whose relevant items are all unlisted;
- a user with one truth row.

Every user also has rated items that are not listed, and unrated items that are listed.
Every ratings value is a multiple of 0.5. The sums are therefore exact, so a user's mean
does not depend on how it is summed. See "Relevance" below.

What ClayRS does, read from its source (clayrs 0.5.1)
-----------------------------------------------------
Paths are relative to ``site-packages/clayrs/``. ``RM`` is
``evaluation/metrics/ranking_metrics.py`` and ``CM`` is
``evaluation/metrics/classification_metrics.py``.

- **List order is row order.** ``Ratings.from_dataframe``
  (``content_analyzer/ratings_manager/ratings.py``) keeps the frame's rows in order, and
  ``_user2rows = np.where(uir[:, 0] == user_idx)``. ``get_user_interactions`` returns those
  row indices, in order, and ``head=`` cuts them. No metric sorts by score: the ``score``
  column of a Rank is only read by Correlation. This is why ``pred.csv`` is sorted by score
  descending within each user, with distinct scores: rankeval orders by score, and the two
  orders then agree.
- **Same users in pred and truth.** ``metrics/metrics.py handler_different_users`` wraps
  every ``perform`` and raises ``ValueError("Predictions and truths must contain the same
  users!")`` unless the sets of user ids are equal. The loops iterate over the truth users
  and map them into pred with ``pred.user_map.convert_seq_str2int``. Here every user
  therefore has both a list and ratings. rankeval's ``missing_users`` handling is not
  exercised.
- **No duplicate (user, item) rows.** ClayRS matches items with ``npi.indices`` and
  ``np.intersect1d``. The second de-duplicates and the first does not, so duplicates would
  make its metrics inconsistent with one another. The dataset has no duplicates.
- **Relevance.** ``relevant_threshold=None`` becomes ``np.nanmean(user_truth_scores)`` over
  all of the user's truth rows (``CM`` l.74-76; ``RM`` MAP l.437-439, MRR l.283-285). An
  item is relevant iff ``score >= threshold``. An unrated listed item is never relevant. The
  mean is a float mean, with no exact-arithmetic correction. See the test module's
  docstring for the one consequence on data that is not a multiple of 0.5.
- **Users with no relevant item** (``m_u = 0``). This can only happen with threshold 3,
  because a user's mean never exceeds their maximum rating.
  - Precision, PrecisionAtK, RecallAtK (``CM`` ``ClassificationMetric.perform``
    l.83-89): the user's value is NaN ("not fault of the system"). The user is also left
    out of the micro confusion matrix. If every user is NaN, ``perform`` raises
    ``ValueError`` (l.98-99).
  - MAP, MAPAtK (``RM`` l.444-447): NaN.
  - MRR, MRRAtK (``RM`` l.290-293): NaN. It also raises if every user is NaN (l.298-299).
  - NDCG and NDCGAtK do not use relevance. A user's value is ``DCG(r[:k]) /
    DCG(sort(r)[::-1][:k])``, where ``r`` is the truth scores of the listed items that are
    in the truth, in list order (``RM`` l.140-152, 190-205). It is NaN when ``r`` is empty
    (``_dcg_score`` returns NaN, l.104-112), and ``0/0 = NaN`` when every score in ``r`` is
    0.
  - The system value of every metric is ``np.nanmean`` of the per-user values. NaN users
    are left out, not counted as 0 (``CM`` l.105, ``RM`` l.160, 301, 456).
- **Precision denominator.** Precision is ``tp / (tp + fp)``, where
  ``tp = |intersect1d(list, relevant)|`` and ``fp = len(list) - tp`` (``CM`` l.172-174). For
  PrecisionAtK, ``list`` is ``list[:k]`` (l.234-238). The denominator is the number of listed
  items within k, unrated ones included. It is not k: a 3-item list has P@5 = hits / 3.
  ``(tp + fp) and tp / (tp + fp) or 0`` would give 0 for an empty list, but the dataset
  has none.
- **Recall denominator.** RecallAtK is ``tp / (tp + fn)``, where ``fn = len(relevant) - tp``
  (``CM`` l.411-415). The denominator is ``m_u``, all of the user's relevant truth items,
  listed or not.
- **MAP denominator.** ``_compute_ap`` (``RM`` l.399-417) divides the sum of precisions at
  the relevant positions by ``len(user_truth_relevant_items)`` (``m_u``). MAPAtK cuts the
  list at k first (l.507-510), and still divides by ``m_u``.
- **MRR.** It is 1 / (position of the first relevant listed item), and 0 if no relevant
  item is listed (within k for MRRAtK) (``RM`` l.246-262, 351-361). ``MRR.perform`` returns
  only the ``sys`` row. The per-user values are therefore ClayRS's ``MRR(AtK).perform`` on
  one-user Splits (``Ratings.filter_ratings``), as in ``clayrs_real.per_user_mrr``. For a
  user with no relevant item, that one-user ``perform`` raises the "No user has a rating
  above the given threshold" ValueError (l.298-299) for the NaN of l.293. The script
  records NaN then, and checks that ``np.nanmean`` of the per-user values equals the
  ``sys`` value of the full Split.
- MAP's per-user column is named ``AP``, and its ``sys`` row is under ``str(metric)``
  (``RM`` l.449-461).
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.normpath(os.path.join(HERE, "..", "..", "..", "benchmarks"))
sys.path.insert(0, BENCH)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

SEED = 20240607
N_USERS = 40
THRESHOLDS = (None, 3)


# ---------------------------------------------------------------- data
def make_data(seed: int = SEED) -> tuple[pd.DataFrame, pd.DataFrame]:
    """pred (sorted by score descending within user) and truth, with no duplicate rows."""
    rng = np.random.default_rng(seed)
    catalog = np.array([f"item_{i}" for i in range(400)])  # ids of different lengths
    lengths = [3, 4, 5, 7, 9, 10, 12, 15, 20, 30, 30]
    pred_rows, truth_rows = [], []

    def add_user(uid, listed, rated):
        """listed: item ids in list order; rated: {item: rating}."""
        scores = np.sort(rng.choice(np.arange(1, 10_000), size=len(listed), replace=False))[::-1] / 100.0
        pred_rows.extend((uid, it, float(s)) for it, s in zip(listed, scores))
        order = rng.permutation(len(rated))  # truth row order is irrelevant: shuffle it
        items = list(rated)
        truth_rows.extend((uid, items[j], float(rated[items[j]])) for j in order)

    for u in range(N_USERS):
        uid = f"u{u}" if u % 3 else f"user-{u:03d}"  # string ids, different lengths
        n = lengths[u % len(lengths)] if u >= 8 else int(rng.choice(lengths))
        listed = list(rng.choice(catalog, size=n, replace=False))
        rest = [it for it in catalog if it not in set(listed)]
        # a share of the listed items is rated, plus 1-8 unlisted rated items
        judged = [it for it in listed if rng.random() < 0.65]
        unlisted = list(rng.choice(rest, size=int(rng.integers(1, 9)), replace=False))
        rated_items = judged + unlisted
        if u % 4 == 1:    # half-star ratings
            vals = rng.integers(1, 11, size=len(rated_items)) / 2.0
        else:             # integer ratings 1..5
            vals = rng.integers(1, 6, size=len(rated_items)).astype(float)
        if u in (5, 17):  # all ratings below 3: no relevant item at threshold 3
            vals = rng.choice([0.5, 1.0, 1.5, 2.0, 2.5], size=len(rated_items))
        if u in (9, 26):  # all ratings equal (integer / half-star)
            vals = np.full(len(rated_items), 4.0 if u == 9 else 2.5)
        add_user(uid, listed, dict(zip(rated_items, vals)))

    # special users
    # all listed items unrated: ClayRS's condensed NDCG list is empty
    listed = list(rng.choice(catalog[:200], size=6, replace=False))
    add_user("s_unjudged", listed, {it: v for it, v in zip(catalog[300:304], [5.0, 3.0, 1.5, 4.0])})
    # listed rated items are all rated 0 (NDCG 0/0), one unlisted item rated 4
    listed = list(catalog[200:208])
    add_user("s_zero", listed, {listed[1]: 0.0, listed[4]: 0.0, catalog[350]: 4.0})
    # relevant items exist but are all unlisted (AP 0, RR 0, recall 0); list of 30
    listed = list(catalog[100:130])
    add_user("s_missed", listed, {listed[0]: 1.0, listed[7]: 2.0, catalog[360]: 5.0, catalog[361]: 4.5})
    # one truth row, listed at position 2, rated 3.5 (all-equal, relevant at mean and at 3)
    listed = list(catalog[10:14])
    add_user("s_single", listed, {listed[1]: 3.5})
    # all ratings equal to 3 (relevant at the mean and at 3), short list
    listed = list(catalog[20:23])
    add_user("s_threes", listed, {listed[0]: 3.0, listed[2]: 3.0, catalog[370]: 3.0})

    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    # ClayRS ranks by row order: the rows must already be by score descending within user
    by_user = pred.groupby("user_id", sort=False)["score"]
    assert by_user.apply(lambda s: s.is_monotonic_decreasing and s.is_unique).all()
    assert not pred.duplicated(["user_id", "item_id"]).any()
    assert not truth.duplicated(["user_id", "item_id"]).any()
    assert set(pred.user_id) == set(truth.user_id)
    assert (truth.score * 2 == np.round(truth.score * 2)).all()  # multiples of 0.5: exact means
    return pred, truth


def summary(pred: pd.DataFrame, truth: pd.DataFrame) -> dict:
    lens = pred.groupby("user_id").size()
    merged = pred.merge(truth, on=["user_id", "item_id"], how="left", suffixes=("_pred", ""))
    mean = truth.groupby("user_id")["score"].mean()
    rel3 = truth[truth.score >= 3].groupby("user_id").size().reindex(mean.index, fill_value=0)
    return {
        "users": int(pred.user_id.nunique()), "pred_rows": len(pred), "truth_rows": len(truth),
        "list_lengths": {"min": int(lens.min()), "max": int(lens.max()), "lt_5": int((lens < 5).sum()),
                         "lt_10": int((lens < 10).sum()), "eq_30": int((lens == 30).sum())},
        "unrated_listed_rows": int(merged.score.isna().sum()),
        "rated_unlisted_rows": int(len(truth) - merged.score.notna().sum()),
        "non_integer_ratings": int((truth.score != np.floor(truth.score)).sum()),
        "users_all_equal_ratings": int((truth.groupby("user_id")["score"].nunique() == 1).sum()),
        "users_no_relevant_at_3": sorted(rel3[rel3 == 0].index.tolist()),
    }


# ---------------------------------------------------------------- ClayRS
def label(cls: str, k: int | None = None, threshold="absent") -> str:
    args = [] if k is None else [f"k={k}"]
    if threshold != "absent":
        args.append(f"relevant_threshold={threshold}")
    return f"{cls}({', '.join(args)})"


def clayrs_metrics(eva):
    """(label, ClayRS metric, per-user available) for every reference."""
    from clayrs.evaluation.metrics.error_metrics import MSE  # not exported by clayrs.evaluation
    from clayrs.evaluation.metrics.ranking_metrics import MAPAtK  # not exported by clayrs.evaluation
    out = [(label("NDCG"), eva.NDCG(), True),
           (label("NDCGAtK", 5), eva.NDCGAtK(5), True),
           (label("NDCGAtK", 10), eva.NDCGAtK(10), True)]
    for t in THRESHOLDS:
        out += [(label("Precision", None, t), eva.Precision(relevant_threshold=t), True),
                (label("PrecisionAtK", 5, t), eva.PrecisionAtK(5, relevant_threshold=t), True),
                (label("RecallAtK", 5, t), eva.RecallAtK(5, relevant_threshold=t), True),
                (label("MAP", None, t), eva.MAP(relevant_threshold=t), True),
                (label("MAPAtK", 5, t), MAPAtK(5, relevant_threshold=t), True),
                (label("MRR", None, t), eva.MRR(relevant_threshold=t), False),
                (label("MRRAtK", 5, t), eva.MRRAtK(5, relevant_threshold=t), False)]
    # the rest of the classification metrics, macro and micro, and the error metrics
    for t in THRESHOLDS:
        for avg in ("macro", "micro"):
            tag = "" if avg == "macro" else ", sys_average=micro"

            def lab(cls, k=None, extra=""):
                return label(cls, k, t)[:-1] + extra + tag + ")"

            if avg == "micro":
                out += [(lab("Precision"), eva.Precision(relevant_threshold=t, sys_average=avg), True),
                        (lab("PrecisionAtK", 5), eva.PrecisionAtK(5, relevant_threshold=t, sys_average=avg), True),
                        (lab("RecallAtK", 5), eva.RecallAtK(5, relevant_threshold=t, sys_average=avg), True)]
            out += [(lab("Recall"), eva.Recall(relevant_threshold=t, sys_average=avg), True),
                    (lab("FMeasure"), eva.FMeasure(relevant_threshold=t, sys_average=avg), True),
                    (lab("FMeasure", None, ", beta=2"), eva.FMeasure(beta=2, relevant_threshold=t, sys_average=avg),
                     True),
                    (lab("FMeasureAtK", 5), eva.FMeasureAtK(5, relevant_threshold=t, sys_average=avg), True),
                    (lab("RPrecision"), eva.RPrecision(relevant_threshold=t, sys_average=avg), True)]
    out += [(label("MAE"), eva.MAE(), True), (label("MSE"), MSE(), True), (label("RMSE"), eva.RMSE(), True)]
    return out


def one_user_values(metric, Split, pred_r, truth_r) -> dict[str, float]:
    """ClayRS's MRR / MRR@k per user: perform on one-user Splits (perform gives 'sys' only)."""
    out = {}
    for uid in truth_r.unique_user_id_column:
        sp = Split(pred_r.filter_ratings(pred_r.user_map.convert_seq_str2int([uid])),
                   truth_r.filter_ratings(truth_r.user_map.convert_seq_str2int([uid])))
        try:
            frame = metric.perform(sp)
        except ValueError as exc:  # ranking_metrics.py l.298-299: the only user's RR is NaN (l.293)
            if "No user has a rating above the given threshold" not in str(exc):
                raise
            out[str(uid)] = float("nan")
            continue
        assert list(frame.user_id) == ["sys"]
        out[str(uid)] = float(frame[str(metric)].iloc[0])
    return out


def main() -> None:
    import clayrs_real  # benchmarks/: the stand-in import hook for torch & co

    eva, Ratings, Rank, Split, ver, _stubs = clayrs_real.import_clayrs()
    pred, truth = make_data()
    pred.to_csv(os.path.join(HERE, "pred.csv"), index=False, float_format="%.17g")
    truth.to_csv(os.path.join(HERE, "truth.csv"), index=False, float_format="%.17g")
    # read back what was written, so ClayRS sees exactly what the test will read
    pred = pd.read_csv(os.path.join(HERE, "pred.csv"), dtype={"user_id": str, "item_id": str})
    truth = pd.read_csv(os.path.join(HERE, "truth.csv"), dtype={"user_id": str, "item_id": str})

    pred_r = Rank.from_dataframe(pred, user_column="user_id", item_column="item_id", score_column="score")
    truth_r = Ratings.from_dataframe(truth, user_column="user_id", item_column="item_id", score_column="score")

    per_user, system = [], []
    for name, metric, has_users in clayrs_metrics(eva):
        frame = metric.perform(Split(pred_r, truth_r))
        sys_value = float(frame.loc[frame.user_id == "sys", str(metric)].iloc[0])
        if has_users:
            users = frame[frame.user_id != "sys"]
            col = "AP" if isinstance(metric, eva.MAP) else str(metric)
            values = dict(zip(users.user_id.astype(str), users[col].astype(float)))
        else:
            values = one_user_values(metric, Split, pred_r, truth_r)
        assert set(values) == set(truth.user_id), name
        vals = np.array(list(values.values()), dtype=float)
        # ClayRS's system value is the NaN-excluding mean of its per-user values (micro: pooled)
        if "micro" not in name:
            assert abs(np.nanmean(vals) - sys_value) <= 1e-12, (name, np.nanmean(vals), sys_value)
        per_user += [(name, u, v) for u, v in values.items()]
        system.append((name, sys_value))
        print(f"{name:45s} sys {sys_value:.6f}  NaN users {int(np.isnan(vals).sum())}")

    if clayrs_real.STUB_USES:
        raise SystemExit(f"stand-in modules were used: {sorted(set(clayrs_real.STUB_USES))[:20]}")

    pd.DataFrame(per_user, columns=["metric", "user_id", "value"]).to_csv(
        os.path.join(HERE, "clayrs_per_user.csv"), index=False, float_format="%.17g")
    pd.DataFrame(system, columns=["metric", "value"]).to_csv(
        os.path.join(HERE, "clayrs_system.csv"), index=False, float_format="%.17g")
    info = {"clayrs": ver, "numpy": np.__version__, "pandas": pd.__version__,
            "python": sys.version.split()[0], "seed": SEED, "stand_in_uses": 0,
            "dataset": summary(pred, truth)}
    with open(os.path.join(HERE, "provenance.json"), "w") as fh:
        json.dump(info, fh, indent=1)
        fh.write("\n")
    print(json.dumps(info, indent=1))


if __name__ == "__main__":
    main()
