"""Evaluation: many splits and metrics in one call (:class:`EvalModel`), many systems
compared with paired tests (:func:`compare`), and what a comparison found (:class:`ComparisonResult`)."""

from ._compare import CORRECTIONS, TESTS, compare
from ._eval_model import EvalModel
from ._result import TABLE_COLUMNS, ComparisonResult

__all__ = ["EvalModel", "compare", "ComparisonResult", "TABLE_COLUMNS", "TESTS", "CORRECTIONS"]
