"""Correlation between predicted and truth scores of the listed, judged items."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ...data.internal import (
    check_choice,
    check_cutoff,
    lexsort,
    segment_argsort,
    segment_ids,
    segment_max,
    segment_min,
    segment_positions,
    segment_sum,
)
from .._base import RankingMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["Correlation"]

METHODS = ("pearson", "spearman", "kendall")


class Correlation(RankingMetric):
    r"""Correlation of predicted scores with truth scores over the listed, judged items.

    For each user, take the first ``top_n`` listed items (all when None), keep those
    with a truth score, and correlate their predicted scores with their truth scores:

    - ``"pearson"``:
      :math:`\rho = \frac{\sum (x - \bar x)(y - \bar y)}{\sqrt{\sum (x - \bar x)^2 \sum (y - \bar y)^2}}`;
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
    names = METHODS
    name_cutoff = "optional"  # the cutoff is top_n

    def __init__(self, method: str = "pearson", top_n: int | None = None, *, name: str | None = None) -> None:
        super().__init__(check_cutoff(top_n, name="top_n"), None, name)
        self.method = check_choice("method", method, METHODS)

    @classmethod
    def from_name(cls, name: str, k: int | list[int] | None) -> Correlation:
        """``Correlation(name, top_n=k)``: the stem is the method.

        Parameters
        ----------
        name : str
            The method: "pearson", "spearman" or "kendall".
        k : int or list of int, optional
            The cutoff after ``@``, the correlation's ``top_n``.
        """
        return cls(name, top_n=k)  # type: ignore[arg-type]  # a list of cutoffs is refused by its check

    @property
    # the type: ignore below: a property in place of the class attribute: the stem follows the method
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
    """Per-segment Pearson correlation, two-pass (centred) and scaled so no step over- or underflows.

    Each user's values are first scaled by a power of two that brings their largest magnitude
    into [0.5, 1) (exact, subnormals included), then centred, then scaled again by a power of
    two of their largest deviation: the mean, the products and the sums stay in range whatever
    the magnitudes (1e300 or 5e-324), and the scaling cancels in the ratio. A user with an
    infinite value gets NaN (its mean and deviations are undefined).
    """
    n = np.diff(offsets).astype(np.float64)
    users = segment_ids(offsets)
    with np.errstate(all="ignore"):
        dx = _unit_deviations(x, offsets, users, n)
        dy = _unit_deviations(y, offsets, users, n)
        sxy = segment_sum(dx * dy, offsets)
        sxx = segment_sum(dx * dx, offsets)
        syy = segment_sum(dy * dy, offsets)
        r = sxy / np.sqrt(sxx * syy)
    # undefined for a constant segment; tested on the values, not on sxx or syy: the float
    # mean of eight 0.1s is not 0.1, so their deviations are tiny but not zero
    constant = (segment_max(x, offsets) == segment_min(x, offsets)) | (
        segment_max(y, offsets) == segment_min(y, offsets))
    r[constant | ~np.isfinite(r) | (sxx == 0) | (syy == 0)] = np.nan
    return np.clip(r, -1.0, 1.0)


def _unit_deviations(values: NDArray[np.float64], offsets: NDArray[np.int64], users: NDArray[np.integer],
                     n: NDArray[np.float64]) -> NDArray[np.float64]:
    """Deviations from the segment mean, scaled by powers of two so the largest is in [0.5, 1).

    ``np.ldexp`` scales exactly (a value far below its segment's largest may round to a
    subnormal or 0, a change far below the float precision of the segment's sums).
    Non-finite values give NaN deviations for their segment.
    """
    _, exponent = np.frexp(segment_max(np.abs(values), offsets))
    scaled = np.ldexp(values, -exponent[users])
    deviations = scaled - (segment_sum(scaled, offsets) / n)[users]
    _, exponent = np.frexp(segment_max(np.abs(deviations), offsets))
    return np.ldexp(deviations, -exponent[users])


def _average_ranks(values: NDArray[np.float64], offsets: NDArray[np.int64]) -> NDArray[np.float64]:
    """1-based ranks within each segment, ties sharing their average rank."""
    order = segment_argsort(values, offsets)
    sorted_values = values[order]
    users = segment_ids(offsets)  # order keeps segments in place
    position = segment_positions(offsets).astype(np.float64)
    new_group = np.ones(len(values), dtype=bool)
    if len(values) > 1:
        new_group[1:] = (sorted_values[1:] != sorted_values[:-1]) | (users[1:] != users[:-1])
    group = np.cumsum(new_group) - 1
    mean_rank = np.bincount(group, weights=position) / np.bincount(group)
    ranks = np.empty(len(values))
    ranks[order] = mean_rank[group]
    return ranks


def _kendall_tau_b(x: NDArray[np.float64], y: NDArray[np.float64], offsets: NDArray[np.int64]) -> NDArray[np.float64]:
    r"""Per-segment Kendall tau-b by Knight's O(n log n) algorithm, every segment at once.

    With :math:`n_0 = n(n-1)/2` pairs, :math:`n_1`, :math:`n_2` pairs tied in x, in y and
    :math:`n_3` in both, and :math:`n_d` the discordant pairs, counted as the inversions of
    y once the rows are sorted by (x, y):
    :math:`	au_b = rac{n_0 - n_1 - n_2 + n_3 - 2 n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}`.
    Values enter as their dense ranks (so ``inf`` compares as scipy compares it), and the
    inversions are counted by a bottom-up merge of all segments together: one integer sort
    per doubling of the block size, no loop over users.
    """
    n_users = len(offsets) - 1
    lengths = np.diff(offsets)
    rx = _dense_rank(x)
    ry = _dense_rank(y)
    users = segment_ids(offsets).astype(np.int64)
    order = lexsort([ry, rx, users])  # by user, then x, then y
    rx, ry = rx[order], ry[order]

    def tied_pairs(*keys: NDArray[np.int64]) -> NDArray[np.float64]:
        """Per user, the pairs of rows equal on every key (rows sorted so that equal rows are adjacent)."""
        new = np.ones(len(users), dtype=bool)
        for key in (users, *keys):
            new[1:] &= key[1:] == key[:-1]
        new = ~new
        if len(new):
            new[0] = True
        starts = np.flatnonzero(new)
        runs = np.diff(np.append(starts, len(users))).astype(np.float64)
        return np.bincount(users[starts], weights=runs * (runs - 1) / 2,
                           minlength=n_users)  # type: ignore[return-value]  # weighted: float64 (stubs: int)

    x_ties = tied_pairs(rx)
    both_ties = tied_pairs(rx, ry)
    by_y = lexsort([ry, users])
    y_ties = tied_pairs(ry[by_y]) if len(by_y) else np.zeros(n_users)

    discordant = np.zeros(n_users)
    position = segment_positions(offsets).astype(np.int64) - 1  # 0-based, in the (x, y) order
    row_start = np.repeat(offsets[:-1], lengths)
    width = 1
    longest = int(lengths.max(initial=0))
    while width < longest:
        # blocks of `width` rows are sorted by y; merge them in pairs, counting for every row of
        # the right block the rows of the left block with a larger y
        pair_start = row_start + (position // (2 * width)) * (2 * width)
        right = (position // width) % 2
        merged = _merge_order(pair_start, ry, right)
        starts_sorted = pair_start[merged]
        left = right[merged] == 0
        left_so_far = np.cumsum(left)
        group_first = np.flatnonzero(np.r_[True, starts_sorted[1:] != starts_sorted[:-1]])
        group_size = np.diff(np.append(group_first, len(merged)))
        before_group = np.repeat(np.r_[0, left_so_far][group_first], group_size)
        left_in_group = np.repeat(left_so_far[np.append(group_first[1:], len(merged)) - 1], group_size) - before_group
        larger_on_left = left_in_group - (left_so_far - before_group)
        is_right = ~left
        discordant += np.bincount(users[merged][is_right], weights=larger_on_left[is_right], minlength=n_users)
        width *= 2
    n = lengths.astype(np.float64)
    pairs = n * (n - 1) / 2
    score = pairs - x_ties - y_ties + both_ties - 2 * discordant
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = score / np.sqrt((pairs - x_ties) * (pairs - y_ties))
    tau[(pairs - x_ties == 0) | (pairs - y_ties == 0)] = np.nan
    return np.clip(tau, -1.0, 1.0)


def _merge_order(pair_start: NDArray[np.int64], ry: NDArray[np.int64], right: NDArray[np.int64]) -> NDArray[np.int64]:
    """Rows ordered by (pair, y, left before right): one ``np.sort`` of packed words when they fit."""
    n = len(ry)
    row_bits = max(n.bit_length(), 1)
    pair_bits = max(int(pair_start.max(initial=0)).bit_length(), 1)
    y_bits = max(int(ry.max(initial=0)).bit_length(), 1)
    if pair_bits + y_bits + 1 + row_bits > 64:
        return lexsort([right, ry, pair_start])
    word = pair_start.astype(np.uint64)
    word <<= np.uint64(y_bits)
    word |= ry.astype(np.uint64)
    word <<= np.uint64(1)
    word |= right.astype(np.uint64)
    word <<= np.uint64(row_bits)
    word |= np.arange(n, dtype=np.uint64)
    word.sort()
    word &= np.uint64((1 << row_bits) - 1)
    return word.view(np.int64)


def _dense_rank(values: NDArray[np.float64]) -> NDArray[np.int64]:
    """0-based rank of each value among the distinct values (equal values share it; -0.0 == 0.0)."""
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.empty(len(values), dtype=np.int64)
    new[0] = 0
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:], casting="unsafe")
    ranks = np.empty(len(values), dtype=np.int64)
    ranks[order] = np.cumsum(new)
    return ranks
