"""Popularity bias figures (optional: needs matplotlib, ``pip install 'matplotlib>=3.8'``).

:func:`long_tail` (the long-tail curve of item popularity with the recommended items
marked), :func:`profile_vs_recommendation_popularity` (per user group, the popularity of
the users' profiles against that of their recommendations) and
:func:`popularity_vs_frequency` (item popularity against recommendation frequency, with
the correlation). As ClayRS's ``LongTailDistr``, ``PopProfileVsRecs`` and
``PopRecsCorrelation``. Each returns the matplotlib Figure and saves it when ``path`` is given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..io.internal import save_figure
from ._mpl import literal_text, pyplot

__all__ = ["long_tail", "profile_vs_recommendation_popularity", "popularity_vs_frequency", "top_k_lists"]


def _side(train: Any, user_col: str, item_col: str) -> Any:
    from ..data import SideData
    if isinstance(train, SideData):
        if train.train is None:
            raise ValueError("`train` is a SideData without train: pass the training interactions")
        return train
    return SideData(train=train, user_col=user_col, item_col=item_col)


def top_k_lists(recommendations: Any, k: int | None = None, *, user_col: str = "user_id",
                item_col: str = "item_id", score_col: str = "score", rank_col: str = "rank",
                score_order: str = "descending") -> Any:
    """The first ``k`` items of every list (all of them when ``k`` is None), one row per
    distinct (user, item), in list order: by ``rank`` if present, else ``score`` descending
    (ties in row order; ascending under ``score_order="ascending"``), else row order, as
    :class:`~rankeval.Split` orders lists.

    Parameters
    ----------
    recommendations : DataFrame
        Recommendation lists (pandas, polars or pyarrow).
    k : int, optional
        Cutoff of every list; None: whole lists.
    user_col : str, default "user_id"
        The user id column of ``recommendations``.
    item_col : str, default "item_id"
        The item id column of ``recommendations``.
    score_col : str, default "score"
        The score column (higher first), which orders the lists when there is no ``rank_col``.
    rank_col : str, default "rank"
        The rank column (1 first), which orders the lists when present.
    score_order : {"descending", "ascending"}
        Whether higher (default) or lower scores come first.
    """
    import pandas as pd

    from ..data.internal import (
        SCORE_ORDERS,
        check_choice,
        check_cutoff,
        reject_empty,
        reject_missing_ids,
        require_columns,
        to_pandas,
    )

    df = to_pandas(recommendations, "recommendations")
    require_columns(df, "recommendations", [user_col, item_col])
    reject_empty(df, "recommendations")
    for col in (user_col, item_col):
        reject_missing_ids(df, "recommendations", col)
    k = check_cutoff(k)
    df = df.reset_index(drop=True).drop_duplicates([user_col, item_col])
    if k is None:
        return df[[user_col, item_col]]
    if rank_col in df.columns:
        order = np.lexsort((np.arange(len(df)), df[rank_col].to_numpy(dtype=np.float64)))
    elif score_col in df.columns:
        check_choice("score_order", score_order, SCORE_ORDERS)
        score = df[score_col].to_numpy(dtype=np.float64)
        order = np.lexsort((np.arange(len(df)), score if score_order == "ascending" else -score))
    else:
        order = np.arange(len(df))
    ordered = df.iloc[order]
    position = ordered.groupby(user_col, sort=False, observed=True).cumcount().to_numpy()
    return pd.DataFrame(ordered.loc[position < k, [user_col, item_col]])


def _items_popularity_frequency(side: Any, top: Any, catalog: Any, item_col: str) -> tuple[Any, Any, Any]:
    """Items (the catalog, or every train and recommended item), their popularity (distinct
    training users) and recommendation frequency (lists holding them)."""
    import pandas as pd

    from ..data.internal import catalog_index, union_index

    freq = top[item_col].value_counts(sort=False)
    if catalog is not None:
        items = catalog_index(catalog, item_col)
    else:
        items = union_index(side.item_popularity().index, pd.Index(freq.index))
    pop = side.item_popularity().reindex(items, fill_value=0).to_numpy(dtype=np.int64)
    counts = freq.reindex(items, fill_value=0).to_numpy(dtype=np.int64)
    return items, pop, counts


def _finish(fig: Any, path: str | Path | None) -> Any:
    fig.tight_layout()
    if path is not None:
        save_figure(fig, path, dpi=130)
    return fig


@literal_text
def long_tail(train: Any, recommendations: Any = None, *, k: int | None = None, catalog: Any = None,
              head: float = 0.2, log_y: bool = False, path: str | Path | None = None, ax: Any = None,
              user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
              rank_col: str = "rank", score_order: str = "descending") -> Any:
    """The long-tail curve of item popularity, with the recommended items marked.

    Items (the catalog, or every item of ``train`` and of the lists) are sorted by
    popularity, descending (ties by item id, as :class:`~rankeval.SideData`); the curve is each
    item's popularity, the number of distinct training users who had it, against its rank.
    A dashed line separates the short head (the first ``round(head * n)`` items, as
    ``TailShare(head=...)``) from the long tail. Items recommended to anyone (within the
    first ``k`` of a list) are dots on the curve and ticks under it. ClayRS's
    ``LongTailDistr``, with the recommendations drawn on the curve.

    Parameters
    ----------
    train : DataFrame or SideData
        The training interactions (``user_col``, ``item_col``).
    recommendations : DataFrame, optional
        Recommendation lists (``user_col``, ``item_col``, optional ``score_col`` /
        ``rank_col``; ``score_order="ascending"``: lower scores first); without them, the
        curve alone.
    k : int, optional
        Cutoff of every list (None: whole lists).
    catalog : iterable or frame, optional
        The items of the curve; default every item of ``train`` and of the lists.
    head : float
        Share of the items in the short head, in (0, 1].
    log_y : bool
        Logarithmic popularity axis (items of popularity 0 are then not drawn).
    path : str or Path, optional
        Save the figure there.
    ax : matplotlib Axes, optional
        Draw there instead of a new figure.
    user_col : str, default "user_id"
        The user id column of ``recommendations``, and of ``train`` when it is a frame (a
        SideData uses its own).
    item_col : str, default "item_id"
        The item id column of ``recommendations``, and of ``train`` when it is a frame.
    score_col : str, default "score"
        The score column of ``recommendations`` (higher first), which orders the lists when
        there is no ``rank_col``.
    rank_col : str, default "rank"
        The rank column of ``recommendations`` (1 first), which orders the lists when present.
    score_order : {"descending", "ascending"}
        Whether higher (default) or lower scores of ``recommendations`` come first.

    Returns
    -------
    matplotlib Figure
        ``ax.lines[0]`` holds the curve (x = rank 1..n, y = popularity); the first
        collection holds the recommended items' (rank, popularity).
    """
    from ..data.internal import check_share, popularity_order

    head = check_share(head, "head")
    plt = pyplot()
    side = _side(train, user_col, item_col)
    top = None if recommendations is None else top_k_lists(
        recommendations, k, user_col=user_col, item_col=item_col, score_col=score_col, rank_col=rank_col,
        score_order=score_order)
    if top is None:
        import pandas as pd
        top = pd.DataFrame({user_col: [], item_col: []})
    items, pop, freq = _items_popularity_frequency(side, top, catalog, item_col)
    order = popularity_order(items, pop)
    x = np.arange(1, len(items) + 1)
    y = pop[order].astype(np.float64)
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 4.2))
    else:
        fig = ax.figure
    ax.plot(x, y, color="C0", lw=1.6, label=f"item popularity ({len(items)} items)")
    ax.fill_between(x, y, color="C0", alpha=0.15, lw=0)
    n_head = int(round(head * len(items)))
    total = float(pop.sum())
    head_share = float(y[:n_head].sum()) / total if total else float("nan")
    ax.axvline(n_head + 0.5, color="0.35", ls="--", lw=1)
    where = ax.get_xaxis_transform()
    ax.text(n_head + 0.5, 0.62, "short head  ", transform=where, ha="right", va="bottom", fontsize=9, color="0.25")
    ax.text(n_head + 0.5, 0.62, "  long tail", transform=where, ha="left", va="bottom", fontsize=9, color="0.25")
    ax.text(n_head + 0.5, 0.61, f"  the first {n_head} items ({100 * head:g}%) hold\n"
            f"  {100 * head_share:.0f}% of the interactions", transform=where, ha="left", va="top", fontsize=8,
            color="0.35")
    title = "Long tail of item popularity"
    if recommendations is not None:
        recommended = freq[order] > 0
        n_rec = int(recommended.sum())
        in_tail = int(recommended[n_head:].sum())
        cut = "" if k is None else f" (top {k})"
        ax.scatter(x[recommended], y[recommended], s=9, color="C1", zorder=3, edgecolors="none", alpha=0.8,
                   label=f"recommended{cut}: {n_rec} items, {in_tail} in the long tail")
        ax.plot(x[recommended], np.full(n_rec, 0.012), "|", color="C1", ms=6, mew=0.6, alpha=0.6,
                transform=ax.get_xaxis_transform(), clip_on=False)
        title += f"; recommended items: {n_rec} of {len(items)}"
    if log_y:
        ax.set_yscale("log")
    ax.set_xlim(0.5, len(items) + 0.5)
    if not log_y:
        ax.set_ylim(0, max(float(y.max()) * 1.08, 1.0) if len(y) else 1.0)
    ax.set_xlabel("items, by popularity (rank)")
    ax.set_ylabel("popularity (training users)")
    ax.set_title(title, fontsize=11)
    ax.legend(loc="upper right", fontsize=8.5, frameon=False)
    ax.grid(alpha=0.3)
    return _finish(fig, path)


def _resolve_groups(user_groups: Any, side: Any, pop_percentage: float) -> dict[str, Any]:
    from ..groups import check_user_groups, popularity_groups

    if user_groups is None:
        return popularity_groups(side, pop_percentage=pop_percentage)
    groups = check_user_groups(user_groups)
    if all(isinstance(v, float) for v in groups.values()):
        return popularity_groups(side, groups, pop_percentage)
    return groups


@literal_text
def profile_vs_recommendation_popularity(train: Any, recommendations: Any, user_groups: Any = None, *,
                                         k: int | None = None, pop_percentage: float = 0.2,
                                         path: str | Path | None = None, ax: Any = None,
                                         user_col: str = "user_id", item_col: str = "item_id",
                                         score_col: str = "score", rank_col: str = "rank",
                                         score_order: str = "descending") -> Any:
    r"""Per user group, box plots of the popularity of users' profiles and of their recommendations.

    For every user with a list and a training profile, the profile popularity is the mean,
    over their distinct training items, of :math:`pop_i / |U|` (the share of training users
    who had the item), and the recommendation popularity the same mean over the first
    ``k`` recommended items: the two terms of ClayRS's GAP, so that each group's
    :math:`\Delta GAP` (printed above the group, as :class:`~rankeval.DeltaGap`) is the
    relative change of its two means (white diamonds). ClayRS's ``PopProfileVsRecs``.

    Parameters
    ----------
    train : DataFrame or SideData
        The training interactions.
    recommendations : DataFrame
        Recommendation lists (``user_col``, ``item_col``, optional ``score_col`` / ``rank_col``;
        ``score_order="ascending"``: lower scores first).
    user_groups : mapping or Series, optional
        name -> share of users (:func:`rankeval.groups.popularity_groups` on ``train``),
        name -> user ids, or a Series user id -> group. Default ClayRS's
        ``{"blockbuster": 0.2, "niche": 0.2, "diverse": 0.6}``.
    k : int, optional
        Cutoff of every list.
    pop_percentage : float
        Share of most popular items, for popularity groups.
    path : str or Path, optional
        Save the figure there.
    ax : matplotlib Axes, optional
        Draw there instead of a new figure.
    user_col : str, default "user_id"
        The user id column of ``recommendations``, and of ``train`` when it is a frame (a
        SideData uses its own).
    item_col : str, default "item_id"
        The item id column of ``recommendations``, and of ``train`` when it is a frame.
    score_col : str, default "score"
        The score column of ``recommendations`` (higher first), which orders the lists when
        there is no ``rank_col``.
    rank_col : str, default "rank"
        The rank column of ``recommendations`` (1 first), which orders the lists when present.
    score_order : {"descending", "ascending"}
        Whether higher (default) or lower scores of ``recommendations`` come first.

    Returns
    -------
    matplotlib Figure
        Boxes at x = 3g + 1 (profiles) and 3g + 2 (recommendations) for group g; the
        means are the y values of the line labelled ``"mean"``, the medians the lines with
        gid ``"median"``; the ΔGAP of group g is ``ax.texts[g]``.
    """
    import pandas as pd

    from ..data.internal import check_share

    pop_percentage = check_share(pop_percentage, "pop_percentage")
    plt = pyplot()
    side = _side(train, user_col, item_col)
    groups = _resolve_groups(user_groups, side, pop_percentage)
    top = top_k_lists(recommendations, k, user_col=user_col, item_col=item_col, score_col=score_col,
                      rank_col=rank_col, score_order=score_order)
    share = side.item_popularity() / side.n_train_users
    item_share = share.reindex(pd.Index(top[item_col].to_numpy()), fill_value=0.0).to_numpy(dtype=np.float64)
    recs = pd.Series(item_share, index=pd.Index(top[user_col].to_numpy())).groupby(level=0, sort=False).mean()
    profile_users, profile_values = side.user_profile_popularity()
    profile = pd.Series(profile_values, index=profile_users)
    data, labels, gaps = [], [], []
    for name, ids in groups.items():
        members = pd.Index(ids)
        members = members[members.isin(recs.index) & members.isin(profile.index)]
        p = profile.reindex(members).to_numpy(dtype=np.float64)
        r = recs.reindex(members).to_numpy(dtype=np.float64)
        data += [p, r]
        gap = float("nan") if len(members) == 0 else (0.0 if p.mean() == 0 else (r.mean() - p.mean()) / p.mean())
        gaps.append(gap)
        labels.append(f"{name}\n({len(members)} users)")
    n_groups = len(groups)
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(5.5, 2.2 * n_groups + 1.5), 4.4))
    else:
        fig = ax.figure
    positions = np.ravel([[3 * g + 1, 3 * g + 2] for g in range(n_groups)])
    box = ax.boxplot([d if len(d) else [np.nan] for d in data], positions=positions, widths=0.75,
                     patch_artist=True, flierprops={"markersize": 2.5, "alpha": 0.4},
                     medianprops={"color": "black", "gid": "median"})
    for i, patch in enumerate(box["boxes"]):
        patch.set_facecolor("C0" if i % 2 == 0 else "C1")
        patch.set_alpha(0.55)
    means = np.array([d.mean() if len(d) else np.nan for d in data])
    ax.plot(positions, means, "D", color="white", mec="black", ms=5, ls="none", label="mean", zorder=4)
    ax.set_xticks([3 * g + 1.5 for g in range(n_groups)], labels)
    top_y = np.nanmax([np.nanmax(d) for d in data if len(d)]) if any(len(d) for d in data) else 1.0
    ax.set_ylim(0, top_y * 1.15)
    for g, gap in enumerate(gaps):
        text = "ΔGAP –" if np.isnan(gap) else f"ΔGAP {gap:+.2f}".replace("-", "−")
        ax.text(3 * g + 1.5, top_y * 1.07, text, ha="center", va="center", fontsize=9)
    from matplotlib.patches import Patch
    cut = "" if k is None else f" (top {k})"
    ax.legend(handles=[Patch(facecolor="C0", alpha=0.55, label="profile"),
                       Patch(facecolor="C1", alpha=0.55, label=f"recommendations{cut}"),
                       ax.lines[-1]], loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8.5, frameon=False)
    ax.set_xlim(0, 3 * n_groups)
    ax.set_ylabel("mean item popularity\n(share of training users)")
    ax.set_title("Popularity of profiles vs recommendations per user group", fontsize=11)
    ax.grid(axis="y", alpha=0.3)
    return _finish(fig, path)


def _correlations(x: Any, y: Any) -> tuple[float, float]:
    """Spearman's rho and Pearson's r (scipy.stats); NaN with fewer than 2 items or a constant array."""
    from scipy import stats

    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan"), float("nan")
    return float(stats.spearmanr(x, y).statistic), float(stats.pearsonr(x, y).statistic)


@literal_text
def popularity_vs_frequency(train: Any, recommendations: Any, *, k: int | None = None, catalog: Any = None,
                            unrecommended: bool = True, path: str | Path | None = None, ax: Any = None,
                            user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
                            rank_col: str = "rank", score_order: str = "descending") -> Any:
    """Item popularity against recommendation frequency: a scatter on log axes, with the correlation.

    Each item (the catalog, or every item of ``train`` and of the lists) is a point: x =
    its popularity (distinct training users), y = the number of lists holding it within
    the first ``k``. The title gives Spearman's rho and Pearson's r (``scipy.stats``) over
    every item, or only the recommended ones with ``unrecommended=False`` (ClayRS's
    ``PopRecsCorrelation`` modes ``w_zeroes`` and ``no_zeroes``). A log axis cannot show 0:
    items of popularity or frequency 0 count in the correlation but are not drawn (their
    number is printed). A popularity-biased recommender gives a strong positive correlation.

    Parameters
    ----------
    train : DataFrame or SideData
        The training interactions.
    recommendations : DataFrame
        Recommendation lists.
    k : int, optional
        Cutoff of every list.
    catalog : iterable or frame, optional
        The items; default every item of ``train`` and of the lists.
    unrecommended : bool
        Whether items never recommended (frequency 0) count in the correlation.
    path : str or Path, optional
        Save the figure there.
    ax : matplotlib Axes, optional
        Draw there instead of a new figure.
    user_col : str, default "user_id"
        The user id column of ``recommendations``, and of ``train`` when it is a frame (a
        SideData uses its own).
    item_col : str, default "item_id"
        The item id column of ``recommendations``, and of ``train`` when it is a frame.
    score_col : str, default "score"
        The score column of ``recommendations`` (higher first), which orders the lists when
        there is no ``rank_col``.
    rank_col : str, default "rank"
        The rank column of ``recommendations`` (1 first), which orders the lists when present.
    score_order : {"descending", "ascending"}
        Whether higher (default) or lower scores of ``recommendations`` come first.

    Returns
    -------
    matplotlib Figure
        The first collection holds the drawn points (popularity, frequency).
    """
    plt = pyplot()
    side = _side(train, user_col, item_col)
    top = top_k_lists(recommendations, k, user_col=user_col, item_col=item_col, score_col=score_col,
                      rank_col=rank_col, score_order=score_order)
    items, pop, freq = _items_popularity_frequency(side, top, catalog, item_col)
    used = np.ones(len(items), dtype=bool) if unrecommended else freq > 0
    rho, r = _correlations(pop[used].astype(np.float64), freq[used].astype(np.float64))
    shown = (pop > 0) & (freq > 0)
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.2, 4.8))
    else:
        fig = ax.figure
    ax.scatter(pop[shown], freq[shown], s=16, alpha=0.55, color="C0", edgecolors="none")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("item popularity (training users)")
    cut = "" if k is None else f" (top {k})"
    ax.set_ylabel(f"recommendation frequency{cut} (lists)")
    which = f"all {int(used.sum())} items" if unrecommended else f"the {int(used.sum())} recommended items"
    hidden = int((~shown).sum())
    note = f"; {hidden} with popularity or frequency 0 not drawn (log axes)" if hidden else ""
    ax.set_title(f"Item popularity vs recommendation frequency\nSpearman ρ = {_num(rho)}, Pearson r = {_num(r)}",
                 fontsize=11, pad=16)
    ax.text(0.5, 1.012, f"over {which}{note}", transform=ax.transAxes, ha="center", va="bottom", fontsize=8,
            color="0.35")
    ax.grid(alpha=0.3, which="major")
    return _finish(fig, path)


def _num(value: float) -> str:
    return "–" if np.isnan(value) else f"{value:.4f}"
