"""Beyond accuracy: coverage, concentration, popularity bias, novelty, diversity and the
popularity gap of user groups; they read side data (train, catalog, item features)."""

from ._beyond import (
           AveragePopularity,
           CatalogCoverage,
           DeltaGap,
           GiniIndex,
           IntraListDiversity,
           Novelty,
           ShannonEntropy,
           TailShare,
           system_level_counts,
)

__all__ = ["CatalogCoverage", "GiniIndex", "ShannonEntropy", "AveragePopularity", "TailShare", "Novelty",
           "IntraListDiversity", "DeltaGap", "system_level_counts"]
