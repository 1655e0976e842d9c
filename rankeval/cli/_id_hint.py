"""The command line's fix for ids of kinds that never match: files to write otherwise, not Python.

The API ends such a message with the Python conversion of the frame that needs it
(:class:`~rankeval.data._id_hints.IdKindError`); a user of the command line has files, not
frames. Numbers and text meet there only when a Parquet file (which keeps its ids' type)
faces a CSV, TSV or TREC file (whose ids are read as text): the fix is the Parquet file.
"""

from __future__ import annotations

import argparse
import re

from ..data.internal import IdKindError

__all__ = ["cli_id_hint"]

#: the frames of the API's messages -> the options that give them (pred: see below)
_FLAGS = {"truth": "--truth", "test": "--truth", "train": "--train", "catalog": "--catalog",
          "item_features": "--item-features", "item_groups": "--item-groups"}

_FRAME_COLUMN = re.compile(r"`(\w+)`\['([^']*)'\]")


def _id_kind_error(exc: BaseException) -> IdKindError | None:
    """The IdKindError behind ``exc`` (the commands re-raise it with the split or file named)."""
    seen: BaseException | None = exc
    for _ in range(8):  # a short chain; a cycle of causes must not loop
        if seen is None or isinstance(seen, IdKindError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def cli_id_hint(exc: BaseException, message: str, args: argparse.Namespace) -> str:
    """``message`` with the API's frames named by their options and its Python fix replaced
    by the files to rewrite (unchanged when ``exc`` is not about ids of numbers against text)."""
    err = _id_kind_error(exc)
    if err is None or not err.numeric or err.hint not in message:
        return message
    flags = dict(_FLAGS, pred="--system" if getattr(args, "system", None) else "--pred")
    files = list(dict.fromkeys(flags.get(frame, frame) for frame in err.numeric))
    which = f"the {files[0]} file" if len(files) == 1 else f"the {' and '.join(files)} files"
    fix = (f"CSV, TSV and TREC ids are read as text, Parquet ids keep their stored type: write the ids of {which} "
           f"as text (in pandas, df[col] = df[col].astype(str) before to_parquet), or give "
           f"{'it' if len(files) == 1 else 'them'} as CSV")
    named = _FRAME_COLUMN.sub(lambda m: f"the {flags[m[1]]} file's {m[2]!r}" if m[1] in flags else m[0], message)
    return named.replace(err.hint, fix)
