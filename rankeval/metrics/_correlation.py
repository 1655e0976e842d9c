"""Correlation between predicted and truth scores of the listed, judged items."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from .. import segments as seg
from .._validation import check_choice, check_cutoff
from ._base import RankingMetric

if TYPE_CHECKING:
    from ..ranked import RankedLists

__all__ = ["Correlation"]

METHODS = ("pearson", "spearman", "kendall")
#: pairs compared at once by Kendall's tau: bounds its memory to ~100 MB
KENDALL_PAIRS_PER_CHUNK = 2_000_000


class Correlation(RankingMetric):
    r"""Correlation of predicted scores with truth scores over the listed, judged items.

    For each user, take the first ``top_n`` listed items (all when None), keep those
    with a truth score, and correlate their predicted scores with their truth scores:

    - ``"pearson"``: :math:`\rho = \frac{\sum (x - \bar x)(y - \bar y)}{\sqrt{\sum (x - \bar x)^2 \sum (y - \bar y)^2}}`;
    - ``"spearman"``: Pearson's :math:`\rho` of the average ranks of :math:`x` and :math:`y`;
    - ``"kendall"``: :math:`\tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_x)(n_0 - n_y)}}`, with
      :math:`n_0` pairs, :math:`n_x` / :math:`n_y` pairs tied in :math:`x` / :math:`y`
      (what ``pandas.Series.corr`` and ``scipy.stats.kendalltau`` compute).

    Without a ``score`` column in ``pred``, the predicted score is ``-rank``, the negated
    1-based position in the list (ranks only order a list: ranks 1, 3, 7 are positions
    1, 2, 3), so higher is better as for scores.

    Parameters
    ----------
    method : {"pearson", "spearman", "kendall"}
        Correlation coefficient; also the metric's name stem.
    top_n : int, optional
        Only the first ``top_n`` listed items count; the name becomes ``"method@top_n"``.
    name : str, optional
        Overrides the name.

    Notes
    -----
    Undefined cases: fewer than 2 listed items with a truth score, or either variable
    constant over them (a zero variance), gives NaN, left out of the system mean.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": list("abcd"), "score": [.9, .8, .7, .6]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": list("abd"), "score": [5, 3, 4]})
    >>> print(f"{Correlation('spearman').perform(Split(pred, truth)).system.loc['sys', 'spearman']:.4f}")
    0.5000
    """

    higher_is_better = True

    def __init__(self, method: str = "pearson", top_n: int | None = None, *, name: str | None = None) -> None:
        super().__init__(check_cutoff(top_n, name="top_n"), None, name)
        self.method = check_choice("method", method, METHODS)

    @property
    def stem(self) -> str:  # type: ignore[override]
        return self.method

    @property
    def top_n(self) -> int | None:
        return self.k

    def _params(self) -> dict[str, object]:
        return {"method": self.method, "top_n": self.top_n, "name": self.name}

    def _head_is_enough(self) -> bool:
        return True

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        keep = lists.judged if self.k is None else lists.judged & (lists.position <= self.k)
        rows = np.flatnonzero(keep)
        counts = lists.segment_sum(keep).astype(np.int64)
        offsets = np.zeros(lists.n_users + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        x = lists.pred_score[rows]
        y = lists.truth_score[rows]
        if self.method == "kendall":
            result = _kendall_tau_b(x, y, offsets)
        else:
            if self.method == "spearman":
                x, y = _average_ranks(x, offsets), _average_ranks(y, offsets)
            result = _pearson(x, y, offsets)
        result[counts < 2] = np.nan
        return result


def _pearson(x: NDArray[np.float64], y: NDArray[np.float64], offsets: NDArray[np.int64]) -> NDArray[np.float64]:
    """Per-segment Pearson correlation, two-pass (centred) for accuracy."""
    n = np.diff(offsets).astype(np.float64)
    users = seg.segment_ids(offsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        dx = x - (seg.segment_sum(x, offsets) / n)[users]
        dy = y - (seg.segment_sum(y, offsets) / n)[users]
        sxy = seg.segment_sum(dx * dy, offsets)
        sxx = seg.segment_sum(dx * dx, offsets)
        syy = seg.segment_sum(dy * dy, offsets)
        r = sxy / np.sqrt(sxx * syy)
    # undefined for a constant segment; tested on the values, not on sxx or syy: the float
    # mean of eight 0.1s is not 0.1, so their deviations are tiny but not zero
    constant = (seg.segment_max(x, offsets) == seg.segment_min(x, offsets)) | (
        seg.segment_max(y, offsets) == seg.segment_min(y, offsets))
    r[constant | (sxx == 0) | (syy == 0)] = np.nan
    return np.clip(r, -1.0, 1.0)


def _average_ranks(values: NDArray[np.float64], offsets: NDArray[np.int64]) -> NDArray[np.float64]:
    """1-based ranks within each segment, ties sharing their average rank."""
    order = seg.segment_argsort(values, offsets)
    sorted_values = values[order]
    users = seg.segment_ids(offsets)  # order keeps segments in place
    position = seg.segment_positions(offsets).astype(np.float64)
    new_group = np.ones(len(values), dtype=bool)
    if len(values) > 1:
        new_group[1:] = (sorted_values[1:] != sorted_values[:-1]) | (users[1:] != users[:-1])
    group = np.cumsum(new_group) - 1
    mean_rank = np.bincount(group, weights=position) / np.bincount(group)
    ranks = np.empty(len(values))
    ranks[order] = mean_rank[group]
    return ranks


def _kendall_tau_b(x: NDArray[np.float64], y: NDArray[np.float64], offsets: NDArray[np.int64]) -> NDArray[np.float64]:
    """Per-segment Kendall tau-b over every pair of rows, in chunks of bounded size."""
    n_users = len(offsets) - 1
    users = seg.segment_ids(offsets)
    seg_end = np.repeat(offsets[1:], np.diff(offsets))
    partners = seg_end - np.arange(len(x)) - 1  # rows after each row in its segment
    cum = np.concatenate([[0], np.cumsum(partners)])
    score = np.zeros(n_users)
    x_ties = np.zeros(n_users)
    y_ties = np.zeros(n_users)
    start = 0
    while start < len(x):
        # a chunk is a run of rows whose pairs fit the budget (at least one row)
        stop = int(np.searchsorted(cum, cum[start] + KENDALL_PAIRS_PER_CHUNK, side="right")) - 1
        stop = min(max(stop, start + 1), len(x))
        rows = np.arange(start, stop)
        counts = partners[rows]
        i = np.repeat(rows, counts)
        j = i + 1 + (np.arange(len(i)) - np.repeat(cum[rows] - cum[start], counts))
        u = users[i]
        sx = np.sign(x[i] - x[j])
        sy = np.sign(y[i] - y[j])
        score += np.bincount(u, weights=sx * sy, minlength=n_users)
        x_ties += np.bincount(u, weights=sx == 0, minlength=n_users)
        y_ties += np.bincount(u, weights=sy == 0, minlength=n_users)
        start = stop
    n = np.diff(offsets).astype(np.float64)
    pairs = n * (n - 1) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = score / np.sqrt((pairs - x_ties) * (pairs - y_ties))
    tau[(pairs - x_ties == 0) | (pairs - y_ties == 0)] = np.nan
    return np.clip(tau, -1.0, 1.0)
