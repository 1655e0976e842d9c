"""Spark helpers shared by the evaluation engine and the splitters (pyspark imported lazily).

Only the DataFrame API that classic Spark and Spark Connect share is used, so every
helper works on both kinds of session.
"""

from __future__ import annotations

import os
import re
import warnings
from typing import Any

import pandas as pd

__all__ = ["functions_of", "is_connect", "quoted", "parallelism", "collect"]


def functions_of(frame: Any) -> Any:
    """``pyspark.sql.functions`` of the frame's kind: Spark Connect's for a Connect frame.

    (``pyspark.sql.functions`` picks Connect or classic by an environment variable that a
    process holding both kinds of session, like a local Connect server, may not set.)
    """
    if is_connect(frame):
        from pyspark.sql.connect import functions as connect_functions
        return connect_functions
    from pyspark.sql import functions as classic_functions
    return classic_functions


def is_connect(frame: Any) -> bool:
    """Whether ``frame`` is a Spark Connect DataFrame."""
    return type(frame).__module__.startswith("pyspark.sql.connect")


def quoted(name: str) -> str:
    """A column name that Spark takes as it is, whatever characters it holds (dots, spaces)."""
    return "`" + name.replace("`", "``") + "`"


def parallelism(spark: Any) -> int:
    """The cores the session can use: defaultParallelism on classic sessions; on Spark Connect
    (no sparkContext) spark.default.parallelism, else the cores of a ``local[N]`` master, else
    spark.sql.shuffle.partitions."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect sessions have no sparkContext
        pass
    conf = spark.conf
    value = conf.get("spark.default.parallelism", None)
    if value:
        return int(value)
    master = conf.get("spark.master", None) or ""
    local = re.fullmatch(r"local(?:-cluster)?\[(\d+|\*)(?:,\s*\d+)*\]", master.strip())
    if local:
        return (os.cpu_count() or 1) if local.group(1) == "*" else int(local.group(1))
    if master.strip() == "local":
        return 1
    return int(conf.get("spark.sql.shuffle.partitions", "200"))


def collect(frame: Any) -> pd.DataFrame:
    """``frame.toPandas()``, without the deprecation notice pyspark raises under pandas 3
    (its own ``astype(copy=False)``: nothing a caller of rankeval can act on)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The copy keyword is deprecated", module="pyspark")
        return frame.toPandas()
