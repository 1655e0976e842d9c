"""Reading and writing the files rankeval works with: CSV, TSV, Parquet, TREC and RecBole's atomic files.

Readers return frames with rankeval's column names (see :class:`~rankeval.Split`):

- :func:`read_frame` picks the reader from the file's extension: ``.csv``, ``.tsv`` /
  ``.tab``, ``.parquet`` / ``.pq``, TREC runs ``.run`` / ``.trec``, TREC qrels
  ``.qrels`` and RecBole's atomic files ``.inter`` / ``.item`` / ``.user``; text files
  may be compressed (``.gz``, ``.bz2``, ``.zip``, ``.xz``, e.g. ``runs.csv.gz``).
- RecBole's atomic files are tab-separated with a typed header (``user_id:token
  item_id:token rating:float timestamp:float``): the columns lose their ``:type``
  suffix; ``token``, ``token_seq`` and ``float_seq`` fields are text exactly as written
  (a sequence stays one space-separated string), ``float`` fields are numbers.
- :func:`read_trec_run` reads ``qid Q0 docid rank score tag`` lines into ``user_id``,
  ``item_id``, ``rank`` (int) and ``score`` (float); :func:`read_trec_qrels` reads
  ``qid 0 docid rel`` lines into ``user_id``, ``item_id`` and ``score`` (float). TREC ids
  stay strings (``0042`` keeps its zero).

:func:`write_frame` writes a result frame as CSV, TSV, Parquet or JSON, keeping every
float exactly (a float read back is the float written).

Errors: a missing file is a :class:`FileNotFoundError`; an unknown extension, or a
malformed TREC line (wrong number of fields, a rank, score or grade that is not a
number), is a :class:`ValueError` naming the file (and the 1-based line number, showing
the line); Parquet without pyarrow is an :class:`ImportError` saying what to install.
"""

from __future__ import annotations

import bz2
import contextlib
import csv
import gzip
import io
import json
import lzma
import math
import os
import re
import zipfile
from collections.abc import Generator
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from ..data.internal import to_pandas
from ._atomic import atomic_path
from ._recbole import atomic_frame, atomic_options, atomic_types

__all__ = ["read_frame", "read_trec_run", "read_trec_qrels", "write_frame", "format_of"]

#: formats read_frame knows, by extension
READ_FORMATS: dict[str, str] = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet",
                                ".pq": "parquet", ".run": "trec_run", ".trec": "trec_run", ".qrels": "trec_qrels",
                                ".inter": "atomic", ".item": "atomic", ".user": "atomic"}
#: formats write_frame knows, by extension
WRITE_FORMATS: dict[str, str] = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet",
                                 ".pq": "parquet", ".json": "json"}
#: compression suffixes accepted after a text format's extension (``runs.csv.gz``)
COMPRESSIONS: dict[str, str] = {".gz": "gzip", ".bz2": "bz2", ".zip": "zip", ".xz": "xz"}

#: the formats read as text, which may be compressed
TEXT_FORMATS = ("csv", "tsv", "atomic", "trec_run", "trec_qrels")
#: every format read_frame reads (its ``format=`` values)
FORMAT_NAMES = ("csv", "tsv", "parquet", "trec_run", "trec_qrels", "atomic")
#: the separators a header line is searched for (:func:`header_separator`), by preference on a tie
SEPARATORS = (",", "\t", ";", "|")
_RUN_FIELDS = "qid Q0 docid rank score tag"
_QRELS_FIELDS = "qid 0 docid rel"
_PARQUET_HINT = "pip install 'pyarrow>=15' (the parquet extra)"


#: pandas 2's default float parser is off by one unit in the last place for about a quarter
#: of 17-digit floats, so it is asked for the exact one; pandas 3 parses exactly by default
#: and deprecates the option
EXACT_FLOATS: dict[str, Any] = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


# ---------------------------------------------------------------------- formats
def _supported(table: dict[str, str]) -> str:
    compressible = [ext for ext, fmt in table.items() if fmt in TEXT_FORMATS]
    return (f"{', '.join(table)}; {', '.join(compressible)} files may be compressed "
            f"({', '.join(COMPRESSIONS)}, e.g. data{compressible[0]}.gz)")


def format_of(path: str | os.PathLike[str], *, write: bool = False) -> tuple[str, str | None]:
    """The format and compression of ``path``, from its extension.

    Parameters
    ----------
    path : str or path-like
        A file name such as ``runs.csv``, ``runs.csv.gz``, ``ratings.parquet``,
        ``bm25.run`` or ``test.qrels``.
    write : bool
        Look the extension up among the formats :func:`write_frame` writes (``csv``,
        ``tsv``, ``parquet``, ``json``) instead of those :func:`read_frame` reads.

    Returns
    -------
    (format, compression) : tuple of str and (str or None)
        ``format`` is one of ``"csv"``, ``"tsv"``, ``"parquet"``, ``"trec_run"``,
        ``"trec_qrels"`` (reading) or ``"json"`` (writing); ``compression`` is
        ``"gzip"``, ``"bz2"``, ``"zip"``, ``"xz"`` or None.

    Raises
    ------
    ValueError
        An extension that is not supported; the message lists the supported ones.

    Examples
    --------
    >>> format_of("runs.csv.gz")
    ('csv', 'gzip')
    >>> format_of("bm25.run")
    ('trec_run', None)
    """
    table = WRITE_FORMATS if write else READ_FORMATS
    suffixes = [s.lower() for s in Path(path).suffixes]
    compression = None
    if suffixes and suffixes[-1] in COMPRESSIONS:
        compression = COMPRESSIONS[suffixes.pop()]
    fmt = table.get(suffixes[-1]) if suffixes else None
    if compression is not None and fmt not in TEXT_FORMATS:
        fmt = None  # a compressed Parquet or JSON file: not supported
    if fmt is None:
        action = "write" if write else "read"
        shown = "".join(Path(path).suffixes[-2 if compression else -1:])
        what = f"unknown file extension {shown!r}" if shown else "no file extension"
        raise ValueError(f"cannot {action} '{path}': {what}; "
                         f"supported: {_supported(table)}")
    return fmt, compression


def _check_readable(path: str | os.PathLike[str]) -> Path:
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"file not found: '{path}'")
    if p.is_dir():
        raise IsADirectoryError(f"'{path}' is a directory, not a file")
    return p


def _need_pyarrow(path: str | os.PathLike[str], action: str) -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"{action} Parquet file '{path}' needs pyarrow, which is not installed: "
                          f"{_PARQUET_HINT}") from exc


# ---------------------------------------------------------------------- readers
#: what pandas reads as missing by default; in rankeval's readers only non-id columns use them
NA_MARKERS = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
              "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")


def read_frame(path: str | os.PathLike[str], *, format: str | None = None,
               id_columns: tuple[str, ...] = ("user_id", "item_id"), **options: Any) -> pd.DataFrame:
    """Read a CSV, TSV, Parquet, TREC or RecBole atomic file into a DataFrame, by its extension.

    Parameters
    ----------
    path : str or path-like
        ``.csv``, ``.tsv`` / ``.tab``, ``.parquet`` / ``.pq``, ``.run`` / ``.trec`` (a
        TREC run, :func:`read_trec_run`), ``.qrels`` (TREC qrels,
        :func:`read_trec_qrels`) or ``.inter`` / ``.item`` / ``.user`` (RecBole's atomic
        files). Text files may be compressed: ``.gz``, ``.bz2``, ``.zip`` (one member) or
        ``.xz`` after the extension.
    format : {None, "csv", "tsv", "parquet", "trec_run", "trec_qrels", "atomic"}
        Read the file as this format whatever its extension (a compression suffix is
        still honoured); None: the format of the extension.
    id_columns : tuple of str
        CSV / TSV columns holding ids: their values are read exactly as written (an id
        ``NA``, ``null``, ``None``, ``nan`` or ``N/A`` is text, not a missing value; only an
        empty field is missing). The other columns (scores, ranks) read pandas' usual
        missing-value markers. Ignored when ``options`` set ``na_values`` or
        ``keep_default_na``. In an atomic file every text field is read so.
    **options
        Passed to :func:`pandas.read_csv` (CSV, TSV, atomic) or
        :func:`pandas.read_parquet`, e.g. ``dtype={"user_id": str}``, ``sep=";"``,
        ``decimal=","`` or ``columns=[...]``. TREC readers take none. For an atomic file,
        ``dtype`` and ``usecols`` name the columns without their ``:type`` suffix.

    Returns
    -------
    DataFrame
        As pandas reads it. CSV and TSV floats are parsed exactly
        (``float_precision="round_trip"`` unless ``options`` says otherwise: pandas'
        default parser is off by one unit in the last place for about a quarter of
        17-digit floats). An atomic file's columns are named without their ``:type``
        suffix (``user_id:token`` is ``user_id``); its ``token``, ``token_seq`` and
        ``float_seq`` fields are text exactly as written (a sequence is one
        space-separated string), its ``float`` fields numbers (int64 when every value is
        written as a whole number, else float64: the same values as RecBole's float64).

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        An unknown extension or format (the message lists the supported ones), a file
        pandas cannot parse, a malformed TREC line (file, line number and line), an
        atomic file's header field without a known ``:type``, or a ``float`` field
        that holds text.
    ImportError
        A Parquet file without pyarrow installed (``pip install 'pyarrow>=15'``, the ``parquet`` extra).

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "truth.csv"
    >>> _ = path.write_text("user_id,item_id,score\\nu1,a,5\\nu1,b,3\\n")
    >>> read_frame(path)
      user_id item_id  score
    0      u1       a      5
    1      u1       b      3
    """
    if format is not None:
        if format not in FORMAT_NAMES:
            raise ValueError(f"`format` must be one of {list(FORMAT_NAMES)} or None, got {format!r}")
        suffixes = [s.lower() for s in Path(path).suffixes]
        compression = COMPRESSIONS.get(suffixes[-1]) if suffixes else None
        fmt = format
    else:
        fmt, compression = format_of(path)
    p = _check_readable(path)
    if fmt in ("trec_run", "trec_qrels"):
        if options:
            raise TypeError(f"TREC files take no reader options, got {sorted(options)}")
        return read_trec_run(p) if fmt == "trec_run" else read_trec_qrels(p)
    if fmt == "parquet":
        _need_pyarrow(path, "reading")
        return pd.read_parquet(p, engine="pyarrow", **options)
    return _read_delimited(p, fmt, compression, id_columns, options)


class DelimitedTextError(ValueError):
    """A delimited file whose rows do not split into its header's columns (most often: the wrong separator)."""


def _read_delimited(p: Path, fmt: str, compression: str | None, id_columns: tuple[str, ...],
                    options: dict[str, Any]) -> pd.DataFrame:
    """A CSV, TSV or atomic file read with pandas, its errors as ValueErrors naming the file."""
    options = {**EXACT_FLOATS, **options}
    if fmt in ("tsv", "atomic"):
        options.setdefault("sep", "\t")
    if compression is not None:
        options.setdefault("compression", compression)
    types: dict[str, tuple[str, str]] = {}
    try:
        if fmt == "atomic":
            types = atomic_types(p, pd.read_csv(p, nrows=0, dtype=str, **_header_options(options)).columns)
            options = atomic_options(types, id_columns, options, NA_MARKERS)
        if "na_values" not in options and "keep_default_na" not in options:
            header = pd.read_csv(p, nrows=0, **options).columns
            options["keep_default_na"] = False
            options["na_values"] = {c: ([""] if c in id_columns else list(NA_MARKERS)) for c in header}
        frame = pd.read_csv(p, **options)
    except pd.errors.EmptyDataError as exc:
        raise ValueError(f"'{p}' is empty: expected a header line with the column names") from exc
    except pd.errors.ParserError as exc:
        raise DelimitedTextError(f"cannot parse '{p}' as {fmt.upper()}: {_one_line(exc)}") from exc
    except UnicodeDecodeError as exc:
        raise ValueError(f"'{p}' is not UTF-8 text ({exc.reason} at byte {exc.start}): save it as UTF-8, "
                         f"or read it with read_frame(path, encoding=...)") from exc
    if "index_col" not in options and not frame.index.equals(pd.RangeIndex(len(frame))):
        # every row has more fields than the header: pandas would make the first ones an index and
        # shift every column's values one place (ids read as scores): a wrong frame, not a guess
        raise DelimitedTextError(
            f"'{p}': its rows have more fields than its header ({len(frame.columns)} column name(s) "
            f"{list(frame.columns)[:6]}, {len(frame.columns) + frame.index.nlevels} fields a row): add the missing "
            f"column names to the header, or remove the extra fields")
    return atomic_frame(p, frame, types, options["dtype"]) if types else frame


def _header_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options that decide how a header line reads (not the types or missing values of the rows)."""
    return {k: v for k, v in options.items() if k in ("sep", "delimiter", "compression", "encoding", "quotechar",
                                                      "escapechar", "comment", "skiprows", "header")}


def header_separator(path: str | os.PathLike[str], default: str) -> str:
    """The field separator of a delimited text file, read from its first line.

    ``default`` when the line holds it, else the one of :data:`SEPARATORS` the line holds
    most often (outside double quotes), else ``default`` (a one-column file). The file
    may be compressed (by its extension).

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    """
    with contextlib.closing(_open_text(_check_readable(path))) as lines:
        first = next(lines, "")
    first = re.sub(r'"[^"]*"', "", first.lstrip("\ufeff").rstrip("\r\n"))
    if default in first:
        return default
    counts = {sep: first.count(sep) for sep in SEPARATORS}
    best = max(SEPARATORS, key=lambda sep: counts[sep])
    return best if counts[best] else default


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _open_text(path: Path) -> Generator[str, None, None]:
    """The lines of a possibly compressed text file (for locating a bad line)."""
    compression = COMPRESSIONS.get(path.suffix.lower())
    # undecodable bytes become U+FFFD, which _trec_lines reports with the line they are on
    encoding, errors, newline = "utf-8", "replace", ""
    with contextlib.ExitStack() as stack:
        handle: IO[str]
        if compression == "gzip":
            handle = stack.enter_context(gzip.open(path, "rt", encoding=encoding, errors=errors, newline=newline))
        elif compression == "bz2":
            handle = stack.enter_context(bz2.open(path, "rt", encoding=encoding, errors=errors, newline=newline))
        elif compression == "xz":
            handle = stack.enter_context(lzma.open(path, "rt", encoding=encoding, errors=errors, newline=newline))
        elif compression == "zip":
            archive = stack.enter_context(zipfile.ZipFile(path))
            member = archive.open(archive.namelist()[0])
            handle = stack.enter_context(io.TextIOWrapper(member, encoding=encoding, errors=errors, newline=newline))
        else:
            # entered on the stack, which closes it
            handle = stack.enter_context(open(path, encoding=encoding, errors=errors, newline=newline))  # noqa: SIM115
        yield from handle


def _trec_lines(path: Path, n_fields: int, layout: str, numeric: dict[int, tuple[str, type]],
                extra_ok: bool) -> list[list[str]]:
    """Every data line's fields, read as trec_eval reads them; a ValueError naming the first bad line.

    As trec_eval's get_trec_results.c / get_qrels.c: fields are separated by any run of
    whitespace (spaces, tabs); a line whose first non-blank character is ``#`` is a comment;
    blank lines are skipped; a run line may carry text after its run tag (ignored, as
    trec_eval does: ``extra_ok``), a qrels line may not.
    """
    rows = []
    for number, raw in enumerate(_open_text(path), start=1):
        line = raw.rstrip("\r\n")
        if "\ufffd" in line:
            raise ValueError(f"{path}, line {number}: not UTF-8 text: {line!r}")
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < n_fields or (len(fields) > n_fields and not extra_ok):
            raise ValueError(f"{path}, line {number}: expected {n_fields} whitespace-separated fields "
                             f"({layout}), found {len(fields)}: {line!r}")
        for index, (what, kind) in numeric.items():
            try:
                kind(fields[index])
            except ValueError:
                noun = "an integer" if kind is int else "a number"
                raise ValueError(f"{path}, line {number}: the {what} (field {index + 1}) must be {noun}, got "
                                 f"{fields[index]!r}: {line!r}") from None
        rows.append(fields[:n_fields])
    return rows


def _read_trec(path: Path, n_fields: int, layout: str, numeric: dict[int, tuple[str, type]],
               extra_ok: bool = False) -> pd.DataFrame:
    """The fields of a whitespace-separated file, ``numeric`` ones parsed, read as trec_eval reads them.

    Fast path: one typed ``read_csv``. Anything unusual (a parse failure, a comment line,
    text after a run tag, a short line) falls back to a line scan (:func:`_trec_lines`)
    that reads what trec_eval reads and raises on the first malformed line.
    """
    base: dict[str, Any] = {"sep": r"\s+", "header": None, "na_filter": False, "quoting": csv.QUOTE_NONE,
                            "skip_blank_lines": True, "compression": COMPRESSIONS.get(path.suffix.lower(), "infer")}
    dtype: dict[int, Any] = {i: str for i in range(n_fields)}
    dtype.update({i: np.int64 if kind is int else np.float64 for i, (_, kind) in numeric.items()})
    try:
        frame = pd.read_csv(path, dtype=dtype, **EXACT_FLOATS, **base)
        last = frame[frame.columns[-1]]
        # a short line leaves its last field empty; a comment line starts with '#'
        clean = (frame.shape[1] == n_fields and not (pd.api.types.is_string_dtype(last) and (last == "").any())
                 and not frame[0].str.startswith("#").any())
    except pd.errors.EmptyDataError:
        return pd.DataFrame({i: pd.Series([], dtype=dtype[i] if dtype[i] is not str else object)
                             for i in range(n_fields)})
    except (ValueError, OverflowError):  # a ParserError, a non-number, more fields, not UTF-8
        clean = False
    if clean:
        return frame
    rows = _trec_lines(path, n_fields, layout, numeric, extra_ok)
    frame = pd.DataFrame(rows, columns=range(n_fields), dtype=object)
    try:
        for index, (_, kind) in numeric.items():
            frame[index] = np.asarray([kind(v) for v in frame[index]], dtype=np.int64 if kind is int else np.float64)
    except (ValueError, TypeError, OverflowError) as exc:
        raise ValueError(f"{path}: cannot read the numeric fields: {_one_line(exc)}") from exc
    return frame


def read_trec_run(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a TREC run file: one ``qid Q0 docid rank score tag`` line per listed item.

    Fields are separated by whitespace; blank lines are skipped; the ``Q0`` and ``tag``
    fields are not kept. The file may be compressed (``.gz``, ``.bz2``, ``.zip``, ``.xz``).

    Parameters
    ----------
    path : str or path-like
        The run file.

    Returns
    -------
    DataFrame
        Columns ``user_id`` (the qid, str), ``item_id`` (the docid, str), ``rank`` (int64)
        and ``score`` (float64), in file order. Ids stay strings: ``0042`` keeps its
        zero. Evaluated as a ``pred`` frame, lists are ordered by ``rank`` (not by
        ``score``, as trec_eval does); drop the ``rank`` column to order by score.

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        A line without exactly 6 fields, or whose rank is not an integer or whose score
        is not a number: the message names the file and the 1-based line number and
        shows the line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "bm25.run"
    >>> _ = path.write_text("0042 Q0 d7 1 12.5 bm25\\n0042 Q0 d3 2 11.0 bm25\\n")
    >>> read_trec_run(path)
      user_id item_id  rank  score
    0    0042      d7     1   12.5
    1    0042      d3     2   11.0
    """
    p = _check_readable(path)
    frame = _read_trec(p, 6, _RUN_FIELDS, {3: ("rank", int), 4: ("score", float)}, extra_ok=True)
    return pd.DataFrame({"user_id": frame[0].to_numpy(dtype=object), "item_id": frame[2].to_numpy(dtype=object),
                         "rank": frame[3].to_numpy(dtype=np.int64), "score": frame[4].to_numpy(dtype=np.float64)})


def read_trec_qrels(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a TREC qrels file: one ``qid 0 docid rel`` line per judged item.

    Fields are separated by whitespace; blank lines are skipped; the second field (the
    iteration, usually ``0``) is not kept. The file may be compressed (``.gz``,
    ``.bz2``, ``.zip``, ``.xz``).

    Parameters
    ----------
    path : str or path-like
        The qrels file.

    Returns
    -------
    DataFrame
        Columns ``user_id`` (the qid, str), ``item_id`` (the docid, str) and ``score``
        (the relevance grade, float64), in file order. Ids stay strings.

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        A line without exactly 4 fields, or whose grade is not a number: the message
        names the file and the 1-based line number and shows the line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "test.qrels"
    >>> _ = path.write_text("0042 0 d7 2\\n0042 0 d9 0\\n")
    >>> read_trec_qrels(path)
      user_id item_id  score
    0    0042      d7    2.0
    1    0042      d9    0.0
    """
    p = _check_readable(path)
    frame = _read_trec(p, 4, _QRELS_FIELDS, {3: ("relevance grade", float)})
    return pd.DataFrame({"user_id": frame[0].to_numpy(dtype=object), "item_id": frame[2].to_numpy(dtype=object),
                         "score": frame[3].to_numpy(dtype=np.float64)})


# ---------------------------------------------------------------------- writers
def _json_value(value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return None if math.isnan(value) else value
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (str, list, dict)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``df`` (a named index included) as JSON-ready dicts.

    Floats are kept exactly (``json.dumps`` writes their shortest round-trip repr); NaN
    becomes None (JSON ``null``); numpy scalars become Python ones.
    """
    df = _with_index(df)
    columns = [str(c) for c in df.columns]
    data = [df[c].tolist() for c in df.columns]
    return [{name: _json_value(v) for name, v in zip(columns, row)} for row in zip(*data)]


def json_text(df: pd.DataFrame) -> str:
    """``df`` as a JSON array of row objects, floats exact, NaN as ``null``.

    Infinite values are written as ``Infinity`` / ``-Infinity`` (as Python's ``json``
    module, pandas and most JSON5 readers understand them).
    """
    return json.dumps(_records(df), indent=1, allow_nan=True) + "\n"


def _with_index(df: pd.DataFrame) -> pd.DataFrame:
    """The frame with its index as columns when the index has a name (any level)."""
    return df.reset_index() if any(name is not None for name in df.index.names) else df


def write_frame(df: pd.DataFrame, path: str | os.PathLike[str], **options: Any) -> None:
    """Write a result frame as CSV, TSV, Parquet or JSON, by the extension of ``path``.

    Floats are written exactly: a value read back (:func:`read_frame`,
    :func:`json.load`) is the value written, to the last bit. The file is written under a
    temporary name in the same folder and renamed when complete: a failed or killed write
    leaves whatever ``path`` held before.

    Parameters
    ----------
    df : DataFrame
        The frame (pandas, polars or pyarrow). A named index is written as columns (so ``sys_result`` keeps its
        ``split`` column and ``users_result`` its ``split`` and ``user_id`` columns); an
        unnamed one is not written.
    path : str or path-like
        ``.csv``, ``.tsv`` / ``.tab`` (optionally ``.gz``, ``.bz2``, ``.zip``, ``.xz``
        compressed), ``.parquet`` / ``.pq`` or ``.json`` (an array of row objects; NaN
        is ``null``).
    **options
        Passed to :meth:`DataFrame.to_csv` or :meth:`DataFrame.to_parquet`.

    Raises
    ------
    ValueError
        An unknown extension (the message lists the supported ones).
    ImportError
        Parquet without pyarrow installed (``pip install 'pyarrow>=15'``, the ``parquet`` extra).
    """
    df = to_pandas(df, "df")
    fmt, compression = format_of(path, write=True)
    out = _with_index(df)
    if fmt == "json" and options:
        raise TypeError(f"JSON output takes no writer options, got {sorted(options)}")
    if fmt == "parquet":
        _need_pyarrow(path, "writing")
    with atomic_path(path) as temporary:
        if fmt == "json":
            Path(temporary).write_text(json_text(out), encoding="utf-8")
        elif fmt == "parquet":
            out.to_parquet(temporary, engine="pyarrow", index=False, **options)
        else:
            options = {"index": False, **options}
            if fmt == "tsv":
                options.setdefault("sep", "\t")
            options.setdefault("compression", compression)  # not inferred: the temporary name has no extension
            out.to_csv(temporary, **options)
