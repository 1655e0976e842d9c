"""Side data from files, for the command line: ``--train``, ``--catalog``, ``--item-features``.

- ``--train FILE``: interactions (user, item, optional score) read as ``--truth`` files are
  (CSV/TSV/Parquet, or a TREC qrels file); ids of CSV/TSV files are read as text, like
  those of ``--pred`` and ``--truth``, so that they compare equal.
- ``--catalog FILE``: a CSV/TSV/Parquet file (with a header) holding the item column
  (``--item-col``) or a single column; any other file (``.txt``, no extension) is one item
  id per line, blank lines ignored, no header.
- ``--item-features FILE``: a CSV/TSV/Parquet file, one row per item; the ids are the item
  column (``--item-col``) if there is one, else the first column. Every other column must
  be numeric (a vector per item, cosine distance); or ``--feature-sets COL`` names one
  column of ``|``-separated categories (e.g. ``Action|Comedy``; in a RecBole ``.item`` file
  space-separated, as RecBole splits its ``token_seq`` fields), the only one then used
  (Jaccard distance; an empty field is an empty set).
- ``--item-groups FILE``: a CSV/TSV/Parquet file (with a header) of two columns, the item
  (``--item-col``, or the first column) and its group (the other column), for the fairness
  metrics (REO, RSP, ItemMAD); ids and groups are read as text.

Each option is given once (for every split) or once per split, in the order of ``--truth``.
Wherever CSV/TSV is read, RecBole's atomic files (``.inter``, ``.item``, ``.user``) are too,
and separators are each file's own (:mod:`._text_files`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from ..data import SideData
from ..data.internal import ID_ALIASES, SCORE_ALIASES
from ..io import format_of, read_frame
from ._text_files import TABLE_FORMATS, read_table

__all__ = ["add_side_arguments", "read_side", "SIDE_OPTIONS"]

#: API parameter names of side data -> the options that set them (for error messages)
SIDE_OPTIONS = {"train": "--train", "catalog": "--catalog", "item_features": "--item-features",
                "item_groups": "--item-groups"}

#: the separator of the categories of a --feature-sets column
CATEGORY_SEP = "|"


def add_side_arguments(p: argparse.ArgumentParser) -> None:
    """The side-data options of ``evaluate`` and ``compare``."""
    side = p.add_argument_group("side data (beyond-accuracy and fairness metrics: Coverage, Gini, Entropy, ARP, "
                                "TailShare, Novelty, EPC, ILD, ACLT, PopREO, PopRSP, REO, RSP, ItemMAD; see "
                                "docs/beyond_accuracy.md)")
    side.add_argument("--train", action="append", default=None, metavar="PATH",
                      help="the interactions the recommender learned from (user, item[, score]; CSV, TSV, "
                           "Parquet or qrels): item popularity and user profiles; once for every split or once "
                           "per split")
    side.add_argument("--catalog", action="append", default=None, metavar="PATH",
                      help="the recommendable items: a text file with one item id per line, or a CSV/TSV/Parquet "
                           "file with the item column (or one column); default every item of --train and --truth")
    side.add_argument("--item-features", action="append", default=None, metavar="PATH",
                      help="item features (CSV/TSV/Parquet, one row per item; ids in the item column or the "
                           "first column): numeric columns are a vector per item (cosine distance)")
    side.add_argument("--item-groups", action="append", default=None, metavar="PATH",
                      help="item groups (e.g. providers) for REO, RSP and ItemMAD: a CSV/TSV/Parquet file of two "
                           "columns, the item (--item-col, or the first column) and its group")
    side.add_argument("--feature-sets", default=None, metavar="COL",
                      help=f"use only this column of --item-features, '{CATEGORY_SEP}'-separated categories "
                           f"(e.g. Action{CATEGORY_SEP}Comedy; space-separated in a RecBole .item file, as its "
                           f"token_seq fields), as a set per item (Jaccard distance)")


def _per_split(paths: list[str] | None, n_splits: int, option: str) -> list[str | None]:
    if paths is None:
        return [None] * n_splits
    if len(paths) == 1:
        return [paths[0]] * n_splits
    if len(paths) != n_splits:
        raise ValueError(f"{option} is given {len(paths)} times for {n_splits} split(s): give it once (for every "
                         f"split) or once per split, in the order of --truth")
    return list(paths)


def truth_id_columns(args: argparse.Namespace) -> tuple[str, str]:
    """The user and item columns of the truth and train files."""
    return args.truth_user_col or args.user_col, args.truth_item_col or args.item_col


def missing_column_hint(frame: pd.DataFrame, role: str, missing: list[str], named: dict[str, str],
                        sep: str | None = None) -> str:
    """What to pass when a file lacks a column: the option naming a column it seems to have.
    ``named``: the columns looked for, by kind (``user``, ``item``, ``score``); ``sep``: the
    ``--sep`` given (None: each file's own separator was read from its header line)."""
    if len(frame.columns) == 1 and any(s in str(frame.columns[0]) for s in ",\t;|:"):
        told = f"it was read with --sep {sep!r}" if sep is not None else "no separator was found in its header line"
        return (f"the file has one column {str(frame.columns[0])!r}: {told}; pass --sep with the file's own "
                f"separator")
    prefix = "--truth-" if role in ("truth", "train") else "--"
    hints = []
    for kind, column in named.items():
        aliases = SCORE_ALIASES if kind == "score" else ID_ALIASES[kind]
        found = [c for c in aliases if c in frame.columns and c != column]
        typed = column.rpartition(":")[0]
        if column in missing and typed in frame.columns:  # RecBole's user_id:token, whose suffix reading drops
            hints.append(f"a RecBole atomic file's columns are read without their ':type' suffix: pass "
                         f"{prefix}{kind}-col {typed}")
        elif column in missing and len(found) == 1:
            what = "ratings" if kind == "score" else f"{kind} ids"
            hints.append(f"its {what} are in {found[0]!r}? pass {prefix}{kind}-col {found[0]}")
    return "; ".join(hints) or "name the columns with --user-col, --item-col, --score-col"


def read_train(args: argparse.Namespace, path: str) -> pd.DataFrame:
    ids = truth_id_columns(args)  # train files are named as the truth files
    fmt, _ = format_of(path)
    if fmt in ("trec_run", "trec_qrels"):
        frame = read_frame(path, format="trec_qrels")
        frame = frame.rename(columns={"user_id": ids[0], "item_id": ids[1],
                                      "score": args.truth_score_col or args.score_col})
    else:
        frame = read_table(args, path, fmt, ids)
    missing = [c for c in ids if c not in frame.columns]
    if missing:
        hint = missing_column_hint(frame, "train", missing, {"user": ids[0], "item": ids[1]}, args.sep)
        if hint.startswith("name the columns"):
            hint = "name the columns with --truth-user-col, --truth-item-col (default --user-col, --item-col)"
        raise ValueError(f"--train file '{path}' has no column {', '.join(repr(c) for c in missing)} (its columns: "
                         f"{[str(c) for c in frame.columns]}); {hint}")
    return frame


def read_catalog(args: argparse.Namespace, path: str) -> pd.Index:
    item_col = truth_id_columns(args)[1]  # side files name items as the truth does
    try:
        fmt, _ = format_of(path)
    except ValueError:
        fmt = "lines"
    if fmt in TABLE_FORMATS:
        frame = read_table(args, path, fmt, (item_col,))
        if item_col in frame.columns:
            values = frame[item_col]
        elif frame.shape[1] == 1:
            values = frame.iloc[:, 0]
        else:
            raise ValueError(f"--catalog file '{path}' has no {item_col!r} column and {frame.shape[1]} columns "
                             f"{[str(c) for c in frame.columns]}: give the item ids in one column, or one per line "
                             f"in a text file")
        if fmt != "parquet":
            values = values.astype(object)
        return pd.Index(values, dtype=object if fmt != "parquet" else None, name=item_col)
    if fmt != "lines":
        raise ValueError(f"--catalog file '{path}' is a TREC file: give one item id per line, or a CSV/TSV/Parquet "
                         f"file with the item column")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"--catalog file '{path}' is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    items = [line.strip() for line in text.splitlines() if line.strip()]
    if not items:
        raise ValueError(f"--catalog file '{path}' holds no item id (one per line)")
    return pd.Index(items, dtype=object, name=item_col)


def read_item_features(args: argparse.Namespace, path: str) -> pd.DataFrame:
    item_col = truth_id_columns(args)[1]  # side files name items as the truth does
    fmt, _ = format_of(path)
    if fmt not in TABLE_FORMATS:
        raise ValueError(f"--item-features file '{path}' must be CSV, TSV, Parquet or a RecBole .item file (one row "
                         f"per item), not {fmt}")
    if fmt != "parquet":
        def read(id_col: str) -> pd.DataFrame:
            sets = {args.feature_sets: str} if args.feature_sets is not None else {}
            return read_table(args, path, fmt, (id_col,), dtype=sets)

        frame = read(item_col)
        id_col = item_col
        if id_col not in frame.columns:  # the ids are the first column: read it again as text
            id_col = str(frame.columns[0])
            frame = read(id_col)
    else:
        frame = read_frame(path)
        if len(frame.columns) == 0:
            raise ValueError(f"--item-features file '{path}' has no column")
        id_col = item_col if item_col in frame.columns else str(frame.columns[0])
    if frame[id_col].isna().any():
        rows = frame.index[frame[id_col].isna().to_numpy()][:5].tolist()
        raise ValueError(f"--item-features file '{path}' has missing item ids in column {id_col!r} at rows {rows}")
    frame = frame.set_index(id_col)
    frame.index.name = item_col
    if args.feature_sets is not None:
        col = args.feature_sets
        if col not in frame.columns:
            raise ValueError(f"--feature-sets {col!r}: --item-features file '{path}' has no such column (its "
                             f"columns: {[str(c) for c in frame.columns]})")
        text = frame[col].astype(object).where(frame[col].notna(), "")
        # RecBole's token_seq fields are space-separated (its seq_separator)
        split = (lambda v: v.split()) if fmt == "atomic" else (lambda v: v.split(CATEGORY_SEP))
        sets = [frozenset(c.strip() for c in split(str(v)) if c.strip()) for v in text.to_numpy()]
        return pd.DataFrame({col: pd.Series(sets, index=frame.index, dtype=object)})
    for col in frame.columns:
        series = frame[col]
        if not (pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)):
            raise ValueError(f"--item-features file '{path}': column {str(col)!r} is not numeric (dtype "
                             f"{series.dtype}); every feature column must be a number, or name a column of "
                             f"'{CATEGORY_SEP}'-separated categories with --feature-sets {col}")
    return frame


def read_item_groups(args: argparse.Namespace, path: str) -> pd.DataFrame:
    fmt, _ = format_of(path)
    if fmt not in TABLE_FORMATS:
        raise ValueError(f"--item-groups file '{path}' must be CSV, TSV, Parquet or a RecBole atomic file (item, "
                         f"group), not {fmt}")
    if fmt == "parquet":
        frame = read_frame(path)
    else:  # ids and groups as text, as the ids of --pred and --truth
        frame = read_table(args, path, fmt, (), dtype=str)
    if frame.shape[1] != 2:
        raise ValueError(f"--item-groups file '{path}' has {frame.shape[1]} columns {[str(c) for c in frame.columns]}: "
                         f"give two, the item and its group")
    return frame


def read_side(args: argparse.Namespace, n_splits: int) -> list[SideData | None]:
    """One SideData (or None) per split from ``--train``, ``--catalog``, ``--item-features``,
    ``--item-groups``; each file is read and validated once, a bad file is a ValueError naming it."""
    if args.feature_sets is not None and args.item_features is None:
        raise ValueError("--feature-sets names a column of --item-features, which is not given")
    trains = _per_split(args.train, n_splits, "--train")
    catalogs = _per_split(args.catalog, n_splits, "--catalog")
    features = _per_split(args.item_features, n_splits, "--item-features")
    groups = _per_split(getattr(args, "item_groups", None), n_splits, "--item-groups")
    frames: dict[tuple[str, str], Any] = {}
    built: dict[tuple[str | None, ...], SideData] = {}
    out: list[SideData | None] = []
    readers = {"--train": read_train, "--catalog": read_catalog, "--item-features": read_item_features,
               "--item-groups": read_item_groups}
    for t, c, f, g in zip(trains, catalogs, features, groups):
        if t is None and c is None and f is None and g is None:
            out.append(None)
            continue
        given = (("--train", t), ("--catalog", c), ("--item-features", f), ("--item-groups", g))
        if (t, c, f, g) not in built:
            parts = {}
            for option, path in given:
                if path is None:
                    continue
                if (option, path) not in frames:
                    frames[(option, path)] = readers[option](args, path)
                parts[option] = frames[(option, path)]
            try:
                built[(t, c, f, g)] = SideData(parts.get("--train"), parts.get("--catalog"),
                                               parts.get("--item-features"), user_col=truth_id_columns(args)[0],
                                               item_col=truth_id_columns(args)[1],
                                               score_col=args.truth_score_col or args.score_col,
                                               item_groups=parts.get("--item-groups"))
            except ValueError as exc:
                files = ", ".join(f"{o} {p}" for o, p in given if p is not None)
                message = str(exc)
                for name, option in SIDE_OPTIONS.items():
                    message = message.replace(f"`{name}`", option)
                raise ValueError(f"{files}: {message}") from exc
        out.append(built[(t, c, f, g)])
    return out
