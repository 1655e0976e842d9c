"""Frame kinds: pandas, polars and Arrow inputs become one pandas frame, without a row-by-row copy.

Everything above the kernel works on pandas. polars (``DataFrame``, ``LazyFrame``) and
``pyarrow.Table`` inputs are turned into pandas once, at the door, as Arrow shares them:
numeric columns become numpy (zero-copy where Arrow's buffer allows), text columns stay
in Arrow memory as ``pd.ArrowDtype`` columns, which :func:`rankeval._keys.factorize`
hashes with Arrow's own kernel (never through an array of Python objects). Spark frames
are not converted here: the Spark engine takes them (:mod:`rankeval.engines`).

polars and pyarrow are optional and only imported when such a frame is passed (they are
recognised by the module of their class).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["is_local_frame", "is_frame", "to_pandas", "FRAME_KINDS"]

#: what every entry point accepts, for messages
FRAME_KINDS = "a pandas, polars (DataFrame or LazyFrame), pyarrow.Table or Spark DataFrame"


def _kind(obj: Any) -> str | None:
    if isinstance(obj, pd.DataFrame):
        return "pandas"
    module = type(obj).__module__
    name = type(obj).__name__
    if module.startswith("polars") and name in ("DataFrame", "LazyFrame"):
        return "polars_lazy" if name == "LazyFrame" else "polars"
    if module.startswith("pyarrow") and name == "Table":
        return "arrow"
    return None


def is_local_frame(obj: Any) -> bool:
    """Whether ``obj`` is a frame the pandas engine takes (pandas, polars or Arrow)."""
    return _kind(obj) is not None


def is_frame(obj: Any) -> bool:
    """Whether ``obj`` is any frame rankeval takes (local, or Spark classic or Connect)."""
    return _kind(obj) is not None or is_spark_frame(obj)


def _arrow_types(arrow_type: Any) -> Any:
    """pandas dtype for an Arrow column: text stays in Arrow memory, the rest is numpy (None)."""
    import pyarrow as pa

    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return pd.ArrowDtype(arrow_type)
    return None


def _arrow_to_pandas(table: Any) -> pd.DataFrame:
    import pyarrow as pa

    # string_view (polars' newest compatibility level) is not a type every pandas handles:
    # the one column it concerns is cast to large_string, a copy of that column's bytes only
    view = getattr(pa.types, "is_string_view", None)
    if view is not None:
        for i, field in enumerate(table.schema):
            if view(field.type):
                table = table.set_column(i, field.name, table.column(i).cast(pa.large_string()))
    return table.to_pandas(types_mapper=_arrow_types, split_blocks=True)


def to_pandas(obj: Any, what: str) -> pd.DataFrame:
    """``obj`` as a pandas DataFrame (pandas frames are returned as they are, never copied).

    Raises
    ------
    TypeError
        ``obj`` is not a frame rankeval takes (the message names ``what``).
    """
    kind = _kind(obj)
    if kind == "pandas":
        return obj
    if kind == "polars_lazy":
        obj, kind = obj.collect(), "polars"  # collected once
    if kind == "polars":
        return _arrow_to_pandas(obj.to_arrow())
    if kind == "arrow":
        # older pyarrow cannot convert a table with a repeated column name: say so as for pandas
        names = list(obj.column_names)
        repeated = sorted({str(n) for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"`{what}` has more than one column named {repeated}: column names must be unique; "
                             f"rename or drop the repeated columns")
        return _arrow_to_pandas(obj)
    if is_spark_frame(obj):
        raise TypeError(f"`{what}` is a Spark DataFrame: pass it to EvalModel or compare, which run the Spark "
                        f"engine (a Split holds local frames)")
    raise TypeError(f"`{what}` must be {FRAME_KINDS}, got {type(obj).__name__}")


def is_spark_frame(obj: Any) -> bool:
    """Whether ``obj`` is a ``pyspark.sql.DataFrame`` (checked without importing pyspark)."""
    return any(cls.__module__.startswith("pyspark.sql") and cls.__name__ == "DataFrame"
               for cls in type(obj).__mro__)
