r"""Beyond accuracy: coverage, concentration, popularity bias, novelty, diversity, group gaps.

These metrics read side data (:class:`~rankeval.SideData`): the training interactions
(``train=``), the catalog (``catalog=``) and item features (``item_features=``). Each
declares what it needs in ``needs_side``; evaluating it without that side data is a
ValueError naming the argument.

Two kinds:

- **system level** (``system_level = True``): :class:`CatalogCoverage`,
  :class:`GiniIndex`, :class:`ShannonEntropy`, :class:`DeltaGap`, :class:`ExposureGini`. They have no
  per-user value (they are absent from EvalModel's ``users_result``); their system value
  comes from per-item counts or per-group sums that add up exactly over any partition of
  the users (:meth:`~rankeval.RankingMetric.system_parts`).
- **per user**: :class:`AveragePopularity`, :class:`TailShare`, :class:`Novelty`,
  :class:`IntraListDiversity`, :class:`Miscalibration`, :class:`Serendipity`,
  :class:`Unexpectedness`, :class:`Surprisal`, :class:`RBO`, :class:`LIP`; the system value is the
  mean over users, as for accuracy metrics.

Notation: :math:`L_u` the first k items of user u's list (the whole list for
``k=None``), :math:`U` the users of ``train``, :math:`pop_i` the number of distinct
training users who had item i, :math:`C` the catalog, :math:`c_i` the number of lists
(of evaluated users, cut at k) holding item i.

Their bases, :class:`~rankeval.SideMetric` and :class:`~rankeval.SystemLevelMetric`, live in
``metrics/_side_metric.py`` beside :class:`~rankeval.RankingMetric`. Modules:
``_concentration.py`` (coverage, Gini, entropy), ``_exposure.py`` (rank-weighted exposure Gini),
``_popularity.py`` (ARP, tail share, DeltaGap), ``_novelty.py`` (novelty, EPC), ``_diversity.py``
(intra-list diversity), ``_calibration.py`` (Steck's miscalibration), ``_serendipity.py``
(serendipity), ``_unexpectedness.py`` (unexpectedness, surprisal), ``_reranking.py`` (rank-biased
overlap and least item promoted against a reference system's lists), ``_history.py`` (users' training
histories).
"""

from .._side_metric import system_level_counts as system_level_counts
from ._calibration import Miscalibration
from ._concentration import CatalogCoverage, GiniIndex, ShannonEntropy
from ._diversity import IntraListDiversity
from ._exposure import ExposureGini
from ._novelty import Novelty
from ._popularity import AveragePopularity, DeltaGap, TailShare
from ._reranking import LIP, RBO
from ._serendipity import Serendipity
from ._unexpectedness import BASELINES as BASELINES
from ._unexpectedness import OrderedBaseline as OrderedBaseline
from ._unexpectedness import Surprisal, Unexpectedness
from ._unexpectedness import baseline_lists as baseline_lists
from ._unexpectedness import order_baseline as order_baseline

# the names imported as themselves (system_level_counts, BASELINES, the baseline helpers) are
# handed on to the engines and compare, not public metrics: kept out of __all__, which the
# metrics package hands on whole
__all__ = ["CatalogCoverage", "GiniIndex", "ShannonEntropy", "AveragePopularity", "TailShare", "Novelty",
           "IntraListDiversity", "DeltaGap", "ExposureGini", "Miscalibration", "Serendipity", "Unexpectedness",
           "Surprisal", "RBO", "LIP"]
