"""Helpers that turn the seeds' list-of-lists examples into pred/truth frames."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd


def from_relevance_lists(lists: Sequence[Sequence[float]], *, extra_truth: dict[int, float] | None = None
                         ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """User ``q{i}`` lists items ``q{i}-{j}`` in order; the list's values become their truth scores.

    ``extra_truth`` adds, per query index, one unlisted truth item with the given score.
    """
    pred_rows, truth_rows = [], []
    for i, values in enumerate(lists):
        for j, value in enumerate(values):
            pred_rows.append((f"q{i}", f"q{i}-{j}", j + 1))
            truth_rows.append((f"q{i}", f"q{i}-{j}", float(value)))
        if extra_truth and i in extra_truth:
            truth_rows.append((f"q{i}", f"q{i}-unlisted", float(extra_truth[i])))
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "rank"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    return pred, truth


def from_item_lists(predicted: Sequence[Sequence[object]], relevant: Sequence[Sequence[object]]
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """User ``q{i}`` lists ``predicted[i]`` in order; ``relevant[i]`` are its truth items (score 1)."""
    pred = pd.DataFrame([(f"q{i}", str(item), j + 1) for i, items in enumerate(predicted)
                         for j, item in enumerate(items)], columns=["user_id", "item_id", "rank"])
    truth = pd.DataFrame([(f"q{i}", str(item), 1.0) for i, items in enumerate(relevant) for item in items],
                         columns=["user_id", "item_id", "score"])
    return pred, truth
