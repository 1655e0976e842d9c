"""rankeval: correct, fast ranking metrics for recommender systems.

The public API is what ``__all__`` lists, gathered from the subpackages' own lists;
everything else is private. The packages, from the top down: ``cli``, ``page`` (the HTML
report), ``evaluation`` (EvalModel, compare), ``views`` (tables and figures), ``stats``,
``engines`` (pandas, Spark), ``metrics``, ``data`` (the data model), ``io``.
"""

from . import (
    conventions,
    data,
    evaluation,
    exceptions,
    groups,
    io,
    metrics,
    ope,
    page,
    rank,
    sampled,
    segments,
    split,
    unbiased,
)
from ._version import __version__
from .data import RankedLists, SideData, Split
from .evaluation import ComparisonResult, EvalModel, compare
from .exceptions import (
                         DroppedUnitsWarning,
                         LowOverlapWarning,
                         MissingUsersWarning,
                         ProtocolWarning,
                         RankevalWarning,
                         RanksAsScoresWarning,
                         ShortListsWarning,
                         TiedScoresWarning,
                         UnusedColumnsWarning,
)
from .metrics import *  # noqa: F403  (every name of metrics.__all__, handed on below)
from .page import report
from .sampled import SampledCandidates
from .split import audit

__all__ = [
    "Split", "RankedLists", "SideData",
    "EvalModel", "compare", "ComparisonResult",
    "report",
    "split", "audit",
    "sampled", "SampledCandidates",
    "unbiased",
    "rank",
    "ope",
    *metrics.__all__,
    "segments", "groups", "conventions", "io",
    *exceptions.__all__,
    "__version__",
]
