"""Small seeded sample data, generated on demand (no file to download, nothing licensed),
and a reader for the MovieLens files a user has on disk.

:func:`make_ratings` draws users' ratings from a latent-factor model, so some items are
liked by many users and tastes differ; :func:`train_test_folds` splits them into folds;
:func:`recommend` produces the lists of three reference recommenders.
:func:`read_movielens` reads MovieLens ratings (``u.data``, ``ratings.dat``,
``ratings.csv``, RecBole's ``.inter``) from a local path: rankeval ships no MovieLens data
(GroupLens' licence does not allow redistributing it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["make_ratings", "train_test_folds", "recommend", "sample_split", "read_movielens", "MOVIELENS_FORMATS"]

RECOMMENDERS = ("popularity", "random", "noisy_oracle")


#: the first instant of the sample data's year (2024-01-01 00:00 UTC), in seconds since the epoch
_YEAR_START = 1_704_067_200
_YEAR = 366 * 86_400


def make_ratings(n_users: int = 500, n_items: int = 300, ratings_per_user: int = 40, *,
                 seed: int = 0, timestamps: bool = False) -> pd.DataFrame:
    """Ratings 1-5 (``user_id``, ``item_id``, ``score``) from a seeded latent-factor model.

    Ids are strings (``u0001``, ``i0042``). Items have a popularity bias, so a
    popularity recommender beats a random one, as on real data.

    With ``timestamps=True``, a ``timestamp`` column (int64 seconds since the epoch, in
    2024) is added and the other columns are unchanged. Each user is active for a few weeks
    (2 to 17) at a random point of the year; each item has its moment, and a user's rating
    of it falls near that moment (a normal delay of 20 days' spread), kept within the
    user's weeks. Users come and go and what is rated changes over time, as on real
    platforms: a per-user leave-last-out split then trains on the future
    (:func:`rankeval.split.audit` counts it), and :func:`rankeval.split.global_temporal` does not.

    Parameters
    ----------
    n_users : int
        The number of users.
    n_items : int
        The number of items.
    ratings_per_user : int
        Distinct items each user rates (at most ``n_items``).
    seed : int
        The seed of every draw: the same seed gives the same frame.
    timestamps : bool
        Add the ``timestamp`` column.
    """
    rng = np.random.default_rng(seed)
    dim = 4
    user_f = rng.normal(size=(n_users, dim))
    item_f = rng.normal(size=(n_items, dim))
    item_bias = rng.normal(0.0, 0.8, n_items)
    popularity = np.exp(item_bias) / np.exp(item_bias).sum()
    for_user = min(ratings_per_user, n_items)
    # each user rates a popularity-biased sample of distinct items (Gumbel top-k trick)
    keys = np.log(popularity)[None, :] + rng.gumbel(size=(n_users, n_items))
    rated = np.argsort(-keys, axis=1)[:, :for_user]
    users = np.repeat(np.arange(n_users), for_user)
    items = rated.ravel()
    affinity = (user_f[users] * item_f[items]).sum(axis=1) / np.sqrt(dim) + item_bias[items]
    noise = rng.normal(0.0, 0.7, len(items))
    score = np.clip(np.round(3.0 + affinity + noise), 1, 5)
    rows = pd.DataFrame({
        "user_id": np.char.add("u", np.char.zfill(users.astype(str), 4)).astype(object),
        "item_id": np.char.add("i", np.char.zfill(items.astype(str), 4)).astype(object),
        "score": score.astype(np.float64),
    })
    if timestamps:
        rows["timestamp"] = _rating_times(users, items, n_users, n_items, seed)
    return rows


def _rating_times(users: np.ndarray, items: np.ndarray, n_users: int, n_items: int, seed: int) -> np.ndarray:
    """Seconds since the epoch of each rating (a random stream of its own, so the ratings are the
    same with or without times): within the user's active weeks, near the item's moment."""
    rng = np.random.default_rng([seed, 1])
    span = rng.uniform(14.0, 120.0, n_users) * 86_400
    start = rng.uniform(0.0, 1.0, n_users) * (_YEAR - span)
    moment = rng.uniform(0.0, _YEAR, n_items)
    near = moment[items] + rng.normal(0.0, 20 * 86_400.0, len(items))
    inside = np.clip(near, start[users], start[users] + span[users] - 86_400)
    return (_YEAR_START + inside + rng.uniform(0.0, 86_400.0, len(items))).astype(np.int64)


def train_test_folds(ratings: pd.DataFrame, n_folds: int = 5, *, seed: int = 0
                     ) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
    """Yield ``(train, test)`` for ``n_folds`` folds, each user's ratings split evenly.

    Parameters
    ----------
    ratings : DataFrame
        Ratings with a ``user_id`` column (as :func:`make_ratings` makes them).
    n_folds : int
        The number of folds; each fold's test is one of them.
    seed : int
        The seed of the shuffle.
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(ratings))
    shuffled = ratings.iloc[order]
    fold = shuffled.groupby("user_id", sort=False).cumcount().to_numpy() % n_folds
    for f in range(n_folds):
        test = shuffled[fold == f].sort_index()
        train = shuffled[fold != f].sort_index()
        yield train, test


def recommend(train: pd.DataFrame, test: pd.DataFrame, kind: str, n: int = 20, *,
              seed: int = 0) -> pd.DataFrame:
    """Top-``n`` lists (``user_id``, ``item_id``, ``score``) for every test user.

    ``kind`` is ``"popularity"`` (most rated training items), ``"random"``, or
    ``"noisy_oracle"`` (the test ratings plus noise: a strong but imperfect recommender).
    Items the user rated in training are never recommended.

    Parameters
    ----------
    train : DataFrame
        Training ratings (``user_id``, ``item_id``): popularity counts and the items never
        recommended again.
    test : DataFrame
        Test ratings (``user_id``, ``item_id``, ``score``): the users to recommend to, and
        the noisy oracle's signal.
    kind : str
        The recommender: ``"popularity"``, ``"random"`` or ``"noisy_oracle"``.
    n : int
        Length of every list.
    seed : int
        The seed of the random scores.
    """
    if kind not in RECOMMENDERS:
        raise ValueError(f"`kind` must be one of {list(RECOMMENDERS)}, got {kind!r}")
    rng = np.random.default_rng(seed)
    items = np.sort(pd.unique(pd.concat([train["item_id"], test["item_id"]])))
    users = pd.unique(test["user_id"])
    n_items = len(items)
    item_index = pd.Index(items)
    if kind == "popularity":
        counts = train["item_id"].value_counts().reindex(items, fill_value=0).to_numpy()
        base = np.broadcast_to(counts.astype(float), (len(users), n_items)).copy()
    elif kind == "random":
        base = rng.random((len(users), n_items))
    else:
        base = rng.normal(0.0, 1.5, (len(users), n_items))
        u = pd.Index(users).get_indexer(test["user_id"])
        base[u, item_index.get_indexer(test["item_id"])] += test["score"].to_numpy()
    seen = train[train["user_id"].isin(users)]
    base[pd.Index(users).get_indexer(seen["user_id"]), item_index.get_indexer(seen["item_id"])] = -np.inf
    top = np.argsort(-base, axis=1, kind="stable")[:, :n]
    return pd.DataFrame({
        "user_id": np.repeat(users, n),
        "item_id": items[top.ravel()],
        "score": np.take_along_axis(base, top, axis=1).ravel(),
    })


def sample_split(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One ``(pred, truth)`` pair: the noisy oracle's lists against the first fold's test ratings.

    Parameters
    ----------
    seed : int
        The seed of the ratings, of the folds and of the lists.
    """
    ratings = make_ratings(seed=seed)
    train, test = next(train_test_folds(ratings, seed=seed))
    return recommend(train, test, "noisy_oracle", seed=seed), test


#: the MovieLens layouts :func:`read_movielens` reads, by name, with the file names that select them
MOVIELENS_FORMATS = {
    "u.data": "ML-100K: tab-separated user, item, rating, timestamp; no header (u.data, u1.base, ua.test, ...)",
    "dat": "ML-1M, ML-10M: UserID::MovieID::Rating::Timestamp (ratings.dat)",
    "csv": "ML-20M, ML-25M, ML-32M, ML-latest: userId,movieId,rating,timestamp with a header (ratings.csv)",
    "inter": "RecBole atomic files: tab-separated, a typed header (user_id:token item_id:token rating:float "
             "timestamp:float) (*.inter)",
}
_FOLDER_FILES = ("u.data", "ratings.dat", "ratings.csv")
_COMPRESSED = (".gz", ".bz2", ".zip", ".xz")
_INTER_NAMES = {"user_id": "user_id", "item_id": "item_id", "rating": "score", "timestamp": "timestamp"}


def _movielens_format(path: Path) -> str:
    name = path.name.lower()
    for suffix in _COMPRESSED:
        name = name.removesuffix(suffix)
    if name.endswith(".inter"):
        return "inter"
    if name.endswith(".dat"):
        return "dat"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".data", ".base", ".test")):
        return "u.data"
    raise ValueError(f"cannot tell the MovieLens format of {str(path)!r} from its name; pass format= one of "
                     f"{sorted(MOVIELENS_FORMATS)}")


def _movielens_file(path: Path) -> Path:
    """The ratings file of a folder (the first of u.data, ratings.dat, ratings.csv, *.inter)."""
    for name in _FOLDER_FILES:
        if (path / name).is_file():
            return path / name
    inter = sorted(path.glob("*.inter"))
    if inter:
        return inter[0]
    raise FileNotFoundError(f"no MovieLens ratings file in the folder {str(path)!r}: looked for "
                            f"{', '.join(_FOLDER_FILES)} and *.inter")


def _read_inter(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path, sep="\t")
    names = {column: column.split(":")[0] for column in frame.columns}
    wanted = {field: _INTER_NAMES[field] for field in names.values() if field in _INTER_NAMES}
    missing = [field for field in ("user_id", "item_id") if field not in wanted]
    if missing:
        raise ValueError(f"{str(path)!r} has no {missing} field(s); its header is {list(frame.columns)}")
    frame = frame.rename(columns=names)
    return frame[list(wanted)].rename(columns=wanted)


def read_movielens(path: str | os.PathLike[str], *, format: str | None = None) -> pd.DataFrame:
    r"""MovieLens ratings from a local file or folder, as ``user_id``, ``item_id``, ``score``, ``timestamp``.

    The format comes from the file name (``format=`` overrides it; see
    :data:`MOVIELENS_FORMATS`): ``u.data`` (and ML-100K's ``u1.base`` ...), ``ratings.dat``,
    ``ratings.csv``, or a RecBole ``.inter`` file (its fields ``user_id``, ``item_id``,
    ``rating``, ``timestamp``; a file without ratings or times gives no such column). A
    folder is read through the first of ``u.data``, ``ratings.dat``, ``ratings.csv`` or
    ``*.inter`` in it. Files may be compressed (``.gz``, ``.bz2``, ``.zip``, ``.xz``).

    Ids stay as the file writes them (integers in every MovieLens release); ``score`` is
    float64; ``timestamp`` is int64 seconds since the epoch (UTC), as in the files. Rows
    keep the file's order.

    Parameters
    ----------
    path : str or path-like
        A ratings file, or a folder holding one.
    format : {None, "u.data", "dat", "csv", "inter"}
        The layout, whatever the file's name; None: told from the name.

    Raises
    ------
    FileNotFoundError
        No such file, or a folder without a ratings file.
    ValueError
        A name whose format cannot be told (pass ``format=``), or an unknown ``format``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "u.data").write_text("196\t242\t3\t881250949\n186\t302\t3\t891717742\n")
    >>> read_movielens(folder)
       user_id  item_id  score  timestamp
    0      196      242    3.0  881250949
    1      186      302    3.0  891717742
    """
    source = Path(path)
    if not source.exists():
        raise FileNotFoundError(f"no such file or folder: {str(source)!r}")
    if source.is_dir():
        source = _movielens_file(source)
    if format is not None and format not in MOVIELENS_FORMATS:
        raise ValueError(f"`format` must be one of {sorted(MOVIELENS_FORMATS)}, got {format!r}")
    kind = format or _movielens_format(source)
    columns = ["user_id", "item_id", "score", "timestamp"]
    if kind == "inter":
        frame = _read_inter(source)
    elif kind == "dat":  # '::' read as ':' with empty fields between (the C parser, not the slow python one)
        frame = pd.read_csv(source, sep=":", header=None, usecols=[0, 2, 4, 6], names=range(7))
        frame.columns = columns
    elif kind == "csv":
        frame = pd.read_csv(source).iloc[:, :4]
        frame.columns = columns
    else:
        frame = pd.read_csv(source, sep="\t", header=None, names=columns, usecols=range(4))
    if "score" in frame.columns:
        frame["score"] = frame["score"].astype(np.float64)
    if "timestamp" in frame.columns and frame["timestamp"].dtype.kind == "f" \
            and (frame["timestamp"] == np.floor(frame["timestamp"])).all():
        frame["timestamp"] = frame["timestamp"].astype(np.int64)
    return frame
