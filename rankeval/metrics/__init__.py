"""Metrics: the base class :class:`RankingMetric`, every built-in metric, the metric names
(:func:`parse_metric`, :func:`register_metric`) and the rank weights (:class:`RankWeight`).

The families: position-aware accuracy and correlation (NDCG, MAP, MRR, AUC, ...); set
metrics and counts (precision, recall, F-measure, ...); rating-prediction errors (MAE,
RMSE, LogLoss); beyond accuracy: coverage, popularity, novelty, diversity (they need side
data); popularity bias and item-group fairness (they need side data too).
"""

# The modules (private; the API reference shows only the names above):
# - _base.py: RankingMetric (all the plumbing and the whole contract a metric declares),
#   _pooled.py: PooledMetric (macro/micro averaging), _side_metric.py: SideMetric and
#   SystemLevelMetric (side data, system value only), _parts.py: the system-value hook's exact
#   parts, _names.py: the table of names the classes fill in, _registry.py: parse_metric,
#   _weighting.py: rank weights (RBP, exposure);
# - ranking/: position-aware accuracy and correlation; sets/: set metrics and counts;
#   errors/: rating-prediction errors; beyond/: coverage, popularity, novelty, diversity;
#   fairness/: popularity bias and item-group fairness (beyond/ and fairness/ need side data).
# A family's __all__ lists its public metrics; this package hands each list on whole, so a new
# metric is its module plus its name in its family's __init__.

from . import beyond, errors, fairness, ranking, sets
from ._base import MetricResult, RankingMetric
from ._pooled import PooledMetric
from ._registry import metric_names, parse_metric, register_metric, unregister_metric
from ._side_metric import SideMetric, SystemLevelMetric
from ._weighting import GeometricWeight, LogWeight, RankWeight, UniformWeight
from .beyond import *  # noqa: F403
from .errors import *  # noqa: F403
from .fairness import *  # noqa: F403
from .ranking import *  # noqa: F403
from .sets import *  # noqa: F403

__all__ = [
    "RankingMetric",
    "PooledMetric",
    "SideMetric",
    "SystemLevelMetric",
    "MetricResult",
    *ranking.__all__,
    *sets.__all__,
    *errors.__all__,
    *beyond.__all__,
    *fairness.__all__,
    "RankWeight",
    "GeometricWeight",
    "UniformWeight",
    "LogWeight",
    "parse_metric",
    "register_metric",
    "unregister_metric",
    "metric_names",
]
