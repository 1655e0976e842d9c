"""How the evaluated lists were made: a Splits object as the truth, and Spark trains.

An evaluation given a :class:`~rankeval.split.Splits` object takes its test frames as the
truth, its train frames as the ``train=`` side data and its names as the split names; the
engines then run the audit's cheap checks on every split (:mod:`rankeval.engines`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..data.internal import is_spark_frame
from ..engines.internal import protocol_findings, spark_findings, warn_protocol
from ..split import Splits

__all__ = ["splits_as_truth", "protocol_findings", "warn_protocol", "spark_trains", "spark_findings"]


def splits_as_truth(truth: Any, train: Any, split_names: Sequence[str] | None,
                    split_options: Mapping[str, Any]) -> tuple[Any, Any, Sequence[str] | None, dict[str, Any]]:
    """``(truth, train, split_names, split_options)`` with a Splits object unpacked.

    A Splits object's tests become the truth, its trains the ``train`` side data, its names
    the split names (unless given), its user and item columns the default column names of
    both pred and truth (``truth_user_col``, ``truth_item_col``) and its score column the
    default ``truth_score_col``.
    Anything else passes through unchanged.
    """
    options = dict(split_options)
    if not isinstance(truth, Splits):
        return truth, train, split_names, options
    if train is not None:
        raise ValueError("`train` is given twice: the truth is a Splits object, whose train frames are the "
                         "`train` side data; pass the Splits object alone, or its tests (`splits.tests`) "
                         "with your own `train`")
    for key in ("user_col", "item_col"):
        if key in truth.params:
            # the interactions' names are the truth's; pred keeps them unless told otherwise
            options.setdefault(key, truth.params[key])
            options.setdefault(f"truth_{key}", truth.params[key])
    if "score_col" in truth.params:  # the interactions' rating column is the truth's score
        options.setdefault("truth_score_col", truth.params["score_col"])
    return truth.tests, truth.trains, (truth.names if split_names is None else split_names), options


def spark_trains(train: Any) -> tuple[Any, list[Any] | None]:
    """``(train, None)``, or ``(None, trains)`` when ``train`` lists Spark frames (a Splits made on Spark).

    Side data is local (shipped to every bucket of the Spark engine), so the train frames of
    a Splits made on Spark are kept apart: the cheap checks read them on Spark, and a
    metric that needs ``train`` side data asks for it (a local frame) by name.
    """
    if isinstance(train, (list, tuple)) and train and all(is_spark_frame(t) for t in train):
        return None, list(train)
    return train, None
