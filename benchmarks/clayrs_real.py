"""The real ClayRS (PyPI ``clayrs`` 0.5.1) timed on rankeval's synthetic benchmark data.

Unlike ``compare_peers.py`` (which re-implements ClayRS's per-user loop), this script runs
ClayRS's own code: ``Ratings.from_dataframe`` / ``Rank.from_dataframe`` on the two pandas
frames, then ``EvalModel(...).fit()`` (the documented path) and, separately, each metric's
``perform(Split(pred, truth))``, with ``NDCGAtK(10)``, ``MAPAtK(10, relevant_threshold=1)``
and ``MRRAtK(10, relevant_threshold=1)`` (``MAPAtK`` is imported from
``clayrs.evaluation.metrics.ranking_metrics``: 0.5.1 does not export it).

Setting up the ClayRS venv (Python 3.11)
----------------------------------------
``pip install clayrs`` cannot work on Python 3.11: clayrs 0.5.1 is an sdist whose
requirements pin ``numpy~=1.22.4`` (no cp311 wheel), ``scipy~=1.7.3``,
``scikit-learn==1.0.2``, ``torch~=1.13.0``, ``transformers~=4.29.2``, spacy, gensim, ...
(``pip install --dry-run --only-binary=:all: --no-binary=clayrs clayrs`` stops at
``numpy~=1.22.4``). What was installed instead (these commands work)::

    python3.11 -m venv /tmp/clayrs-venv
    /tmp/clayrs-venv/bin/pip install --no-deps clayrs==0.5.1
    /tmp/clayrs-venv/bin/pip install --only-binary=:all: pandas==1.5.3 numpy==1.23.5 \
        "numpy-indexed~=0.3.5" "nest-asyncio~=1.5.5" "distex~=0.7.1" "colorama~=0.4.4" \
        scipy scikit-learn matplotlib pyyaml
    /tmp/clayrs-venv/bin/pip install "tqdm~=4.62.2" "networkx~=2.6.3" pyaml \
        "requests~=2.28.2" "validators~=0.20.0" "whoosh~=2.7.4" "SPARQLWrapper~=1.8.5"

``import clayrs.evaluation`` imports all of ``clayrs.content_analyzer`` (through
``clayrs.utils.load_content``), hence torch, transformers, gensim, nltk, spacy, ... The
packages in ``STUBBED`` below are not installed: an import hook gives empty stand-in
modules for them. None of them is used by the evaluation path (Ratings, the ranking
metrics, EvalModel / MetricEvaluator, Split), and the script checks it: after the imports
every touch of a stand-in is recorded, and the run fails if any happens.

Run::

    /tmp/clayrs-venv/bin/python benchmarks/clayrs_real.py --users 1000 10000
    /work/main/.venv/bin/python benchmarks/clayrs_real.py --crosscheck /tmp/clayrs_real_1k.csv

The first writes ClayRS's per-user values for the smallest size to ``--out``; the second
(run with rankeval's venv, no ClayRS import) compares them with rankeval's.
"""

from __future__ import annotations

import abc
import argparse
import importlib.abc
import importlib.machinery
import json
import os
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# ---------------------------------------------------------------- stand-in modules
STUBBED = ("torch", "torchvision", "transformers", "sentence_transformers", "timm", "gensim", "nltk",
           "spacy", "ekphrasis", "pywsd", "wn", "babelpy", "textblob", "mysql", "cv2", "skimage")
STUB_USES: list[str] = []
_guard = [False]


class _Meta(abc.ABCMeta):  # ABCMeta: ClayRS derives ABCs from e.g. torch.nn.Module
    def __getattr__(cls, a):
        if a.startswith("__"):
            raise AttributeError(a)
        if _guard[0]:
            STUB_USES.append(f"{cls.__qualname__}.{a}")
        return _mk(f"{cls.__qualname__}.{a}")

    def __call__(cls, *a, **k):
        if "_is_stub" not in cls.__dict__:  # a real ClayRS class deriving from a stand-in
            return super().__call__(*a, **k)
        if _guard[0]:
            STUB_USES.append(f"{cls.__qualname__}()")
        return super().__call__()

    def __getitem__(cls, k):
        return cls

    def __or__(cls, o):
        return cls

    def __ror__(cls, o):
        return cls


def _mk(name):
    return _Meta(name, (), {"__getattr__": lambda self, a: _mk(f"{name}().{a}"),
                            "__call__": lambda self, *a, **k: self,
                            "__iter__": lambda self: iter(()), "_is_stub": True})


class _StubModule(types.ModuleType):
    def __getattr__(self, a):
        if a.startswith("__"):
            raise AttributeError(a)
        if _guard[0]:
            STUB_USES.append(f"{self.__name__}.{a}")
        return _mk(f"{self.__name__}.{a}")


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


def import_clayrs():
    sys.meta_path.insert(0, _StubFinder())
    import logging
    from functools import partial

    import tqdm as tqdm_mod

    import clayrs
    import clayrs.evaluation as eva
    import clayrs.utils.context_managers as cm
    from clayrs.content_analyzer import Rank, Ratings
    from clayrs.evaluation.eval_pipeline_modules.metric_evaluator import Split
    from clayrs.utils.const import logger

    # ClayRS's only progress bar on this path is MetricEvaluator's bar over the 3 metrics
    # (Ratings.from_dataframe has none): silence it, and ClayRS's INFO log line
    cm.tqdm = partial(tqdm_mod.tqdm, disable=True)
    logger.setLevel(logging.WARNING)
    _guard[0] = True  # from here on, any use of a stand-in module is recorded
    stubs_loaded = sorted(k for k in sys.modules if k.split(".")[0] in STUBBED)
    ver = getattr(clayrs, "__version__", None)
    if ver is None:
        from importlib.metadata import version
        ver = version("clayrs")
    return eva, Ratings, Rank, Split, ver, stubs_loaded


# ---------------------------------------------------------------- the timed code
def build(Ratings, Rank, pred, truth):
    """What a ClayRS user writes to get its objects from the two frames. ClayRS ranks by
    row order (it never sorts by score): ``pred`` is already grouped by user and sorted
    by score descending."""
    pred_r = Rank.from_dataframe(pred, user_column="user_id", item_column="item_id", score_column="score")
    truth_r = Ratings.from_dataframe(truth, user_column="user_id", item_column="item_id", score_column="score")
    return pred_r, truth_r


def metric_list(eva):
    # MAPAtK is not exported by clayrs.evaluation (0.5.1 exports MAP only): import it from its module
    from clayrs.evaluation.metrics.ranking_metrics import MAPAtK
    return [eva.NDCGAtK(10), MAPAtK(10, relevant_threshold=1), eva.MRRAtK(10, relevant_threshold=1)]


def run_evalmodel(eva, pred_r, truth_r):
    """Documented path: (system frame, per-user frame). MRRAtK has no per-user values in
    ClayRS (its perform returns the system value only)."""
    return eva.EvalModel(pred_list=[pred_r], truth_list=[truth_r], metric_list=metric_list(eva)).fit()


def run_perform(eva, Split, pred_r, truth_r):
    """Each metric's perform on one clayrs Split: a frame per metric, user rows + 'sys'."""
    return [m.perform(Split(pred_r, truth_r)) for m in metric_list(eva)]


def time_once(eva, Ratings, Rank, Split, pred, truth):
    t0 = time.perf_counter()
    pred_r, truth_r = build(Ratings, Rank, pred, truth)
    t1 = time.perf_counter()
    sys_res, users_res = run_evalmodel(eva, pred_r, truth_r)
    t2 = time.perf_counter()
    # same Ratings objects, metrics via perform (no MetricEvaluator re-filtering)
    t3 = time.perf_counter()
    frames = run_perform(eva, Split, pred_r, truth_r)
    t4 = time.perf_counter()
    return {"build": t1 - t0, "evalmodel": t2 - t1, "perform": t4 - t3}, (sys_res, users_res, frames,
                                                                          pred_r, truth_r)


def per_user_mrr(eva, Split, pred_r, truth_r):
    """ClayRS's MRR@10 per user (untimed, for the cross-check only): MRRAtK.perform on a
    one-user Split, since ClayRS reports MRR for the system only."""
    import numpy as np
    m = eva.MRRAtK(10, relevant_threshold=1)
    out = {}
    for uid in truth_r.unique_user_id_column:
        sp = Split(pred_r.filter_ratings(pred_r.user_map.convert_seq_str2int([uid])),
                   truth_r.filter_ratings(truth_r.user_map.convert_seq_str2int([uid])))
        out[str(uid)] = float(m.perform(sp)["MRR@10"].iloc[0])
    return out, float(np.mean(list(out.values())))


def main_clayrs(args):
    import numpy as np
    import pandas as pd

    from synthetic import make_data

    eva, Ratings, Rank, Split, ver, stubs_loaded = import_clayrs()
    info = {"clayrs": ver, "pandas": pd.__version__, "numpy": np.__version__,
            "python": sys.version.split()[0], "stubbed_modules_loaded": stubs_loaded, "sizes": []}
    for n in args.users:
        pred, truth = make_data(n, seed=0)
        runs = args.runs if n <= args.multi_run_max else 1
        rows = []
        for r in range(runs):
            t, res = time_once(eva, Ratings, Rank, Split, pred, truth)
            rows.append(t)
            print(f"n={n} run {r + 1}/{runs}: build {t['build']:.3f} s, EvalModel.fit {t['evalmodel']:.3f} s, "
                  f"3x perform {t['perform']:.3f} s", flush=True)
        sys_res, users_res, frames, pred_r, truth_r = res
        print(sys_res.to_string(), flush=True)
        # EvalModel's per-user values equal perform's
        for f in frames:
            col = [c for c in f.columns if c != "user_id"][0]
            fu = f[f.user_id != "sys"].set_index("user_id")
            if len(fu) and col in users_res.columns:
                assert np.allclose(users_res.loc[fu.index, col].to_numpy(float), fu[col].to_numpy(float),
                                   equal_nan=True), col
        size = {"users": n, "pred_rows": len(pred), "truth_rows": len(truth), "runs": rows,
                "system": {c: float(sys_res[c].iloc[-1]) for c in sys_res.columns}}
        info["sizes"].append(size)
        if n == min(args.users) and args.out:
            mrr, mrr_mean = per_user_mrr(eva, Split, pred_r, truth_r)
            assert abs(mrr_mean - size["system"]["MRR@10"]) < 1e-12, (mrr_mean, size["system"])
            long = [pd.DataFrame({"user_id": users_res.index, "metric": "NDCG@10",
                                  "value": users_res["NDCG@10"].to_numpy(float)}),
                    pd.DataFrame({"user_id": users_res.index, "metric": "MAP@10",
                                  "value": users_res["AP"].to_numpy(float)}),
                    pd.DataFrame({"user_id": list(mrr), "metric": "MRR@10", "value": list(mrr.values())})]
            pd.concat(long, ignore_index=True).to_csv(args.out, index=False)
            print(f"per-user values written to {args.out}", flush=True)
    if STUB_USES:
        raise SystemExit(f"stand-in modules were used on the evaluation path: {sorted(set(STUB_USES))[:20]}")
    info["stub_uses_after_import"] = 0
    print(json.dumps(info, indent=1))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(info, fh, indent=1)


# ---------------------------------------------------------------- cross-check (rankeval venv)
def main_crosscheck(args):
    import numpy as np
    import pandas as pd

    import rankeval as rk
    from synthetic import make_data

    clay = pd.read_csv(args.crosscheck, dtype={"user_id": str})
    n = clay.user_id.nunique()
    pred, truth = make_data(n, seed=0)
    s = rk.Split(pred, truth)
    ours = {
        ("MAP@10", 'MAPAtK(10, relevant_threshold=1, no_relevant="zero")'):
            rk.MAPAtK(10, relevant_threshold=1, no_relevant="zero"),
        ("MRR@10", 'MRRAtK(10, relevant_threshold=1, no_relevant="zero")'):
            rk.MRRAtK(10, relevant_threshold=1, no_relevant="zero"),
        ("NDCG@10", 'NDCGAtK(10, ideal="ranked", judged_only=True)'): rk.NDCGAtK(10, ideal="ranked", judged_only=True),
        ("NDCG@10", "NDCGAtK(10)"): rk.NDCGAtK(10),
    }
    print("| ClayRS metric | rankeval | users | max abs diff | users differing > 1e-9 | ClayRS mean | rankeval mean |")
    print("|---|---|---|---|---|---|---|")
    for (cm, label), metric in ours.items():
        u = metric.perform(s).users.iloc[:, 0]
        c = clay[clay.metric == cm].set_index("user_id")["value"]
        assert set(c.index) == set(u.index.astype(str))
        a = c.to_numpy(float)
        b = u.reindex(c.index).to_numpy(float)
        d = np.abs(a - b)
        both_nan = np.isnan(a) & np.isnan(b)
        d[both_nan] = 0.0
        nan_mismatch = int((np.isnan(a) != np.isnan(b)).sum())
        print(f"| {cm} | `{label}` | {len(c):,} | {np.nanmax(d):.1e} | {int((d > 1e-9).sum()) + nan_mismatch:,} "
              f"| {np.nanmean(a):.6f} | {np.nanmean(b):.6f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--users", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--runs", type=int, default=3, help="runs for sizes <= --multi-run-max")
    ap.add_argument("--multi-run-max", type=int, default=1000)
    ap.add_argument("--out", default="/tmp/clayrs_real_1k.csv", help="per-user values of the smallest size")
    ap.add_argument("--json", default="/tmp/clayrs_real_timings.json")
    ap.add_argument("--crosscheck", metavar="CSV", help="compare a per-user CSV with rankeval (rankeval venv)")
    args = ap.parse_args()
    if args.crosscheck:
        main_crosscheck(args)
    else:
        main_clayrs(args)


if __name__ == "__main__":
    main()
