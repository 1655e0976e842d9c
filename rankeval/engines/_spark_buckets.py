"""The Spark engine in the Python workers: each bucket of users through the pandas engine.

:func:`bucket_function` makes the function ``mapInArrow`` runs on every bucket (one
partition): it splits the bucket's rows back into ``pred`` and ``truth`` (the
:data:`TRUTH_FLAG` column), runs the pandas engine on them and returns one output row per
user, plus one bookkeeping row (:data:`STATS_COLUMNS`) that the driver
(:mod:`rankeval.engines._spark`) turns into the pandas engine's warnings, errors and system
values.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data import Columns, Split
from ..data import internal as data_internal
from ..data.internal import ExactSum, overlap_counts, rank_like_count, sorted_unique
from ..exceptions import RankevalWarning
from ..metrics import RankingMetric
from ..metrics.internal import SystemParts
from ._pandas import evaluate_split_with_parts, users_behind

__all__ = ["bucket_function", "EXAMPLES", "TRUTH_FLAG", "KIND_COLUMN", "USER", "STATS", "ERROR", "NO_COMMON_USERS",
           "STATS_COLUMNS"]

#: ids shown in a message about users in one frame only
EXAMPLES = 10
TRUTH_FLAG = "_rankeval_truth"  # True on truth rows of the combined frame
KIND_COLUMN = "_rankeval_kind"  # output rows: 0 a user, 1 a bucket's bookkeeping, 2 a bucket's error
USER, STATS, ERROR = 0, 1, 2
NO_COMMON_USERS = "no user of `pred` appears in `truth`"
#: the bookkeeping columns of the output (Spark type of each)
STATS_COLUMNS = [("_error", "string"), ("_n_pred", "bigint"), ("_n_truth", "bigint"), ("_n_users", "bigint"),
                 ("_n_missing", "bigint"), ("_n_pred_only", "bigint"), ("_n_tied", "bigint"), ("_n_rows", "bigint"),
                 ("_n_judged", "bigint"),
                 ("_n_possible", "bigint"), ("_missing", "string"), ("_pred_only", "string"), ("_sums", "string"),
                 ("_parts", "string"), ("_behind", "string"), ("_n_rank_like", "bigint"), ("_n_long", "bigint")]


def _arrow_to_pandas(table: Any) -> pd.DataFrame:
    """A bucket's Arrow table as pandas: text ids stay in Arrow memory (``pd.ArrowDtype``), the rest numpy.

    Text as Arrow strings is what the pandas engine factorizes fastest (Arrow's own hash
    kernel), and it never builds a Python object per row.
    """
    import pyarrow as pa

    def mapper(arrow_type: Any) -> Any:
        if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
            return pd.ArrowDtype(arrow_type)
        return None

    return table.to_pandas(types_mapper=mapper, split_blocks=True)


def _examples(ids: Sequence[Any] | np.ndarray) -> str:
    """Up to ten ids, as JSON (non-JSON ids such as dates as their text)."""
    return json.dumps([_plain_id(x) for x in ids[:EXAMPLES]], default=str)


def _plain_id(x: Any) -> Any:
    """A numpy scalar id as the Python scalar JSON can write."""
    return x.item() if isinstance(x, np.generic) else x


def _count_tied(split: Split, has_score: bool, has_rank: bool) -> int:
    """Evaluated lists with two equal scores (ordered by the tie rule, not by the scores)."""
    if has_rank or not has_score:
        return 0
    lists = split.ranked_lists()
    score, offsets = lists.pred_score, lists.offsets
    if len(score) < 2:
        return 0
    same = score[1:] == score[:-1]
    same[offsets[1:-1] - 1] = False  # the last row of a list and the first of the next
    if not same.any():
        return 0
    return int(sorted_unique(lists.user_of_row[1:][same]).size)


def bucket_function(metrics: Sequence[RankingMetric], c: Columns, ties: str, missing_users: str,
                    has_score: bool, has_rank: bool, truth_item: str, side: Any = None) -> Any:
    """The function each bucket (one partition) runs: the pandas engine plus one bookkeeping row.

    ``side`` (a :class:`~rankeval.SideData` with its catalog already made explicit from the
    whole split, :func:`resolve_side`) travels with the function to every bucket."""
    names = [str(m) for m in metrics]
    pred_cols = [c.user, c.item] + ([c.score] if has_score else []) + ([c.rank] if has_rank else [])
    truth_cols = [c.user, truth_item, c.score]

    # a closure: cloudpickle ships it, with the values above, to every Python worker; what it
    # calls are module functions, which the workers import
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        frames = _bucket_frames(batches, c, pred_cols, truth_cols)
        if frames is None:
            return  # an empty partition: no user hashed here
        pred_t, truth_t = frames
        user_type = pred_t.schema.field(c.user).type
        schema = _bucket_schema(c.user, user_type, names)
        stats: dict[str, Any] = dict(_n_pred=pred_t.num_rows, _n_truth=truth_t.num_rows, _n_users=0,
                                     _n_missing=0, _n_pred_only=0, _n_tied=0, _n_rows=0, _n_judged=0,
                                     _n_possible=0)
        # (through the module: a ContextVar cannot be pickled into the bucket function)
        token = data_internal.LOCATE_BY_PAIRS.set((c.user, c.item))  # a bucket's row labels mean nothing
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RankevalWarning)  # counted for the driver, which warns
                users_out, values, parts = _evaluate_bucket(pred_t, truth_t, stats, metrics, c, ties, missing_users,
                                                            has_score, has_rank, side)
        except ValueError as exc:  # a validation error: the driver raises it
            yield _bucket_batch(schema, ERROR, pa.nulls(1, user_type), names, {}, dict(stats, _error=str(exc)))
            return
        finally:
            data_internal.LOCATE_BY_PAIRS.reset(token)
        stats["_sums"] = json.dumps([ExactSum.of(values[m] if values else np.empty(0)).to_json() for m in names])
        stats["_parts"] = json.dumps([None if (part := parts.get(m)) is None else part.to_json() for m in names])
        if len(users_out):
            yield _bucket_batch(schema, USER, users_out, names, values, {})
        yield _bucket_batch(schema, STATS, pa.nulls(1, user_type), names, {}, stats)

    return run


def _bucket_frames(batches: Iterator[Any], c: Columns, pred_cols: list[str], truth_cols: list[str]
                   ) -> tuple[Any, Any] | None:
    """A bucket's pred and truth rows as two Arrow tables (truth's item column named ``c.item``);
    None for an empty partition."""
    import pyarrow as pa
    import pyarrow.compute as pc

    collected = list(batches)
    if not collected or not any(b.num_rows for b in collected):
        return None
    table = pa.Table.from_batches(collected)
    del collected
    is_truth = table.column(TRUTH_FLAG)
    pred_t = table.filter(pc.invert(is_truth)).select(pred_cols)
    truth_t = table.filter(is_truth).select(truth_cols).rename_columns([c.user, c.item, c.score])
    return pred_t, truth_t


def _bucket_schema(user_col: str, user_type: Any, names: list[str]) -> Any:
    """The Arrow schema of a bucket's output: the row kind, the user, one value per metric, the bookkeeping."""
    import pyarrow as pa
    return pa.schema([(KIND_COLUMN, pa.int8()), (user_col, user_type)] + [(n, pa.float64()) for n in names]
                     + [(n, pa.string() if t == "string" else pa.int64()) for n, t in STATS_COLUMNS])


def _bucket_batch(schema: Any, kind: int, users: Any, names: list[str], values: dict[str, Any],
                  stats: dict[str, Any]) -> Any:
    """One output batch: a row per user of ``users``, their ``values`` and the ``stats`` (null where absent)."""
    import pyarrow as pa
    n = len(users)
    arrays = [pa.array(np.full(n, kind, dtype=np.int8)), users]
    arrays += [pa.array(values[m], type=pa.float64()) if m in values else pa.nulls(n, pa.float64())
               for m in names]
    arrays += [pa.nulls(n, schema.field(f).type) if stats.get(f) is None
               else pa.array([stats[f]] * n, type=schema.field(f).type) for f, _ in STATS_COLUMNS]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _evaluate_bucket(pred_t: Any, truth_t: Any, stats: dict[str, Any], metrics: Sequence[RankingMetric],
                     c: Columns, ties: str, missing_users: str, has_score: bool, has_rank: bool, side: Any
                     ) -> tuple[Any, dict[str, Any], dict[str, SystemParts | None]]:
    """The pandas engine on one bucket: its users (Arrow), their values and the metrics' system parts.

    Fills the bookkeeping counts into ``stats`` as it goes (a validation error leaves the
    counts made so far, which the error row carries).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    names = [str(m) for m in metrics]
    user_type = pred_t.schema.field(c.user).type
    users_out = pa.array([], type=user_type)
    values: dict[str, Any] = {}
    parts: dict[str, SystemParts | None] = {}
    policy = "ignore" if missing_users == "error" else missing_users
    pred, truth = _arrow_to_pandas(pred_t), _arrow_to_pandas(truth_t)
    split = None
    if len(pred) and len(truth):
        try:
            split = Split(pred, truth, user_col=c.user, item_col=c.item, score_col=c.score,
                          # the type: ignore below: policy and ties were checked on the driver (plain str here)
                          rank_col=c.rank, ties=ties, missing_users=policy,  # type: ignore[arg-type]
                          side=side, score_order=c.score_order)
        except ValueError as exc:  # rows valid, but no user here is in both frames
            if not str(exc).startswith(NO_COMMON_USERS):
                raise
    if split is not None:
        # the split's own join found the users of one frame only: no second hashing pass
        lists = split.ranked_lists()
        missing, pred_only = lists.missing_user_ids, lists.pred_only_user_ids
        users, _, parts = evaluate_split_with_parts(split, metrics)
        stats["_behind"] = json.dumps(users_behind(metrics, split.ranked_lists()))
        stats.update(_n_users=len(users), _n_tied=_count_tied(split, has_score, has_rank),
                     **dict(zip(("_n_rows", "_n_judged", "_n_possible"), overlap_counts(lists))))
        users_out = pa.array(users.index.to_numpy(), type=user_type)
        values = {m: users[m].to_numpy() for m in names}
    else:
        _validate_alone(pred, truth, c, ties)
        # every user here is in one frame only
        missing = pc.unique(truth_t.column(c.user)).to_pylist()
        pred_only = pc.unique(pred_t.column(c.user)).to_pylist()
        if missing_users == "zero" and len(missing):
            users_out = pa.array(missing, type=user_type)
            values = {m: np.zeros(len(missing)) for m in names}
            stats["_n_users"] = len(missing)
    stats.update(_n_missing=len(missing), _n_pred_only=len(pred_only),
                 _missing=_examples(missing), _pred_only=_examples(pred_only))
    stats["_n_rank_like"], stats["_n_long"] = _rank_like(pred, c, has_score and not has_rank)
    return users_out, values, parts


def _rank_like(pred: pd.DataFrame, c: Columns, by_score: bool) -> tuple[int, int]:
    """(the bucket's pred users when all their scores are exactly 1..n_u, else -1; its lists of
    2+ items): the driver warns (RanksAsScoresWarning) when every bucket's users are, and
    ``MIN_LONG_LISTS`` lists hold 2+ items. Rows have no order on Spark, so no list reads as
    written best first."""
    if not by_score or pred.empty or c.ascending:
        return 0, 0
    codes, _ = pd.factorize(pred[c.user])
    score = pred[c.score].to_numpy(dtype=np.float64)
    order = np.lexsort((-score, codes))
    n_listed = np.bincount(codes).astype(np.int64)
    n = rank_like_count(score[order], codes[order], n_listed)
    return (n if n else -1), int(np.count_nonzero(n_listed >= 2))


def _validate_alone(pred: pd.DataFrame, truth: pd.DataFrame, c: Columns, ties: str) -> None:
    """Validate the rows of a bucket where no user is in both frames, as the pandas engine would.

    With both frames present, the pandas engine checks every row before it finds that no
    user is common (that last error is the driver's to raise, over all buckets). A frame
    alone is checked against a one-row stand-in for the other, made from one of its own
    rows with an id (the first frame Split checks is ``pred``).
    """
    kwargs = dict(user_col=c.user, item_col=c.item, score_col=c.score, rank_col=c.rank, ties=ties,
                  score_order=c.score_order)
    if len(pred) and len(truth):
        try:
            # the type: ignore below: keyword options checked on the driver, typed as a plain dict here
            Split(pred, truth, **kwargs)  # type: ignore[arg-type]
        except ValueError as exc:
            if not str(exc).startswith(NO_COMMON_USERS):
                raise
        return
    if len(pred):
        stand_in = pred[[c.user, c.item]].head(1).assign(**{c.score: 1.0})
        # the type: ignore below: keyword options checked on the driver, typed as a plain dict here
        Split(pred, stand_in, **kwargs)  # type: ignore[arg-type]
        return
    with_ids = truth[c.user].notna().to_numpy() & truth[c.item].notna().to_numpy()
    if not with_ids.any():  # every row lacks an id: the pandas engine checks item ids first
        data_internal.reject_missing_ids(truth, "truth", c.item)
        data_internal.reject_missing_ids(truth, "truth", c.user)
    stand_in = truth.loc[with_ids, [c.user, c.item]].head(1).assign(**{c.score: 1.0})
    # the type: ignore below: keyword options checked on the driver, typed as a plain dict here
    Split(stand_in, truth, **kwargs)  # type: ignore[arg-type]
