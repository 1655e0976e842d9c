"""User groups: ClayRS's popularity groups, and every metric compared across groups.

:func:`popularity_groups` splits the training users by how mainstream their profiles are,
exactly as ClayRS does (``GroupFairnessMetric.split_user_in_groups``);
:func:`group_table` (behind :meth:`EvalModel.by_group <rankeval.EvalModel.by_group>`)
gives each per-user metric's value per (split, group), the number of users behind it,
and the gap to a baseline group with an unpaired test.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .data import SideData
from .data.internal import check_choice, check_group_shares, check_share
from .stats.internal import UNPAIRED_TESTS, unpaired_test

__all__ = ["popularity_groups", "group_table", "GROUP_TESTS"]

#: unpaired tests of a gap between two groups of users
GROUP_TESTS = UNPAIRED_TESTS


def popularity_groups(train: Any, groups: Mapping[str, float] | None = None, pop_percentage: float = 0.2, *,
                      user_col: str = "user_id", item_col: str = "item_id") -> dict[str, pd.Index]:
    r"""Split the users of ``train`` into groups by the popularity of their profiles, as ClayRS.

    The most popular items are the first ``round(pop_percentage * n_items)`` items of
    ``train`` by popularity (distinct training users per item), descending. A user's
    popularity ratio is the share of their distinct training items that are among them:

    .. math:: ratio_u = \frac{|I_u \cap I_{pop}|}{|I_u|}

    Users are sorted by ratio, descending; the first group takes the first
    ``round(n_users * s_1)`` of them, the second up to ``round(n_users * (s_1 + s_2))``,
    and so on (``round`` as Python's, half to even, on the running sum of the shares, as
    ClayRS).

    Parameters
    ----------
    train : DataFrame or SideData
        The training interactions (``user_col``, ``item_col``).
    groups : mapping of name -> share, optional
        Shares of users in (0, 1], adding up to 1 (within 1e-9), in order from the users
        with the most popular profiles to those with the least. None:
        ``{"blockbuster": 0.2, "niche": 0.2, "diverse": 0.6}``. Note the order: as in
        ClayRS the groups are filled in the order given, so this default puts the 20%
        of users with the most mainstream profiles in ``blockbuster``, the next 20% in
        ``niche`` and the rest in ``diverse``; write
        ``{"blockbuster": 0.2, "diverse": 0.6, "niche": 0.2}`` to have niche users last.
    pop_percentage : float
        Share of the items, in (0, 1], that are "most popular".
    user_col : str, default "user_id"
        The user id column of ``train`` (a SideData uses its own).
    item_col : str, default "item_id"
        The item id column of ``train`` (a SideData uses its own).

    Returns
    -------
    dict of name -> Index
        The user ids of each group, in the order above. A group whose cut is empty gets
        an empty Index and a :class:`~rankeval.RankevalWarning` (ClayRS drops a group
        whose cumulative cut is 0, with a logged warning).

    Notes
    -----
    ClayRS breaks ties (of item popularity, of users' ratios) by order of first
    appearance in the ratings frame; rankeval by id ascending, so that the groups never
    depend on the row order of ``train``. Both agree when the ids' order is that of
    first appearance, or when there is no tie at a cut. A repeated (user, item) row
    counts once.

    Raises
    ------
    ValueError
        Fewer users than groups (ClayRS's ``NotEnoughUsers``), a share outside (0, 1],
        shares not adding up to 1, a bad ``pop_percentage``, or bad ``train`` ids.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 4, 5],
    ...                       "item_id": ["a", "b", "a", "c", "d", "a", "e"]})
    >>> groups = popularity_groups(train, {"mainstream": 0.4, "rest": 0.6})
    >>> {name: ids.tolist() for name, ids in groups.items()}
    {'mainstream': [4, 1], 'rest': [2, 3, 5]}
    """
    side = train if isinstance(train, SideData) else SideData(train=train, user_col=user_col, item_col=item_col)
    if side.train is None:
        raise ValueError("`train` is a SideData without train: pass the training interactions")
    groups = check_group_shares({"blockbuster": 0.2, "niche": 0.2, "diverse": 0.6} if groups is None else groups)
    pop_percentage = check_share(pop_percentage, "pop_percentage")
    return side.popularity_groups(groups, pop_percentage)


def check_user_groups(user_groups: Any, name: str = "user_groups") -> dict[str, pd.Index] | dict[str, float]:
    """Either shares (name -> number, ClayRS's popularity groups) or explicit groups (name ->
    user ids, each user in one group at most)."""
    if isinstance(user_groups, pd.Series):  # user id -> group label
        labels = user_groups.dropna()
        return {str(g): pd.Index(labels.index[labels.to_numpy() == g]) for g in pd.unique(labels.to_numpy())}
    if not isinstance(user_groups, Mapping) or not user_groups:
        raise ValueError(f"`{name}` must be a non-empty mapping: group name -> share of users (popularity groups "
                         f"made from train) or group name -> user ids; or a Series user id -> group")
    values = list(user_groups.values())
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
        return check_group_shares(user_groups, name)
    out: dict[str, pd.Index] = {}
    for key, ids in user_groups.items():
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
            raise ValueError(f"`{name}`[{key!r}] must be the user ids of the group (a list, set, Index or "
                             f"Series), or every value of `{name}` a share; got {type(ids).__name__}")
        index = pd.Index(list(ids) if not isinstance(ids, (pd.Index, pd.Series, np.ndarray)) else ids)
        out[str(key)] = index.unique()
    seen = pd.concat([pd.Series(ix, dtype=object) for ix in out.values()]) if out else pd.Series(dtype=object)
    repeated = seen[seen.duplicated()]
    if len(repeated):
        raise ValueError(f"`{name}` puts {len(repeated.unique())} user(s) in more than one group, e.g. "
                         f"{repeated.unique()[:5].tolist()}: groups must not overlap")
    return out


# ---------------------------------------------------------------------- by group
def group_table(users_result: pd.DataFrame, groups_per_split: Sequence[Mapping[str, pd.Index]],
                split_names: Sequence[str], metrics: Sequence[str], *,
                baseline: str | None = None, test: str = "mannwhitneyu") -> pd.DataFrame:
    """Per (split, metric, group): users, value, and the gap to the baseline group with a test.

    See :meth:`rankeval.EvalModel.by_group`.

    Parameters
    ----------
    users_result : DataFrame
        Per-user values, indexed by (split, user id), one column per metric (the second
        frame of :meth:`rankeval.EvalModel.fit`).
    groups_per_split : list of mapping of str to Index
        For each split, group name -> the user ids of the group (every split the same
        group names, in the same order).
    split_names : list of str
        The splits, in the order of ``groups_per_split``.
    metrics : list of str
        The metric columns of ``users_result`` to compare.
    baseline : str, optional
        The group every other group's gap is measured from; None: the first group.
    test : {"mannwhitneyu", "welch"}
        Unpaired two-sided test of each gap (Mann-Whitney U or Welch's t test).
    """
    test = check_choice("test", test, GROUP_TESTS)
    names = list(groups_per_split[0])
    if baseline is None:
        baseline = names[0]
    elif str(baseline) not in names:
        raise ValueError(f"`baseline` {baseline!r} is not among the groups {names}")
    baseline = str(baseline)
    rows = []
    found = 0
    for split, groups in zip(split_names, groups_per_split):
        levels = users_result.index.get_level_values(0)
        frame = users_result.xs(split, level=0) if split in levels else users_result.iloc[:0].droplevel(0)
        members = {g: frame.index.isin(groups.get(g, pd.Index([]))) for g in names}
        found += sum(int(m.sum()) for m in members.values())
        for metric in metrics:
            column = frame[metric].to_numpy()
            per_group = {g: column[members[g]][~np.isnan(column[members[g]])] for g in names}
            base = per_group[baseline]
            for g in names:
                values = per_group[g]
                value = _mean(values)
                row = {"split": split, "metric": metric, "group": g, "n_users": len(values),
                       "value": value, "baseline": baseline if g != baseline else None,
                       "gap": np.nan, "statistic": np.nan, "p_value": np.nan}
                if g != baseline:
                    row["gap"] = value - _mean(base)
                    row["statistic"], row["p_value"] = unpaired_test(test, base, values)
                rows.append(row)
    if found == 0:
        raise ValueError(f"no user of `user_groups` {names} was evaluated in any split: check that the groups hold "
                         f"the ids of `pred`/`truth` users, of the same type")
    table = pd.DataFrame(rows).set_index(["split", "metric", "group"])
    table.attrs["test"] = test
    table.attrs["baseline"] = baseline
    return table


def _mean(values: np.ndarray) -> float:
    from .data.internal import exact_mean
    return exact_mean(values) if len(values) else float("nan")


def groups_per_split(user_groups: Any, splits: Sequence[Any], split_names: Sequence[str],
                     pop_percentage: float = 0.2) -> list[dict[str, pd.Index]]:
    """The groups of every split: explicit groups as given, or popularity groups from each split's train."""
    groups = check_user_groups(user_groups)
    if not isinstance(next(iter(groups.values())), float):
        return [groups] * len(splits)
    pop_percentage = check_share(pop_percentage, "pop_percentage")
    out = []
    for split, name in zip(splits, split_names):
        side = getattr(split, "side", None)
        if side is None or side.train is None:
            raise ValueError(f"`user_groups` gives shares of users, which popularity groups make from `train`, but "
                             f"split {name!r} has no train: pass train= (or give the groups' user ids)")
        out.append(side.popularity_groups(groups, pop_percentage))
    return out
