"""Engines that run the metrics of one split: pandas (the kernel) and Spark (buckets of pandas)."""

from __future__ import annotations

from typing import Any

__all__ = ["is_spark_frame"]


def is_spark_frame(obj: Any) -> bool:
    """Whether ``obj`` is a ``pyspark.sql.DataFrame`` (checked without importing pyspark)."""
    return any(cls.__module__.startswith("pyspark.sql") and cls.__name__ == "DataFrame"
               for cls in type(obj).__mro__)
