"""What the other rankeval packages use from ``rankeval.engines`` (its internal face).

Not part of the user-facing API: the names users call are in ``rankeval.engines.__all__``
(and ``rankeval.__all__``); the names here are shared helpers for rankeval's own packages
and may change without notice. A package takes another package's helpers from here (or from
its ``__init__``), never from its private (``_name``) modules: docs/architecture.md.
"""

from ._checks import protocol_findings, spark_findings, warn_protocol
from ._local import PROGRESS_MIN_ROWS, sharing_truth, shows_progress
from ._pandas import evaluate_split
from ._plan import LIST_CHECKS, SPLIT_CHECKS
from ._spark import collect, evaluate_spark_split, resolve_side

__all__ = [
    "LIST_CHECKS", "PROGRESS_MIN_ROWS", "SPLIT_CHECKS", "collect", "evaluate_spark_split", "evaluate_split",
    "protocol_findings", "resolve_side", "sharing_truth", "shows_progress", "spark_findings", "warn_protocol",
]
