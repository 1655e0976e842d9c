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

Modules: ``_side_metric.py`` (the bases: :class:`SideMetric`, :class:`SystemLevelMetric`),
``_concentration.py`` (coverage, Gini, entropy), ``_exposure.py`` (rank-weighted exposure Gini),
``_popularity.py`` (ARP, tail share, DeltaGap), ``_novelty.py`` (novelty, EPC), ``_diversity.py``
(intra-list diversity), ``_calibration.py`` (Steck's miscalibration), ``_serendipity.py``
(serendipity), ``_unexpectedness.py`` (unexpectedness, surprisal), ``_reranking.py`` (rank-biased
overlap and least item promoted against a reference system's lists), ``_history.py`` (users' training
histories).
"""

from ._calibration import Miscalibration
from ._concentration import CatalogCoverage, GiniIndex, ShannonEntropy
from ._diversity import IntraListDiversity
from ._exposure import ExposureGini
from ._novelty import Novelty
from ._popularity import AveragePopularity, DeltaGap, TailShare
from ._reranking import LIP, RBO, reference_systems
from ._serendipity import Serendipity
from ._side_metric import system_level_counts
from ._unexpectedness import BASELINES, OrderedBaseline, Surprisal, Unexpectedness, baseline_lists, order_baseline

__all__ = ["CatalogCoverage", "GiniIndex", "ShannonEntropy", "AveragePopularity", "TailShare", "Novelty",
           "IntraListDiversity", "DeltaGap", "ExposureGini", "Miscalibration", "Serendipity", "Unexpectedness",
           "Surprisal", "RBO", "LIP", "reference_systems",
           "system_level_counts", "baseline_lists", "order_baseline", "OrderedBaseline", "BASELINES"]
