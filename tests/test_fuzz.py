"""Fuzz suite: whatever the caller passes, rankeval answers with a documented error or the right numbers.

The one rule, for ``Split`` + every built-in metric, ``EvalModel``, ``compare``, the readers
of ``rankeval.io`` and the command line: an input either gets

- a ``ValueError`` (a ``TypeError`` only for an argument of the wrong type) whose message
  is one of rankeval's own (it names the frame, column, user or line at fault), possibly
  with rankeval warnings (:mod:`rankeval.exceptions`) along the way, or
- per-user values equal to the plain-loop reference of ``tests/_oracles.py`` (extended
  below for the knobs it lacks, and checked against it where both apply), for every
  registered metric name, and a system value equal to the reference's: the exact mean of
  the users' values (+inf with +inf among them, -inf with -inf, NaN with both), or what the
  metric pools instead (micro averages, sums of counts, values over the items recommended).

Nothing else may escape (no KeyError / AttributeError / IndexError / TypeError from inside
pandas or NumPy, no OverflowError, no warning that is not rankeval's), and nothing the
caller passed is mutated. Inputs with a defect docs/errors.md lists as an error (a missing id, a
duplicate pair, a NaN truth score, a repeated rank, ids of kinds that never match, ...)
must raise; inputs without one must evaluate.

The generators draw frame shapes, id dtypes (int, uint64, str, pandas ``str``,
``string[python]``, ``string[pyarrow]``, Arrow strings, categorical with unused categories,
object, mixed int/str objects, floats holding whole numbers, nullable ``Int64``, Arrow
integers), missing values (None, NaN, pd.NA), duplicates, users in one frame only, extreme
values (huge, tiny, subnormal and negative truth scores, +-inf predicted scores, ranks
beyond 2**53, huge k), odd row indexes, renamed and extra columns, and polars / pyarrow
inputs.

Every defect is also forced into every frame kind (pandas, polars, polars lazy, Arrow), a few
examples per pair (``test_every_defect_in_every_frame_kind_raises_its_error``), so that no run
misses one; the pairs no input can have are listed in ``IMPOSSIBLE`` with the reason.

The number of examples per test comes from ``RANKEVAL_FUZZ_EXAMPLES`` (default 40: the
file runs in seconds in ``make test``; ``make fuzz`` sets 2000). Whether runs are random is
the suite's hypothesis profile (tests/_hypothesis.py), as for every property test: derandomized
by default (a seed derived from each test, no example database), so ``make test`` draws the
same examples every time and a failure in CI is one anyone reproduces; ``RANKEVAL_FUZZ_RANDOM=1``
(set by ``make fuzz``) draws new examples on every run, and hypothesis keeps the failing ones in
its database. A health check is suppressed only on the test that needs it, with the reason
written above it.
"""

from __future__ import annotations

import copy
import importlib.util
import math
import os
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Collection

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, event, given, note, settings
from hypothesis import strategies as st

import pyarrow as pa  # extras of make test: never skipped
import polars as pl

import rankeval as rk
from rankeval.exceptions import MissingUsersWarning, RankevalWarning

from ._paths import PATHS, id_paths


def _load_sibling(name: str):
    """Import tests/<name>.py whatever pytest's import mode or sys.path is."""
    key = f"_rankeval_tests_{name}"
    if key in sys.modules:
        return sys.modules[key]
    path = Path(__file__).resolve().parent / f"{name}.py"
    spec = importlib.util.spec_from_file_location(key, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


oracles = _load_sibling("_oracles")
strategies = _load_sibling("strategies")

EXAMPLES = int(os.environ.get("RANKEVAL_FUZZ_EXAMPLES", "40"))
#: examples per (defect, frame kind) pair of the forced test: few, as there are some sixty pairs
FORCED_EXAMPLES = max(5, EXAMPLES // 8)


def fuzz_settings(*suppressed: HealthCheck, max_examples: int = EXAMPLES) -> settings:
    """The fuzz's settings; ``suppressed``: health checks this test is exempt from (each with its reason
    where the test is). Random or not as the loaded profile says (tests/_hypothesis.py)."""
    return settings(max_examples=max_examples, deadline=None,
                    suppress_health_check=suppressed)


FUZZ = fuzz_settings()

PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3


def _arrow_reads_unsigned_dictionaries() -> bool:
    try:
        indices = pa.array([0], type=pa.uint32())
        pa.table({"c": pa.DictionaryArray.from_arrays(indices, pa.array(["x"]))}).to_pandas()
    except pa.ArrowException:
        return False
    return True


# excluded where pyarrow cannot do it (pyarrow 15 of the oldest stack): a polars Categorical column (its
# dictionary has uint32 indices) makes Split raise pyarrow's ArrowTypeError "Converting unsigned dictionary
# indices to pandas not yet supported" from rankeval/_frames.py; see the report
POLARS_CATEGORICAL = _arrow_reads_unsigned_dictionaries()
#: pandas' future default text dtype: "str" on pandas 3, its preview on pandas 2.2
STR_DTYPE = "str" if PANDAS_3 else pd.StringDtype("pyarrow_numpy")


# =========================================================================== #
# outcomes: a documented error, rankeval warnings, or values
# =========================================================================== #
@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None
    warnings: list[warnings.WarningMessage] = field(default_factory=list)

    def categories(self) -> set[type]:
        return {w.category for w in self.warnings}


def attempt(fn: Callable[[], Any], *, allow_type_error: bool = False) -> Outcome:
    """Run ``fn``: a ValueError (and TypeError if allowed) is an outcome; anything else escapes.

    Every warning is recorded; a warning that is not rankeval's (a NumPy RuntimeWarning, a
    pandas FutureWarning reached through rankeval) fails the test.
    """
    allowed = (ValueError, TypeError) if allow_type_error else (ValueError,)
    out = Outcome()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out.value = fn()
        except allowed as exc:
            out.error = exc
    out.warnings = list(caught)
    foreign = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in out.warnings
               if not issubclass(w.category, RankevalWarning)]
    assert not foreign, f"warnings that are not rankeval's: {foreign}"
    if out.error is not None:
        note(f"raised {type(out.error).__name__}: {out.error}")
    return out


#: the message every defect gets (docs/errors.md and the Split docstring)
DEFECT_MESSAGES = {
    "missing_id": r"`(pred|truth)`\['[^']*'\] has \d+ missing value\(s\) at ",
    "dup_pair": r"`(pred|truth)` repeats \d+ \(",
    "bad_truth_score": r"`truth`\['[^']*'\] has \d+ NaN or infinite value\(s\) at rows",
    "nonnumeric_truth": r"`truth`\['[^']*'\] must be numeric, got dtype",
    "nan_pred_score": r"`pred`\['[^']*'\] has \d+ NaN value\(s\) at rows",
    "nonnumeric_pred": r"`pred`\['[^']*'\] must be numeric, got dtype",
    "bad_rank": r"`pred`\['[^']*'\] (must hold integers >= 1|has \d+ NaN or infinite value)",
    "dup_rank": r"`pred`\['[^']*'\] repeats rank",
    "kind_mismatch": r"`pred`\['[^']*'\] holds (numbers|text) \(dtype .*\) but `truth`\['[^']*'\] holds "
                     r"(numbers|text) .*no id could ever match",
    "no_common": r"no user of `pred` appears in `truth`",
    "empty": r"`(pred|truth)` is empty",
    "missing_column": r"`(pred|truth)` is missing column\(s\)",
    "repeated_column": r"`(pred|truth)` has more than one column named",
    "unhashable": r"`(pred|truth)`\['[^']*'\] holds values that cannot be ids",
    "missing_users_error": r"`truth` user\(s\).* have no recommendations",
    "mixed_item_order": r"item ids of mixed types cannot be ordered",
    "mixed_kinds": r"`(pred|truth)`\['[^']*'\] holds ids of more than one kind: ",
}


def assert_documented(error: BaseException | None, defects: set[str], maybe: Collection[str] = frozenset()) -> None:
    """``error`` is a ValueError whose message is the one some defect of the input gets."""
    assert error is not None, f"no error for an input with defects {sorted(defects)}"
    assert isinstance(error, ValueError), f"{type(error).__name__} (not ValueError): {error}"
    text = str(error)
    pats = [DEFECT_MESSAGES[d] for d in sorted(set(defects) | set(maybe))]
    assert any(re.search(p, text, flags=re.S) for p in pats), (
        f"message of {sorted(defects | set(maybe))} expected, got: {text}")


# =========================================================================== #
# the logical data: ids, ratings, lists (before any dtype or frame kind)
# =========================================================================== #
N_ITEMS = 10
TAME_TRUTH_POOLS = [[0, 1, 2, 3, 4, 5], [0.0, 0.5, 1.0, 2.5, 4.0, 5.0], [-1.0, 0.0, 1.0, 3.5],
                    [0.1, 0.2, 0.3, 0.7], [0.1], [1.0, 2.0, 3.0]]
EXTREME_TRUTH_POOLS = [
    # exponents far apart: the exact-mean fallback
    [1e300, -1e300, 1.0, 0.0, 3.0],
    [1e-300, 5e-324, -5e-324, 0.0, 3.0, 2.0 ** -60],
    [1e300, -1e300, 1.0, 0.0],
    [-1e300, 1e-300, 0.0],                                  # NDCG = DCG / IDCG beyond the float range: -inf
    [1e305, 1.1e305, 1.0],                                  # sums x 1024 past 1.8e308: the exact path
    [-3.0, -2.5, -1.0],                                     # every grade negative: IDCG 0
    [2.0 ** 60 + 1, 2.0 ** 60, 1.0],                        # huge, not dyadic-small
    [1e-310, 2e-310, 3e-310],                               # subnormals
    [1100.0, 1.0, 0.0],                                     # 2**1100 overflows exponential gains
]
TAME_SCORE_POOLS = [[1.0], [0.0, 1.0], [0.25, 0.5, 0.75], [float(x) for x in np.linspace(-3, 3, 25)]]
EXTREME_SCORE_POOLS = [[np.inf, -np.inf, 1e308, -1e308, 5e-324, 0.0, -0.0, 1.0],
                       [np.inf, np.inf, -np.inf], [0.0, -0.0], [1e-320, 2e-320, -1e-320]]
SMALL_RANKS = list(range(1, 41))
# int ranks are compared as int64: 2**53 and 2**53 + 1 (one float) are distinct ranks
HUGE_RANKS = [2 ** 53 - 3, 2 ** 53 - 2, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1, 2 ** 55, 2 ** 60, 2 ** 61, 2 ** 62,
              2 ** 63 - 1]


@dataclass
class Logical:
    """One split before rendering: Python ids and values, rows in frame order."""

    user_family: str                       # numeric | text | mixed
    item_family: str
    user_ids: list                         # id of every user code
    item_ids: list
    numeric_base: str                      # how numeric ids look: small | negative | big | int64_huge | uint64_huge
    truth_rows: list                       # (user code, item code, score)
    pred_rows: list                        # (user code, item code, score or None, rank or None)
    has_score: bool
    has_rank: bool
    tame: bool                             # no extreme value anywhere
    truth_only: list
    pred_only: list


def _numeric_ids(base: str, n: int) -> list[int]:
    if base == "small":
        return [c * 7 + 3 for c in range(n)]
    if base == "negative":
        return [c * 7 - 30 for c in range(n)]
    if base == "big":
        return [10 ** 12 + c for c in range(n)]
    if base == "int64_huge":
        return [2 ** 62 + c for c in range(n)]
    return [2 ** 63 + c for c in range(n)]  # uint64_huge


def _text_ids(style: str, n: int, prefix: str) -> list[str]:
    if style == "plain":
        return [f"{prefix}{c:02d}" for c in range(n)]
    if style == "digits":  # text that looks like numbers: "0042" is not 42
        return [f"{c:04d}" for c in range(n)]
    if style == "unicode":
        return [f"{prefix}ü{c}" for c in range(n)]
    return [("" if c == 0 else f"{prefix} {c}") for c in range(n)]  # the empty string is an id too


def _mixed_ids(n: int, prefix: str) -> list:
    return [c * 7 + 3 if c % 2 == 0 else f"{prefix}{c}" for c in range(n)]


def _ids(draw, family: str, n: int, prefix: str, base: str) -> list:
    if family == "numeric":
        return _numeric_ids(base, n)
    if family == "text":
        return _text_ids(draw(st.sampled_from(["plain", "plain", "digits", "unicode", "weird"])), n, prefix)
    return _mixed_ids(n, prefix)


def _pred_rows(draw, users: list[int], truth_items: dict[int, list[int]], has_score: bool, has_rank: bool,
               score_pool: list[float], rank_pool: list[int]) -> list[tuple]:
    """Rows of the lists of ``users`` (codes), each 1-8 distinct items, some of them judged."""
    blocks = []
    for u in users:
        n = draw(st.integers(1, 8))
        items = draw(st.lists(st.integers(0, N_ITEMS - 1), min_size=min(n, N_ITEMS), max_size=min(n, N_ITEMS),
                              unique=True))
        ranks = draw(st.lists(st.sampled_from(rank_pool), min_size=len(items), max_size=len(items), unique=True)) \
            if has_rank else [None] * len(items)
        blocks.append([(u, i, draw(st.sampled_from(score_pool)) if has_score else None, r)
                       for i, r in zip(items, ranks)])
    layout = draw(st.sampled_from(["grouped", "grouped", "shuffled_users", "shuffled"]))
    if layout == "grouped":
        return [r for b in blocks for r in b]
    if layout == "shuffled_users":
        return [r for j in draw(st.permutations(range(len(blocks)))) for r in blocks[j]]
    flat = [r for b in blocks for r in b]
    return [flat[j] for j in draw(st.permutations(range(len(flat))))]


@st.composite
def logical_truth(draw, *, extreme: bool = True, huge_ids: bool = True, user_family: str | None = None,
                  item_family: str | None = None, min_truth_only: int = 0):
    """Ids and truth rows; the pred part is drawn by :func:`logical_pred`."""
    user_family = user_family or draw(st.sampled_from(["numeric", "numeric", "text", "text", "mixed"]))
    item_family = item_family or draw(st.sampled_from(["numeric", "numeric", "text", "text", "mixed"]))
    base = draw(st.sampled_from(["small", "small", "negative", "big"]
                                + (["int64_huge", "uint64_huge"] if huge_ids else [])))
    n_common = draw(st.integers(1, 5))
    n_pred_only = draw(st.integers(0, 1))
    n_truth_only = draw(st.integers(min_truth_only, 2))
    n_users = n_common + n_pred_only + n_truth_only
    codes = draw(st.permutations(range(n_users)))
    common, pred_only, truth_only = (codes[:n_common], codes[n_common:n_common + n_pred_only],
                                     codes[n_common + n_pred_only:])
    tame = not extreme or draw(st.integers(0, 3)) > 0
    pool = draw(st.sampled_from(TAME_TRUTH_POOLS if tame else EXTREME_TRUTH_POOLS))
    truth_rows = []
    truth_items: dict[int, list[int]] = {}
    for u in common + truth_only:
        n = draw(st.integers(1, 6))
        items = draw(st.lists(st.integers(0, N_ITEMS - 1), min_size=n, max_size=n, unique=True))
        truth_items[u] = items
        truth_rows += [(u, i, draw(st.sampled_from(pool))) for i in items]
    truth_rows = [truth_rows[j] for j in draw(st.permutations(range(len(truth_rows))))]
    return dict(user_family=user_family, item_family=item_family, base=base, common=common,
                pred_only=pred_only, truth_only=truth_only, n_users=n_users, truth_rows=truth_rows,
                truth_items=truth_items, tame=tame,
                user_ids=_ids(draw, user_family, n_users, "u", base),
                item_ids=_ids(draw, item_family, N_ITEMS, "i", base))


@st.composite
def logical_pred(draw, truth: dict, *, extreme: bool = True, score_mode: str | None = None):
    """One system's lists for the users of ``truth`` (its common and pred-only users)."""
    mode = score_mode or draw(st.sampled_from(["score", "score", "rank", "both", "none"]))
    has_score, has_rank = mode in ("score", "both"), mode in ("rank", "both")
    tame_scores = not extreme or draw(st.integers(0, 3)) > 0
    score_pool = draw(st.sampled_from(TAME_SCORE_POOLS if tame_scores else EXTREME_SCORE_POOLS))
    huge_ranks = extreme and draw(st.integers(0, 5)) == 0
    rank_pool = HUGE_RANKS if huge_ranks else SMALL_RANKS
    rows = _pred_rows(draw, truth["common"] + truth["pred_only"], truth["truth_items"], has_score, has_rank,
                      score_pool, rank_pool)
    return dict(rows=rows, has_score=has_score, has_rank=has_rank, tame=tame_scores and not huge_ranks,
                huge_ranks=huge_ranks)


# =========================================================================== #
# rendering: dtypes, missing values, defects, columns, index, frame kind
# =========================================================================== #
def _styles(family: str, base: str, values: list) -> list[str]:
    """The dtypes a column of these ids can be rendered as."""
    if family == "text":
        return ["object", "object", "str", "string[python]", "string[pyarrow]", "arrow_string",
                "arrow_large_string", "category"]
    if family == "mixed":
        return ["object", "object", "category"]
    out = ["object", "category", "int64[pyarrow]" if base != "uint64_huge" else "uint64[pyarrow]"]
    if base == "uint64_huge":
        return out + ["uint64", "uint64"]
    out += ["int64", "int64", "Int64"]
    if base != "int64_huge":
        out += ["float64", "int32" if base != "big" else "int64"]
    if base in ("small", "big", "int64_huge"):
        out.append("uint64")
    return out


def _series(values: list, style: str, *, unused: list | None = None) -> pd.Series:
    """An id column of ``values`` (which may hold a missing marker) in ``style``."""
    if style == "object":
        return pd.Series(values, dtype=object)
    if style == "category":
        present = [v for v in pd.unique(pd.Series(values, dtype=object)) if not _is_missing(v)]
        categories = present + [u for u in (unused or []) if u not in present]
        return pd.Series(pd.Categorical(values, categories=categories))
    if style == "str":
        return pd.Series(values, dtype=STR_DTYPE)
    if style in ("string[python]", "string[pyarrow]"):
        return pd.Series(values, dtype=pd.StringDtype(style[7:-1]))
    if style == "arrow_string":
        return pd.Series(values, dtype=pd.ArrowDtype(pa.string()))
    if style == "arrow_large_string":
        return pd.Series(values, dtype=pd.ArrowDtype(pa.large_string()))
    if style == "int64[pyarrow]":
        return pd.Series(values, dtype=pd.ArrowDtype(pa.int64()))
    if style == "uint64[pyarrow]":
        return pd.Series(values, dtype=pd.ArrowDtype(pa.uint64()))
    if style == "float64":
        return pd.Series([np.nan if _is_missing(v) else float(v) for v in values], dtype=np.float64)
    return pd.Series(values, dtype=style)


def _is_missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _missing_marker(draw, style: str) -> tuple[Any, str]:
    """A missing value for a column of ``style``, and the style that can hold it."""
    if style in ("int64", "int32", "uint64"):
        style = draw(st.sampled_from(["float64", "object", "Int64"] if style != "uint64" else ["object"]))
    if style == "object":
        return draw(st.sampled_from([None, np.nan, pd.NA])), style
    if style == "float64":
        return np.nan, style
    if style == "category":
        return draw(st.sampled_from([None, np.nan])), style
    return None, style


SCORE_STYLES_FLOAT = ["float64", "float64", "float32", "Float64", "double[pyarrow]"]
SCORE_STYLES_INT = ["int64", "int32", "Int64", "int64[pyarrow]"]


def _score_series(values: list, style: str) -> pd.Series:
    if style == "double[pyarrow]":
        return pd.Series(values, dtype=pd.ArrowDtype(pa.float64()))
    if style == "int64[pyarrow]":
        return pd.Series(values, dtype=pd.ArrowDtype(pa.int64()))
    if style == "float32":
        with np.errstate(over="ignore"):
            return pd.Series(np.asarray(values, dtype=np.float64).astype(np.float32))
    return pd.Series(values, dtype=style)


def _score_style(draw, values: list, *, finite: bool = False) -> str:
    """A dtype for these scores; ``finite``: only one that keeps them finite (float32 overflows past 3.4e38)."""
    whole = all(isinstance(v, int) or (math.isfinite(v) and float(v).is_integer() and abs(v) < 2 ** 31)
                for v in values)
    styles = SCORE_STYLES_FLOAT + (SCORE_STYLES_INT if whole else [])
    if finite and any(abs(v) > 3e38 for v in values):
        styles = [s for s in styles if s != "float32"]
    return draw(st.sampled_from(styles))


class Case:
    """Frames as the caller hands them, what the oracle reads, and what must happen.

    A plain class (not a dataclass), so that Hypothesis shows a failing case by its short repr
    and the note made of :meth:`describe`.
    """

    def __init__(self, *, pred: Any, truth: Any, options: dict, oracle_pred: pd.DataFrame | None,
                 oracle_truth: pd.DataFrame | None, defects: set[str], maybe: set[str], tame: bool, kind: str,
                 truth_only_ids: list, pred_only_ids: list) -> None:
        self.pred, self.truth = pred, truth
        self.options = options
        self.oracle_pred = oracle_pred            # canonical columns, the caller's values, tie order applied
        self.oracle_truth = oracle_truth
        self.defects = defects                    # what must make Split raise ValueError (empty: must succeed)
        self.maybe = maybe                        # errors allowed but not required
        self.tame = tame                          # no extreme value anywhere
        self.kind = kind
        self.truth_only_ids = truth_only_ids
        self.pred_only_ids = pred_only_ids
        self.unused_numeric = False
        self.user_family = ""
        self.snapshots: list = []

    def __repr__(self) -> str:
        return f"Case(kind={self.kind}, defects={sorted(self.defects)}, options={self.options})"

    def describe(self) -> str:
        def show(df):
            if isinstance(df, pd.DataFrame):
                return f"{df.dtypes.to_dict()}\n{df.to_string()}"
            return repr(df)
        return (f"kind={self.kind} options={self.options} defects={sorted(self.defects)} maybe={sorted(self.maybe)}"
                f"\npred:\n{show(self.pred)}\ntruth:\n{show(self.truth)}")

    def reference_frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(pred, truth) as the reference reads them: a case without defects has them."""
        assert self.oracle_pred is not None and self.oracle_truth is not None, "a case with defects has no reference"
        return self.oracle_pred, self.oracle_truth

    def assert_unchanged(self) -> None:
        for original, snapshot in self.snapshots:
            _assert_same_frame(original, snapshot)


def _snapshot(frame: Any) -> tuple[Any, Any]:
    if isinstance(frame, pd.DataFrame):
        return frame, frame.copy(deep=True)
    if isinstance(frame, pl.LazyFrame):
        return frame, frame.collect().clone()
    if isinstance(frame, pl.DataFrame):
        return frame, frame.clone()
    return frame, frame  # pyarrow tables are immutable


def _assert_same_frame(original: Any, copy: Any) -> None:
    if isinstance(original, pd.DataFrame):
        pd.testing.assert_frame_equal(original, copy, check_exact=True)
        assert list(original.columns) == list(copy.columns)
        for c in range(original.shape[1]):  # categories, their order, Arrow types: all unchanged
            assert original.iloc[:, c].dtype == copy.iloc[:, c].dtype
    elif isinstance(original, pl.LazyFrame):
        assert original.collect().equals(copy)
    elif isinstance(original, pl.DataFrame):
        assert original.equals(copy)


def _tie_order(pred: pd.DataFrame, ties: str) -> pd.DataFrame:
    """The oracle orders score ties by row: put the rows in the order ``ties`` breaks them."""
    if "score" not in pred.columns or "rank" in pred.columns or ties == "row_order":
        return pred
    items = pred["item_id"].tolist()
    if ties == "item_id_desc":
        keys = [str(i) for i in items]
        order = sorted(range(len(items)), key=lambda j: keys[j], reverse=True)
        # reverse=True keeps equal keys in row order; equal keys are the same item (one row per user)
    else:
        try:
            order = sorted(range(len(items)), key=lambda j: items[j])
        except TypeError:  # mixed types: rankeval refuses, or had no tie to break
            order = sorted(range(len(items)), key=lambda j: (type(items[j]).__name__, str(items[j])))
    return pred.iloc[order].reset_index(drop=True)


FRAME_KINDS = ("pandas", "polars", "polars_lazy", "arrow")
#: the defects :func:`render` injects into rows and columns
ROW_DEFECTS = ("missing_id", "dup_pair", "bad_truth_score", "nonnumeric_truth", "nan_pred_score", "nonnumeric_pred",
               "bad_rank", "dup_rank", "kind_mismatch", "no_common", "empty", "missing_column", "repeated_column",
               "unhashable")
#: every defect a test can force: those of the rows, a truth user without a list under
#: missing_users="error" (from the options and the users drawn), numbers and text in one id column (from the ids)
FORCEABLE_DEFECTS = (*ROW_DEFECTS, "missing_users_error", "mixed_kinds")


@st.composite
def render_options(draw, *, missing: tuple = (None, None, "ignore", "zero", "error")) -> dict:
    """Split's keyword arguments: column names, tie order, the direction of the scores (under
    ``"ascending"`` a clean case's scores are handed over negated, and must give the reference's
    numbers), the missing-users policy (one of ``missing``)."""
    options: dict = {}
    if draw(st.booleans()):
        names = draw(st.sampled_from([("uid", "iid", "rating", "pos"), ("user id", "item", "s", "r"),
                                      ("U", "I", "score", "rank")]))
        options.update(zip(("user_col", "item_col", "score_col", "rank_col"), names))
    ties = draw(st.sampled_from([None, None, "row_order", "item_id", "item_id_desc"]))
    if ties is not None:
        options["ties"] = ties
    score_order = draw(st.sampled_from([None, None, None, "descending", "ascending"]))
    if score_order is not None:
        options["score_order"] = score_order
    policy = draw(st.sampled_from(missing))
    if policy is not None:
        options["missing_users"] = policy
    return options


def _to_arrow(df: pd.DataFrame) -> pa.Table:
    """``df`` as an Arrow table; column by column when names repeat (an Arrow table may repeat
    a name, but ``Table.from_pandas`` refuses such a frame)."""
    if df.columns.is_unique:
        return pa.Table.from_pandas(df, preserve_index=False)
    columns = [pa.Table.from_pandas(df.iloc[:, [j]], preserve_index=False).column(0) for j in range(df.shape[1])]
    return pa.Table.from_arrays(columns, names=[str(c) for c in df.columns])


def _polars(table: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)  # a table gives a frame (an Arrow array would give a Series)
    return frame


@st.composite
def render(draw, truth: dict, pred: dict, *, options: dict | None = None, defects_allowed: bool = True,
           kinds: bool = True, force_defect: str | None = None, force_kind: str | None = None) -> Case:
    """The frames of one split, as the caller could hand them.

    ``force_defect`` (one of :data:`FORCEABLE_DEFECTS`): inject that defect into the rows or
    columns (for those of :data:`ROW_DEFECTS`) and no other; ``force_kind``: render as that
    frame kind. What these ids, lists and options cannot carry is left out (a rank defect in
    a list without ranks, a frame kind the dtypes have no form in): the caller checks
    ``case.defects`` and ``case.kind`` (with ``assume``).
    """
    defects: set[str] = set()
    maybe: set[str] = set()
    tame = truth["tame"] and pred["tame"]
    users, items = truth["user_ids"], truth["item_ids"]

    # ------------------------------------------------------------ options
    if options is None:
        options = draw(render_options())
    cols = {"user": options.get("user_col", "user_id"), "item": options.get("item_col", "item_id"),
            "score": options.get("score_col", "score"), "rank": options.get("rank_col", "rank")}
    ties = options.get("ties", "row_order")
    if options.get("missing_users") == "error" and truth["truth_only"]:
        defects.add("missing_users_error")

    # ------------------------------------------------------------ frame kind
    # drawn first: an Arrow or polars column holds one type, so the defects take a form it can hold
    if force_kind is not None:
        kind = force_kind
    elif kinds:
        kind = draw(st.sampled_from(["pandas", "pandas", "pandas", "polars", "polars_lazy", "arrow"]))
    else:
        kind = "pandas"
    arrow_bound = kind != "pandas"

    # ------------------------------------------------------------ defects to inject (rows)
    if force_defect is not None:
        assert force_defect in FORCEABLE_DEFECTS, force_defect
        chosen = {force_defect} & set(ROW_DEFECTS)
    else:
        n_defects = draw(st.sampled_from([0, 0, 0, 1, 1, 2])) if defects_allowed else 0
        chosen = set(draw(st.lists(st.sampled_from(ROW_DEFECTS), min_size=n_defects, max_size=n_defects)))

    t_rows = list(truth["truth_rows"])
    p_rows = list(pred["rows"])
    has_score, has_rank = pred["has_score"], pred["has_rank"]
    if "no_common" in chosen:  # pred lists only pred-only users: nobody can be evaluated
        outsiders = truth["pred_only"] or [truth["n_users"]]  # a fresh user if there is no pred-only one
        if truth["n_users"] in outsiders:
            users = users + _ids(draw, truth["user_family"], truth["n_users"] + 1, "u", truth["base"])[-1:]
            if users[-1] in users[:-1]:
                users = users[:-1] + [f"zz{len(users)}"] if truth["user_family"] != "numeric" else users[:-1] + [
                    users[-2] + 1000 if isinstance(users[-2], int) else 99991]
        p_rows = [(outsiders[0], i, s, r) for (_, i, s, r) in p_rows[:3]]
        p_rows = list({(u, i): (u, i, s, r) for u, i, s, r in p_rows}.values())
        if has_rank:
            p_rows = [(u, i, s, j + 1) for j, (u, i, s, _) in enumerate(p_rows)]
        defects.add("no_common")
    if "dup_pair" in chosen:
        if draw(st.booleans()) and len(p_rows):
            j = draw(st.integers(0, len(p_rows) - 1))
            u, i, s, r = p_rows[j]
            if has_rank:
                # a rank the user does not have yet (max + 1 would leave int64 at 2**63 - 1)
                used = {x[3] for x in p_rows if x[0] == u}
                r = next(v for v in range(1, len(used) + 2) if v not in used) if isinstance(r, int) else r
            p_rows.insert(draw(st.integers(0, len(p_rows))), (u, i, s, r))
        else:
            j = draw(st.integers(0, len(t_rows) - 1))
            t_rows.insert(draw(st.integers(0, len(t_rows))), t_rows[j])
        defects.add("dup_pair")
    if "dup_rank" in chosen and has_rank:
        by_user: dict = {}
        for j, row in enumerate(p_rows):
            by_user.setdefault(row[0], []).append(j)
        multi = [js for js in by_user.values() if len(js) > 1]
        if multi:
            js = draw(st.sampled_from(multi))
            a, b = js[0], js[1]
            p_rows[b] = p_rows[b][:3] + (p_rows[a][3],)
            defects.add("dup_rank")

    # ------------------------------------------------------------ id columns
    def id_column(codes: list[int], values_of: list, family: str, which: str, frame: str
                  ) -> tuple[list, str, list | None]:
        values = [values_of[c] for c in codes]
        style = draw(st.sampled_from(_styles(family, truth["base"], values_of)))
        unused = [values_of[c] for c in range(len(values_of))] if style == "category" and draw(st.booleans()) else None
        return values, style, unused

    tu, tu_style, tu_unused = id_column([r[0] for r in t_rows], users, truth["user_family"], "user", "truth")
    ti, ti_style, ti_unused = id_column([r[1] for r in t_rows], items, truth["item_family"], "item", "truth")
    pu, pu_style, pu_unused = id_column([r[0] for r in p_rows], users, truth["user_family"], "user", "pred")
    pi, pi_style, pi_unused = id_column([r[1] for r in p_rows], items, truth["item_family"], "item", "pred")

    if "kind_mismatch" in chosen:  # numbers in pred, the same ids as text in truth (or the other way)
        numeric = [w for w in ("user", "item") if truth[f"{w}_family"] == "numeric"]
        which = draw(st.sampled_from(numeric or ["user", "item"]))
        family = truth["user_family"] if which == "user" else truth["item_family"]
        if family == "numeric":
            to_text = draw(st.sampled_from(["truth", "pred"]))
            text_style = draw(st.sampled_from(["object", "str", "string[pyarrow]", "category"]))
            if which == "user" and to_text == "truth":
                tu, tu_style, tu_unused = [str(v) for v in tu], text_style, None
            elif which == "user":
                pu, pu_style, pu_unused = [str(v) for v in pu], text_style, None
            elif to_text == "truth":
                ti, ti_style, ti_unused = [str(v) for v in ti], text_style, None
            else:
                pi, pi_style, pi_unused = [str(v) for v in pi], text_style, None
            defects.add("kind_mismatch")
    if "missing_id" in chosen:
        frame = draw(st.sampled_from(["pred", "truth"]))
        which = draw(st.sampled_from(["user", "item"]))
        values, style = {("pred", "user"): (pu, pu_style), ("pred", "item"): (pi, pi_style),
                         ("truth", "user"): (tu, tu_style), ("truth", "item"): (ti, ti_style)}[(frame, which)]
        if values:
            marker, style = _missing_marker(draw, style)
            values = list(values)
            values[draw(st.integers(0, len(values) - 1))] = marker
            if (frame, which) == ("pred", "user"):
                pu, pu_style = values, style
            elif (frame, which) == ("pred", "item"):
                pi, pi_style = values, style
            elif (frame, which) == ("truth", "user"):
                tu, tu_style = values, style
            else:
                ti, ti_style = values, style
            defects.add("missing_id")
    if "unhashable" in chosen and arrow_bound:
        # an Arrow column has one type: every item id a list (Arrow list) or a dict (struct)
        frame = draw(st.sampled_from(["pred", "truth"]))
        wrap = draw(st.sampled_from(["list", "struct"]))

        def unhashable(values: list) -> list:
            return [[v] if wrap == "list" else {"id": v} for v in values]
        if frame == "pred" and pi:
            pi, pi_style = unhashable(pi), "object"
        else:
            ti, ti_style = unhashable(ti), "object"
        defects.add("unhashable")
    elif "unhashable" in chosen:
        frame = draw(st.sampled_from(["pred", "truth"]))
        bad = draw(st.sampled_from([["a", "list"], {"a": 1}, {1, 2}]))
        if frame == "pred" and pi:
            pi = list(pi)
            pi[draw(st.integers(0, len(pi) - 1))] = bad
            pi_style = "object"
        else:
            ti = list(ti)
            ti[draw(st.integers(0, len(ti) - 1))] = bad
            ti_style = "object"
        defects.add("unhashable")

    def kinds_of(values: list) -> set[str]:
        return {"text" if isinstance(v, str) else "numbers" for v in values
                if isinstance(v, (str, int, float)) and not _is_missing(v)}

    for p_values, t_values in ((pu, tu), (pi, ti)):
        # mixed ids whose listed and rated subsets hold one kind each (only ints listed, only strs rated)
        kp, kt = kinds_of(p_values), kinds_of(t_values)
        if len(kp) == 1 and len(kt) == 1 and kp != kt:
            defects.add("kind_mismatch")
        if len(kp) > 1 or len(kt) > 1:  # numbers and text in one column: some ids can never match
            defects.add("mixed_kinds")

    def build_ids(values, style, unused):
        try:
            return _series(values, style, unused=unused)
        except (TypeError, ValueError, OverflowError, pa.ArrowException):
            # the style cannot hold these values (a marker, a list): fall back to object
            return pd.Series(values, dtype=object)

    # ------------------------------------------------------------ truth frame
    t_scores = [r[2] for r in t_rows]
    t_style = _score_style(draw, t_scores, finite=True)
    if "bad_truth_score" in chosen and t_scores:
        j = draw(st.integers(0, len(t_scores) - 1))
        t_scores = list(t_scores)
        t_scores[j] = draw(st.sampled_from([np.nan, None, pd.NA, np.inf, -np.inf]))
        if t_scores[j] is pd.NA or t_scores[j] is None:
            t_style = draw(st.sampled_from(["Float64", "Int64", "double[pyarrow]"] if t_style != "float32"
                                           else ["Float64"]))
            if t_style == "Int64" and any(isinstance(v, float) and not float(v).is_integer() for v in t_scores
                                          if v is not None and v is not pd.NA):
                t_style = "Float64"
        elif t_style in SCORE_STYLES_INT:
            t_style = "float64"
        defects.add("bad_truth_score")
    try:
        t_score_col = _score_series(t_scores, t_style)
    except (TypeError, ValueError, OverflowError, pa.ArrowException):
        t_score_col = pd.Series(t_scores, dtype="float64" if not any(v is pd.NA for v in t_scores) else "Float64")
    if "nonnumeric_truth" in chosen:
        # numbers in an object column: pandas only (Arrow and polars would make them numeric)
        how = draw(st.sampled_from(["text", "bool"] if arrow_bound else ["object", "text", "bool"]))
        if how == "object":
            t_score_col = pd.Series(list(t_score_col), dtype=object)
        elif how == "text":
            t_score_col = t_score_col.astype(str)
        else:
            t_score_col = pd.Series([bool(v) for v in t_score_col.to_numpy(dtype=float, na_value=0.0)], dtype=bool)
        defects.add("nonnumeric_truth")
    truth_df = pd.DataFrame({cols["user"]: build_ids(tu, tu_style, tu_unused),
                             cols["item"]: build_ids(ti, ti_style, ti_unused),
                             cols["score"]: t_score_col})

    # ------------------------------------------------------------ pred frame
    pred_cols: dict[str, pd.Series] = {cols["user"]: build_ids(pu, pu_style, pu_unused),
                                       cols["item"]: build_ids(pi, pi_style, pi_unused)}
    if has_score:
        p_scores = [r[2] for r in p_rows]
        p_style = _score_style(draw, p_scores)
        if "nan_pred_score" in chosen and p_scores:
            p_scores = list(p_scores)
            marker = draw(st.sampled_from([np.nan, None, pd.NA]))
            p_scores[draw(st.integers(0, len(p_scores) - 1))] = marker
            p_style = "Float64" if marker is pd.NA or marker is None else "float64"
            defects.add("nan_pred_score")
        try:
            score_col = _score_series(p_scores, p_style)
        except (TypeError, ValueError, OverflowError, pa.ArrowException):
            score_col = pd.Series(p_scores, dtype="Float64")
        if "nonnumeric_pred" in chosen:
            if arrow_bound or draw(st.booleans()):
                score_col = score_col.astype(str)
            else:  # numbers in an object column: pandas only
                score_col = pd.Series(list(score_col), dtype=object)
            defects.add("nonnumeric_pred")
        pred_cols[cols["score"]] = score_col
    if has_rank:
        ranks = [r[3] for r in p_rows]
        if pred["huge_ranks"]:
            r_style = draw(st.sampled_from(["int64", "int64", "uint64", "Int64"]))
        else:
            r_style = draw(st.sampled_from(["int64", "int64", "int32", "float64", "Int64", "uint64"]))
        if "bad_rank" in chosen and ranks:
            ranks = list(ranks)
            bad = draw(st.sampled_from([0, -1, 1.5, np.nan, np.inf, None]))
            ranks[draw(st.integers(0, len(ranks) - 1))] = bad
            if bad is None:
                r_style = "Int64"
            elif isinstance(bad, float):
                r_style = "float64"
            elif r_style == "uint64":
                r_style = "int64"
            defects.add("bad_rank")
        try:
            rank_col = pd.Series([float(v) for v in ranks], dtype=np.float64) if r_style == "float64" \
                else pd.Series(ranks, dtype=r_style)
        except (TypeError, ValueError, OverflowError):
            rank_col = pd.Series(ranks, dtype=object)
        pred_cols[cols["rank"]] = rank_col
    pred_df = pd.DataFrame(pred_cols)

    # ------------------------------------------------------------ columns: extra, order, missing, repeated
    if draw(st.integers(0, 3)) == 0:
        pred_df["timestamp"] = pd.to_datetime(np.arange(len(pred_df), dtype=np.int64)[::-1], unit="s")
    if draw(st.integers(0, 3)) == 0:
        pred_df["note"] = pd.Series(["x"] * len(pred_df), dtype=object)
    if draw(st.integers(0, 3)) == 0:
        truth_df["weight"] = np.arange(len(truth_df), dtype=np.float64)
    unused_numeric = False
    if not has_score and not has_rank and draw(st.integers(0, 3)) == 0:
        pred_df["prediction"] = np.linspace(1, 0, len(pred_df))  # a misnamed score: warned about
        unused_numeric = True
    pred_df = pred_df[draw(st.permutations(list(pred_df.columns)))]
    truth_df = truth_df[draw(st.permutations(list(truth_df.columns)))]
    if "missing_column" in chosen:
        frame = draw(st.sampled_from(["pred", "truth"]))
        if frame == "pred":
            pred_df = pred_df.drop(columns=[draw(st.sampled_from([cols["user"], cols["item"]]))])
        else:
            truth_df = truth_df.drop(columns=[draw(st.sampled_from([cols["user"], cols["item"], cols["score"]]))])
        defects.add("missing_column")
    if "repeated_column" in chosen:
        if draw(st.booleans()):
            name = draw(st.sampled_from([cols["user"], cols["item"]] + ([cols["score"]] if has_score else [])))
            pred_df = pd.concat([pred_df, pred_df[[name]]], axis=1) if name in pred_df.columns else pred_df
            if name in pred_df.columns:
                defects.add("repeated_column")
        else:
            name = draw(st.sampled_from([cols["user"], cols["item"], cols["score"]]))
            if name in truth_df.columns:
                truth_df = pd.concat([truth_df, truth_df[[name]]], axis=1)
                defects.add("repeated_column")
    if "empty" in chosen:
        if draw(st.booleans()):
            pred_df = pred_df.iloc[:0]
        else:
            truth_df = truth_df.iloc[:0]
        defects.add("empty")

    # ------------------------------------------------------------ row index
    def index_for(df: pd.DataFrame) -> pd.DataFrame:
        kind = draw(st.sampled_from(["range", "range", "permuted", "duplicated", "str", "multi", "float"]))
        n = len(df)
        if kind == "permuted":
            df.index = pd.Index(draw(st.permutations(range(n))), dtype="int64")
        elif kind == "duplicated":
            df.index = pd.Index([j // 2 for j in range(n)], dtype="int64")
        elif kind == "str":
            df.index = pd.Index([f"r{j}" for j in range(n)][::-1], dtype=object)
        elif kind == "multi":
            df.index = pd.MultiIndex.from_arrays([[j % 2 for j in range(n)], list(range(n))], names=["a", "b"])
        elif kind == "float":
            df.index = pd.Index([j / 2 for j in range(n)], dtype=np.float64)
        return df

    pred_df = index_for(pred_df)
    truth_df = index_for(truth_df)

    # ------------------------------------------------------------ what the oracle reads (clean cases)
    oracle_pred = oracle_truth = None
    mixed_items = truth["item_family"] == "mixed"
    if mixed_items and ties == "item_id" and has_score and not has_rank:
        maybe.add("mixed_item_order")
    if not defects:
        oracle_pred = pd.DataFrame({"user_id": pd.Series(pred_df[cols["user"]].tolist(), dtype=object),
                                    "item_id": pd.Series(pred_df[cols["item"]].tolist(), dtype=object)})
        if has_score:
            oracle_pred["score"] = pred_df[cols["score"]].to_numpy(dtype=np.float64, na_value=np.nan)
        if has_rank:
            oracle_pred["rank"] = pd.Series(pred_df[cols["rank"]].tolist(), dtype=object)
        oracle_pred = _tie_order(oracle_pred, ties)
        oracle_truth = pd.DataFrame({"user_id": pd.Series(truth_df[cols["user"]].tolist(), dtype=object),
                                     "item_id": pd.Series(truth_df[cols["item"]].tolist(), dtype=object),
                                     "score": truth_df[cols["score"]].to_numpy(dtype=np.float64, na_value=np.nan)})
        if has_score and options.get("score_order") == "ascending":
            # lower is better: the same preferences negated (exactly, as floats: rankeval reads floats),
            # which must give the reference's numbers of the original scores
            pred_df[cols["score"]] = -pred_df[cols["score"]].to_numpy(dtype=np.float64, na_value=np.nan)

    # ------------------------------------------------------------ frame kind
    pred_frame, truth_frame = pred_df, truth_df
    if kind != "pandas":
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pt, tt = _to_arrow(pred_df), _to_arrow(truth_df)
                if kind == "arrow":
                    pred_frame, truth_frame = pt, tt
                else:
                    if not POLARS_CATEGORICAL and any(pa.types.is_dictionary(f.type) for f in [*pt.schema, *tt.schema]):
                        raise TypeError("excluded: polars Categorical on this pyarrow")
                    pred_frame, truth_frame = _polars(pt), _polars(tt)
                    if kind == "polars_lazy":
                        pred_frame, truth_frame = pred_frame.lazy(), truth_frame.lazy()
        except Exception as exc:  # noqa: BLE001 - the test's own conversion: these dtypes have no Arrow / polars form
            event(f"no {kind} form: {type(exc).__name__}: {str(exc)[:60]}")
            kind, pred_frame, truth_frame = "pandas", pred_df, truth_df
    case = Case(pred=pred_frame, truth=truth_frame, options=options, oracle_pred=oracle_pred,
                oracle_truth=oracle_truth, defects=defects, maybe=maybe, tame=tame, kind=kind,
                truth_only_ids=[users[c] for c in truth["truth_only"]],
                pred_only_ids=[users[c] for c in truth["pred_only"]])
    case.unused_numeric = unused_numeric
    case.user_family = truth["user_family"]
    case.snapshots = [_snapshot(pred_frame), _snapshot(truth_frame)]
    return case


@st.composite
def cases(draw, *, defects: bool = True, extreme: bool = True, kinds: bool = True, options: dict | None = None):
    truth = draw(logical_truth(extreme=extreme))
    pred = draw(logical_pred(truth, extreme=extreme))
    return draw(render(truth, pred, options=options, defects_allowed=defects, kinds=kinds))


# =========================================================================== #
# the reference, extended to every knob (checked against tests/_oracles.py below)
# =========================================================================== #
def _gain(score: float, gains: str, relevant: bool) -> float:
    if gains == "exponential":
        try:
            return 2.0 ** score - 1.0
        except OverflowError:  # the float result is +inf, as NumPy's
            return math.inf
    return oracles._gain(score, gains, relevant)


def _discount(i: int, discount: str, log: Callable) -> float:
    return float(log(i + 1 if discount == "log2" else max(i, 2)))


def _dcg_of(gains: list[float], discount: str, log: Callable) -> float:
    total = 0.0
    for i, g in enumerate(gains, start=1):
        total += g / _discount(i, discount, log)
    return total


def oracle_for(metric: rk.RankingMetric) -> Callable[[pd.DataFrame, pd.DataFrame], pd.Series]:
    """The plain-loop value of ``metric`` per evaluated user, for every built-in parameter."""
    name = type(metric).__name__
    p = metric._params()
    k = getattr(metric, "k", None)
    thr = p.get("relevant_threshold")
    nr = 0.0 if p.get("no_relevant", "nan") == "zero" else math.nan

    if name in ("MAP", "MAPAtK"):
        def one(listed, ut):
            rel, m = oracles._relevance(listed, ut, thr)
            if m == 0:
                return nr
            hits, total = 0, 0.0
            for i, r in enumerate(oracles._cut(rel, k), start=1):
                if r:
                    hits += 1
                    total += hits / i
            d = p["denominator"]
            if d == "hits":
                return total / hits if hits else 0.0
            if d == "min_k" and k is not None:
                return total / min(m, k)
            if d == "listed":
                return total / min(m, len(oracles._cut(listed, k)))
            return total / m
    elif name in ("MRR", "MRRAtK"):
        def one(listed, ut):
            rel, m = oracles._relevance(listed, ut, thr)
            if m == 0:
                return nr
            for i, r in enumerate(oracles._cut(rel, k), start=1):
                if r:
                    return 1.0 / i
            return 0.0
    elif name in ("PrecisionAtK", "RecallAtK", "HitRateAtK"):
        def one(listed, ut):
            rel, m = oracles._relevance(listed, ut, thr)
            if m == 0:
                return nr
            hits = sum(oracles._cut(rel, k))
            if name == "HitRateAtK":
                return 1.0 if hits else 0.0
            if name == "PrecisionAtK":
                return hits / (k if p["denominator"] == "k" else min(k, len(listed)))
            return hits / (m if p["denominator"] == "relevant" else min(m, k))
    elif name in ("DCG", "DCGAtK", "NDCG", "NDCGAtK"):
        gains, log, discount = p["gains"], p["discount_log"], p["discount"]
        judged_only = p["judged_only"]
        ideal = p.get("ideal")

        def one(listed, ut):
            if judged_only:
                listed = [(item, s) for item, s in listed if item in ut]
            g = [(_gain(ut[item], gains, oracles._is_relevant(ut[item], ut, thr)) if item in ut else 0.0)
                 for item, _ in listed]
            dcg = _dcg_of(oracles._cut(g, k), discount, log)
            if ideal is None:
                return dcg
            if ideal == "min_k_ones":
                m = sum(1 for s in ut.values() if oracles._is_relevant(s, ut, thr))
                ideal_gains = [1.0] * (m if k is None else min(m, k))
            elif ideal == "truth":
                ideal_gains = [_gain(s, gains, oracles._is_relevant(s, ut, thr)) for s in ut.values()]
            else:
                ideal_gains = list(g)
            ideal_gains = sorted((max(x, 0.0) for x in ideal_gains), reverse=True)
            idcg = _dcg_of(oracles._cut(ideal_gains, k), discount, log)
            if idcg == 0:
                return nr
            return dcg / idcg
    elif name == "Correlation":
        return lambda pred, truth: oracles.correlation(pred, truth, method=p["method"], top_n=p["top_n"])
    elif name == "AOA":  # Yang et al.'s average over all: each relevant item's share of the negatives below it
        def one(listed, ut):
            rel, m = oracles._relevance(listed, ut, thr)
            negatives = len(rel) - sum(rel)
            if m == 0 or negatives == 0:
                return math.nan
            return sum(rel[i] * (len(rel) - i - 1 - sum(rel[i + 1:])) / negatives for i in range(len(rel))) / m
    else:
        return _oracle_of_the_other_metrics(metric)
    return lambda pred, truth: oracles._per_user(pred, truth, one)


#: the set metrics (and P@k, R@k) as the kinds of tests/_oracles.py's set counts
SET_KINDS = {"Precision": "precision", "Recall": "recall", "FMeasure": "f", "FMeasureAtK": "f_at_k",
             "RPrecision": "rprec", "PrecisionAtK": "p_at_k", "RecallAtK": "r_at_k"}
COUNT_KINDS = {"NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret"}
ERROR_METRICS = ("MAE", "MSE", "RMSE")
#: no per-user value: the system value is over the items recommended
SYSTEM_LEVEL = ("GiniIndex", "ShannonEntropy", "ExposureGini")


def _oracle_of_the_other_metrics(metric: rk.RankingMetric) -> Callable[[pd.DataFrame, pd.DataFrame], pd.Series]:
    """tests/_oracles.py's plain loops for the set, count, error, IR and system-level metrics."""
    name = type(metric).__name__
    p = metric._params()
    k, thr, no_relevant = getattr(metric, "k", None), p.get("relevant_threshold"), p.get("no_relevant", "nan")
    if name in SET_KINDS:
        return lambda pred, truth: oracles.set_metric(pred, truth, SET_KINDS[name], k=k, beta=p.get("beta", 1.0),
                                                      relevant_threshold=thr, denominator=p.get("denominator"),
                                                      no_relevant=no_relevant)
    if name in COUNT_KINDS:
        return lambda pred, truth: oracles.counts(pred, truth, COUNT_KINDS[name], relevant_threshold=thr)
    if name in ERROR_METRICS:
        return lambda pred, truth: oracles.error(pred, truth, name.lower())
    if name == "BPref":
        return lambda pred, truth: oracles.bpref(pred, truth, relevant_threshold=thr, no_relevant=no_relevant)
    if name == "RBP":
        return lambda pred, truth: oracles.rbp(pred, truth, p["p"], relevant_threshold=thr, gains=p["gains"],
                                               no_relevant=no_relevant)
    if name == "ERRAtK":
        return lambda pred, truth: oracles.err(pred, truth, k, max_grade=p["max_grade"], no_relevant=no_relevant)
    if name == "AUC" or name == "GAUC":
        return lambda pred, truth: oracles.auc(pred, truth, k, thr, p["negatives"], p["ties"], p["extra_negative"])
    if name == "LAUC":
        return lambda pred, truth: oracles.lauc(pred, truth, k, thr, p["negatives"], p["ties"], p["extra_negative"])
    if name == "LogLoss":
        return lambda pred, truth: oracles.logloss(pred, truth, thr, p["eps"])
    if name in SYSTEM_LEVEL:
        return lambda pred, truth: pd.Series(
            math.nan, index=pd.Index(oracles.evaluated_users(pred, truth), dtype=object), dtype=float)
    raise AssertionError(f"no oracle for {name}")


def expected_system(metric: rk.RankingMetric, case: Case, users: pd.Series) -> float:
    """The system value of ``metric`` on ``case``, whose per-user values (rankeval's, already
    checked against the reference) are ``users``.

    The mean of the users' values, exact and rounded once (+-inf with infinities of one sign,
    NaN with both), unless the metric pools: a sum of counts, a micro average of the counts
    summed over the users whose value is defined, a value over the items recommended.
    """
    name = type(metric).__name__
    p = metric._params()
    pred, truth = case.reference_frames()
    if name == "GiniIndex":
        return oracles.gini(pred, truth, k=p["k"])
    if name == "ShannonEntropy":
        return oracles.shannon_entropy(pred, truth, k=p["k"], base=p["base"], per_item=p["per_item"])
    if name == "ExposureGini":
        return oracles.exposure_gini(pred, truth, p["weight"], k=p["k"])
    if name == "GAUC":  # the users' AUC weighted by their positives, undefined users left out
        weights = oracles.gauc_weights(pred, truth, p["k"], p["relevant_threshold"]).reindex(users.index, fill_value=0)
        defined = users.notna().to_numpy()
        w, v = weights.to_numpy()[defined], users.to_numpy()[defined]
        return math.fsum(w * v) / math.fsum(w) if w.sum() > 0 else math.nan
    if name == "LogLoss" and p["average"] == "micro":
        return oracles.logloss_micro(pred, truth, p["relevant_threshold"], p["eps"])
    average = p.get("average", "macro")
    if average == "macro":
        return oracles.mean_of(users.to_numpy(dtype=float))
    if average == "sum":  # counts of the users with a list (those without one add 0)
        return float(sum(oracle_for(metric)(pred, truth).tolist()))
    assert average == "micro", average
    if name in ERROR_METRICS:
        return oracles.error_micro(pred, truth, name.lower())
    return oracles.set_metric_micro(pred, truth, SET_KINDS[name], k=getattr(metric, "k", None),
                                    beta=p.get("beta", 1.0), relevant_threshold=p.get("relevant_threshold"),
                                    denominator=p.get("denominator"), no_relevant=p.get("no_relevant", "nan"))


def assert_same_number(got: float, expected: float, name: str, *, exact: bool = False, rel_tol: float = 1e-12,
                       abs_tol: float = 1e-300) -> None:
    """Both NaN, the same infinity, or equal (to ``rel_tol`` unless ``exact``)."""
    got, expected = float(got), float(expected)
    if math.isnan(expected) or math.isinf(expected):
        assert (math.isnan(got) and math.isnan(expected)) or got == expected, f"{name}: {got!r} != {expected!r}"
    elif exact:
        assert got == expected, f"{name}: {got!r} != {expected!r} (exact)"
    else:
        assert math.isclose(got, expected, rel_tol=rel_tol, abs_tol=abs_tol), f"{name}: {got!r} != {expected!r}"


def _k(draw) -> int:
    """Cutoffs: small ones mostly, now and then one beyond every list (the largest a metric takes)."""
    return draw(st.sampled_from([1, 1, 2, 3, 3, 5, 8, 20, 2 ** 31 - 1]))


THRESHOLDS = [None, None, None, 0.0, 1.0, 2.5, -1.0, -math.inf, math.inf, 1e-300, -1e300]


#: the families whose system value is the mean of the users' values (EvalModel and compare pair those)
MEAN_FAMILIES = ("MAP", "MRR", "P", "R", "HR", "DCG", "NDCG", "corr")
#: and the others: set metrics over whole lists, counts, errors, IR measures, values over items
OTHER_FAMILIES = ("BPref", "RBP", "ERR", "F", "F@k", "P-set", "R-set", "RPrec", "count", "error", "Gini", "Entropy")


@st.composite
def metrics(draw, *, exponential: bool = True, correlations: tuple[str, ...] = ("pearson", "spearman", "kendall"),
            every_family: bool = False) -> rk.RankingMetric:
    """Any built-in metric, any parameters (``exponential=False``: no exponential gains).

    ``every_family``: also those of :data:`OTHER_FAMILIES` and micro averages; else the
    families whose system value is a mean of users (:data:`MEAN_FAMILIES`), macro.
    """
    family = draw(st.sampled_from(MEAN_FAMILIES + (OTHER_FAMILIES if every_family else ())))
    thr = draw(st.sampled_from(THRESHOLDS))
    no_relevant = draw(st.sampled_from(["nan", "zero"]))
    cut = draw(st.booleans())
    average = draw(st.sampled_from(["macro", "micro"])) if every_family else "macro"
    if family in OTHER_FAMILIES:
        return draw(other_metrics(family, thr, no_relevant, cut, average))
    if family == "MAP":
        d = draw(st.sampled_from(["relevant", "min_k", "hits", "listed"]))
        return rk.MAPAtK(_k(draw), thr, denominator=d, no_relevant=no_relevant) if cut else \
            rk.MAP(thr, denominator=d, no_relevant=no_relevant)
    if family == "MRR":
        return rk.MRRAtK(_k(draw), thr, no_relevant=no_relevant) if cut else rk.MRR(thr, no_relevant=no_relevant)
    if family == "P":
        return rk.PrecisionAtK(_k(draw), thr, denominator=draw(st.sampled_from(["k", "listed"])),
                               no_relevant=no_relevant, average=average)
    if family == "R":
        return rk.RecallAtK(_k(draw), thr, denominator=draw(st.sampled_from(["relevant", "min_k"])),
                            no_relevant=no_relevant, average=average)
    if family == "HR":
        return rk.HitRateAtK(_k(draw), thr, no_relevant=no_relevant)
    if family == "corr":
        method = draw(st.sampled_from(correlations))
        return rk.Correlation(method, top_n=_k(draw) if cut else None)
    gains = draw(st.sampled_from(["linear", "exponential", "binary"] if exponential else ["linear", "binary"]))
    kw = dict(gains=gains, discount_log=draw(st.sampled_from([np.log2, np.log, np.log10])),
              relevant_threshold=thr, discount=draw(st.sampled_from(["log2", "jarvelin"])),
              judged_only=draw(st.booleans()))
    if family == "DCG":
        return rk.DCGAtK(_k(draw), **kw) if cut else rk.DCG(**kw)
    ideals = ["truth", "ranked"] + (["min_k_ones"] if gains == "binary" else [])
    kw.update(ideal=draw(st.sampled_from(ideals)), no_relevant=no_relevant)
    return rk.NDCGAtK(_k(draw), **kw) if cut else rk.NDCG(**kw)


@st.composite
def other_metrics(draw, family: str, thr: float | None, no_relevant: str, cut: bool, average: str
                  ) -> rk.RankingMetric:
    """A metric of :data:`OTHER_FAMILIES`, any parameters."""
    beta = draw(st.sampled_from([1.0, 1.0, 0.5, 2.0, 1e-3, 1e3]))
    if family == "BPref":
        return rk.BPref(thr, no_relevant=no_relevant)
    if family == "RBP":
        return rk.RBP(draw(st.sampled_from([0.8, 0.5, 0.95, 1e-6, 0.999999])), thr,
                      gains=draw(st.sampled_from(["binary", "graded"])), no_relevant=no_relevant)
    if family == "ERR":  # a fixed scale below some grades is refused (metric_error)
        return rk.ERRAtK(_k(draw), max_grade=draw(st.sampled_from([None, None, 4.0, 5.0, 1e300])),
                         no_relevant=no_relevant)
    if family == "F":
        return rk.FMeasure(beta, thr, no_relevant=no_relevant, average=average)
    if family == "F@k":
        return rk.FMeasureAtK(_k(draw), beta, thr, denominator=draw(st.sampled_from(["k", "listed"])),
                              no_relevant=no_relevant, average=average)
    if family == "P-set":
        return rk.Precision(thr, no_relevant=no_relevant, average=average)
    if family == "R-set":
        return rk.Recall(thr, no_relevant=no_relevant, average=average)
    if family == "RPrec":
        return rk.RPrecision(thr, denominator=draw(st.sampled_from(["relevant", "listed"])), no_relevant=no_relevant,
                             average=average)
    if family == "count":
        total = "sum" if average == "micro" else "macro"  # counts sum (their default) or average
        which = draw(st.sampled_from(["ret", "rel", "rel_ret"]))
        return rk.NumRet(average=total) if which == "ret" else \
            (rk.NumRel if which == "rel" else rk.NumRelRet)(thr, average=total)
    if family == "error":
        return draw(st.sampled_from([rk.MAE, rk.MSE, rk.RMSE]))(average=average)
    k = _k(draw) if cut else None
    if family == "Gini":
        return rk.GiniIndex(k)
    return rk.ShannonEntropy(k, base=draw(st.sampled_from([2.0, math.e, 10.0, 0.5])), per_item=draw(st.booleans()))


def assert_users_match(users: pd.Series, expected: pd.Series, name: str, *, exact_nan: bool = True,
                       rtol: float = 1e-12) -> None:
    """Per-user values equal the reference (aligned by user id), NaN in the same places."""
    assert users.index.is_unique, f"{name}: repeated users {users.index.tolist()}"
    got = dict(zip(users.index.tolist(), users.tolist()))
    assert set(got) == set(expected.index.tolist()), (
        f"{name}: users differ: rankeval {sorted(map(repr, got))} reference {sorted(map(repr, expected.index))}")
    fast = np.array([got[u] for u in expected.index.tolist()], dtype=float)
    ref = expected.to_numpy(dtype=float)
    # a correlation lies in [-1, 1]: a float computation resolves it to a few eps absolute, not
    # relative (x = [0, 0, 1, 1], y = [1e-300, 5e-324, 1e-300, -5e-324] has r = -4.9e-24 exactly;
    # the centred sums lose the 5e-324 parts next to 1e-300 and give 0.0)
    atol = 1e-15 if re.search(r"\b(pearson|spearman|kendall)\b", name) else 1e-300
    same = np.isclose(fast, ref, rtol=rtol, atol=atol, equal_nan=True) | (fast == ref)
    if not same.all():
        table = pd.DataFrame({"rankeval": fast, "reference": ref}, index=expected.index)
        raise AssertionError(f"{name} differs from the reference:\n{table[~same].to_string()}")


def expected_values(metric: rk.RankingMetric, case: Case) -> pd.Series:
    values = oracle_for(metric)(*case.reference_frames())
    if case.options.get("missing_users") == "zero" and case.truth_only_ids:
        # trec_eval -c: truth users without a list score 0 on every metric
        values = pd.concat([values, pd.Series(0.0, index=pd.Index(case.truth_only_ids, dtype=object))])
    return values


def check_metric(metric: rk.RankingMetric, split: rk.Split, case: Case) -> None:
    name = str(metric)
    failure = known_failure(metric, case)
    if failure is not None:
        event(f"not evaluated: {failure}")
        return
    out = attempt(lambda: metric.perform(split))
    documented = metric_error(metric, case)
    if documented is not None:
        assert out.error is not None and re.search(documented, str(out.error)), repr(out.error)
        return
    assert out.error is None, f"{name} raised on a valid split: {out.error!r}"
    res = out.value
    assert list(res.users.columns) == [name] and list(res.system.index) == ["sys"]
    assert res.users[name].dtype == np.float64
    assert_reference_result(metric, res, case, name)


def known_failure(metric: rk.RankingMetric, case: Case) -> str | None:
    """Why rankeval fails on this case in a way it should not (None: it may not).

    Excluded: RMSE-micro whose pooled sum of squared errors is beyond the float range (errors
    of 1e300): each user's sum of e**2 is a float part, inf, so the value is inf where RMSE-micro
    is 1e300 (MSE-micro is then truly beyond the float range; MAE-micro is exact).
    """
    name = type(metric).__name__
    if name == "RMSE" and metric._params().get("average") == "micro":
        pred, truth = case.reference_frames()
        if "score" in pred.columns and oracles.error_sum(pred, truth, name.lower()) > sys.float_info.max:
            return f"{name}-micro: a pooled error sum beyond the float range"
    return None


def assert_reference_result(metric: rk.RankingMetric, res: Any, case: Case, name: str) -> None:
    """``res`` (a MetricResult) holds the reference's per-user values and system value."""
    assert_users_match(res.users.iloc[:, 0], expected_values(metric, case), name)
    # a mean of users (infinities included) is exact, rounded once: the same bits as the reference's
    assert_same_number(float(res.system.iloc[0, 0]), expected_system(metric, case, res.users.iloc[:, 0]), name,
                       exact=metric.system_is_user_mean)


# =========================================================================== #
# Split + every built-in metric
# =========================================================================== #
def big_grades(case: Case) -> bool:
    """Whether a grade >= 1024 is in truth (exponential gains are refused on it)."""
    return case.oracle_truth is not None and bool((case.oracle_truth["score"] >= 1024).any())


def exponential_error(metric: rk.RankingMetric, case: Case) -> str | None:
    """The documented error of exponential gains on a grade >= 1024 (2**r - 1 overflows float64)."""
    if getattr(metric, "gains", None) != "exponential":
        return None
    pred, truth = case.reference_frames()
    evaluated = set(oracles.evaluated_users(pred, truth))
    grades = truth.loc[[u in evaluated for u in truth["user_id"].tolist()], "score"]
    if (grades >= 1024).any():
        return r"exponential gains 2\*\*r - 1 overflow float64 for truth grade"
    return None


def metric_error(metric: rk.RankingMetric, case: Case) -> str | None:
    """The documented error ``metric`` raises on the case's valid split, or None.

    Exponential gains of a grade >= 1024; an error metric on lists without predicted scores;
    ERR with a fixed ``max_grade`` below an evaluated user's grade; RBO and LIP by name, which
    have no reference lists outside compare.
    """
    name = type(metric).__name__
    if name in ("RBO", "LIP"):
        return r"compares each list with a reference system's list, and none was given"
    pred, truth = case.reference_frames()
    if name in ERROR_METRICS and "score" not in pred.columns:
        return r"needs predicted scores: `pred` has no score column"
    if (name in (*ERROR_METRICS, "LogLoss") and case.options.get("score_order") == "ascending"
            and "score" in pred.columns):
        return r"score_order='ascending' \(lower is better, CLI --score-order\)"
    if name == "LogLoss":
        return _logloss_error(metric, pred, truth)
    if isinstance(metric, rk.ERRAtK) and metric.max_grade is not None:
        evaluated = set(oracles.evaluated_users(pred, truth))
        grades = truth.loc[[u in evaluated for u in truth["user_id"].tolist()], "score"]
        if (grades > metric.max_grade).any():
            return r"`max_grade`=\S+ of ERR@\d+ is below a truth score: user "
    return exponential_error(metric, case)


def _logloss_error(metric: rk.RankingMetric, pred: pd.DataFrame, truth: pd.DataFrame) -> str | None:
    """LogLoss's documented errors: no scores, a judged score outside [0, 1], a label not 0 or 1."""
    if "score" not in pred.columns:
        return r"needs predicted probabilities: `pred` has no score column"
    evaluated = set(oracles.evaluated_users(pred, truth))
    judged = pred.merge(truth, on=["user_id", "item_id"], suffixes=("", "_truth"))
    # a boolean array, not a list: an empty list would select no columns, not no rows
    judged = judged[np.array([u in evaluated for u in judged["user_id"].tolist()], dtype=bool)]
    if (~judged["score"].between(0.0, 1.0)).any():
        return r"which must be in \[0, 1\]: user "
    if metric._params()["relevant_threshold"] is None and (~judged["score_truth"].isin([0.0, 1.0])).any():
        return r"which must be 0 or 1: user "
    return None


@st.composite
def cases_and_metrics(draw, *, max_metrics: int = 6, **options):
    case = draw(cases(**options))
    return case, draw(st.lists(metrics(every_family=True), min_size=1, max_size=max_metrics))


@pytest.mark.parametrize("paths", PATHS)
@FUZZ
@given(drawn=cases_and_metrics())
def test_split_and_every_metric_error_or_reference_values(drawn, paths):
    """Also on every size-gated path of the join (tests/_paths.py), which small inputs do not reach."""
    case, metric_list = drawn
    note(case.describe())
    event(f"kind: {case.kind}")
    event(f"defects: {sorted(case.defects)}")
    with id_paths(paths):
        out = attempt(lambda: rk.Split(case.pred, case.truth, **case.options))
    case.assert_unchanged()
    if case.defects:
        assert_documented(out.error, case.defects, case.maybe)
        return
    if out.error is not None:
        assert_documented(out.error, case.maybe)
        return
    split = out.value
    categories = out.categories()
    expect_missing = bool(case.pred_only_ids) or (bool(case.truth_only_ids))
    assert (MissingUsersWarning in categories) == expect_missing, (categories, case.truth_only_ids,
                                                                    case.pred_only_ids)
    if case.unused_numeric:
        assert rk.UnusedColumnsWarning in categories
    for metric in metric_list:
        note(repr(metric))
        check_metric(metric, split, case)
    case.assert_unchanged()


# =========================================================================== #
# every defect in every frame kind, forced (a random draw misses some in a short run)
# =========================================================================== #
_ONE_TYPE = "a {} column has one type: numbers and text cannot share an id column (conversion refuses [3, 'u1'])"
_NO_REPEATS = "polars refuses two columns of one name (DuplicateError): no polars frame repeats a column"
#: the (defect, frame kind) pairs no input can have, and why (test_the_impossible_pairs_are_impossible)
IMPOSSIBLE = {
    ("repeated_column", "polars"): _NO_REPEATS,
    ("repeated_column", "polars_lazy"): _NO_REPEATS,
    ("mixed_kinds", "polars"): _ONE_TYPE.format("polars"),
    ("mixed_kinds", "polars_lazy"): _ONE_TYPE.format("polars"),
    ("mixed_kinds", "arrow"): _ONE_TYPE.format("Arrow"),
}
FORCED = [pytest.param(defect, kind, id=f"{defect}-{kind}") for defect in FORCEABLE_DEFECTS for kind in FRAME_KINDS
          if (defect, kind) not in IMPOSSIBLE]
#: the lists a defect of the score or rank column needs
SCORE_MODES_FOR = {"nan_pred_score": ["score", "both"], "nonnumeric_pred": ["score", "both"],
                   "bad_rank": ["rank", "both"], "dup_rank": ["rank", "both"]}


@st.composite
def forced_cases(draw, defect: str, kind: str) -> Case:
    """A case with ``defect`` as a ``kind`` frame, the rest drawn; steered to carry that defect
    and no other (no missing_users="error" but for its own defect, no mixed ids but for
    mixed_kinds), which the test then checks."""
    families = ["numeric", "text"]
    user_family, item_family = draw(st.sampled_from(families)), draw(st.sampled_from(families))
    if defect == "mixed_kinds":  # numbers and text among the item ids (and maybe the user ids)
        user_family, item_family = draw(st.sampled_from(["mixed", *families])), "mixed"
    if defect == "kind_mismatch" and item_family != "numeric":
        user_family = "numeric"
    truth = draw(logical_truth(user_family=user_family, item_family=item_family,
                               min_truth_only=1 if defect == "missing_users_error" else 0))
    modes = SCORE_MODES_FOR.get(defect)
    pred = draw(logical_pred(truth, score_mode=draw(st.sampled_from(modes)) if modes else None))
    options = draw(render_options(missing=("error",) if defect == "missing_users_error" else (None, "ignore", "zero")))
    return draw(render(truth, pred, options=options, force_defect=defect, force_kind=kind))


# filter_too_much: the assume calls below reject up to a third of the drawn cases (a repeated rank needs a list
# of two ranked items, some dtypes have no Arrow form); suppressed so that a pair no input can carry fails as
# Unsatisfiable, naming the assume, rather than as a health check about slow generation or filtering in general
@pytest.mark.parametrize("defect, kind", FORCED)
@fuzz_settings(HealthCheck.filter_too_much, max_examples=FORCED_EXAMPLES)
@given(data=st.data())
def test_every_defect_in_every_frame_kind_raises_its_error(defect, kind, data):
    case = data.draw(forced_cases(defect, kind), label="case")
    note(case.describe())
    assume(case.kind == kind)  # the dtypes drawn have a form in this kind
    assume(case.defects == {defect})  # the lists drawn can carry the defect, and nothing else crept in
    out = attempt(lambda: rk.Split(case.pred, case.truth, **case.options))
    case.assert_unchanged()
    assert_documented(out.error, {defect}, case.maybe)


def test_the_impossible_pairs_are_impossible():
    """The reasons of IMPOSSIBLE hold on the installed polars and pyarrow."""
    with pytest.raises(pl.exceptions.DuplicateError):
        pl.DataFrame([pl.Series("user_id", [1]), pl.Series("user_id", [2])])
    for build in (lambda: pa.array([3, "u1"]), lambda: pa.array(["u1", 3]),
                  lambda: pl.Series("user_id", [3, "u1"], strict=True)):
        with pytest.raises((pa.ArrowException, TypeError)):
            build()
    assert len(FORCED) == len(FORCEABLE_DEFECTS) * len(FRAME_KINDS) - len(IMPOSSIBLE)


#: documented messages that are not a defect the generator injects: what item ids of mixed
#: types may give under ties="item_id" (a possible outcome of the ids drawn, checked where it arises)
NOT_FORCED = {"mixed_item_order"}


def test_every_documented_defect_is_forced():
    """Every defect with a documented message is forced into every frame kind: a kind dropped from
    the generator's list (or a message added without its generator) fails here."""
    assert set(FORCEABLE_DEFECTS) == set(DEFECT_MESSAGES) - NOT_FORCED
    assert len(FORCEABLE_DEFECTS) == len(set(FORCEABLE_DEFECTS)) == 16
    assert {defect for defect, _ in IMPOSSIBLE} <= set(FORCEABLE_DEFECTS)
    forced = {(p.values[0], p.values[1]) for p in FORCED}
    for defect in FORCEABLE_DEFECTS:
        kinds = {kind for d, kind in forced if d == defect}
        assert kinds == set(FRAME_KINDS) - {kind for d, kind in IMPOSSIBLE if d == defect}, defect


# =========================================================================== #
# the extension of the reference agrees with tests/_oracles.py where both apply
# =========================================================================== #
@FUZZ
@given(data=strategies.frames(), thr=strategies.thresholds(), k=st.sampled_from([None, 1, 3, 20]),
       gains=st.sampled_from(["linear", "exponential", "binary"]), ideal=st.sampled_from(["truth", "ranked"]),
       judged_only=st.booleans())
def test_extended_reference_equals_tests_oracles(data, thr, k, gains, ideal, judged_only):
    pred, truth = data

    def same(metric, reference):
        assert_users_match(oracle_for(metric)(pred, truth), reference, str(metric), rtol=1e-15)

    kk = k or 5
    same(rk.MAP(thr) if k is None else rk.MAPAtK(k, thr), oracles.average_precision(pred, truth, k=k, relevant_threshold=thr))
    same(rk.MRR(thr) if k is None else rk.MRRAtK(k, thr), oracles.reciprocal_rank(pred, truth, k=k, relevant_threshold=thr))
    same(rk.PrecisionAtK(kk, thr), oracles.precision_at_k(pred, truth, kk, relevant_threshold=thr))
    same(rk.RecallAtK(kk, thr), oracles.recall_at_k(pred, truth, kk, relevant_threshold=thr))
    same(rk.HitRateAtK(kk, thr), oracles.hit_rate_at_k(pred, truth, kk, relevant_threshold=thr))
    same(rk.DCG(gains, relevant_threshold=thr) if k is None else rk.DCGAtK(k, gains, relevant_threshold=thr),
         oracles.dcg(pred, truth, k=k, gains=gains, relevant_threshold=thr))
    params = dict(gains=gains, ideal=ideal, judged_only=judged_only, relevant_threshold=thr)
    same(rk.NDCG(**params) if k is None else rk.NDCGAtK(k, **params), oracles.ndcg(pred, truth, k=k, **params))


# =========================================================================== #
# the references by hand: each oracle on a list small enough to work out in a comment
# =========================================================================== #
def _hand(lists: dict, grades: dict, scores: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """pred from ``{user: [item, ...]}`` (row order = list order; ``scores``: {user: [score, ...]}),
    truth from ``{user: {item: grade}}``."""
    pred = pd.DataFrame({"user_id": pd.Series([u for u, items in lists.items() for _ in items], dtype=object),
                         "item_id": pd.Series([i for items in lists.values() for i in items], dtype=object)})
    if scores is not None:
        pred["score"] = [x for xs in scores.values() for x in xs]
    truth = pd.DataFrame({"user_id": pd.Series([u for u, g in grades.items() for _ in g], dtype=object),
                          "item_id": pd.Series([i for g in grades.values() for i in g], dtype=object),
                          "score": [float(x) for g in grades.values() for x in g.values()]})
    return pred, truth


def _only(values: pd.Series) -> float:
    assert len(values) == 1, values
    return float(values.iloc[0])


def test_bpref_reference_by_hand():
    # list a, n1, b, n2; threshold 1: relevant a, b, c (m = 3), judged non-relevant n1, n2, n3 (M = 3)
    # a: no non-relevant above -> 1; b: one above -> 1 - min(1, 3) / min(3, 3) = 2/3; bpref = (1 + 2/3) / 3 = 5/9
    pred, truth = _hand({"q": ["a", "n1", "b", "n2"]}, {"q": {"a": 2, "b": 1, "c": 1, "n1": 0, "n2": 0, "n3": 0}})
    assert _only(oracles.bpref(pred, truth, relevant_threshold=1)) == pytest.approx(5 / 9, rel=1e-15)
    # unjudged x is skipped: list x, n1, a; m = 1, M = 1: a has one non-relevant above -> 1 - 1/1 = 0
    pred, truth = _hand({"q": ["x", "n1", "a"]}, {"q": {"a": 2, "n1": 0}})
    assert _only(oracles.bpref(pred, truth, relevant_threshold=1)) == 0.0
    # no relevant item (threshold 5): NaN, or 0 with no_relevant="zero"
    assert math.isnan(_only(oracles.bpref(pred, truth, relevant_threshold=5)))
    assert _only(oracles.bpref(pred, truth, relevant_threshold=5, no_relevant="zero")) == 0.0


def test_rbp_reference_by_hand():
    # list a, x, b, c with a = 1, b = 1, c = 3 (threshold 1: all relevant), p = 0.5
    # binary: 0.5 * (1 + 0 + 0.25 + 0.125) = 0.6875; graded: 0.5 * (1 + 0.25 * 1 + 0.125 * 3) = 0.8125
    pred, truth = _hand({"q": ["a", "x", "b", "c"]}, {"q": {"a": 1, "b": 1, "c": 3, "d": 0}})
    assert _only(oracles.rbp(pred, truth, 0.5, relevant_threshold=1)) == 0.6875
    assert _only(oracles.rbp(pred, truth, 0.5, relevant_threshold=1, gains="graded")) == 0.8125
    # grades 1e300 and -1e300 both relevant (threshold -1e300), p = 0.5: 0.5 * (1e300 - 0.5e300) = 2.5e299
    pred, truth = _hand({"q": ["a", "b"]}, {"q": {"a": 1e300, "b": -1e300}})
    assert _only(oracles.rbp(pred, truth, 0.5, relevant_threshold=-1e300, gains="graded")) == 2.5e299
    assert math.isnan(_only(oracles.rbp(pred, truth, relevant_threshold=2e300)))


def test_err_reference_by_hand():
    # list a, b, x, c; grades a = 2, b = 0, c = 3, d = 1: g_max = 3, R = (2**g - 1) / 8: R_a = 3/8, R_b = R_x = 0,
    # R_c = 7/8; ERR@4 = 3/8 + (1 - 3/8) * 7/8 / 4 = 0.375 + 35/256 = 0.51171875; ERR@3 = 3/8
    pred, truth = _hand({"q": ["a", "b", "x", "c"]}, {"q": {"a": 2, "b": 0, "c": 3, "d": 1}})
    assert _only(oracles.err(pred, truth, 4)) == 0.51171875
    assert _only(oracles.err(pred, truth, 3)) == 0.375
    # gdeval's scale, max_grade = 4: R_a = 3/16, R_c = 7/16: 3/16 + 13/16 * 7/16 / 4 = 0.2763671875
    assert _only(oracles.err(pred, truth, 4, max_grade=4)) == 0.2763671875
    # a grade of 1e-300, the largest: R = (2**1e-300 - 1) / 2**1e-300 = 1e-300 * ln 2 (to 1e-300 relative),
    # not the 0 of 2.0**1e-300 - 1.0
    pred, truth = _hand({"q": ["a"]}, {"q": {"a": 1e-300}})
    assert _only(oracles.err(pred, truth, 1)) == pytest.approx(1e-300 * math.log(2), rel=1e-15, abs=0)
    # grades 3 and 1e300: R_b = 7 / 2**1e300 = 0, R_a = 1 - 2**-1e300 = 1: list b, a gives 0 + 1 / 2
    pred, truth = _hand({"q": ["b", "a"]}, {"q": {"a": 1e300, "b": 3}})
    assert _only(oracles.err(pred, truth, 2)) == 0.5
    # no positive grade: NaN, or 0
    pred, truth = _hand({"q": ["a"]}, {"q": {"a": 0, "b": -1}})
    assert math.isnan(_only(oracles.err(pred, truth, 2)))
    assert _only(oracles.err(pred, truth, 2, no_relevant="zero")) == 0.0


def test_set_and_count_references_by_hand():
    # list a, x, b, y; truth a = 5, b = 4, c = 5, d = 1 (mean 3.75: a, b, c relevant): N = 4, h = 2, m = 3
    pred, truth = _hand({"q": ["a", "x", "b", "y"]}, {"q": {"a": 5, "b": 4, "c": 5, "d": 1}})
    assert _only(oracles.set_metric(pred, truth, "precision")) == 0.5
    assert _only(oracles.set_metric(pred, truth, "recall")) == pytest.approx(2 / 3, rel=1e-15)
    # F1 = 2h / (m + N) = 4/7; F2 = 5h / (4m + N) = 10/16; F@2 (denominator k): 2 h(2) / (m + 2) = 2/5
    assert _only(oracles.set_metric(pred, truth, "f")) == pytest.approx(4 / 7, rel=1e-15)
    assert _only(oracles.set_metric(pred, truth, "f", beta=2.0)) == pytest.approx(10 / 16, rel=1e-15)
    assert _only(oracles.set_metric(pred, truth, "f_at_k", k=2)) == pytest.approx(2 / 5, rel=1e-15)
    # R-precision: the list cut at m = 3 (a, x, b) holds 2 relevant: 2/3
    assert _only(oracles.set_metric(pred, truth, "rprec")) == pytest.approx(2 / 3, rel=1e-15)
    # R@2 = h(2) / m = 1/3; with denominator min_k: 1 / min(3, 2) = 1/2
    assert _only(oracles.set_metric(pred, truth, "r_at_k", k=2)) == pytest.approx(1 / 3, rel=1e-15)
    assert _only(oracles.set_metric(pred, truth, "r_at_k", k=2, denominator="min_k")) == 0.5
    assert [_only(oracles.counts(pred, truth, kind)) for kind in ("num_ret", "num_rel", "num_rel_ret")] == [4, 3, 2]
    # a short list a, x: R-precision 1/3 (denominator m) or 1/2 (min(m, N))
    short, _ = _hand({"q": ["a", "x"]}, {})
    assert _only(oracles.set_metric(short, truth, "rprec")) == pytest.approx(1 / 3, rel=1e-15)
    assert _only(oracles.set_metric(short, truth, "rprec", denominator="listed")) == 0.5
    # micro: q (h = 2 of N = 4) and r (list e, f; e relevant): precision (2 + 1) / (4 + 2) = 1/2,
    # recall (2 + 1) / (3 + 1) = 3/4
    pred, truth = _hand({"q": ["a", "x", "b", "y"], "r": ["e", "f"]},
                        {"q": {"a": 5, "b": 4, "c": 5, "d": 1}, "r": {"e": 2, "g": 1}})
    assert oracles.set_metric_micro(pred, truth, "precision") == 0.5
    assert oracles.set_metric_micro(pred, truth, "recall") == 0.75


def test_error_references_by_hand():
    # errors 0.5 and 2 (x unjudged): MAE 1.25, MSE (0.25 + 4) / 2 = 2.125, RMSE sqrt(2.125)
    pred, truth = _hand({"q": ["a", "b", "x"]}, {"q": {"a": 5, "b": 4}}, scores={"q": [4.5, 2.0, 3.0]})
    assert [_only(oracles.error(pred, truth, kind)) for kind in ("mae", "mse")] == [1.25, 2.125]
    assert _only(oracles.error(pred, truth, "rmse")) == math.sqrt(2.125)
    # an error of 1e200: MSE 1e400 is beyond float64 (inf), RMSE 1e200 is not; an infinite score: inf
    pred, truth = _hand({"q": ["a", "b"]}, {"q": {"a": 0, "b": 0}}, scores={"q": [1e200, 1e200]})
    assert [_only(oracles.error(pred, truth, kind)) for kind in ("mae", "mse", "rmse")] == [1e200, math.inf, 1e200]
    pred, truth = _hand({"q": ["a", "b"]}, {"q": {"a": 0, "b": 0}}, scores={"q": [-math.inf, 1.0]})
    assert _only(oracles.error(pred, truth, "mae")) == math.inf
    # micro over both users' pairs: errors 0.5, 2 and 1: MAE 3.5 / 3
    pred, truth = _hand({"q": ["a", "b"], "r": ["c"]}, {"q": {"a": 5, "b": 4}, "r": {"c": 1}},
                        scores={"q": [4.5, 2.0], "r": [2.0]})
    assert oracles.error_micro(pred, truth, "mae") == pytest.approx(3.5 / 3, rel=1e-15)


def test_system_level_references_by_hand():
    # lists a b | a c | a d: counts a 3, b 1, c 1, d 1 (sorted 1, 1, 1, 3):
    # Gini = ((2-4-1) + (4-4-1) + (6-4-1) + 3 * (8-4-1)) / (4 * 6) = (-3 - 1 + 1 + 9) / 24 = 1/4
    # entropy: p = 1/2, 1/6, 1/6, 1/6: H = 1/2 + 3 * log2(6) / 6 bits
    pred, truth = _hand({1: ["a", "b"], 2: ["a", "c"], 3: ["a", "d"]}, {1: {"b": 1}, 2: {"c": 1}, 3: {"d": 1}})
    assert oracles.gini(pred, truth) == 0.25
    assert oracles.shannon_entropy(pred, truth) == pytest.approx(0.5 + math.log2(6) / 2, rel=1e-15)
    # at k = 1 every list shows a: one item, Gini 0, entropy 0
    assert oracles.gini(pred, truth, k=1) == 0.0 and oracles.shannon_entropy(pred, truth, k=1) == 0.0


def test_mean_reference_by_hand():
    # exact then rounded once: 1e308 + 1e308 - 1e308 is 1e308 (a float sum overflows to inf on the way)
    assert oracles.mean_of([1e308, 1e308, -1e308]) == 1e308 / 3
    assert oracles.mean_of([1.0, math.inf, math.nan]) == math.inf
    assert oracles.mean_of([1.0, -math.inf]) == -math.inf
    assert math.isnan(oracles.mean_of([math.inf, -math.inf, 1.0])) and math.isnan(oracles.mean_of([math.nan]))


# =========================================================================== #
# the system mean of any per-user values, infinities included
# =========================================================================== #
class _Given(rk.RankingMetric):
    """Hands back given values, user id -> value: the system mean under test, whatever values a metric gives."""

    stem = "given"

    def __init__(self, values: dict | None = None) -> None:
        super().__init__()
        self.values = values or {}

    def per_user(self, lists: Any) -> np.ndarray:
        return np.array([self.values[u] for u in lists.user_ids.tolist()], dtype=np.float64)


def _one_item_each(users: list) -> tuple[pd.DataFrame, pd.DataFrame]:
    n = len(users)
    return (pd.DataFrame({"user_id": users, "item_id": ["a"] * n}),
            pd.DataFrame({"user_id": users, "item_id": ["a"] * n, "score": [1.0] * n}))


INF, NAN = math.inf, math.nan
ODD_USER_VALUES = [INF, -INF, NAN, 0.0, -0.0, 1.0, 0.1, 1e308, -1e308, 1.7976931348623157e308, 5e-324, 1e-300]


@pytest.mark.parametrize("values, mean", [
    ((1.0, INF, 2.0), INF), ((1.0, -INF), -INF), ((INF, 1.0, -INF), NAN), ((INF, INF, NAN), INF),
    ((NAN, NAN), NAN), ((1e308, 1e308, -1e308), 1e308 / 3), ((0.1, 0.2, 0.3), 0.2), ((5e-324, 5e-324), 5e-324)])
def test_system_mean_with_infinities_by_hand(values, mean):
    """The system value is the exact mean: +inf with +inf among the values, -inf with -inf, NaN with both."""
    pred, truth = _one_item_each(list(range(len(values))))
    res = _Given(dict(enumerate(values))).perform(rk.Split(pred, truth))
    assert_same_number(res.system.iloc[0, 0], mean, str(values), exact=True)


@FUZZ
@given(first=st.lists(st.one_of(st.sampled_from(ODD_USER_VALUES), st.floats()), min_size=1, max_size=6),
       second=st.lists(st.one_of(st.sampled_from(ODD_USER_VALUES), st.floats()), min_size=1, max_size=6))
def test_system_mean_of_any_values(first, second):
    """perform, EvalModel's fold rows and mean row, compare's means: the reference mean, infinities included."""
    folds = [{j: v for j, v in enumerate(first)}, {100 + j: v for j, v in enumerate(second)}]
    metric = _Given({**folds[0], **folds[1]})
    frames = [_one_item_each(list(f)) for f in folds]
    res = metric.perform(rk.Split(*frames[0]))
    assert_users_match(res.users.iloc[:, 0], pd.Series(first, index=pd.Index(list(folds[0]), dtype=object)), "given")
    assert_same_number(res.system.iloc[0, 0], oracles.mean_of(first), "perform", exact=True)
    rows = [oracles.mean_of(first), oracles.mean_of(second)]
    # the mean row is exact: folds at +inf and -inf, or summing past the float range, included
    fitted = attempt(lambda: rk.EvalModel([f[0] for f in frames], [f[1] for f in frames], [metric]).fit())
    assert fitted.error is None, repr(fitted.error)
    sys_result = fitted.value[0]
    for label, row in zip(("fold1", "fold2"), rows):
        assert_same_number(sys_result.loc[label, "given"], row, label, exact=True)
    assert_same_number(sys_result.loc["mean", "given"], oracles.mean_of(rows), "mean row")
    # infinite values: compare warns (a RankevalWarning) and its means are the exact ones
    every = [v for v in first + second if not math.isnan(v)]
    compared = attempt(lambda: rk.compare({"a": [f[0] for f in frames], "b": [f[0] for f in frames]},
                                          [f[1] for f in frames], [metric], n_resamples=50))
    assert compared.error is None, repr(compared.error)
    row = compared.value.table.iloc[0]
    assert_same_number(row["mean_a"], oracles.mean_of(every), "mean_a", rel_tol=1e-9, abs_tol=1e-12)
    assert_same_number(row["mean_b"], oracles.mean_of(every), "mean_b", rel_tol=1e-9, abs_tol=1e-12)


# =========================================================================== #
# every registered metric name (parse_metric), whatever other engineers add
# =========================================================================== #
def _registered_metrics(k: int) -> list[tuple[str, rk.RankingMetric]]:
    """Every registered name at cutoff ``k``, with each ``average`` suffix its family takes."""
    out = []
    for form in rk.metric_names():
        text = form.replace("@k", f"@{k}")
        metric = rk.parse_metric(text)
        assert rk.parse_metric(str(metric)) == metric, form
        out.append((text, metric))
        for suffix in ("-micro", "-macro", "-sum"):
            try:
                other = rk.parse_metric(text + suffix)
            except ValueError as exc:  # a family without that `average`
                assert "average" in str(exc), str(exc)
                continue
            if other != metric:
                assert rk.parse_metric(str(other)) == other, text + suffix
                out.append((text + suffix, other))
    return out


def _is_built_in(metric: rk.RankingMetric) -> bool:
    return type(metric).__module__.split(".")[0] == "rankeval"


@FUZZ
@given(case=cases(defects=False), k=st.sampled_from([1, 2, 5, 30]))
def test_every_registered_metric_evaluates_or_says_why(case, k):
    """Every registered name (and average): the reference's users and system value, or the documented error.

    A built-in metric without a reference fails; one a user registered (not in rankeval) is
    checked for its shape only.
    """
    note(case.describe())
    out = attempt(lambda: rk.Split(case.pred, case.truth, **case.options))
    if out.error is not None:
        assert_documented(out.error, case.defects | case.maybe)
        return
    split = out.value
    for form, metric in _registered_metrics(k):
        failure = known_failure(metric, case)
        if failure is not None:
            event(f"not evaluated: {failure}")
            continue
        res = attempt(lambda: metric.perform(split))  # noqa: B023 - called at once
        if getattr(metric, "needs_side", ()):  # beyond accuracy: train, catalog or item features first
            assert res.error is not None and "needs side data" in str(res.error), (form, res.error)
            continue
        documented = metric_error(metric, case)
        if documented is not None:
            assert res.error is not None and re.search(documented, str(res.error)), (form, res.error)
            continue
        assert res.error is None, f"{form}: {res.error!r}"
        users = res.value.users
        assert list(users.columns) == [str(metric)] and users.iloc[:, 0].dtype == np.float64
        try:
            oracle_for(metric)
        except AssertionError:
            assert not _is_built_in(metric), f"{form}: a built-in metric without a reference in oracle_for"
            assert users.index.is_unique  # a metric someone registered: its shape only
            continue
        assert_reference_result(metric, res.value, case, form)


@FUZZ
@given(text=st.one_of(st.text(max_size=12), st.from_regex(r"[A-Za-z]{1,8}(@-?[0-9]{0,22})?", fullmatch=True),
                      st.sampled_from(["NDCG@0", "P", "MRR@", "@5", "ndcg@10", "NDCG@10 ", "MAP@1e3", "R@٣",
                                       "pearson@99999999999999999999", "NDCG@2147483648",
                                       "HR@０"])))
def test_parse_metric_inverts_str_or_names_the_bad_string(text):
    out = attempt(lambda: rk.parse_metric(text))
    if out.error is None:
        assert rk.parse_metric(str(out.value)) == out.value
    else:
        assert repr(text.strip()) in str(out.error) or repr(text) in str(out.error), str(out.error)


@FUZZ
@given(p=st.floats(0.0, 1.0, exclude_min=True, exclude_max=True), beta=st.floats(0.0, 1e300, exclude_min=True),
       k=st.sampled_from([None, 1, 10, 2**31 - 1]), average=st.sampled_from(["macro", "micro"]))
def test_names_with_a_parameter_in_the_stem_read_back(p, beta, k, average):
    """``parse_metric(str(m)) == m`` for the families whose stem holds a parameter (RBP's p, F's beta)."""
    made = [rk.RBP(p), rk.FMeasure(beta, average=average) if k is None else rk.FMeasureAtK(k, beta, average=average)]
    for metric in made:
        assert rk.parse_metric(str(metric)) == metric, (str(metric), repr(metric))


# =========================================================================== #
# parameters of the wrong type or value: ValueError / TypeError, never anything else
# =========================================================================== #
ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0, -1, 2 ** 31, 2 ** 63, 2 ** 64 - 1, 10 ** 30]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5),
    st.sampled_from([np.int64(3), np.uint64(2 ** 63), np.float32(1.5), np.nan, np.inf, 3.0, [3], (1,), {"k": 1},
                     np.array([1, 2]), "log2", "linear", "nan", "zero", "relevant", "k", "truth", "ranked",
                     "min_k_ones", "pearson", b"x", 1j, object()]))

CONSTRUCTORS = [
    (rk.MAP, ["relevant_threshold", "denominator", "name", "no_relevant"]),
    (rk.MAPAtK, ["k", "relevant_threshold", "denominator", "name", "no_relevant"]),
    (rk.MRR, ["relevant_threshold", "name", "no_relevant"]),
    (rk.MRRAtK, ["k", "relevant_threshold", "name", "no_relevant"]),
    (rk.PrecisionAtK, ["k", "relevant_threshold", "denominator", "name", "no_relevant"]),
    (rk.RecallAtK, ["k", "relevant_threshold", "denominator", "name", "no_relevant"]),
    (rk.HitRateAtK, ["k", "relevant_threshold", "name", "no_relevant"]),
    (rk.DCG, ["gains", "discount_log", "relevant_threshold", "discount", "judged_only", "name"]),
    (rk.DCGAtK, ["k", "gains", "discount_log", "relevant_threshold", "discount", "judged_only", "name"]),
    (rk.NDCG, ["gains", "discount_log", "ideal", "judged_only", "relevant_threshold", "discount", "no_relevant",
               "name"]),
    (rk.NDCGAtK, ["k", "gains", "discount_log", "ideal", "judged_only", "relevant_threshold", "discount",
                  "no_relevant", "name"]),
    (rk.Correlation, ["method", "top_n", "name"]),
    (rk.BPref, ["relevant_threshold", "name", "no_relevant"]),
    (rk.RBP, ["p", "relevant_threshold", "gains", "name", "no_relevant"]),
    (rk.ERRAtK, ["k", "max_grade", "name", "no_relevant"]),
    (rk.Precision, ["relevant_threshold", "name", "no_relevant", "average"]),
    (rk.Recall, ["relevant_threshold", "name", "no_relevant", "average"]),
    (rk.FMeasure, ["beta", "relevant_threshold", "name", "no_relevant", "average"]),
    (rk.FMeasureAtK, ["k", "beta", "relevant_threshold", "denominator", "name", "no_relevant", "average"]),
    (rk.RPrecision, ["relevant_threshold", "denominator", "name", "no_relevant", "average"]),
    (rk.NumRet, ["name", "average"]),
    (rk.NumRel, ["relevant_threshold", "name", "average"]),
    (rk.NumRelRet, ["relevant_threshold", "name", "average"]),
    (rk.MAE, ["name", "average"]),
    (rk.MSE, ["name", "average"]),
    (rk.RMSE, ["name", "average"]),
    (rk.GiniIndex, ["k", "items", "name"]),
    (rk.ShannonEntropy, ["k", "base", "per_item", "name"]),
    (rk.RBO, ["k", "weight", "reference", "name"]),
    (rk.LIP, ["k", "reference", "name"]),
]


def _small_split() -> rk.Split:
    pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "b", "a", "c"], "score": [0.9, 0.5, 0.3, 0.1]})
    truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "c", "c"], "score": [5.0, 1.0, 2.0]})
    return rk.Split(pred, truth)


@FUZZ
@given(which=st.integers(0, len(CONSTRUCTORS) - 1), data=st.data())
def test_metric_parameters_of_any_value(which, data):
    cls, params = CONSTRUCTORS[which]
    chosen = data.draw(st.lists(st.sampled_from(params), min_size=1, max_size=3, unique=True))
    kwargs = {p: data.draw(ODD_VALUES, label=p) for p in chosen}
    if "k" in params and "k" not in kwargs and cls not in (rk.GiniIndex, rk.ShannonEntropy):
        kwargs["k"] = 3
    out = attempt(lambda: cls(**kwargs), allow_type_error=True)
    if out.error is not None:
        assert "`" in str(out.error) or "argument" in str(out.error), str(out.error)
        return
    metric = out.value
    if hasattr(metric, "discount_log") and not callable(metric.discount_log):
        raise AssertionError("a non-callable discount_log was accepted")
    res = attempt(lambda: metric.perform(_small_split()), allow_type_error=True)
    if res.error is not None:
        # in its own words: a discount_log that is not a logarithm of arrays, a max_grade below the grade 5,
        # the catalog that items="catalog" needs, the reference lists RBO and LIP compare with
        assert ("discount_log" in kwargs or re.search(r"`max_grade`=\S+ of .* is below a truth score", str(res.error))
                or "needs side data" in str(res.error) or "reference" in str(res.error)), repr(res.error)
        return
    assert res.value.users.shape == (2, 1)


# =========================================================================== #
# EvalModel: many splits, user_id_list, missing users
# =========================================================================== #
def _split_options(options: dict) -> dict:
    return {k: v for k, v in options.items() if k != "missing_users"}


def _unique_names(metric_list: list[rk.RankingMetric]) -> list[rk.RankingMetric]:
    seen: set[str] = set()
    out = []
    for m in metric_list:
        if str(m) not in seen:
            seen.add(str(m))
            out.append(m)
    return out


@st.composite
def shared_options(draw) -> dict:
    options: dict = {}
    if draw(st.booleans()):
        options.update(zip(("user_col", "item_col", "score_col", "rank_col"), ("uid", "iid", "rating", "pos")))
    ties = draw(st.sampled_from([None, "row_order", "item_id", "item_id_desc"]))
    if ties is not None:
        options["ties"] = ties
    missing = draw(st.sampled_from([None, "ignore", "zero", "error"]))
    if missing is not None:
        options["missing_users"] = missing
    return options


@st.composite
def evalmodel_inputs(draw):
    options = draw(shared_options())
    n_splits = draw(st.integers(1, 3))
    split_cases = []
    # every split holds one kind of user id here; user_id_list may hold another (they match nothing)
    family = draw(st.sampled_from(["numeric", "numeric", "text", "text", "mixed"]))
    for _ in range(n_splits):
        truth = draw(logical_truth(user_family=family))
        pred = draw(logical_pred(truth))
        split_cases.append(draw(render(truth, pred, options=options,
                                       defects_allowed=draw(st.integers(0, 3)) == 0)))
    exponential = not any(big_grades(c) for c in split_cases)  # that error is the Split test's
    metric_list = draw(st.lists(metrics(exponential=exponential), min_size=1, max_size=4))
    if draw(st.integers(0, 9)) == 0 and metric_list:
        metric_list = metric_list + [metric_list[0]]  # a repeated name: refused
    user_ids = None
    if draw(st.integers(0, 2)) == 0:
        everyone = [u for c in split_cases if c.oracle_pred is not None for u in c.oracle_pred["user_id"].tolist()]
        everyone += [u for c in split_cases if c.oracle_truth is not None for u in c.oracle_truth["user_id"].tolist()]
        # ids the splits do not hold, of the splits' kind and of others (a str among Arrow integers, an int
        # beyond int64): each matches nothing
        unknown = {"numeric": [987654321, "nobody", 2**63], "text": ["nobody", 987654321, 2**63],
                   "mixed": ["nobody", 987654321, 2**63]}[family]
        everyone = [int(u) if isinstance(u, float) and u.is_integer() else u for u in everyone]  # 3.0 is user 3
        pool = list(dict.fromkeys(everyone)) + unknown
        user_ids = draw(st.lists(st.sampled_from(pool), max_size=6))
    return split_cases, metric_list, user_ids, options


def _arrow_backed_users(case: Case) -> bool:
    """Whether the case's user ids reach EvalModel in an Arrow-backed pandas column."""
    if case.kind == "arrow":
        return True
    user = case.options.get("user_col", "user_id")
    return any(isinstance(dtype, pd.ArrowDtype) for frame in (case.pred, case.truth)
               if isinstance(frame, pd.DataFrame) for dtype in frame.dtypes[frame.columns == user])


def _restrict(case: Case, wanted: list) -> Case | None:
    """The case as EvalModel.fit(user_id_list=wanted) sees it (None: nothing left of it)."""
    keep = pd.Series(list(set(wanted)), dtype=object)
    pred, truth = case.reference_frames()
    pred, truth = pred[pred["user_id"].isin(keep)], truth[truth["user_id"].isin(keep)]
    if not len(pred) or not len(truth):
        return None
    pred_users, truth_users = set(pred["user_id"].tolist()), set(truth["user_id"].tolist())
    out = Case(pred=None, truth=None, options=case.options, oracle_pred=pred.reset_index(drop=True),
               oracle_truth=truth.reset_index(drop=True), defects=set(), maybe=set(), tame=case.tame,
               kind=case.kind, truth_only_ids=[u for u in case.truth_only_ids if u in truth_users],
               pred_only_ids=[u for u in case.pred_only_ids if u in pred_users])
    if not pred_users & truth_users:
        out.defects.add("no_common")
    if case.options.get("missing_users") == "error" and out.truth_only_ids:
        out.defects.add("missing_users_error")
    return out


@FUZZ
@given(inputs=evalmodel_inputs())
def test_evalmodel_error_or_reference_values(inputs):
    split_cases, metric_list, user_ids, options = inputs
    for j, c in enumerate(split_cases):
        note(f"split {j}: {c.describe()}")
    note(f"metrics={metric_list!r} user_id_list={user_ids!r}")
    defects = set().union(*(c.defects for c in split_cases))
    maybe = set().union(*(c.maybe for c in split_cases))
    names = [str(m) for m in metric_list]
    if len(set(names)) < len(names):
        out = attempt(lambda: rk.EvalModel([c.pred for c in split_cases], [c.truth for c in split_cases],
                                           metric_list, missing_users=options.get("missing_users"),
                                           **_split_options(options)))
        assert out.error is not None and "repeated metric names" in str(out.error)
        return
    out = attempt(lambda: rk.EvalModel([c.pred for c in split_cases], [c.truth for c in split_cases], metric_list,
                                       missing_users=options.get("missing_users"), **_split_options(options)))
    for c in split_cases:
        c.assert_unchanged()
    if defects:
        assert_documented(out.error, defects, maybe)
        if len(split_cases) > 1:
            assert re.match(r"split 'fold\d': ", str(out.error)), str(out.error)
        return
    if out.error is not None:
        assert_documented(out.error, maybe)
        return
    model = out.value
    fitted = attempt(lambda: model.fit(user_ids))
    for c in split_cases:
        c.assert_unchanged()
    seen = split_cases
    if user_ids is not None:
        restricted = [_restrict(c, user_ids) for c in split_cases]
        emptied = any(c is None for c in restricted)
        later = set().union(*(c.defects for c in restricted if c is not None))
        if emptied or later:
            # one split left empty, another without a common user: whichever split fit reaches first is named
            text = "" if fitted.error is None else str(fitted.error)
            if not (emptied and "leaves split" in text):
                assert later, f"expected 'leaves split ...', got {fitted.error!r}"
                assert_documented(fitted.error, later)
            return
        seen = [c for c in restricted if c is not None]
    assert fitted.error is None, repr(fitted.error)
    sys_result, users_result = fitted.value
    labels = [f"fold{j + 1}" for j in range(len(split_cases))]
    assert list(sys_result.index) == labels + ["mean"] and list(sys_result.columns) == names
    assert list(users_result.columns) == names
    assert sys_result.attrs["convention"] == "rankeval"
    for label, case in zip(labels, seen):
        part = users_result.xs(label, level="split")
        for metric in metric_list:
            name = str(metric)
            assert_users_match(part[name], expected_values(metric, case), f"{label} {name}")
            values = part[name].to_numpy()
            assert sys_result.attrs["n_users"][label][name] == np.count_nonzero(~np.isnan(values))
            # the exact mean, rounded once (+-inf with infinities of one sign, NaN with both)
            assert_same_number(sys_result.loc[label, name], oracles.mean_of(values), f"{label} {name}", exact=True)
    for name in names:  # the mean row: the mean of the folds' values, NaN folds left out
        assert_same_number(sys_result.loc["mean", name], oracles.mean_of(sys_result.loc[labels, name].to_numpy()),
                           f"mean {name}")


# =========================================================================== #
# compare: paired units, the table, the same truth for every system
# =========================================================================== #
@st.composite
def compare_inputs(draw):
    options = draw(shared_options())
    n_splits = draw(st.integers(1, 2))
    n_systems = draw(st.integers(2, 3))
    truths, systems = [], {f"s{j}": [] for j in range(n_systems)}
    for _ in range(n_splits):
        # extreme grades too: per-user values near 1e300 (DCG of such grades) reach compare's statistics
        truth = draw(logical_truth())
        with_defects = draw(st.integers(0, 4)) == 0
        for j, name in enumerate(systems):
            case = draw(render(truth, draw(logical_pred(truth)), options=options,
                               defects_allowed=with_defects and j == 0))
            systems[name].append(case)
            if j == 0:
                truths.append(case)
    every = [c for cs in systems.values() for c in cs]
    exponential = not any(big_grades(c) for c in every)
    metric_list = _unique_names(draw(st.lists(metrics(exponential=exponential), min_size=1, max_size=3)))
    settings_ = dict(test=draw(st.sampled_from(["paired_t", "wilcoxon", "randomization"])),
                     correction=draw(st.sampled_from(["holm", "bonferroni", "fdr_bh", None])),
                     baseline=draw(st.sampled_from([None, "s1"])), alpha=draw(st.sampled_from([0.05, 0.5])),
                     # excluded: n_resamples of 1 or 2: every bootstrap mean on one side of the observed one gives
                     # RuntimeWarning "invalid value encountered in scalar divide" from _stats._bca; see the report
                     n_resamples=draw(st.sampled_from([50, 199])), seed=draw(st.integers(0, 2 ** 32)))
    return truths, systems, metric_list, settings_, options


@FUZZ
@given(inputs=compare_inputs())
def test_compare_error_or_reference_units(inputs):
    truths, systems, metric_list, settings_, options = inputs
    for name, cs in systems.items():
        for j, c in enumerate(cs):
            note(f"{name} split {j}: {c.describe()}")
    note(f"metrics={metric_list!r} settings={settings_}")
    frames = {name: [c.pred for c in cs] for name, cs in systems.items()}
    truth_frames = [c.truth for c in truths]
    # the truth frame given is the first system's: the others' truth is the same data, rendered otherwise
    defects = set().union(*(c.defects for cs in systems.values() for c in cs))
    maybe = set().union(*(c.maybe for cs in systems.values() for c in cs))
    out = attempt(lambda: rk.compare(frames, truth_frames, metric_list, missing_users=options.get("missing_users"),
                                     **settings_, **_split_options(options)))
    for cs in systems.values():
        for c in cs:
            c.assert_unchanged()
    if defects:
        assert_documented(out.error, defects, maybe)
        assert re.match(r"system 's\d': ", str(out.error)), str(out.error)
        return
    if out.error is not None:
        assert_documented(out.error, maybe)
        return
    res = out.value
    units = res.units
    labels = [f"fold{j + 1}" for j in range(len(truths))]
    names = [str(m) for m in metric_list]
    for metric in metric_list:
        for name, cs in systems.items():
            for label, case, truth_case in zip(labels, cs, truths):
                # compare is given the first system's rendering of the truth (dtypes may differ per system)
                paired = copy.copy(case)
                paired.oracle_truth = truth_case.oracle_truth
                expected = expected_values(metric, paired)
                here = units[units[("split", "")] == label]
                got = pd.Series(here[(str(metric), name)].to_numpy(), index=here[("user_id", "")].tolist())
                listed = got[[u in set(expected.index.tolist()) for u in got.index]]
                assert_users_match(listed, expected, f"{name} {label} {metric}")
                others = got[[u not in set(expected.index.tolist()) for u in got.index]]
                assert others.isna().all(), f"{name} has values for users it did not list: {others}"
    table = res.table
    assert list(table.index.names) == ["metric", "system_a", "system_b"]
    for (metric, a, b), row in table.iterrows():
        va, vb = units[(metric, a)].to_numpy(), units[(metric, b)].to_numpy()
        paired = ~np.isnan(va) & ~np.isnan(vb)
        assert row["n"] == paired.sum() == row["wins"] + row["ties"] + row["losses"]
        # infinities included: +-inf with infinities of one sign, NaN with both (and without a pair)
        assert_same_number(row["mean_a"], oracles.mean_of(va[paired]), f"{metric} {a}", rel_tol=1e-9, abs_tol=1e-12)
        assert_same_number(row["mean_b"], oracles.mean_of(vb[paired]), f"{metric} {b}", rel_tol=1e-9, abs_tol=1e-12)
        p = row["p_value"]
        assert np.isnan(p) or 0 <= p <= 1, p
        assert row["significant"] == (row["p_adjusted"] < settings_["alpha"])
    assert set(table.index.get_level_values("metric")) <= set(names)


@FUZZ
@given(data=st.data())
def test_compare_and_evalmodel_arguments_of_any_value(data):
    pred = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "b", "a"], "score": [0.9, 0.5, 0.3]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "a"], "score": [5.0, 2.0]})
    which = data.draw(st.sampled_from(["test", "correction", "baseline", "alpha", "n_resamples", "seed",
                                       "missing_users", "split_names", "systems", "truth", "metrics",
                                       "convention", "ties"]))
    value = data.draw(ODD_VALUES, label=which)
    args: dict[str, Any] = dict(systems={"a": pred, "b": pred.iloc[::-1]}, truth=truth, metrics=[rk.MRR()])
    if which in ("systems", "truth", "metrics"):
        args[which] = value
    else:
        args[which] = value
    out = attempt(lambda: rk.compare(args.pop("systems"), args.pop("truth"), args.pop("metrics"), **args),
                  allow_type_error=True)
    if out.error is not None:
        assert "`" in str(out.error) or "argument" in str(out.error), repr(out.error)
    kwargs = {} if which in ("systems", "truth", "metrics", "test", "correction", "baseline", "alpha",
                             "n_resamples", "seed") else {which: value}
    out = attempt(lambda: rk.EvalModel(pred, truth, [rk.MRR()], **kwargs).fit(), allow_type_error=True)
    if out.error is not None:
        assert "`" in str(out.error) or "argument" in str(out.error), repr(out.error)


# =========================================================================== #
# what the fuzz found (defects of rankeval, fixed; their exclusions above are gone): each reproduced
# by hand, so that a regression fails here with a readable case as well as in the fuzz
# =========================================================================== #
def _no_foreign_warnings(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn()
    foreign = [f"{w.category.__name__}: {w.message}" for w in caught if not issubclass(w.category, RankevalWarning)]
    assert not foreign, foreign
    return value


def _err_of_a_tiny_grade() -> None:
    pred, truth = _hand({"q": ["a"]}, {"q": {"a": 2.0**-60}})
    got = rk.ERRAtK(1).perform(rk.Split(pred, truth)).users.iloc[0, 0]
    assert got == pytest.approx(2.0**-60 * math.log(2), rel=1e-12, abs=0), got  # rankeval: 0.0


def _mae_micro_beyond_the_float_range() -> None:
    pred, truth = _hand({1: ["a"], 2: ["a"]}, {1: {"a": 0}, 2: {"a": 0}}, scores={1: [1e308], 2: [1e308]})
    assert rk.MAE(average="micro").perform(rk.Split(pred, truth)).system.iloc[0, 0] == 1e308  # OverflowError


def _evalmodel_mean_row_of_large_folds() -> None:
    pred, truth = _hand({1: ["a"]}, {1: {"a": 0}}, scores={1: [1e308]})
    sys_result, _ = _no_foreign_warnings(lambda: rk.EvalModel([pred, pred], [truth, truth], [rk.MAE()]).fit())
    assert sys_result.loc["mean", "MAE"] == 1e308  # inf, with RuntimeWarning "overflow encountered in reduce"


def _compare_with_an_infinite_user_value() -> None:
    truth = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["a"] * 3, "score": [1.0, 2.0, 3.0]})
    a = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["a"] * 3, "score": [math.inf, 1.0, 2.0]})
    b = a.assign(score=[1.0, 1.0, 2.0])
    # RuntimeWarning "invalid value encountered in subtract / matmul" (stats/_resampling.py)
    _no_foreign_warnings(lambda: rk.compare({"a": a, "b": b}, truth, [rk.MAE()], n_resamples=50, seed=0))


def _evalmodel_user_id_list_beyond_int64() -> None:
    ids = pd.Series([2**63, 2**63 + 1], dtype=pd.ArrowDtype(pa.uint64()))
    pred = pd.DataFrame({"user_id": ids, "item_id": ["a", "a"]})
    truth = pd.DataFrame({"user_id": ids[:1], "item_id": ["a"], "score": [1.0]})
    with pytest.warns(RankevalWarning, match="have no truth ratings"):  # user 2**63 + 1: pred only
        _, users = rk.EvalModel(pred, truth, [rk.MAP()]).fit([2**63])  # was OverflowError (int64 isin)
    assert users["MAP"].tolist() == [1.0] and users.index.get_level_values(1).tolist() == [2**63]


def _compare_with_a_subnormal_alpha() -> None:
    pred = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "b", "a"], "score": [0.9, 0.5, 0.3]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "a"], "score": [5.0, 2.0]})
    with pytest.raises(ValueError, match="alpha|n_resamples"):  # OverflowError "cannot convert float infinity"
        rk.compare({"a": pred, "b": pred.iloc[::-1]}, truth, [rk.MRR()], alpha=5e-324)


def _names_with_an_exponent_read_back() -> None:
    for metric in (rk.RBP(1e-6), rk.FMeasure(1e16)):  # "RBPe-06", "F1e+16": unknown / malformed
        assert rk.parse_metric(str(metric)) == metric, str(metric)


@pytest.mark.parametrize("reproduce", [
    _err_of_a_tiny_grade, _mae_micro_beyond_the_float_range, _evalmodel_mean_row_of_large_folds,
    _compare_with_an_infinite_user_value, _evalmodel_user_id_list_beyond_int64, _compare_with_a_subnormal_alpha,
    _names_with_an_exponent_read_back], ids=lambda f: f.__name__.strip("_"))
def test_what_the_fuzz_found_stays_fixed(reproduce):
    reproduce()


# =========================================================================== #
# score_order: ranks given as scores are told apart; lower-is-better scores read exactly
# =========================================================================== #
#: metrics of the list order and of the score values read as a preference (correlation, AUC)
ORDER_METRICS = [rk.NDCG(), rk.NDCGAtK(3), rk.MAP(), rk.MAPAtK(3), rk.MRR(), rk.PrecisionAtK(3), rk.RecallAtK(3),
                 rk.HitRateAtK(3), rk.DCG(), rk.RPrecision(), rk.BPref(), rk.RBP(), rk.ERRAtK(3), rk.AUC(),
                 rk.Correlation("pearson"), rk.Correlation("spearman"), rk.Correlation("kendall", top_n=3)]


def _rank_warnings(make: Callable[[], Any]) -> tuple[Any, list[str]]:
    """What ``make`` returns and the messages of the RanksAsScoresWarnings it raised (others are let pass)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = make()
    return value, [str(w.message) for w in caught if issubclass(w.category, rk.RanksAsScoresWarning)]


def _bits(users: pd.DataFrame) -> np.ndarray:
    return users.sort_index().to_numpy(dtype=np.float64).view(np.uint64)


@FUZZ
@given(data=strategies.ranks_as_scores())
def test_ranks_as_scores_warn_with_the_count_and_ranks_do_not(data):
    pred, truth = data
    users = pred["user_id"].to_numpy()
    counts = pred.groupby(users, sort=False).size()
    run = np.r_[0, np.cumsum(users[1:] != users[:-1])]  # runs of one user's rows
    steps = np.diff(pred["score"].to_numpy(dtype=np.float64))
    best_first = len(set(run)) == len(counts) and bool(np.all((steps < 0) | (run[1:] != run[:-1])))
    split, said = _rank_warnings(lambda: rk.Split(pred, truth))
    if (counts >= 2).sum() >= 2 and not best_first:
        assert len(said) == 1, said
        assert f"each of the {len(counts):,} users' scores are exactly 1..n" in said[0]
        assert "rank_col=" in said[0] and "--rank-col" in said[0] and "score_order='ascending'" in said[0]
    else:  # under two lists of 2+ items: too little evidence; rows written best first hold scores
        assert said == []
    # the same ranks as a rank column, or read lower-is-better: no warning, the same lists
    as_ranks, said_ranks = _rank_warnings(lambda: rk.Split(pred.rename(columns={"score": "rank"}), truth))
    ascending, said_ascending = _rank_warnings(lambda: rk.Split(pred, truth, score_order="ascending"))
    assert said_ranks == [] and said_ascending == []
    for metric in ORDER_METRICS:
        assert np.array_equal(_bits(metric.perform(as_ranks).users), _bits(metric.perform(ascending).users)), metric
    # one score that is no rank any more: no warning
    broken = pred.assign(score=pred["score"].astype(np.float64))
    broken.iloc[0, broken.columns.get_loc("score")] += 0.5
    assert _rank_warnings(lambda: rk.Split(broken, truth))[1] == []
    del split


@FUZZ
@given(data=strategies.frames(allow_no_score=False), ties=st.sampled_from(["row_order", "item_id", "item_id_desc"]))
def test_negated_scores_read_ascending_give_the_same_bits(data, ties):
    pred, truth = data
    assume("score" in pred.columns)
    negated = pred.assign(score=-pred["score"])
    original = pred.copy()

    def both() -> tuple[rk.Split, rk.Split]:
        return (rk.Split(pred, truth, ties=ties),
                rk.Split(negated, truth, ties=ties, score_order="ascending"))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        warnings.simplefilter("ignore", rk.LowOverlapWarning)
        split, flipped = both()
        for metric in ORDER_METRICS:
            assert np.array_equal(_bits(metric.perform(split).users), _bits(metric.perform(flipped).users)), metric
        sys_result, users_result = rk.EvalModel(negated, truth, ORDER_METRICS[:4], ties=ties,
                                                score_order="ascending").fit()
        assert np.array_equal(_bits(users_result.droplevel(0)),
                              _bits(rk.EvalModel(pred, truth, ORDER_METRICS[:4], ties=ties).fit()[1].droplevel(0)))
    # the values themselves are no predicted ratings then: the error metrics say so
    with pytest.raises(ValueError, match=r"score_order='ascending' \(lower is better, CLI --score-order\)"):
        rk.MAE().perform(flipped)
    pd.testing.assert_frame_equal(pred, original)
