"""Side data: what the recommender learned from, what it could recommend, what items are.

Beyond-accuracy metrics need more than the lists and the held-out ratings:

- ``train``: the interactions the recommender learned from (``user_id``, ``item_id``,
  optionally ``score``): item popularity and user profiles come from it;
- ``catalog``: the items the recommender could recommend (coverage, the Gini index over
  the catalog, the long tail); by default every item of ``train`` and of the split's
  ``truth``;
- ``item_features``: what each item is, for diversity: a frame indexed by item id with
  numeric vector columns, or one column of category sets;
- ``item_groups``: item id -> group (e.g. the provider), for the fairness metrics.

:class:`SideData` validates them once, like ``pred`` and ``truth`` (missing or unhashable
ids, ids of another kind than ``pred``'s, repeated feature rows are ValueErrors naming
frame, column and rows). :class:`~rankeval.Split`, :class:`~rankeval.EvalModel`,
:func:`~rankeval.compare` and the command line take the three arguments (or a ready
``SideData`` as ``side=``). A split binds its side data to its lists' item codes once
(:func:`side_of` gives the binding to a metric): per distinct listed item, its
popularity, whether it is in the catalog, its feature row, so that a metric reads
``popularity[codes]`` for every listed row at once, with no loop over users.

A metric declares what it needs with the class attribute ``needs_side`` (e.g.
``("train",)``); evaluating it without that side data is a ValueError naming the argument.

Popularity
----------
The popularity of an item is the number of distinct training users who interacted with
it: a (user, item) pair repeated in ``train`` counts once (as Elliot, ``Popularity``,
"user-item repetitions in the dataset are counted once"; RecBole counts every
interaction row, which is the same on data without repeated pairs). Items no training
user had have popularity 0. "The most popular items" are taken in order of popularity
descending, ties broken by item id ascending (the smaller id counts as the more popular),
so that no result depends on the row order of ``train``.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..exceptions import RankevalWarning
from . import _keys
from . import _segments as seg
from ._frames import is_frame, to_pandas
from ._item_features import features_by_item, holds_sets, set_incidence, unit_vectors
from ._item_groups import ItemGroups
from ._join import rows_in_sets
from ._validation import (
    check_group_shares,
    check_id_kinds,
    reject_empty,
    reject_missing_ids,
    require_columns,
    require_numeric,
)

if TYPE_CHECKING:
    from ._ranked import RankedLists

__all__ = ["SideData", "side_of", "require_side", "row_item_codes", "SIDE_ARGUMENTS"]

#: the side data a metric can declare in ``needs_side``, and how each is passed
SIDE_ARGUMENTS = {
    "train": "train= (the interactions the recommender learned from; --train on the command line)",
    "catalog": "catalog= (the recommendable items; --catalog on the command line), or train=, whose items "
               "with the split's truth items make the default catalog",
    "item_features": "item_features= (a frame indexed by item id: numeric vectors or one column of category "
                     "sets; --item-features on the command line)",
    "item_groups": "item_groups= (a Series item id -> group, e.g. the provider; --item-groups on the command "
                   "line)",
}

#: rows of listed items processed at once by the diversity kernels (bounds their memory)
CHUNK_ROWS = 1 << 20


class SideData:
    """Validated side data of one split (or of every split): train, catalog, item features.

    Parameters
    ----------
    train : DataFrame, optional
        The interactions the recommender learned from: ``user_col``, ``item_col`` and
        optionally a numeric ``score_col`` (not used by the built-in metrics). A (user,
        item) pair repeated counts once. pandas, polars or ``pyarrow.Table``.
    catalog : iterable, Series, Index or DataFrame, optional
        The recommendable items (a frame: its ``item_col`` column, or its only column).
        Repeats count once. Default: every item of ``train`` and of the split's ``truth``
        (resolved when a :class:`~rankeval.Split` is built; recommended items outside the
        catalog count for no catalog-based metric, as ClayRS's ``PredictionCoverage``
        intersects them away).
    item_features : DataFrame, optional
        Indexed by item id (or with an ``item_col`` column holding the ids): numeric
        columns (one vector per item, compared by cosine distance), or exactly one column
        whose values are sets (``set``, ``frozenset``, ``list`` or ``tuple`` of
        hashable categories, compared by Jaccard distance).
    item_groups : Series, mapping or DataFrame, optional
        Item id -> group label (a provider, a genre): a Series indexed by item id, a mapping
        or a two-column frame (item, group), for the fairness metrics; items absent from it
        belong to no group.
    user_col : str, default "user_id"
        The user id column of ``train``.
    item_col : str, default "item_id"
        The item id column of ``train``, and of ``catalog`` and ``item_features`` when they
        are frames with an item column.
    score_col : str, default "score"
        The optional numeric column of ``train`` (an interaction's rating or weight); checked
        but not used by the built-in metrics.

    Raises
    ------
    ValueError
        Missing columns; empty frames; missing or unhashable ids (naming frame, column and
        rows); a non-numeric or NaN ``score_col``; repeated or missing feature ids;
        non-finite feature values; a feature column that is neither numeric nor sets.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": ["a", "b", "a", "a"]})
    >>> side = SideData(train=train)
    >>> side.item_popularity().to_dict()
    {'a': 3, 'b': 1}
    >>> side.n_train_users
    3
    """

    def __init__(self, train: Any = None, catalog: Any = None, item_features: Any = None, *,
                 user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
                 item_groups: Any = None) -> None:
        self.user_col, self.item_col, self.score_col = user_col, item_col, score_col
        self.train: pd.DataFrame | None = None
        self.catalog: pd.Index | None = None
        self.catalog_given = catalog is not None  # not the default: listed items outside it do not exist
        self.item_features: pd.DataFrame | None = None
        #: the validated item -> group mapping (None without ``item_groups``)
        self.groups: ItemGroups | None = None if item_groups is None else ItemGroups(item_groups, item_col)
        self.baselines: Mapping[str, Any] = {}  # lists of the systems metrics name as ``baseline``
        self._cache: dict[Any, Any] = {}
        if train is not None:
            self._set_train(train)
        if catalog is not None:
            self.catalog = catalog_index(catalog, item_col)
        if item_features is not None:
            self._set_features(item_features)

    # ------------------------------------------------------------------ validation
    def _set_train(self, train: Any) -> None:
        if not is_frame(train):
            raise TypeError(f"`train` must be a DataFrame of interactions ({self.user_col}, {self.item_col}), "
                            f"got {type(train).__name__}")
        df = to_pandas(train, "train")
        require_columns(df, "train", [self.user_col, self.item_col])
        reject_empty(df, "train")
        if self.score_col in df.columns:
            require_numeric(df, "train", self.score_col, finite=False)
        ucodes, users = _factorize_ids(df, "train", self.user_col)
        icodes, items = _factorize_ids(df, "train", self.item_col)
        # distinct (user, item) pairs: a repeated interaction counts once
        keys = _keys.sorted_unique(ucodes.astype(np.int64) * len(items) + icodes)
        self._pair_user = (keys // len(items)).astype(np.int64)   # sorted by user, then item
        self._pair_item = (keys % len(items)).astype(np.int64)
        self._train_users = pd.Index(users)
        self._train_items = pd.Index(items)
        self._popularity = np.bincount(self._pair_item, minlength=len(items)).astype(np.int64)
        self.train = df

    def _set_features(self, features: Any) -> None:
        df = features_by_item(features, self.item_col)
        if df.shape[1] == 1 and holds_sets(df.iloc[:, 0]):
            self._features_kind = "sets"
            self._set_matrix, self._feature_valid, self._categories = set_incidence(df.iloc[:, 0])
        else:
            self._features_kind = "vectors"
            self._unit, self._feature_valid = unit_vectors(df)
        self._feature_index = pd.Index(df.index)
        self.item_features = df

    # ------------------------------------------------------------------ what there is
    def has(self, name: str) -> bool:
        """Whether this side data provides ``name`` (a key of ``SIDE_ARGUMENTS``). The catalog is
        there when given, or by default when ``train`` is (train items plus the split's truth items)."""
        if name == "train":
            return self.train is not None
        if name == "catalog":
            return self.catalog is not None or self.train is not None
        if name == "item_features":
            return self.item_features is not None
        if name == "item_groups":
            return self.groups is not None
        raise ValueError(f"unknown side data {name!r}; known: {sorted(SIDE_ARGUMENTS)}")

    @property
    def features_kind(self) -> str | None:
        """``"vectors"``, ``"sets"``, or None without item features."""
        return None if self.item_features is None else self._features_kind

    @property
    def feature_valid(self) -> NDArray[np.bool_]:
        """Per row of ``item_features``: whether the item has a non-empty set or a non-zero vector."""
        return self._feature_valid

    @property
    def feature_unit_vectors(self) -> NDArray[np.float64]:
        """The rows of ``item_features`` scaled to unit length (when ``features_kind == "vectors"``)."""
        return self._unit

    @property
    def feature_set_incidence(self) -> Any:
        """CSR incidence matrix of ``item_features``, items x categories (when ``features_kind == "sets"``)."""
        return self._set_matrix

    @property
    def feature_categories(self) -> pd.Index:
        """The category of each column of :attr:`feature_set_incidence`."""
        return self._categories

    @property
    def n_train_users(self) -> int:
        """Distinct users of ``train``."""
        self._need("train")
        return len(self._train_users)

    @property
    def item_groups(self) -> pd.Series | None:
        """The item -> group Series as given (None without ``item_groups``)."""
        return None if self.groups is None else self.groups.series

    @property
    def train_items(self) -> pd.Index:
        """The distinct items of ``train`` (the order of the popularity arrays)."""
        self._need("train")
        return self._train_items

    @property
    def train_users(self) -> pd.Index:
        """The distinct users of ``train`` (the user positions of :meth:`train_pairs`)."""
        self._need("train")
        return self._train_users

    def train_pairs(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The distinct (user, item) pairs of ``train`` as positions in its users and items,
        sorted by user then item."""
        self._need("train")
        return self._pair_user, self._pair_item

    def item_popularity(self) -> pd.Series:
        """Distinct training users per item of ``train`` (int64, indexed by item id)."""
        self._need("train")
        return pd.Series(self._popularity, index=self._train_items, name="popularity")

    def _need(self, name: str) -> None:
        if not self.has(name):
            raise ValueError(f"this SideData has no {name}: pass {SIDE_ARGUMENTS[name]}")

    # ------------------------------------------------------------------ per split
    def resolved(self, truth: pd.DataFrame, item_col: str) -> SideData:
        """This side data with the catalog made explicit: the one given, or every item of
        ``train`` and of ``truth`` (the split's default). Shares every validated array."""
        if self.catalog is not None or self.train is None:
            return self
        out = object.__new__(SideData)
        out.__dict__.update(self.__dict__)
        out._cache = {}
        truth_items = pd.Index(_keys.plain(pd.unique(truth[item_col].to_numpy())))
        out.catalog = union_index(self._train_items, truth_items)
        return out

    def check_kinds(self, pred: pd.DataFrame, user_col: str, item_col: str, pred_users: NDArray[Any],
                    pred_items: NDArray[Any]) -> None:
        """Raise a ValueError when side data ids are of another kind than ``pred``'s (numbers vs text)."""
        if self.train is not None:
            check_id_kinds(pred, self.train, item_col, pred_items, _keys.plain(self._train_items.to_numpy()),
                           other="train", other_column=self.item_col)
            check_id_kinds(pred, self.train, user_col, pred_users, _keys.plain(self._train_users.to_numpy()),
                           other="train", other_column=self.user_col)
        if self.catalog is not None:
            frame = pd.DataFrame({item_col: self.catalog})
            check_id_kinds(pred, frame, item_col, pred_items, _keys.plain(self.catalog.to_numpy()), other="catalog")
        if self.item_features is not None:
            frame = pd.DataFrame({item_col: self._feature_index})
            check_id_kinds(pred, frame, item_col, pred_items, _keys.plain(self._feature_index.to_numpy()),
                           other="item_features")
        if self.groups is not None:
            frame = pd.DataFrame({item_col: self.groups.items})
            check_id_kinds(pred, frame, item_col, pred_items, _keys.plain(self.groups.items.to_numpy()),
                           other="item_groups")

    def bind(self, lists: RankedLists) -> BoundSide:
        """The side data aligned with ``lists``' item codes (and users); stored on the lists."""
        bound = BoundSide(self, lists)
        lists.split_cache["side"] = bound
        return bound

    # ------------------------------------------------------------------ global, cached
    def catalog_popularity(self) -> tuple[pd.Index, NDArray[np.int64]]:
        """The catalog's items and their popularity (0 for items not in train)."""
        key = "catalog_popularity"
        if key not in self._cache:
            assert self.catalog is not None
            pop = np.zeros(len(self.catalog), dtype=np.int64)
            if self.train is not None:
                at = self._train_items.get_indexer(self.catalog)
                pop = np.where(at >= 0, self._popularity[np.maximum(at, 0)], 0)
            self._cache[key] = (self.catalog, pop)
        return self._cache[key]

    def head_items(self, head: float, head_by: str) -> pd.Index:
        """The catalog's most popular items: the first ``round(head * n)`` of the catalog
        (``head_by="items"``), or the fewest whose popularity adds up to at least ``head``
        of the catalog's interactions (``head_by="interactions"``), in order of popularity
        descending, ties by item id ascending."""
        key = ("head", head, head_by)
        if key not in self._cache:
            items, pop = self.catalog_popularity()
            order = popularity_order(items, pop)
            if head_by == "items":
                n_head = int(round(head * len(items)))
            else:
                total = float(pop.sum())
                cum = np.cumsum(pop[order])
                reached = np.flatnonzero(cum >= head * total)
                n_head = int(reached[0]) + 1 if len(reached) else len(items)
            self._cache[key] = items[order[:n_head]]
        return self._cache[key]

    def user_profile_popularity(self) -> tuple[pd.Index, NDArray[np.float64]]:
        """Each training user's mean item popularity share over their distinct training
        items: ``sum(pop_i / n_users) / n_items_u`` (ClayRS's ``get_avg_pop`` of the profile)."""
        key = "profile_popularity"
        if key not in self._cache:
            counts = np.bincount(self._pair_user, minlength=len(self._train_users))
            offsets = np.zeros(len(counts) + 1, dtype=np.int64)
            np.cumsum(counts, out=offsets[1:])
            # the popularities are integers: their float sum is exact in any order (the codes, and
            # so the order of a user's items, follow the rows of train), then one division each
            total = seg.segment_sum(self._popularity[self._pair_item].astype(np.float64), offsets)
            self._cache[key] = (self._train_users, total / len(self._train_users) / counts)
        return self._cache[key]

    def popularity_groups(self, groups: Mapping[str, float], pop_percentage: float) -> dict[str, pd.Index]:
        """:func:`rankeval.groups.popularity_groups` on this train (cached)."""
        groups = check_group_shares(groups, "groups")  # shares adding up to 1: every user in a group
        key = ("groups", tuple(groups.items()), pop_percentage)
        if key not in self._cache:
            self._need("train")
            self._cache[key] = self._popularity_groups(groups, pop_percentage)
        return self._cache[key]

    def _popularity_groups(self, groups: Mapping[str, float], pop_percentage: float) -> dict[str, pd.Index]:
        users = self._train_users
        n_users = len(users)
        if n_users < len(groups):
            raise ValueError(f"`train` has {n_users} users, too few for {len(groups)} groups {list(groups)}: "
                             f"use fewer groups")
        items, pop = self._train_items, self._popularity
        n_top = int(round(len(items) * pop_percentage))  # ClayRS get_most_popular_items: Python round
        top = np.zeros(len(items), dtype=bool)
        top[popularity_order(items, pop)[:n_top]] = True
        counts = np.bincount(self._pair_user, minlength=n_users)
        popular = np.bincount(self._pair_user, weights=top[self._pair_item].astype(np.float64), minlength=n_users)
        ratio = popular / counts
        id_rank = np.empty(n_users, dtype=np.int64)
        id_rank[argsort_ids(users)] = np.arange(n_users)
        order = np.lexsort((id_rank, -ratio))
        out: dict[str, pd.Index] = {}
        last, percentage = 0, 0.0
        for name, share in groups.items():
            percentage += share  # the running sum as ClayRS adds it
            cut = int(round(n_users * percentage))
            if cut == 0:
                warnings.warn(RankevalWarning(f"popularity group {name!r} gets no user ({n_users} users, share "
                                              f"{share:g}): it is empty"), stacklevel=4)
                out[name] = users[:0]
                continue
            out[name] = users[order[last:cut]]
            if cut <= last:
                warnings.warn(RankevalWarning(f"popularity group {name!r} gets no user ({n_users} users, share "
                                              f"{share:g}): it is empty"), stacklevel=4)
            last = max(last, cut)
        return out

    def __repr__(self) -> str:
        parts = []
        if self.train is not None:
            parts.append(f"train={len(self.train)} rows ({len(self._train_users)} users, "
                         f"{len(self._train_items)} items)")
        if self.catalog is not None:
            parts.append(f"catalog={len(self.catalog)} items")
        if self.item_features is not None:
            parts.append(f"item_features={len(self.item_features)} items ({self._features_kind})")
        if self.groups is not None:
            parts.append(f"item_groups={len(self.groups.items)} items in {self.groups.n_groups} groups")
        return f"SideData({', '.join(parts)})"


class BoundSide:
    """A split's side data aligned with its lists: per distinct listed item (item code),
    ``popularity`` (int64), ``in_catalog`` (bool), ``feature_row`` (int64, -1 without
    features), ``item_group`` (int64 group code, -1 without a group); built once per split,
    shared by every metric and every ``head(k)`` view."""

    def __init__(self, side: SideData, lists: RankedLists) -> None:
        self.side = side
        #: values computed once per split by the metrics reading this side data
        self.cache: dict[Any, Any] = {}
        items = pd.Index(lists.item_uniques)
        self.n_items = len(items)
        self._items = items
        self._lists_users = lists.user_ids
        self._cache: dict[Any, Any] = {}
        if side.train is not None:
            at = side._train_items.get_indexer(items)
            self.popularity = np.where(at >= 0, side._popularity[np.maximum(at, 0)], 0).astype(np.int64)
            self.n_train_users = len(side._train_users)
        if side.catalog is not None:
            catalog = side.catalog
            self.in_catalog = catalog.get_indexer(items) >= 0 if catalog.is_unique else items.isin(catalog)
            self.n_catalog = len(side.catalog)
        if side.item_features is not None:
            self.feature_row = side._feature_index.get_indexer(items).astype(np.int64)
        if side.groups is not None:
            self.item_group = side.groups.codes_of(items)

    def has(self, name: str) -> bool:
        return self.side.has(name)

    def in_head(self, head: float, head_by: str) -> NDArray[np.bool_]:
        """Per item code: whether the item is among the catalog's most popular (see :meth:`SideData.head_items`)."""
        key = ("head", head, head_by)
        if key not in self._cache:
            self._cache[key] = self._items.isin(self.side.head_items(head, head_by))
        return self._cache[key]

    def user_positions(self) -> NDArray[np.intp]:
        """Per evaluated user: their position among ``train``'s users (-1 if absent)."""
        if "users" not in self._cache:
            self._cache["users"] = self.side._train_users.get_indexer(pd.Index(self._lists_users))
        return self._cache["users"]

    def item_index(self, lists: RankedLists) -> pd.Index:
        """The id of every item code of ``lists``' rows and truth rows: the listed items, then
        the truth items no list holds (:attr:`~rankeval.data.RankedLists.truth_item_codes`)."""
        if "item_index" not in self._cache:
            listed, others = lists.item_uniques, lists.truth_only_item_ids
            if not len(others):
                self._cache["item_index"] = self._items
            else:
                if listed.dtype != others.dtype:  # int and float ids: compared as Python values, never rounded
                    listed, others = listed.astype(object), others.astype(object)
                self._cache["item_index"] = pd.Index(np.concatenate([listed, others]))
        return self._cache["item_index"]

    def train_items_by_user(self, lists: RankedLists) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
        """The evaluated users' distinct training items: ``(offsets, codes, n_codes)``, user ``u``'s
        items ``codes[offsets[u]:offsets[u + 1]]`` as codes of :meth:`item_index` (of ``n_codes``).

        Training items neither listed nor in truth are left out: no row of the split can be
        one of them. Built from the sorted training pairs by gathering each evaluated user's
        run (no sort, no hash of the pairs); cached with the split.
        """
        if "train_by_user" not in self._cache:
            train = self.side
            pair_user, pair_item = train.train_pairs()  # sorted by user
            items = self.item_index(lists)
            code_of_train_item = items.get_indexer(train._train_items)
            per_train_user = np.bincount(pair_user, minlength=len(train._train_users))
            at = self.user_positions()
            first = (np.cumsum(per_train_user) - per_train_user)[np.maximum(at, 0)]
            lengths = np.where(at >= 0, per_train_user[np.maximum(at, 0)], 0)
            codes = code_of_train_item[pair_item[seg.concat_ranges(first, lengths)]]
            known = codes >= 0
            if not known.all():
                users = np.repeat(np.arange(len(at), dtype=np.int64), lengths)[known]
                lengths, codes = np.bincount(users, minlength=len(at)), codes[known]
            offsets = np.zeros(len(at) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            self._cache["train_by_user"] = (offsets, codes.astype(np.int64), len(items))
        return self._cache["train_by_user"]

    def truth_in_train(self, lists: RankedLists) -> NDArray[np.bool_]:
        """Per truth row of ``lists`` (``truth_values``' order): whether it is a training pair (cached)."""
        if "truth_in_train" not in self._cache:
            self._cache["truth_in_train"] = rows_in_sets(lists.truth_offsets, lists.truth_item_codes,
                                                         *self.train_items_by_user(lists))
        return self._cache["truth_in_train"]


# ---------------------------------------------------------------------- access for metrics
def side_of(lists: RankedLists) -> BoundSide | None:
    """The side data bound to ``lists`` (None when its split has none)."""
    return lists.split_cache.get("side")


def require_side(lists: RankedLists, metric: object, needs: Iterable[str]) -> BoundSide:
    """The side data of ``lists``, or a ValueError naming the argument ``metric`` needs."""
    bound = side_of(lists)
    for name in needs:
        if bound is None or not bound.has(name):
            raise ValueError(f"{metric} needs side data: pass {SIDE_ARGUMENTS[name]} to Split, EvalModel or "
                             f"compare")
    assert bound is not None
    return bound


def missing_side(metrics: Iterable[Any], side: SideData | None) -> list[tuple[str, str]]:
    """(metric name, argument) for every metric whose ``needs_side`` ``side`` does not provide."""
    out = []
    for m in metrics:
        for name in m.needs_side:
            if side is None or not side.has(name):
                out.append((str(m), name))
    return out


def row_item_codes(lists: RankedLists) -> NDArray[np.signedinteger[Any]]:
    """The item code of every listed row of ``lists``, in list order (cached per view)."""
    return lists.item_codes


def popularity_order(items: pd.Index, pop: NDArray[np.int64]) -> NDArray[np.int64]:
    """Positions of ``items`` by popularity descending, ties by item id ascending."""
    id_rank = np.empty(len(items), dtype=np.int64)
    id_rank[argsort_ids(items)] = np.arange(len(items))
    return np.lexsort((id_rank, -pop)).astype(np.int64)


def argsort_ids(items: pd.Index) -> NDArray[np.intp]:
    try:
        return np.asarray(items.argsort(kind="stable"))
    except TypeError:  # ids of mixed types (numbers and text never share a column: e.g. int and bool)
        return np.argsort(np.asarray([str(x) for x in items], dtype=object), kind="stable")


# ---------------------------------------------------------------------- validation helpers
def _factorize_ids(df: pd.DataFrame, frame: str, col: str) -> tuple[NDArray[np.signedinteger[Any]], NDArray[Any]]:
    """Codes and uniques of an id column; missing or unhashable ids are ValueErrors naming frame, column, rows."""
    try:
        codes, uniques = _keys.factorize(_keys.id_values(df[col]))
    except TypeError as exc:
        values = df[col]
        bad = np.fromiter((not isinstance(v, Hashable) for v in values), dtype=bool, count=len(values))
        kinds = sorted({type(v).__name__ for v in values[bad]})
        raise ValueError(f"`{frame}`['{col}'] holds values that cannot be ids ({', '.join(kinds)}) at rows "
                         f"{df.index[bad][:5].tolist()}: ids must be hashable scalars such as str or int") from exc
    if len(codes) and codes.min() < 0:
        reject_missing_ids(df, frame, col, codes < 0)
    return codes, uniques


def catalog_index(catalog: Any, item_col: str) -> pd.Index:
    if is_frame(catalog):
        df = to_pandas(catalog, "catalog")
        if item_col in df.columns:
            values = df[item_col]
        elif df.shape[1] == 1:
            values = df.iloc[:, 0]
        else:
            raise ValueError(f"`catalog` is a frame without a '{item_col}' column and with {df.shape[1]} columns "
                             f"{list(df.columns)}: give the item ids as one column, a Series or a list")
    elif isinstance(catalog, (pd.Series, pd.Index)):
        values = pd.Series(catalog)
    elif isinstance(catalog, (str, bytes)) or not isinstance(catalog, Iterable):
        raise TypeError(f"`catalog` must be an iterable of item ids, a Series or a frame column, "
                        f"got {type(catalog).__name__}")
    else:
        values = pd.Series(list(catalog), dtype=object)
        if len(values) and pd.api.types.infer_dtype(values, skipna=True) == "integer":
            values = values.astype(np.int64)
    frame = pd.DataFrame({item_col: values.reset_index(drop=True)})
    if len(frame) == 0:
        raise ValueError("`catalog` is empty: give the items the recommender could recommend")
    _, uniques = _factorize_ids(frame.rename(columns={item_col: item_col}), "catalog", item_col)
    return pd.Index(uniques)


def union_index(a: pd.Index, b: pd.Index) -> pd.Index:
    """The ids of ``a``, then those of ``b`` not in ``a`` (no sorting, no float round trip)."""
    if len(a) and len(b) and a.dtype != b.dtype:
        a, b = _keys.same_id_dtype([a, b])
    extra = b[~b.isin(a)]
    return a.append(extra) if len(extra) else a


def warn_featureless(metric: object, n_rows: int, n_total: int, examples: list[Any]) -> None:
    warnings.warn(RankevalWarning(
        f"{metric}: {n_rows} of {n_total} listed items have no features (not in `item_features`, an empty set "
        f"or an all-zero vector), e.g. {examples[:5]}, and are left out of the pairs"), stacklevel=4)


# ---------------------------------------------------------------------- entry points
def uses_side(metrics: Iterable[Any]) -> list[str]:
    """Names of the metrics that read side data or have no per-user value (beyond-accuracy metrics)."""
    return [str(m) for m in metrics if m.needs_side or m.system_level]
