"""Statistics: one resampling engine, paired, unpaired and rank tests, post-hoc, corrections, power,
equivalence, effect sizes and the spread over training seeds.

Array functions on plain numpy arrays; :func:`rankeval.compare`, the report and the
by-group tables call them, and nothing here knows of splits, metrics or frames.
"""

from ._effects import dz_interval, ratio_interval, relative_difference
from ._equivalence import EQUIVALENCE_METHODS, bootstrap_tost, check_margin, margin_of, tost_paired
from ._paired import PAIRED_TESTS, cohen_dz, mean_difference, paired_test, stable_mean
from ._posthoc import (
    FriedmanResult,
    NemenyiResult,
    TukeyResult,
    average_ranks,
    cd_groups,
    check_alpha,
    friedman,
    nemenyi,
    tukey_hsd,
)
from ._power import (
    PowerResult,
    SimulatedPower,
    corrected_alpha,
    power_analysis,
    shift_to,
    simulated_power,
    ttest_mde,
    ttest_nobs,
    ttest_power,
)
from ._resampling import (
    CI_METHODS,
    ResamplingPlan,
    adjust_pvalues,
    bootstrap_column_means,
    bootstrap_mean_ci,
    bootstrap_means,
    min_resamples,
    resample_tests,
)
from ._seeds import SEED_COLUMNS, seed_decomposition, seed_spread_of_difference

__all__ = ["average_ranks", "friedman", "nemenyi", "tukey_hsd", "cd_groups", "check_alpha", "FriedmanResult",
           "NemenyiResult", "TukeyResult", "ResamplingPlan", "resample_tests", "bootstrap_means", "bootstrap_mean_ci",
           "bootstrap_column_means",
           "adjust_pvalues", "min_resamples", "CI_METHODS", "power_analysis", "ttest_power", "ttest_mde", "ttest_nobs",
           "simulated_power", "shift_to", "corrected_alpha", "PowerResult", "SimulatedPower",
           "paired_test", "cohen_dz", "mean_difference", "stable_mean", "PAIRED_TESTS", "dz_interval",
           "relative_difference", "ratio_interval", "tost_paired", "bootstrap_tost", "check_margin", "margin_of",
           "EQUIVALENCE_METHODS", "seed_decomposition", "seed_spread_of_difference", "SEED_COLUMNS"]
