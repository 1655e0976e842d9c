"""Engines that run the metrics of one split: pandas (the kernel) and Spark (buckets of pandas)."""

from ..data.internal import is_spark_frame

__all__ = ["is_spark_frame"]
