r"""Unexpectedness against a baseline system's lists, and surprisal (RePlay).

:math:`L_u` the first k items of user u's list, :math:`B_u` the first k items of the
baseline's list for u, :math:`U` the users of ``train``, :math:`pop_i` the number of
distinct training users who had item i.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data._frames import is_frame, to_pandas
from ...data._keys import codes_in
from ...data._side import row_item_codes
from ...data._validation import check_choice, require_columns
from ._side_metric import SideMetric

if TYPE_CHECKING:
    from ...data._ranked import RankedLists

__all__ = ["Unexpectedness", "Surprisal", "baseline_lists", "BASELINES"]

#: where SideData keeps the baselines that compare resolves by system name
BASELINES = "baselines"


def baseline_lists(frame: Any, user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
                   rank_col: str = "rank", what: str = "baseline") -> pd.DataFrame:
    """A baseline system's lists as ``user``, ``item``, ``position`` (1-based): ordered by
    ``rank_col`` if present, else by ``score_col`` descending (ties in row order), else row order."""
    df = to_pandas(frame, what)
    require_columns(df, what, [user_col, item_col])
    if rank_col in df.columns:
        key = df[rank_col].to_numpy(dtype=np.float64)
    elif score_col in df.columns:
        key = -df[score_col].to_numpy(dtype=np.float64)
    else:
        key = np.zeros(len(df))
    users = df[user_col].to_numpy()
    codes, _ = pd.factorize(users)
    order = np.lexsort((np.arange(len(df)), key, codes))
    sorted_codes = codes[order]
    starts = np.r_[True, sorted_codes[1:] != sorted_codes[:-1]] if len(order) else np.zeros(0, dtype=bool)
    first = np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
    return pd.DataFrame({"user": users[order], "item": df[item_col].to_numpy()[order],
                         "position": np.arange(len(order)) - first + 1})


class Unexpectedness(SideMetric):
    r"""Share of the list that a baseline system did not recommend (RePlay's ``Unexpectedness``).

    .. math:: Unexpectedness_u = 1 - \frac{|L_u \cap B_u|}{k}

    (:math:`|L_u|` instead of k without a cutoff). RePlay's
    ``replay/metrics/unexpectedness.py``, ``_get_metric_value_by_user``: ``1 -
    len(set(recs[:k]) & set(base_recs[:k])) / k``, so a list shorter than k still
    divides by k.

    Parameters
    ----------
    k : int, optional
        Cutoff of both lists; None (default): whole lists.
    baseline : DataFrame or str
        The baseline system's lists (``user_id``, ``item_id`` and ``rank`` or ``score``:
        ordered as a ``pred`` frame, ties in row order), used for every split; or, inside
        :func:`~rankeval.compare`, the name of another system of the comparison, whose
        lists of the same split are the baseline.
    no_baseline : {"nan", "zero"}
        Value of a user the baseline has no list for: NaN (default, left out of the
        mean) or 0 (RePlay).
    user_col, item_col, score_col, rank_col : str
        Columns of a baseline frame.
    name : str, optional
        Overrides the name ``"Unexpectedness"``.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> base = pd.DataFrame({"user_id": [1, 1], "item_id": ["b", "c"], "score": [2.0, 1.0]})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    >>> metric = rk.Unexpectedness(2, baseline=base)
    >>> print(f"{metric.perform(rk.Split(pred, truth)).users.iloc[0, 0]:.4f}")  # b is in both
    0.5000
    """

    stem = "Unexpectedness"

    def __init__(self, k: int | None = None, baseline: Any = None, no_baseline: str = "nan", *,
                 user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
                 rank_col: str = "rank", name: str | None = None) -> None:
        super().__init__(k, None, name)
        if baseline is None:
            raise ValueError("Unexpectedness needs `baseline`: the baseline system's lists (a DataFrame), or inside "
                             "compare the name of one of its systems")
        if not (isinstance(baseline, str) or is_frame(baseline)):
            raise TypeError(f"`baseline` must be a DataFrame or a system name, got {type(baseline).__name__}")
        self.baseline = baseline
        self.no_baseline = check_choice("no_baseline", no_baseline, ("nan", "zero"))
        self.user_col, self.item_col, self.score_col, self.rank_col = user_col, item_col, score_col, rank_col
        self._lists = None if isinstance(baseline, str) else baseline_lists(
            baseline, user_col, item_col, score_col, rank_col)

    def _params(self) -> dict[str, Any]:
        params = super()._params()
        if not isinstance(self.baseline, str):  # a frame: shown (and compared) by identity
            params["baseline"] = f"<{type(self.baseline).__name__} of {len(self._lists)} rows>"  # type: ignore[arg-type]
        return params

    def __hash__(self) -> int:
        return hash((type(self).__name__, str(self)))

    def _baseline(self, lists: RankedLists) -> pd.DataFrame:
        if self._lists is not None:
            return self._lists
        from ...data._side import side_of

        bound = side_of(lists)
        found = {} if bound is None else getattr(bound.side, BASELINES, {})
        if self.baseline not in found:
            raise ValueError(f"{self}: `baseline` {self.baseline!r} names a system of compare(); outside compare "
                             f"pass the baseline's lists as a DataFrame")
        return found[self.baseline]

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        base_keys, has_base = self._baseline_keys(lists)
        n_items = max(len(lists.item_uniques), 1)
        rows = np.flatnonzero(self._rows(lists))  # only the rows within the cutoff are looked up
        user = lists.user_of_row[rows]
        keys = user.astype(np.int64) * n_items + row_item_codes(lists)[rows]
        at = np.minimum(np.searchsorted(base_keys, keys), max(len(base_keys) - 1, 0))
        hit = base_keys[at] == keys if len(base_keys) else np.zeros(len(rows), dtype=bool)
        n_hit = np.bincount(user, weights=hit, minlength=lists.n_users)
        denominator = float(self.k) if self.k is not None else lists.n_listed.astype(np.float64)
        values = 1.0 - n_hit / denominator
        return np.where(has_base, values, np.nan if self.no_baseline == "nan" else 0.0)

    def _baseline_keys(self, lists: RankedLists) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The baseline's (user, item code of ``lists``) keys within the cutoff, sorted (ids not in
        the lists left out), and which users have a baseline list; cached per split, baseline
        frame and cutoff (the id lookups cost most)."""
        whole = self._baseline(lists)
        cache = lists.split_cache.setdefault("baselines", {})
        found = cache.get((id(whole), self.k))
        if found is None or found[0] is not whole:
            base = whole if self.k is None else whole[whole["position"].to_numpy() <= self.k]
            # grouped by user: one lookup per user; each distinct item hashed once
            user = codes_in(pd.Index(lists.user_ids), base["user"].to_numpy())[0].astype(np.int64)
            item = codes_in(pd.Index(lists.item_uniques), base["item"].to_numpy())[0].astype(np.int64)
            known = (user >= 0) & (item >= 0)
            has_base = np.zeros(lists.n_users, dtype=bool)
            has_base[user[user >= 0]] = True
            keys = np.sort(user[known] * max(len(lists.item_uniques), 1) + item[known])
            found = cache[(id(whole), self.k)] = (whole, keys, has_base)
        return found[1], found[2]


class Surprisal(SideMetric):
    r"""Normalised self-information of the recommended items (RePlay's ``Surprisal``).

    .. math::

        Surprisal_u = \frac{1}{k} \sum_{i \in L_u} \frac{-\log_2 (pop_i / |U|)}{\log_2 |U|}

    (:math:`|L_u|` instead of k without a cutoff); an item no training user had counts 1
    (RePlay: "cold items are treated as if they were rated by 1 user"). As RePlay's
    ``replay/metrics/surprisal.py`` (``_get_weights``: ``log2(n_users / len(users)) /
    log2(n_users)``, ``weights.get(i, 1)``; ``_get_metric_value_by_user``: the sum of
    the first k weights divided by k), so a list shorter than k still divides by k. It
    is :class:`Novelty` divided by :math:`\log_2 |U|`, with RePlay's denominator.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    name : str, optional
        Overrides the name ``"Surprisal"``.

    Notes
    -----
    Needs ``train=``. With a single training user :math:`\log_2 |U| = 0`: NaN for every
    user with a listed training item (RePlay divides by 0 too).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": ["a", "a", "b", "c"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "d"]})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["d"], "score": [1.0]})
    >>> split = rk.Split(pred, truth, train=train)
    >>> print(f"{rk.Surprisal().perform(split).users.iloc[0, 0]:.4f}")  # (log2(4/2)/log2(4) + 1) / 2
    0.7500
    """

    stem = "Surprisal"
    needs_side = ("train",)

    def __init__(self, k: int | None = None, *, name: str | None = None) -> None:
        super().__init__(k, None, name)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self._side(lists)
        pop = side.popularity[row_item_codes(lists)].astype(np.float64)
        n = float(side.n_train_users)
        with np.errstate(invalid="ignore", divide="ignore"):
            weight = np.where(pop > 0, np.log2(n / np.maximum(pop, 1.0)) / np.log2(n), 1.0)
        rows = self._rows(lists)
        denominator = float(self.k) if self.k is not None else lists.n_listed.astype(np.float64)
        return lists.segment_sum(np.where(rows, weight, 0.0)) / denominator
