"""rankeval against its peers: the same work end to end, side by side, with the same answers.

What is measured
----------------
On the seeded synthetic sets of ``benchmarks/synthetic.py`` (100 recommendations and 20
ratings 1-5 per user, half of the rated items listed; ``pred`` grouped by user and sorted
by score; string ids unless ``--int-ids``), every contender goes from the two pandas
frames ``pred`` and ``truth`` to per-user NDCG@10, MAP@10 and MRR@10 plus their means.
Everything a user of the library would have to write is inside the timed call:

- **rankeval**: ``rk.Split(pred, truth, ties="item_id_desc")`` (trec_eval's tie order; the
  data have distinct scores anyway) and ``NDCGAtK(10)``, ``MAPAtK(10)``, ``MRRAtK(10)``
  with ``relevant_threshold=1`` and ``no_relevant="zero"`` (the peers' conventions, see
  ``docs/differences.md``), ``.perform(split)``: per-user frames and system means.
- **pytrec_eval** (trec_eval in C behind Python dicts): the dict-of-dicts inputs are built
  from the frames (users grouped with ``pd.factorize`` and one stable argsort, one
  ``dict(zip(...))`` per user, ids as ``str``, grades as ``int``), then
  ``RelevanceEvaluator(qrels, {"ndcg_cut_10", "map_cut_10"}, relevance_level=1)`` on the
  full run. trec_eval's ``recip_rank`` has no cutoff, so MRR@10 is ``recip_rank`` of a
  second evaluator on a run truncated to each user's top 10 rows (by score, cut from the
  frame: one lexsort; building that second dict is timed too).
- **pytrec_eval_top10**: the cheaper way to use trec_eval for @10 metrics: all three
  measures from one evaluator on the top-10 run only (NDCG@10 and MAP@10 read only the
  first 10 rows, their ideal and denominator come from the qrels, so the values are the
  same). Shown so that the comparison does not rest on pytrec_eval being used naively.
- **ranx** (numba): ``Qrels.from_df`` and ``Run.from_df`` (ranx requires object-dtype
  ids and int64 grades: for integer ids the id columns are converted with
  ``astype(str)``, and the grades with ``astype("int64")``, inside the timed call), then
  ``evaluate(qrels, run, ["ndcg@10", "map@10", "mrr@10"])``; per-user values from
  ``run.scores``. numba's first call in a process (loading ranx's compiled functions from
  its on-disk cache, or compiling them if the cache is empty) is timed apart: the first
  call of the child is reported separately and is not among the timed runs. Once per
  invocation, a child with an empty ``NUMBA_CACHE_DIR`` measures a cold compile. ranx runs
  its metrics on all cores (numba ``parallel``); the others use one.
- **ir_measures** (if installed): the frames renamed to its column names
  (``query_id``, ``doc_id``, ``relevance``/``score``; ids to ``str`` for integer ids,
  grades to ``int``), then ``ir_measures.iter_calc([nDCG@10, AP@10, RR@10], qrels, run)``
  collected into per-user values. (ir_measures dispatches nDCG@10 and AP@10 to
  pytrec_eval and RR@10 to its own ``msmarco`` provider.)
- **clayrs**: a re-implementation of ClayRS's per-user evaluation loop, in this process
  (ClayRS itself cannot share rankeval's environment: it needs pandas 1.5 and numpy 1.x;
  it is timed apart by ``benchmarks/clayrs_real.py`` in a venv of its own, and its
  timings, read from ``--clayrs-real``, are shown next to this run's). Per metric, as
  ClayRS's ``perform`` does, for each user of the truth: pandas slicing of the user's pred
  and truth rows, ``numpy_indexed.indices`` to find the listed items among the user's
  (relevant) truth items, then ClayRS's per-user formulas in numpy, and ``np.nanmean``
  for the system value. ClayRS's user-mean relevance threshold is replaced by the fixed
  threshold 1 to compute the same MAP@10 and MRR@10 as the others. The map from user to
  row positions (ClayRS's ``Ratings._user2rows``) is built once per call with a pandas
  groupby, which is linear in the rows; ClayRS itself builds it with one ``np.where``
  scan of the whole column per user (quadratic), and reads its input row by row in
  Python: the re-implementation is a lower estimate of ClayRS's time from 10,000 users on
  (at 1,000 users ClayRS's own ``perform`` path is about as fast). Above
  ``--clayrs-max-users`` users (default 10,000) the loop runs on the first
  ``--clayrs-max-users`` users only, and its time is extrapolated linearly to all users
  (the synthetic users all have the same shape; the work per user is constant).

Timing
------
Each peer runs in its own child process, together with rankeval: the child builds the
data, runs rankeval once (untimed; the first use of a string caches its hash), runs the
peer once (its *first call*, reported apart; its answers are checked against rankeval's,
see below), then ``reps`` rounds of peer and rankeval, alternating which goes first, each
run preceded by ``gc.collect()``. Reported: the median wall-clock time
(``time.perf_counter``) of each, the ratio peer / rankeval of those medians (both from the
same process), and the same ratio of the median CPU times (``time.process_time``; for
ranx this counts every thread). rankeval's line in the plot is the median of its runs in
all children of that size.

Agreement
---------
In each child the peer's per-user values (from its first call) are compared with
rankeval's on the same frames: same users, and ``|peer - rankeval| <= 1e-9`` for every
user. Where the definitions differ (ClayRS's NDCG: the list is cut at 10 *rated* items and
normalized by the listed items' own ratings re-sorted) the difference is reported, and the
peer is also compared with the rankeval metric that reproduces it
(``NDCGAtK(10, ideal="ranked", judged_only=True)``).

Memory
------
Peak extra memory of one call, in a fresh child per library and size (as
``benchmarks/bench_core.py`` does): the child builds the data, warms the code path on tiny
data (lazy imports, numba), starts ``tracemalloc`` and reports the peak traced bytes
during the call minus the traced bytes just before it. tracemalloc sees what goes through
Python's allocators (numpy, pandas, Python objects) but not trec_eval's C++ allocations
nor numba's native arrays, so the child also reports the growth of its peak resident
memory over the resident memory before the call (``VmHWM``, reset after the data are
built). For ClayRS above ``--clayrs-max-users`` users, memory is measured on the subset.

Usage
-----
    .venv/bin/python benchmarks/compare_peers.py                    # 1k, 10k, 100k users, string ids
    .venv/bin/python benchmarks/compare_peers.py --int-ids          # integer ids
    .venv/bin/python benchmarks/compare_peers.py --sizes 1000 10000 --reps 3 --libraries pytrec_eval ranx

Writes ``benchmarks/results/peers.md`` (``peers_int_ids.md`` with ``--int-ids``), a JSON file
with every run next to it and ``docs/img/peers.png`` (``peers_int_ids.png``), and updates the
marked section of ``docs/performance.md``
(``--no-docs`` to leave them alone). With ``--out FILE.md`` the JSON and the plot go next to
FILE and no docs page is touched.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import rankeval as rk  # noqa: E402
from bench_core import machine_info, traced_call, write_marked  # noqa: E402
from synthetic import make_data  # noqa: E402

K = 10
METRICS = (f"NDCG@{K}", f"MAP@{K}", f"MRR@{K}")
PEERS = ("pytrec_eval", "pytrec_eval_top10", "ranx", "ir_measures", "clayrs")
LIBRARIES = ("rankeval", *PEERS)
LABELS = {
    "rankeval": "rankeval",
    "pytrec_eval": "pytrec_eval",
    "pytrec_eval_top10": "pytrec_eval, top-10 run",
    "ranx": "ranx (warm)",
    "ir_measures": "ir_measures",
    "clayrs": "ClayRS-style loop (re-implemented)",
}
DEFAULT_SIZES = (1_000, 10_000, 100_000)
DOCS = (ROOT / "docs" / "performance.md",)
TOL = 1e-9
MB = 1e6

# per-user values and system mean of each metric, keyed by METRICS
Result = dict[str, tuple[pd.Series, float]]


# ---------------------------------------------------------------------------- contenders
def run_rankeval(pred: pd.DataFrame, truth: pd.DataFrame) -> Result:
    split = rk.Split(pred, truth, ties="item_id_desc")
    metrics = (rk.NDCGAtK(K, relevant_threshold=1, no_relevant="zero"),
               rk.MAPAtK(K, relevant_threshold=1, no_relevant="zero"),
               rk.MRRAtK(K, relevant_threshold=1, no_relevant="zero"))
    out = {}
    for name, metric in zip(METRICS, metrics):
        res = metric.perform(split)
        out[name] = (res.users.iloc[:, 0], float(res.system.iloc[0, 0]))
    return out


def _str_ids(values: np.ndarray) -> list[str]:
    return (values if values.dtype == object else values.astype(str)).tolist()


def frame_to_dicts(df: pd.DataFrame, grades: bool, top: int | None = None) -> dict[str, dict[str, Any]]:
    """``{user: {item: value}}`` as pytrec_eval takes it (str keys; int grades or float scores).

    With ``top``: each user's ``top`` rows of highest score only. Makes no assumption on
    the row order of ``df``.
    """
    codes, uniques = pd.factorize(df["user_id"].to_numpy())
    values = df["score"].to_numpy()
    if top is None:
        order = np.argsort(codes, kind="stable")
    else:
        order = np.lexsort((-values, codes))
    counts = np.bincount(codes, minlength=len(uniques))
    if top is not None:
        starts = np.cumsum(counts) - counts
        pos = np.arange(len(order)) - np.repeat(starts, counts)
        order = order[pos < top]
        counts = np.minimum(counts, top)
    ends = np.cumsum(counts).tolist()
    items = _str_ids(df["item_id"].to_numpy()[order])
    vals = (values[order].astype(np.int64) if grades else values[order]).tolist()
    out: dict[str, dict[str, Any]] = {}
    a = 0
    for name, b in zip(_str_ids(np.asarray(uniques)), ends):
        out[name] = dict(zip(items[a:b], vals[a:b]))
        a = b
    return out


def _from_nested(res: dict[str, dict[str, float]], pairs: tuple[tuple[str, str], ...]) -> Result:
    users = list(res)
    out = {}
    for name, measure in pairs:
        values = np.fromiter((res[u][measure] for u in users), dtype=np.float64, count=len(users))
        out[name] = (pd.Series(values, index=users, name=name), float(values.mean()))
    return out


def run_pytrec_eval(pred: pd.DataFrame, truth: pd.DataFrame) -> Result:
    import pytrec_eval

    qrels = frame_to_dicts(truth, grades=True)
    run = frame_to_dicts(pred, grades=False)
    run_top = frame_to_dicts(pred, grades=False, top=K)  # trec_eval's recip_rank has no cutoff
    res = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut_{K}", f"map_cut_{K}"}, relevance_level=1).evaluate(run)
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, relevance_level=1).evaluate(run_top)
    out = _from_nested(res, ((METRICS[0], f"ndcg_cut_{K}"), (METRICS[1], f"map_cut_{K}")))
    out.update(_from_nested(rr, ((METRICS[2], "recip_rank"),)))
    return out


def run_pytrec_eval_top10(pred: pd.DataFrame, truth: pd.DataFrame) -> Result:
    import pytrec_eval

    qrels = frame_to_dicts(truth, grades=True)
    run_top = frame_to_dicts(pred, grades=False, top=K)
    res = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut_{K}", f"map_cut_{K}", "recip_rank"},
                                         relevance_level=1).evaluate(run_top)
    return _from_nested(res, ((METRICS[0], f"ndcg_cut_{K}"), (METRICS[1], f"map_cut_{K}"),
                              (METRICS[2], "recip_rank")))


def run_ranx(pred: pd.DataFrame, truth: pd.DataFrame) -> Result:
    from ranx import Qrels, Run, evaluate

    # ranx takes object columns only: on pandas 3, astype(str) gives the `str` dtype, hence object after it
    if pred["user_id"].dtype != object or pred["item_id"].dtype != object:
        pred = pred.astype({"user_id": str, "item_id": str}).astype({"user_id": object, "item_id": object})
    if truth["user_id"].dtype != object or truth["item_id"].dtype != object:
        truth = truth.astype({"user_id": str, "item_id": str}).astype({"user_id": object, "item_id": object})
    truth = truth.astype({"score": np.int64})  # ranx: int grades
    qrels = Qrels.from_df(truth, q_id_col="user_id", doc_id_col="item_id", score_col="score")
    run = Run.from_df(pred, q_id_col="user_id", doc_id_col="item_id", score_col="score")
    names = {METRICS[0]: f"ndcg@{K}", METRICS[1]: f"map@{K}", METRICS[2]: f"mrr@{K}"}
    means = evaluate(qrels, run, list(names.values()))
    return {m: (pd.Series(run.scores[r], name=m, dtype=np.float64), float(means[r])) for m, r in names.items()}


def run_ir_measures(pred: pd.DataFrame, truth: pd.DataFrame) -> Result:
    import ir_measures
    from ir_measures import AP, RR, nDCG

    qrels = truth.rename(columns={"user_id": "query_id", "item_id": "doc_id", "score": "relevance"})
    run = pred.rename(columns={"user_id": "query_id", "item_id": "doc_id"})
    types: dict[str, Any] = {"relevance": np.int64}
    if qrels["query_id"].dtype != object or qrels["doc_id"].dtype != object:
        types.update(query_id=str, doc_id=str)
    qrels = qrels.astype(types)
    if run["query_id"].dtype != object or run["doc_id"].dtype != object:
        run = run.astype({"query_id": str, "doc_id": str})
    measures = {nDCG @ K: METRICS[0], AP(rel=1) @ K: METRICS[1], RR(rel=1) @ K: METRICS[2]}
    values: dict[str, dict[str, float]] = {m: {} for m in METRICS}
    for row in ir_measures.iter_calc(list(measures), qrels, run):
        values[measures[row.measure]][row.query_id] = row.value
    out = {}
    for m in METRICS:
        s = pd.Series(values[m], name=m, dtype=np.float64)
        out[m] = (s, float(s.mean()))
    return out


# ClayRS's per-user loop, re-implemented (see the module docstring): one loop over the
# users per metric, as each ClayRS metric's ``perform`` does.
def _clayrs_dcg(r: np.ndarray) -> float:
    if len(r) == 0:
        return np.nan
    return float(np.sum(r / np.log2(np.arange(2, len(r) + 2))))  # linear gains, log2 discount


def _clayrs_ndcg_at_k(items: np.ndarray, t_items: np.ndarray, t_scores: np.ndarray, k: int) -> float:
    import numpy_indexed as npi

    idx = npi.indices(t_items, items, missing=-1)
    r = t_scores[idx[idx != -1]]  # truth scores of the rated listed items, in list order
    return _clayrs_dcg(r[:k]) / _clayrs_dcg(np.sort(r)[::-1][:k])


def _clayrs_relevant(t_items: np.ndarray, t_scores: np.ndarray, threshold: float) -> np.ndarray:
    return t_items[np.where(t_scores >= threshold)]  # ClayRS: threshold = the user's mean rating


def _clayrs_ap_at_k(items: np.ndarray, relevant: np.ndarray, k: int) -> float:
    import numpy_indexed as npi

    if len(relevant) == 0:
        return np.nan
    common = npi.indices(relevant, items[:k], missing=-1)
    hits = np.where(common != -1)[0]
    precision = np.arange(1, len(hits) + 1) / (hits + 1)
    return float((1 / len(relevant)) * np.sum(precision))


def _clayrs_rr_at_k(items: np.ndarray, relevant: np.ndarray, k: int) -> float:
    import numpy_indexed as npi

    if len(relevant) == 0:
        return np.nan
    common = npi.indices(relevant, items[:k], missing=-1)
    hits = np.where(common != -1)[0]
    return 1 / (hits[0] + 1) if len(hits) else 0.0


def run_clayrs(pred: pd.DataFrame, truth: pd.DataFrame, threshold: float = 1.0) -> Result:
    # ClayRS's Ratings objects: user -> row positions (ClayRS: one np.where scan per user)
    pred_rows = pred.groupby("user_id", sort=False).indices
    truth_rows = truth.groupby("user_id", sort=False).indices
    users = pd.unique(truth["user_id"].to_numpy())
    if not np.array_equal(pd.unique(pred["user_id"].to_numpy()), users):  # ClayRS's handler_different_users
        raise ValueError("Predictions and truths must contain the same users!")

    def loop(per_user: Callable[[pd.DataFrame, pd.DataFrame], float], name: str) -> tuple[pd.Series, float]:
        values = []
        for user in users:
            user_pred = pred.iloc[pred_rows[user]]
            user_truth = truth.iloc[truth_rows[user]]
            values.append(per_user(user_pred, user_truth))
        s = pd.Series(values, index=users, name=name, dtype=np.float64)
        return s, float(np.nanmean(s.to_numpy()))

    def ndcg(p: pd.DataFrame, t: pd.DataFrame) -> float:
        return _clayrs_ndcg_at_k(p["item_id"].to_numpy(), t["item_id"].to_numpy(), t["score"].to_numpy(), K)

    def ap(p: pd.DataFrame, t: pd.DataFrame) -> float:
        relevant = _clayrs_relevant(t["item_id"].to_numpy(), t["score"].to_numpy(), threshold)
        return _clayrs_ap_at_k(p["item_id"].to_numpy(), relevant, K)

    def rr(p: pd.DataFrame, t: pd.DataFrame) -> float:
        relevant = _clayrs_relevant(t["item_id"].to_numpy(), t["score"].to_numpy(), threshold)
        return _clayrs_rr_at_k(p["item_id"].to_numpy(), relevant, K)

    return {METRICS[0]: loop(ndcg, METRICS[0]), METRICS[1]: loop(ap, METRICS[1]), METRICS[2]: loop(rr, METRICS[2])}


RUNNERS: dict[str, Callable[[pd.DataFrame, pd.DataFrame], Result]] = {
    "rankeval": run_rankeval,
    "pytrec_eval": run_pytrec_eval,
    "pytrec_eval_top10": run_pytrec_eval_top10,
    "ranx": run_ranx,
    "ir_measures": run_ir_measures,
    "clayrs": run_clayrs,
}


def available(lib: str) -> str | None:
    """None if the library can run, else why not."""
    module = {"pytrec_eval": "pytrec_eval", "pytrec_eval_top10": "pytrec_eval", "ranx": "ranx",
              "ir_measures": "ir_measures", "clayrs": "numpy_indexed"}.get(lib)
    if module is None:
        return None
    try:
        __import__(module)
    except ImportError as exc:
        return f"not installed ({exc})"
    return None


# ---------------------------------------------------------------------------- agreement
def _agree(peer: pd.Series, ref: pd.Series) -> dict[str, Any]:
    peer = peer.set_axis(peer.index.astype(str))
    ref = ref.set_axis(ref.index.astype(str))
    common = peer.index.intersection(ref.index)
    a = peer.loc[common].to_numpy(dtype=np.float64)
    b = ref.loc[common].to_numpy(dtype=np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    diff = np.where(both_nan, 0.0, np.abs(a - b))
    diff = np.where(np.isnan(diff), np.inf, diff)  # NaN on one side only: a disagreement
    return {
        "users_peer": int(len(peer)), "users_rankeval": int(len(ref)), "users_common": int(len(common)),
        "max_abs_diff": float(diff.max()) if len(diff) else 0.0,
        "users_differing": int(np.count_nonzero(diff > TOL)),
        "agree": bool(len(common) == len(peer) == len(ref) and (diff <= TOL).all()),
    }


def agreement(lib: str, peer: Result, pred: pd.DataFrame, truth: pd.DataFrame, ref: Result) -> dict[str, Any]:
    out: dict[str, Any] = {m: _agree(peer[m][0], ref[m][0]) for m in METRICS}
    for m in METRICS:
        out[m]["mean_peer"] = peer[m][1]
        out[m]["mean_rankeval"] = ref[m][1]
    if lib == "clayrs":
        # ClayRS's NDCG is another definition: compare it with the rankeval metric that reproduces it
        split = rk.Split(pred, truth, ties="item_id_desc")
        alt = rk.NDCGAtK(K, ideal="ranked", judged_only=True).perform(split).users.iloc[:, 0]
        out[METRICS[0]]["reproduced_by"] = 'NDCGAtK(10, ideal="ranked", judged_only=True)'
        out[METRICS[0]]["vs_reproducing_metric"] = _agree(peer[METRICS[0]][0], alt)
    return out


# ---------------------------------------------------------------------------- children
def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    result = fn()
    w, c = time.perf_counter() - w, time.process_time() - c
    del result
    return w, c


def _subset(pred: pd.DataFrame, truth: pd.DataFrame, n: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    keep = pd.unique(pred["user_id"].to_numpy())[:n]
    return (pred[pred["user_id"].isin(keep)].reset_index(drop=True),
            truth[truth["user_id"].isin(keep)].reset_index(drop=True))


def time_child(lib: str, n_users: int, reps: int, str_ids: bool, clayrs_max: int) -> dict[str, Any]:
    load_start = os.getloadavg()
    pred, truth = make_data(n_users, str_ids=str_ids)
    p_pred, p_truth, scale = pred, truth, 1.0
    if lib == "clayrs" and n_users > clayrs_max:
        p_pred, p_truth = _subset(pred, truth, clayrs_max)
        scale = n_users / clayrs_max
    peer_users = int(p_truth["user_id"].nunique())

    with warnings.catch_warnings():
        warnings.simplefilter("error", rk.RankevalWarning)  # the synthetic data must not trigger any
        ref = run_rankeval(pred, truth)  # untimed warm-up (string hashes, lazy imports)
    log(f"[{lib} {n_users:,}] first call")
    first_w, first_c = time.perf_counter(), time.process_time()
    peer = RUNNERS[lib](p_pred, p_truth)
    first_w, first_c = time.perf_counter() - first_w, time.process_time() - first_c
    if lib == "rankeval":
        agree = None
    else:
        sub_ref = ref if p_pred is pred else run_rankeval(p_pred, p_truth)
        agree = agreement(lib, peer, p_pred, p_truth, sub_ref)
        del sub_ref
    del peer, ref

    runs: dict[str, list[float]] = {"peer_wall": [], "peer_cpu": [], "rk_wall": [], "rk_cpu": []}
    for rep in range(reps):
        order = ("peer", "rk") if rep % 2 == 0 else ("rk", "peer")
        for who in order:
            if who == "peer":
                w, c = _timed(lambda: RUNNERS[lib](p_pred, p_truth))
            else:
                w, c = _timed(lambda: run_rankeval(pred, truth))
            runs[f"{who}_wall"].append(w)
            runs[f"{who}_cpu"].append(c)
        log(f"[{lib} {n_users:,}] rep {rep + 1}/{reps}: {lib} {runs['peer_wall'][-1]:.3f} s"
            + (f" ({peer_users:,} users)" if scale != 1 else "") + f", rankeval {runs['rk_wall'][-1]:.3f} s")
    med = {key: statistics.median(v) for key, v in runs.items()}
    peer_wall, peer_cpu = med["peer_wall"] * scale, med["peer_cpu"] * scale
    return {
        "library": lib, "n_users": n_users, "pred_rows": len(pred), "truth_rows": len(truth), "reps": reps,
        "peer_users": peer_users, "extrapolated": scale != 1, "scale": scale,
        "first_call_wall": first_w, "first_call_cpu": first_c,
        "runs": runs, "median": med,
        "peer_wall": peer_wall, "peer_cpu": peer_cpu,  # extrapolated to all users where scale != 1
        "ratio_wall": peer_wall / med["rk_wall"], "ratio_cpu": peer_cpu / med["rk_cpu"],
        "warmup_wall": first_w - med["peer_wall"],
        "agreement": agree, "load_start": load_start, "load_end": os.getloadavg(),
    }


def memory_child(lib: str, n_users: int, str_ids: bool, clayrs_max: int) -> dict[str, Any]:
    fn = RUNNERS[lib]
    tiny_pred, tiny_truth = make_data(50, str_ids=str_ids)
    fn(tiny_pred, tiny_truth)  # lazy imports, numba, one-off caches are not the call's memory
    del tiny_pred, tiny_truth
    pred, truth = make_data(n_users, str_ids=str_ids)
    subset = lib == "clayrs" and n_users > clayrs_max
    if subset:
        pred, truth = _subset(pred, truth, clayrs_max)
    m = traced_call(fn, pred, truth)
    rss_before, hwm, rss_reset = m["rss_before_kb"], m["hwm_kb"], m["rss_reset"]
    return {
        "library": lib, "n_users": n_users, "subset_users": clayrs_max if subset else None,
        "peak_extra_bytes": m["peak_extra_bytes"],
        "rss_before_bytes": None if rss_before is None else rss_before * 1024,
        "peak_rss_bytes": None if hwm is None else hwm * 1024,
        "rss_growth_bytes": None if hwm is None or rss_before is None or not rss_reset else (hwm - rss_before) * 1024,
        "peak_rss_reset_after_data": rss_reset,
    }


def cold_jit_child() -> dict[str, Any]:
    """ranx's first call with numba's cache directory empty (run with NUMBA_CACHE_DIR set)."""
    pred, truth = make_data(100)
    w = time.perf_counter()
    run_ranx(pred, truth)
    first = time.perf_counter() - w
    w = time.perf_counter()
    run_ranx(pred, truth)
    second = time.perf_counter() - w
    return {"first_call_wall": first, "second_call_wall": second, "n_users": 100}


def _child(args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False, env=env)  # stderr: progress
    if proc.returncode != 0:
        raise RuntimeError(f"child {' '.join(args)} failed with code {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- report
def _fmt_s(x: float) -> str:
    return f"{x:.4f}" if x < 0.1 else f"{x:.3f}" if x < 10 else f"{x:.1f}" if x < 1000 else f"{x:,.0f}"


def _fmt_mb(x: float | None) -> str:
    return "n/a" if x is None else f"{x / MB:,.0f}" if x >= 10 * MB else f"{x / MB:,.1f}"


def _fmt_ratio(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:,.0f}"


def rankeval_median(timing: dict[int, dict[str, dict[str, Any]]], n: int) -> tuple[float, int]:
    walls = [w for t in timing.get(n, {}).values() for w in t["runs"]["rk_wall"]]
    return (statistics.median(walls) if walls else float("nan")), len(walls)


# ---------------------------------------------------------------------------- ClayRS itself
CLAYRS_REAL = HERE / "results" / "clayrs_real.json"


def clayrs_real_times(path: Path | None) -> dict[str, Any] | None:
    """Medians of the real ClayRS runs (``benchmarks/clayrs_real.py``, its own venv), per size and path.

    ``evalmodel``: Ratings/Rank built from the frames + ``EvalModel.fit()`` (the documented way);
    ``perform``: the same objects + each metric's ``perform``. Sizes not measured get a power
    law through the two largest measured sizes (ClayRS's time grows faster than linearly).
    """
    if path is None or not path.exists():
        return None
    data = json.loads(path.read_text())
    measured: dict[str, dict[int, float]] = {"evalmodel": {}, "perform": {}}
    for size in data["sizes"]:
        build = statistics.median(r["build"] for r in size["runs"])
        for how in measured:
            measured[how][size["users"]] = build + statistics.median(r[how] for r in size["runs"])
    fits = {}
    for how, times in measured.items():
        (n1, t1), (n2, t2) = sorted(times.items())[-2:]
        exponent = math.log(t2 / t1) / math.log(n2 / n1)
        fits[how] = (n2, t2, exponent)
    runs = {size["users"]: len(size["runs"]) for size in data["sizes"]}
    return {"measured": measured, "fits": fits, "runs": runs, "clayrs": data.get("clayrs"),
            "pandas": data.get("pandas"), "numpy": data.get("numpy")}


def clayrs_real_at(real: dict[str, Any], how: str, n: int) -> tuple[float, bool]:
    """ClayRS's time at ``n`` users, and whether it is extrapolated."""
    if n in real["measured"][how]:
        return real["measured"][how][n], False
    n2, t2, exponent = real["fits"][how]
    return t2 * (n / n2) ** exponent, True


def render_clayrs_real(real: dict[str, Any], timing: dict[int, dict[str, dict[str, Any]]]) -> list[str]:
    sizes = sorted(set(real["measured"]["evalmodel"]) | set(timing))
    lines = [
        f"ClayRS itself (clayrs {real['clayrs']} with pandas {real['pandas']} and numpy {real['numpy']}, in its own "
        "venv: `benchmarks/clayrs_real.py`, whose docstring has the set-up; results "
        "`benchmarks/results/clayrs_real.md`). From the two frames: `Ratings`/`Rank.from_dataframe` then "
        "`EvalModel(...).fit()` (the documented way), or the same objects and each metric's `perform`. Its "
        "time grows faster than linearly (each `Ratings` builds its user index with one scan of the user column "
        "per user, and `EvalModel` rebuilds it for every metric), so sizes not run are extrapolated with the "
        "power law through the two largest sizes run (exponent "
        + ", ".join(f"{how} {real['fits'][how][2]:.2f}" for how in ("evalmodel", "perform"))
        + "). rankeval's time is the median of this benchmark's runs at that size (another process):",
        "",
        "| users | ClayRS, EvalModel (s) | ClayRS, perform (s) | rankeval (s) | x rankeval (EvalModel) "
        "| x rankeval (perform) | ClayRS runs |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in sizes:
        cells = []
        for how in ("evalmodel", "perform"):
            t, extrapolated = clayrs_real_at(real, how, n)
            cells.append((t, extrapolated))
        rk_time = rankeval_median(timing, n)[0]
        shown = [f"{_fmt_s(t)}" + (" (extrapolated)" if x else "") for t, x in cells]
        ratios = [_fmt_ratio(t / rk_time) if not math.isnan(rk_time) else "" for t, _ in cells]
        rk_cell = "" if math.isnan(rk_time) else _fmt_s(rk_time)
        lines.append(f"| {n:,} | {shown[0]} | {shown[1]} | {rk_cell} | {ratios[0]} | {ratios[1]} | "
                     f"{real['runs'].get(n, 0)} |")
    lines.append("")
    return lines


def render(info: dict[str, Any], timing: dict[int, dict[str, dict[str, Any]]],
           memory: dict[int, dict[str, dict[str, Any]]], skipped: dict[str, str], cold_jit: dict[str, Any] | None,
           str_ids: bool, clayrs_max: int, command: str, plot: str | None,
           clayrs_real: dict[str, Any] | None = None) -> str:
    ids = "string ids (`u0000042`, `i012345`)" if str_ids else "integer ids"
    ram = "n/a" if info["ram_bytes"] is None else f"{info['ram_bytes'] / 2**30:.1f} GiB"
    peers_run = [lib for lib in PEERS if any(lib in t for t in timing.values())]
    lines = [
        f"Machine: {info['cpu']}, {info['cores']} cores, {ram} RAM; {info['os']}; "
        f"Python {info['python']}, numpy {info['numpy']}, pandas {info['pandas']}, "
        f"rankeval {info['rankeval']} ({info['commit']}); {', '.join(info['peer_versions'])}.",
        f"Run {info['date']}; load average (1, 5, 15 min) at start "
        f"{', '.join(f'{x:.2f}' for x in info['load_start'])}, at end "
        f"{', '.join(f'{x:.2f}' for x in info['load_end'])}.",
        f"Data: `benchmarks/synthetic.py`, {ids}, 100 recommendations and 20 ratings per user.",
        f"Command: `{command}`",
        "",
        "Time from the two pandas frames to per-user NDCG@10, MAP@10, MRR@10 and their means "
        "(seconds, median of the runs). Each peer runs in its own process, alternating with rankeval; "
        "`x rankeval` = peer / rankeval, both medians from that process:",
        "",
        "| users | library | time (s) | rankeval, same process (s) | x rankeval | x rankeval (CPU time) "
        "| first call (s) | runs |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    notes: list[str] = []
    for n in sorted(timing):
        rk_med, rk_runs = rankeval_median(timing, n)
        lines.append(f"| {n:,} | **rankeval** | **{_fmt_s(rk_med)}** | | | | | {rk_runs} |")
        for lib in PEERS:
            t = timing[n].get(lib)
            if t is None:
                continue
            name = LABELS[lib]
            time_cell = _fmt_s(t["peer_wall"])
            if t["extrapolated"]:
                time_cell = (f"{time_cell} (extrapolated: {_fmt_s(t['median']['peer_wall'])} s "
                             f"for {t['peer_users']:,} users)")
            first = _fmt_s(t["first_call_wall"] * t["scale"]) if t["extrapolated"] else _fmt_s(t["first_call_wall"])
            lines.append(f"| {n:,} | {name} | {time_cell} | {_fmt_s(t['median']['rk_wall'])} | "
                         f"{_fmt_ratio(t['ratio_wall'])} | {_fmt_ratio(t['ratio_cpu'])} | {first} | {t['reps']} |")
    lines.append("")
    if "ranx" in peers_run:
        warm = ", ".join(f"{_fmt_s(timing[n]['ranx']['warmup_wall'])} s at {n:,} users"
                         for n in sorted(timing) if "ranx" in timing[n])
        lines.append(f"ranx's numba warm-up (first call in a fresh process minus the median warm call, numba "
                     f"cache on disk as after any earlier use): {warm}."
                     + (f" With an empty numba cache (first use after installing ranx), the first call on "
                        f"100 users takes {_fmt_s(cold_jit['first_call_wall'])} s (then "
                        f"{_fmt_s(cold_jit['second_call_wall'])} s)." if cold_jit else "")
                     + " ranx's times above are warm calls; its metrics use every core (numba `parallel`), "
                       "the others one.")
        lines.append("")
    if "clayrs" in peers_run:
        lines.append(f"ClayRS-style loop: a re-implementation of ClayRS's per-user loop (see the method); above "
                     f"{clayrs_max:,} users it runs on the first {clayrs_max:,} users and its time is "
                     f"extrapolated linearly to all users.")
        lines.append("")
    if clayrs_real is not None and str_ids:
        lines += render_clayrs_real(clayrs_real, timing)
    if "pytrec_eval" in peers_run or "pytrec_eval_top10" in peers_run:
        lines.append("pytrec_eval: NDCG@10 and MAP@10 (`ndcg_cut_10`, `map_cut_10`) on the full run, MRR@10 as "
                     "`recip_rank` of a second evaluator on a run truncated to each user's top 10 rows "
                     "(trec_eval's `recip_rank` has no cutoff); building the dict inputs from the frames is "
                     "timed. `pytrec_eval, top-10 run`: all three from one evaluator on the top-10 run "
                     "(same values, less work).")
        lines.append("")
    for lib, why in skipped.items():
        lines.append(f"{LABELS[lib]}: not run, {why}.")
    if skipped:
        lines.append("")

    if memory:
        lines += [
            "Memory of one call (MB = 10^6 bytes; fresh process per cell): traced = peak bytes traced by "
            "`tracemalloc` during the call minus those before it (numpy, pandas and Python objects; not "
            "trec_eval's C++ nor numba's native allocations); RSS = growth of the peak resident memory over "
            "the resident memory before the call:",
            "",
            "| users | library | peak extra, traced | peak RSS growth | RSS before call |",
            "|---:|---|---:|---:|---:|",
        ]
        for n in sorted(memory):
            for lib in LIBRARIES:
                m = memory[n].get(lib)
                if m is None:
                    continue
                name = f"**{LABELS[lib]}**" if lib == "rankeval" else LABELS[lib]
                if m.get("subset_users"):
                    name += f" ({m['subset_users']:,} users)"
                lines.append(f"| {n:,} | {name} | {_fmt_mb(m['peak_extra_bytes'])} | "
                             f"{_fmt_mb(m['rss_growth_bytes'])} | {_fmt_mb(m['rss_before_bytes'])} |")
        lines.append("")

    if not peers_run:
        return "\n".join(lines).rstrip("\n") + "\n"
    lines += [
        "Agreement of the per-user values with rankeval's (`NDCGAtK(10)`, `MAPAtK(10, relevant_threshold=1)`, "
        f"`MRRAtK(10, relevant_threshold=1)`, `no_relevant=\"zero\"`), tolerance {TOL:g}, over every size run:",
        "",
        "| library | metric | users compared | max abs difference | users differing | agree |",
        "|---|---|---:|---:|---:|---|",
    ]
    for lib in peers_run:
        for m in METRICS:
            cells = [t[lib]["agreement"][m] for t in timing.values() if lib in t]
            users = sum(c["users_common"] for c in cells)
            maxdiff = max(c["max_abs_diff"] for c in cells)
            ndiff = sum(c["users_differing"] for c in cells)
            ok = all(c["agree"] for c in cells)
            verdict = "yes" if ok else "**no**"
            if not ok and lib == "clayrs" and m == METRICS[0]:
                alt = [c["vs_reproducing_metric"] for c in cells]
                alt_ok = all(a["agree"] for a in alt)
                alt_max = max(a["max_abs_diff"] for a in alt)
                verdict += (f": another definition; {'agrees' if alt_ok else 'does NOT agree'} with "
                            f"`NDCGAtK(10, ideal=\"ranked\", judged_only=True)` (max abs difference {alt_max:.1e})")
                notes.append("ClayRS's NDCG@10 drops the unrated listed items before cutting at 10, and its "
                             "ideal list is the listed items' own ratings re-sorted, while trec_eval, ranx, "
                             "ir_measures and rankeval's default cut the list at 10 positions (unrated items "
                             "gain 0) and take the ideal from all the user's ratings.")
            lines.append(f"| {LABELS[lib]} | {m} | {users:,} | {maxdiff:.1e} | {ndiff:,} | {verdict} |")
    lines.append("")
    lines += notes
    if notes:
        lines.append("")
    if plot:
        lines.append(f"Plot: `{plot}`.")
    return "\n".join(lines).rstrip("\n") + "\n"


def make_plot(timing: dict[int, dict[str, dict[str, Any]]], path: Path, str_ids: bool,
              clayrs_real: dict[str, Any] | None = None) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib not installed: no plot")
        return False
    sizes = sorted(timing)
    fig, ax = plt.subplots(figsize=(7, 4.8))
    colors = {"rankeval": "C3", "pytrec_eval": "C0", "pytrec_eval_top10": "C9", "ranx": "C2",
              "ir_measures": "C4", "clayrs": "C1"}
    xs = [n for n in sizes if not np.isnan(rankeval_median(timing, n)[0])]
    ax.plot(xs, [rankeval_median(timing, n)[0] for n in xs], "o-", color=colors["rankeval"], lw=2.5,
            label="rankeval")
    for lib in PEERS:
        pts = [(n, timing[n][lib]) for n in sizes if lib in timing[n]]
        if not pts:
            continue
        ax.plot([n for n, _ in pts], [t["peer_wall"] for _, t in pts], "-", color=colors[lib], label=LABELS[lib])
        for n, t in pts:
            ax.plot([n], [t["peer_wall"]], "o", color=colors[lib], mfc="white" if t["extrapolated"] else colors[lib])
        if lib == "ranx":
            ax.plot([n for n, _ in pts], [t["first_call_wall"] for _, t in pts], ":", color=colors[lib],
                    label="ranx (first call in a process)")
    if clayrs_real is not None and str_ids:
        xs = sorted(set(clayrs_real["measured"]["evalmodel"]) | set(sizes))
        pts = [(n, *clayrs_real_at(clayrs_real, "evalmodel", n)) for n in xs]
        ax.plot([n for n, _, _ in pts], [t for _, t, _ in pts], "--", color="C5", label="ClayRS 0.5.1 itself (EvalModel)")
        for n, t, extrapolated in pts:
            ax.plot([n], [t], "s", color="C5", mfc="white" if extrapolated else "C5")
    if any(t.get("extrapolated") for s in timing.values() for t in s.values()) or clayrs_real is not None:
        ax.plot([], [], "o", color="grey", mfc="white", label="extrapolated (hollow markers)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("users (100 recommendations, 20 ratings each)")
    ax.set_ylabel("seconds, frames to NDCG@10 + MAP@10 + MRR@10")
    ax.set_title("End-to-end evaluation time, " + ("string ids" if str_ids else "integer ids"))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def update_docs(block: str, str_ids: bool) -> list[Path]:
    tag = "compare_peers" if str_ids else "compare_peers_int_ids"
    return [doc for doc in DOCS if write_marked(doc, tag, block)]


def peer_versions() -> list[str]:
    from importlib import metadata

    out = []
    for dist in ("pytrec-eval-terrier", "ranx", "numba", "ir-measures", "numpy-indexed"):
        try:
            out.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    return out


def _shown_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES), help="numbers of users")
    ap.add_argument("--reps", type=int, default=None,
                    help="timed rounds per library and size (default: 5, 3 from 100k users)")
    ap.add_argument("--libraries", nargs="+", choices=LIBRARIES, default=list(LIBRARIES),
                    help="contenders (rankeval runs in every peer's process anyway)")
    ap.add_argument("--int-ids", action="store_true", help="integer instead of string ids")
    ap.add_argument("--clayrs-max-users", type=int, default=10_000,
                    help="above this many users, run the ClayRS-style loop on that many and extrapolate")
    ap.add_argument("--clayrs-real", type=Path, default=CLAYRS_REAL,
                    help="timings of the real ClayRS from benchmarks/clayrs_real.py (shown with this run's "
                         "rankeval times; default %(default)s if it exists)")
    ap.add_argument("--skip-memory", action="store_true", help="time only")
    ap.add_argument("--skip-cold-jit", action="store_true", help="do not measure ranx with an empty numba cache")
    ap.add_argument("--no-docs", action="store_true", help="do not update the marked section of the docs")
    ap.add_argument("--out", type=Path, default=None,
                    help="markdown output (default benchmarks/results/peers.md, peers_int_ids.md with --int-ids)")
    ap.add_argument("--child", choices=("time", "memory", "cold-jit"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    str_ids = not args.int_ids
    warnings.filterwarnings("ignore", message="unsafe cast")  # ranx's numba code, harmless here

    if args.child:
        lib, n = args.libraries[0], args.sizes[0]
        if args.child == "time":
            out = time_child(lib, n, args.reps or 5, str_ids, args.clayrs_max_users)
        elif args.child == "memory":
            out = memory_child(lib, n, str_ids, args.clayrs_max_users)
        else:
            out = cold_jit_child()
        print(json.dumps(out, default=float))
        return

    info = machine_info()
    info["peer_versions"] = peer_versions()
    skipped = {lib: why for lib in args.libraries if (why := available(lib))}
    peers = [lib for lib in PEERS if lib in args.libraries and lib not in skipped]
    for lib, why in skipped.items():
        log(f"skipping {lib}: {why}")
    id_flag = [] if str_ids else ["--int-ids"]
    common = [*id_flag, "--clayrs-max-users", str(args.clayrs_max_users)]

    timing: dict[int, dict[str, dict[str, Any]]] = {}
    memory: dict[int, dict[str, dict[str, Any]]] = {}
    for n in args.sizes:
        reps = args.reps if args.reps is not None else (3 if n >= 100_000 else 5)
        timing[n] = {}
        for lib in peers or ["rankeval"]:
            log(f"== {lib}, {n:,} users: timing ({reps} rounds)")
            timing[n][lib] = _child(["--child", "time", "--libraries", lib, "--sizes", str(n),
                                     "--reps", str(reps), *common])
        if not args.skip_memory:
            memory[n] = {}
            for lib in ["rankeval", *peers]:
                if lib == "pytrec_eval_top10":
                    continue  # a subset of pytrec_eval's work
                log(f"== {lib}, {n:,} users: memory")
                memory[n][lib] = _child(["--child", "memory", "--libraries", lib, "--sizes", str(n), *common])
    cold_jit = None
    if "ranx" in peers and not args.skip_cold_jit:
        log("== ranx: first call with an empty numba cache")
        with tempfile.TemporaryDirectory(prefix="numba_cache_") as tmp:
            cold_jit = _child(["--child", "cold-jit"], env={**os.environ, "NUMBA_CACHE_DIR": tmp})
    info["load_end"] = os.getloadavg()

    stem = "peers" + ("" if str_ids else "_int_ids")
    plot_path = args.out.with_suffix(".png") if args.out else ROOT / "docs" / "img" / f"{stem}.png"
    clayrs_real = clayrs_real_times(args.clayrs_real)
    plotted = make_plot(timing, plot_path, str_ids, clayrs_real)
    command = " ".join([".venv/bin/python", "benchmarks/compare_peers.py", *sys.argv[1:]])
    block = render(info, timing, memory, skipped, cold_jit, str_ids, args.clayrs_max_users, command,
                   _shown_path(plot_path) if plotted else None, clayrs_real)
    out = args.out or HERE / "results" / f"{stem}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# rankeval against pytrec_eval, ranx, ir_measures and a ClayRS-style loop\n\n"
                   "Method: see the docstring of `benchmarks/compare_peers.py` and `docs/performance.md`.\n\n"
                   + block)
    out.with_suffix(".json").write_text(json.dumps(
        {"machine": info, "command": command, "str_ids": str_ids, "skipped": skipped, "cold_jit": cold_jit,
         "clayrs_max_users": args.clayrs_max_users,
         "timing": {str(n): t for n, t in timing.items()},
         "memory": {str(n): m for n, m in memory.items()}}, indent=1, default=float) + "\n")
    print(block)
    log(f"wrote {out}, {out.with_suffix('.json')}" + (f" and {plot_path}" if plotted else ""))
    if not args.no_docs and args.out is None:
        done = update_docs(block, str_ids)
        log("updated " + ", ".join(map(str, done)) if done else "no docs page has the compare_peers markers")


if __name__ == "__main__":
    main()
