"""Mutation run: break the package on purpose, one break at a time, and check that the suite fails.

Each mutant is a deliberate defect (a file, the exact text to replace, its replacement):
the script copies the repository's files (those git tracks or would track) into a
temporary directory, applies one mutant to the copy, runs pytest there, and restores the
file before the next one. A mutant the tests do not fail on SURVIVES: the script then exits
with status 1. Every failure is also checked to be the mutant's doing: the failing test is
run again on the unbroken copy, where it must pass.

The copy is imported through ``PYTHONPATH`` (its ``rankeval``, its ``tests``), with the
switches ``make test`` sets (``RANKEVAL_REQUIRE_SPARK=1``, ``RANKEVAL_REQUIRE_PEERS=1``) and
no bytecode written, so an edit is never hidden by a stale ``.pyc``.

Modes:

- targeted (the default): pytest runs only the test files (or test ids) listed with the
  mutant, the ones expected to catch it, one pytest run each in that order, with ``-x``,
  until one fails. This is what proves detection
  quickly: every file listed is part of ``make test`` (``pytest rankeval tests``), so a
  mutant a targeted file catches is caught by ``make test`` as well.
- ``--full``: the listed tests first, then (if they all pass) the whole of ``rankeval
  tests``, as ``make test`` runs it (slow: the Spark and browser tests for every mutant).

Usage::

    python tests/mutation/run_mutants.py            # every mutant, targeted
    python tests/mutation/run_mutants.py --list     # the mutants and their tests
    python tests/mutation/run_mutants.py --only bca-as-percentile
    python tests/mutation/run_mutants.py --check    # every mutant applies (the code did not move)
    python tests/mutation/run_mutants.py --full

It prints a markdown table (mutant, caught by, seconds). ``make mutation`` runs it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Mutant:
    name: str
    description: str
    file: str
    #: (old, new) replacements, each old text found exactly once; old None: ``file`` is created with new
    edits: tuple[tuple[str | None, str], ...]
    #: what pytest runs in targeted mode (files or test ids, the expected catcher first)
    tests: tuple[str, ...]


def _m(name: str, description: str, file: str, edits: list[tuple[str | None, str]], tests: list[str]) -> Mutant:
    return Mutant(name, description, file, tuple(edits), tuple(tests))


RESAMPLING = "rankeval/stats/_resampling.py"
#: the BCa check at 8, 13 and 40 units: the interval equal, to 1e-12, to Efron's on the same draws
BCA_EXACT = "tests/test_compare.py::test_bca_interval_is_efrons_on_the_same_draws"
MUTANTS = [
    # ---------------------------------------------------------------- the list
    _m("bca-as-percentile", "compare's BCa interval replaced by the percentile interval", RESAMPLING,
       [('    if method == "percentile":\n', '    if method in ("percentile", "bca"):\n')],
       [BCA_EXACT, "tests/test_compare.py"]),
    _m("bca-as-basic", "compare's BCa interval replaced by the basic interval", RESAMPLING,
       [('    if method == "basic":\n', '    if method in ("basic", "bca"):\n')],
       [BCA_EXACT, "tests/test_compare.py"]),
    _m("bca-no-acceleration", "compare's BCa interval without acceleration (a = 0)", RESAMPLING,
       [("a_hat = np.sum(u ** 3) / (6 * np.sum(u ** 2) ** 1.5)", "a_hat = 0.0")],
       [BCA_EXACT, "tests/test_compare.py"]),
    _m("band-at-92", "the report's bootstrap bands drawn at 92% whatever confidence is asked",
       "rankeval/page/_figures.py",
       [("n_resamples=n_bootstrap, confidence=confidence, seed=seed,",
         "n_resamples=n_bootstrap, confidence=0.92, seed=seed,")],
       ["tests/test_report.py"]),
    _m("counts-column-shift", "the report's users table: 'units' and 'with a value' cells swapped",
       "rankeval/page/_tables.py",
       [('                    {"text": str(int(in_split.sum())), "sort": str(int(in_split.sum())), "num": True},\n'
         '                    {"text": str(with_value), "sort": str(with_value), "num": True},\n',
         '                    {"text": str(with_value), "sort": str(with_value), "num": True},\n'
         '                    {"text": str(int(in_split.sum())), "sort": str(int(in_split.sum())), "num": True},\n')],
       ["tests/test_report.py"]),
    _m("box-statistic", "the report's distribution figure data gives the mean as the median",
       "rankeval/page/_figure_data.py",
       [('median=stats["med"]', 'median=stats["mean"]')],
       ["tests/test_report.py"]),
    _m("peer-missing", "pytrec_eval does not import (not installed)", "pytrec_eval/__init__.py",
       [(None, "raise ModuleNotFoundError(\"No module named 'pytrec_eval' (hidden by the mutation run)\")\n")],
       ["tests/test_peers.py", "tests/metrics/test_trec_metrics.py"]),
    _m("peer-broken", "ranx fails to import (a broken dependency)", "ranx/__init__.py",
       [(None, "raise ImportError('numba: incompatible NumPy (raised by the mutation run)')\n")],
       ["tests/test_peers.py", "tests/metrics/test_set_metrics.py"]),
    _m("require-switch-ignored", "RANKEVAL_REQUIRE_PEERS ignored: a missing reference skips",
       "tests/_require.py",
       [('    if os.environ.get("RANKEVAL_REQUIRE_PEERS"):\n        return True\n',
         '    if False:\n        return True\n')],
       ["tests/test_require.py"]),
    _m("fuzz-kind-removed", "a defect kind (repeated rank) removed from the fuzz generator's list",
       "tests/test_fuzz.py",
       [('    "bad_rank", "dup_rank", "kind_mismatch",', '    "bad_rank", "kind_mismatch",')],
       ["tests/test_fuzz.py::test_every_documented_defect_is_forced", "tests/test_fuzz.py"]),
    _m("fuzz-injection-removed", "the fuzz generator never injects a repeated rank", "tests/test_fuzz.py",
       [('    if "dup_rank" in chosen and has_rank:\n', '    if False:\n')],
       ["tests/test_fuzz.py::test_every_defect_in_every_frame_kind_raises_its_error", "tests/test_fuzz.py"]),
    # ---------------------------------------------------------------- metrics
    _m("mrr-off-by-one", "reciprocal rank counts positions from 2", "rankeval/metrics/ranking/_reciprocal_rank.py",
       [("            return np.where(first > 0, 1.0 / first, 0.0)",
         "            return np.where(first > 0, 1.0 / (first + 1), 0.0)")],
       ["tests/metrics/test_oracle.py", "tests/metrics/test_trec_metrics.py", "tests/test_peers.py"]),
    _m("ndcg-ideal-uncut", "NDCG@k's ideal list (from the truth's levels) not cut at k",
       "rankeval/metrics/ranking/_ndcg.py",
       [("top = int(end[:, -1].max(initial=0)) if k is None else min(k, int(end[:, -1].max(initial=0)))",
         "top = int(end[:, -1].max(initial=0))"),
        ("        if k is not None:\n            end, start = np.minimum(end, k), np.minimum(start, k)\n", "")],
       ["tests/metrics/test_oracle.py", "tests/test_peers.py", "tests/metrics/test_cutoffs.py"]),
    _m("map-divides-by-k", "AP@k divided by k instead of m_u", "rankeval/metrics/ranking/_average_precision.py",
       [("            ap = total / m\n        if self.denominator", "            ap = total / (m if self.k is None "
         "else self.k)\n        if self.denominator"),
        ("                ap = total / m\n            out[:, j]", "                ap = total / k\n            out[:, j]")],
       ["tests/metrics/test_oracle.py", "tests/test_peers.py", "tests/metrics/test_cutoffs.py"]),
    _m("threshold-strict", "a fixed relevance threshold applied with > instead of >=", "rankeval/data/_ranked.py",
       [("rows = self.truth_score >= key  # NaN", "rows = self.truth_score > key  # NaN")],
       ["tests/metrics/test_oracle.py", "tests/metrics/test_set_metrics.py", "tests/test_peers.py"]),
    _m("ties-item-id-reversed", 'ties="item_id" breaks score ties by item id descending', "rankeval/data/_list_order.py",
       [('            order = np.argsort(np.asarray(items), kind="stable")\n',
         '            order = np.argsort(np.asarray(items), kind="stable")[::-1]\n')],
       ["tests/test_conventions.py::test_ties_item_id_desc_compares_ids_as_strings",
        "tests/test_peers.py::test_ties_trec_eval_orders_by_docno_descending_as_strings", "tests/test_keys.py"]),
    _m("spark-tie-rule", "the Spark engine breaks ties by item id descending", "rankeval/engines/_spark.py",
       [('spark_ties = "item_id" if ties == "row_order" else ties',
         'spark_ties = "item_id_desc" if ties == "row_order" else ties')],
       ["tests/test_spark.py"]),
    # ---------------------------------------------------------------- evaluation and statistics
    _m("evalmodel-mean-nan", "EvalModel's mean row includes NaN splits (NaN for the metric)",
       "rankeval/evaluation/_eval_model.py",
       [("[exact_mean(sys_result[c].to_numpy(dtype=np.float64)) for c in sys_result.columns]",
         "[float(sys_result[c].to_numpy(dtype=np.float64).mean()) for c in sys_result.columns]")],
       ["tests/test_evaluation.py"]),
    _m("compare-diff-sign", "compare's paired difference a - b instead of b - a", "rankeval/evaluation/_compare.py",
       [("            d = vb - va\n", "            d = va - vb\n")],
       ["tests/test_compare.py"]),
    _m("holm-as-bonferroni", "the Holm correction multiplies every p-value by m", RESAMPLING,
       [("stepped = np.minimum((m - np.arange(m)) * q[order], 1.0)", "stepped = np.minimum(m * q[order], 1.0)")],
       ["tests/test_compare.py"]),
    _m("wilcoxon-zero-method", "compare's Wilcoxon test with zero_method='pratt'", "rankeval/stats/_paired.py",
       [("res = stats.wilcoxon(vb, va)", 'res = stats.wilcoxon(vb, va, zero_method="pratt")')],
       ["tests/test_compare.py"]),
    _m("audit-cheap-count", "the audit's cheap check counts one overlapping pair too many", "rankeval/split/_audit.py",
       [("overlap=(overlap.count, int(overlap.of or 0))", "overlap=(overlap.count + 1, int(overlap.of or 0))")],
       ["tests/test_audit.py"]),
    _m("split-seed-ignored", "the random splits ignore the seed (always seed 0)", "rankeval/split/_draws.py",
       [("per_user = mix64(user_hashes ^ _seed_word(seed, _STREAM_KEYS))",
         "per_user = mix64(user_hashes ^ _seed_word(0, _STREAM_KEYS))")],
       ["tests/test_split_random.py", "tests/test_split_splits.py"]),
    # ---------------------------------------------------------------- what the figures draw
    _m("curves-at-k-plus-1", "the metric@k curves drawn and ticked at k + 1 (their data-values still say k)",
       "rankeval/page/_figures.py",
       [("ks = np.array([k for k, _ in cols], dtype=float)", "ks = np.array([k + 1 for k, _ in cols], dtype=float)")],
       ["tests/test_figures_drawn.py"]),
    _m("drawn-median-is-mean", "ComparisonResult.plot's boxes drawn with the mean as their median",
       "rankeval/views/_comparison_figure.py",
       [("box = ax.boxplot(data, positions=positions,",
         "box = ax.boxplot(data, usermedians=[d.mean() for d in data], positions=positions,")],
       ["tests/test_figures_drawn.py"]),
    _m("cd-line-wrong-rank", "the CD diagram draws each system's line at the next system's mean rank",
       "rankeval/views/_cd_diagram.py",
       [("ax.plot([ranks[i], ranks[i], end]", "ax.plot([ranks[order[(place + 1) % k]], ranks[order[(place + 1) % k]], end]")],
       ["tests/test_figures_drawn.py"]),
    _m("cd-group-bar-long", "the CD diagram's group bars drawn 0.25 rank past their last member",
       "rankeval/views/_cd_diagram.py",
       [("ranks[members[-1]] + 0.04]", "ranks[members[-1]] + 0.29]")],
       ["tests/test_figures_drawn.py"]),
    # ---------------------------------------------------------------- off-policy estimation, RBO and LIP
    _m("ope-sn-not-per-position", "SNIIPS divides by the mean weight of every row, not of the row's position",
       "rankeval/ope/_estimators.py",
       [('"sniips": Estimator("pscore_item_position", "position"),', '"sniips": Estimator("pscore_item_position", "all"),')],
       ["tests/test_ope.py::test_slate_estimators_equal_obps", "tests/test_ope.py"]),
    _m("ope-cascade-as-item", "a deterministic list's cascade probability taken at the position alone, not down to it",
       "rankeval/ope/_log.py",
       [("    cascade = (misses - before == 0).astype(np.float64)\n", "    cascade = match\n")],
       ["tests/test_ope.py::test_a_deterministic_list_weighs_what_it_would_have_shown", "tests/test_ope.py"]),
    _m("ope-sn-normalised-once", "the self-normalised intervals normalise once instead of on every resample",
       "rankeval/ope/_estimators.py",
       [("        per_group = np.where(count > 0, num * count / den, 0.0)",
         "        per_group = np.where(count > 0, num * count / den.mean(axis=0), 0.0)")],
       ["tests/test_ope.py"]),
    _m("rbo-weight-off-by-one", "RBO weighs depth d by w_(d+1): the tail sum starts one depth late",
       "rankeval/metrics/beyond/_reranking.py",
       [("        added = np.where(shared, tail[np.clip(joins, 1, k) - 1], 0.0)",
         "        added = np.where(shared, np.r_[tail, 0.0][np.clip(joins, 1, k)], 0.0)")],
       ["tests/metrics/test_reranking.py"]),
    _m("lip-without-lenskits-offset", "LIP without LensKit's off-by-one (an item from position k + 1 counts 1)",
       "rankeval/metrics/beyond/_reranking.py",
       [("nan=0.0) - 1.0 - float(self.depth), 0.0)", "nan=0.0) - float(self.depth), 0.0)")],
       ["tests/metrics/test_reranking.py"]),
    # ---------------------------------------------------------------- propensities, strata, how sure, top-k, audit
    _m("ips-rr-without-position", "the propensity-weighted MRR forgets the reciprocal rank (the hit's weight)",
       "rankeval/metrics/unbiased/_metric.py",
       [('term = w[first] if kind == "hit" else w[first] / position[first]', 'term = w[first]')],
       ["tests/test_unbiased.py"]),
    _m("ips-ap-without-above", "the propensity-weighted AP leaves out the weights of the relevant items above",
       "rankeval/metrics/unbiased/_metric.py",
       [("weights=w * (1.0 + above) / position,", "weights=w / position,")],
       ["tests/test_unbiased.py"]),
    _m("strata-one-too-many", "the propensity range cut into Q + 1 strata of equal width, not Q",
       "rankeval/metrics/unbiased/_strata.py",
       [("    width = (high - low) / n_strata\n", "    width = (high - low) / (n_strata + 1)\n")],
       ["tests/test_unbiased_cornac.py", "tests/test_unbiased.py"]),
    _m("tost-min-p", "TOST's p-value the smaller of the two one-sided tests' (it is the larger)",
       "rankeval/stats/_equivalence.py",
       [("    return max(p_low, p_high), mean - half, mean + half", "    return min(p_low, p_high), mean - half, mean + half")],
       ["tests/test_sureness.py"]),
    _m("tost-bootstrap-one-side", "the bootstrap TOST counts one tail only",
       "rankeval/stats/_equivalence.py",
       [("    p = max(float(np.mean(boot <= -margin)), float(np.mean(boot >= margin)))",
         "    p = float(np.mean(boot <= -margin))")],
       ["tests/test_sureness.py"]),
    _m("rank-exclude-ignored", "rank's excluded (seen) items are listed like any other",
       "rankeval/rank/_top_k.py",
       [("        out.ravel()[rows * width + cols] = -np.inf\n", "        pass\n")],
       ["tests/test_rank.py"]),
    _m("rank-candidates-ignored", "rank lists items outside a user's candidates",
       "rankeval/rank/_top_k.py",
       [("        np.copyto(out, -np.inf, where=~keep)\n", "        pass\n")],
       ["tests/test_rank.py"]),
    _m("session-gap-inclusive", "a gap of exactly session_gap starts a new session (it must exceed it)",
       "rankeval/split/_profile.py",
       [("breaks[1:] = after[1:] & ((t[1:] - t[:-1]) > gap)", "breaks[1:] = after[1:] & ((t[1:] - t[:-1]) >= gap)")],
       ["tests/test_audit_profile.py", "tests/test_audit.py"]),
    # ---------------------------------------------------------------- the truth coded once, dense ids, faster paths
    _m("truth-codes-text-unordered", "a shared truth's text ids found among the list's ids by position in the wrong "
       "code space (the truth's own order)",
       "rankeval/data/_truth_codes.py",
       [("        return np.asarray(found.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)\n",
         "        return np.sort(np.asarray(found.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64))\n")],
       ["tests/test_truth_codes.py"]),
    _m("small-ints-last-appearance", "integer ids coded in order of last appearance (pandas numbers them by the first)",
       "rankeval/data/_keys.py",
       [("        np.minimum.at(first, values[start:stop], np.arange(start, stop, dtype=np.int64))\n",
         "        first[values[start:stop]] = np.arange(start, stop, dtype=np.int64)\n")],
       ["tests/test_keys.py"]),
    _m("item-codes-at-list-order", "the items of chosen rows read in pred's row order, not through the join's",
       "rankeval/data/_ranked.py",
       [("        return core.item_codes[rows] if core.item_rows is None else core.item_codes[core.item_rows[rows]]\n",
         "        return core.item_codes[rows]\n")],
       ["tests/test_unbiased.py"]),
    _m("rank-indexer-shifted", "a training set's integer ids looked up one slot off in rank's table",
       "rankeval/rank/_inputs.py",
       [("    table[keys - low] = np.arange(len(keys))\n", "    table[keys - low + 1] = np.arange(len(keys))\n")],
       ["tests/test_rank.py"]),
    _m("nct-cdf-arguments-swapped", "d_z's root search reads the noncentral t at (lambda, df, t)",
       "rankeval/stats/_effects.py",
       [("        return float(_NCT_CDF(np.float64(t), np.float64(df), np.float64(lam)))\n",
         "        return float(_NCT_CDF(np.float64(lam), np.float64(df), np.float64(t)))\n")],
       ["tests/test_sureness.py"]),
    _m("group-gap-sign", "a group's gap taken as the baseline's mean minus the group's (documented: group - baseline)",
       "rankeval/groups.py",
       [('                    row["gap"] = value - _mean(base)\n', '                    row["gap"] = _mean(base) - value\n')],
       ["tests/test_groups.py"]),
    _m("rank-keys-ascending", "rank's float32 merge keys sort the scores ascending (the worst items listed first)",
       "rankeval/rank/_kernel.py",
       [("    return ~(bits ^ ((bits >> np.uint32(31)) * _LOW31 | _SIGN))\n",
         "    return bits ^ ((bits >> np.uint32(31)) * _LOW31 | _SIGN)\n")],
       ["tests/test_rank.py"]),
    _m("rank-keys-running-dropped", "rank's float32 merge of a later block of items forgets the running lists",
       "rankeval/rank/_kernel.py",
       [("    start = k if listed.any() else 0", "    start = 0")],
       ["tests/test_rank.py"]),
    _m("rank-pairs-unsorted", "rank's excluded pairs taken as grouped by user when they are not",
       "rankeval/rank/_inputs.py",
       [("    if len(user32) < 2 or (user32[1:] >= user32[:-1]).all():", "    if True:")],
       ["tests/test_rank.py"]),
    _m("rank-pairs-starts-shifted", "each user's first excluded pair found one user late (grouped pairs)",
       "rankeval/rank/_inputs.py",
       [("np.arange(len(users) + 1, dtype=user32.dtype))", "np.arange(len(users) + 1, dtype=user32.dtype), "
         "side=\"right\")")],
       ["tests/test_rank.py"]),
    _m("rank-score-check-skipped", "a scoring function's NaN and +inf scores taken as scores (the check skipped)",
       "rankeval/rank/_sources.py",
       [("        if block.size and not block.max() < np.inf:", "        if False:")],
       ["tests/test_rank.py"]),
    _m("rank-own-positions-unbounded", "ids past the last position taken as positions (no lookup of ids 0, 1, ...)",
       "rankeval/rank/_inputs.py",
       [("    inside = (raw >= 0) & (raw < n)", "    inside = raw >= 0")],
       ["tests/test_rank.py"]),
]

# the node id runs to pytest's " - " before the message (or the line's end): a parametrized id may hold spaces
_SUMMARY = re.compile(r"^(FAILED|ERROR) (.+?)(?: - .*)?$", re.M)


def copy_repository(dest: Path) -> None:
    """The files git tracks or would track (the working tree's content, edits included)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() and "__pycache__" not in src.parts:
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)


def environment(copy: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RANKEVAL_FUZZ_RANDOM")}
    env.update(PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1", RANKEVAL_REQUIRE_SPARK="1",
               RANKEVAL_REQUIRE_PEERS="1")
    return env


def pytest(copy: Path, args: list[str], timeout: float) -> tuple[int | None, str]:
    """(pytest's exit status or None on timeout, its output)."""
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *args]
    try:
        out = subprocess.run(cmd, cwd=copy, env=environment(copy), capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, ""
    return out.returncode, out.stdout + out.stderr


def apply(copy: Path, mutant: Mutant) -> str | None:
    """Apply ``mutant`` to the copy; returns the file's original text (None: the file is new)."""
    path = copy / mutant.file
    if mutant.edits[0][0] is None:
        assert not path.exists(), f"{mutant.name}: {mutant.file} already exists"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(mutant.edits[0][1])
        return None
    original = path.read_text()
    text = original
    for old, new in mutant.edits:
        assert old is not None
        found = text.count(old)
        if found != 1:
            raise SystemExit(f"{mutant.name}: the text to replace is found {found} times in {mutant.file} "
                             f"(the code changed: update the mutant)\n{old}")
        text = text.replace(old, new)
    path.write_text(text)
    return original


def restore(copy: Path, mutant: Mutant, original: str | None) -> None:
    path = copy / mutant.file
    if original is None:
        path.unlink()
        parent = path.parent
        while parent != copy and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    else:
        path.write_text(original)


def run_one(copy: Path, mutant: Mutant, full: bool, timeout: float) -> dict[str, object]:
    # one pytest run per entry, in the order listed (given a file and one of its tests at once,
    # pytest runs them in the file's order), until one fails
    runs = [[test] for test in mutant.tests] + ([["rankeval", "tests"]] if full else [])
    original = apply(copy, mutant)
    start = time.perf_counter()
    try:
        for args in runs:
            status, output = pytest(copy, args, timeout)
            if status != 0:
                break
    finally:
        restore(copy, mutant, original)
    seconds = time.perf_counter() - start
    failed = _SUMMARY.findall(output)
    row: dict[str, object] = {"mutant": mutant, "seconds": seconds, "caught_by": "", "verdict": ""}
    if status is None:
        row["verdict"] = f"TIMEOUT after {timeout:.0f} s"
    elif status == 0 or not failed:
        row["verdict"] = "SURVIVED" if status in (0, 5) else f"pytest exit {status}, no failed test named"
        if status not in (0, 5):
            row["output"] = output[-3000:]
    else:
        node = failed[0][1]
        row["caught_by"] = node
        # the failure must be the mutant's: the same test passes on the unbroken copy
        clean_status, clean_output = pytest(copy, [node], timeout)
        if clean_status == 0:
            row["verdict"] = "caught"
        else:
            row["verdict"] = f"NOT PROVEN ({node} fails without the mutant too)"
            row["output"] = clean_output[-3000:]
    return row


def table(rows: list[dict[str, object]]) -> str:
    lines = ["| mutant | what it breaks | caught by | verdict | seconds |", "|---|---|---|---|---:|"]
    for row in rows:
        m = row["mutant"]
        assert isinstance(m, Mutant)
        caught = f"`{row['caught_by']}`" if row["caught_by"] else "–"
        lines.append(f"| {m.name} | {m.description} | {caught} | {row['verdict']} | {row['seconds']:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true", help="print the mutants and their tests, run nothing")
    parser.add_argument("--only", action="append", metavar="NAME", help="run this mutant (repeatable)")
    parser.add_argument("--check", action="store_true", help="apply and undo every mutant on the copy, run nothing")
    parser.add_argument("--tests", nargs="+", metavar="TEST",
                        help="run these test files or ids instead of the mutants' own (with --only)")
    parser.add_argument("--full", action="store_true", help="run the whole suite (rankeval tests) per mutant")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per pytest run (default 3600)")
    args = parser.parse_args(argv)
    names = [m.name for m in MUTANTS]
    assert len(set(names)) == len(names), "mutant names must be distinct"
    if args.list:
        for m in MUTANTS:
            print(f"{m.name}: {m.description}\n    {m.file}; tests: {' '.join(m.tests)}")
        return 0
    chosen = MUTANTS
    if args.only:
        unknown = set(args.only) - set(names)
        if unknown:
            parser.error(f"unknown mutant(s) {sorted(unknown)}; --list shows them")
        chosen = [m for m in MUTANTS if m.name in args.only]
    if args.tests:
        chosen = [replace(m, tests=tuple(args.tests)) for m in chosen]
    with tempfile.TemporaryDirectory(prefix="rankeval-mutants-") as tmp:
        copy = Path(tmp)
        copy_repository(copy)
        where = subprocess.run([sys.executable, "-c", "import rankeval; print(rankeval.__file__)"], cwd=copy,
                               env=environment(copy), capture_output=True, text=True, check=True).stdout.strip()
        if not Path(where).resolve().is_relative_to(copy.resolve()):
            raise SystemExit(f"the copy's rankeval is not the one imported ({where}): check PYTHONPATH")
        if args.check:
            for mutant in chosen:
                restore(copy, mutant, apply(copy, mutant))
            print(f"{len(chosen)} mutant(s) apply cleanly")
            return 0
        print(f"copy: {copy}; mode: {'full' if args.full else 'targeted'}; {len(chosen)} mutant(s)", flush=True)
        rows = []
        for mutant in chosen:
            row = run_one(copy, mutant, args.full, args.timeout)
            rows.append(row)
            print(f"{mutant.name}: {row['verdict']} {row['caught_by']} ({row['seconds']:.0f} s)", flush=True)
            if "output" in row:
                print(row["output"], flush=True)
    print()
    print(table(rows))
    bad = [mutant.name for mutant, row in zip(chosen, rows) if row["verdict"] != "caught"]
    if bad:
        print(f"\n{len(bad)} mutant(s) not caught: {', '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
