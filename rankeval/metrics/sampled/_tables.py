r"""Estimator tables: the value given to each sampled rank, for uniform sampling without replacement.

Notation. A user's positive competes with ``n`` items in the full ranking (itself included);
its true rank is :math:`r \in \{1, \dots, n\}`. The protocol draws ``m`` negatives uniformly
without replacement from the :math:`n - 1` other items and ranks the positive among them:
its sampled rank is :math:`\tilde r = 1 + \#\{\text{drawn negatives above it}\}`, so

.. math:: P(\tilde r = s \mid r) = \binom{r-1}{s-1}\binom{n-r}{m+1-s} \Big/ \binom{n-1}{m},
          \qquad s = 1, \dots, m + 1

(:math:`\tilde r - 1` is hypergeometric: ``m`` draws from :math:`n - 1` items of which
:math:`r - 1` rank above the positive). An estimator is a table :math:`\tilde M(1..m+1)`; a
user's estimate is :math:`\tilde M(\tilde r_u)`. With the uniform prior :math:`p(r) = 1/n`
and :math:`A_{rs} = P(\tilde r = s \mid r)`:

- minimal bias: :math:`\min_x \sum_r p(r) \big((A x)_r - M(r)\big)^2`, i.e. :math:`G x = b`
  with :math:`G = A^\top \mathrm{diag}(p) A` and :math:`b = A^\top \mathrm{diag}(p) M`;
- bias-variance: adds :math:`\gamma \sum_r p(r) \mathrm{Var}[\tilde M(\tilde r) \mid r]`, which
  gives :math:`\big((1-\gamma) G + \gamma\,\mathrm{diag}(c)\big) x = b` with
  :math:`c = A^\top p` (Krichene & Rendle 2020, section 5).

``G`` is never built from the dense :math:`n \times (m+1)` matrix when ``n`` is large: each
entry :math:`\sum_r P(s \mid r) P(t \mid r)` sums a polynomial of degree :math:`2m` in ``r``
over :math:`r = 1..n`, which the Gauss quadrature of the discrete uniform measure on ``n``
points (discrete Chebyshev polynomials, Golub-Welsch) with :math:`m + 1` nodes sums exactly
(when ``n`` is at least :math:`3 (m+1)`; nearer ``m`` every rank is summed: it is cheap there).
``b`` is a finite sum over :math:`r \le k` for a cutoff metric; for :math:`M(r) = 1/r` over
the whole ranking (MRR, MAP without a cutoff) it is a harmonic number plus a polynomial sum,
again by the quadrature (:func:`_rhs`).

The least-squares tables are kept on disk between runs (``_store.py``) and the tables of many
``n`` at once show a progress bar once they take over a second (:func:`estimator_tables`).
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import linalg, special

from ._store import load_table, save_table, table_key

__all__ = ["ESTIMATORS", "RankValue", "sampled_rank_pmf", "estimator_table", "estimator_tables", "gram_terms",
           "table_progress", "PROGRESS_DELAY"]

#: the estimators of a full-catalog metric from sampled ranks
ESTIMATORS = ("naive", "rescaled", "minimal_bias", "bias_variance")

#: below this many multiply-adds the Gram matrix is summed over every true rank directly
_DIRECT_BUDGET = 5e7
#: the Gram matrices kept in memory, in bytes: every metric of a per-user ``n_items`` reuses them
_GRAM_BUDGET = 256 * 2**20
#: seconds the tables of many ``n`` compute before their progress bar appears
PROGRESS_DELAY = 1.0
#: whether those bars show: True, False, or None (when standard error is a terminal)
_progress: ContextVar[bool | None] = ContextVar("rankeval_sampled_progress", default=None)


@dataclass(frozen=True)
class RankValue:
    """A metric's value as a function of the positive's rank, for one positive per user.

    ``kind``: ``"hit"`` (1 within the cutoff: HR@k, R@k), ``"rr"`` (1/r: MRR, and AP with one
    positive), ``"dcg"`` (:math:`d(1)/d(r)`, NDCG with one positive, ``d`` the discount).
    ``k``: the cutoff (None: the whole ranking; only ``"rr"`` allows it).
    """

    kind: str
    k: int | None
    discount: str = "log2"
    discount_log: Callable[[Any], Any] = np.log2

    def __call__(self, rank: NDArray[np.float64]) -> NDArray[np.float64]:
        rank = np.asarray(rank, dtype=np.float64)
        if self.kind == "hit":
            value = np.ones_like(rank)
        elif self.kind == "rr":
            value = 1.0 / rank
        else:
            def at(r: Any) -> Any:
                return r + 1.0 if self.discount == "log2" else np.maximum(r, 2.0)
            value = np.asarray(self.discount_log(at(np.float64(1.0))) / self.discount_log(at(rank)),
                               dtype=np.float64)
        return value if self.k is None else np.where(rank <= self.k, value, 0.0)


def _log_binom(x: NDArray[np.float64], a: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """log|C(x, a)| and its sign for real ``x`` and whole ``a >= 0`` (0 where x - a + 1 is a pole)."""
    lower = x - a + 1.0
    pole = (lower <= 0) & (lower == np.round(lower))
    with np.errstate(invalid="ignore", divide="ignore"):
        log = special.gammaln(x + 1.0) - special.gammaln(a + 1.0) - special.gammaln(lower)
        sign = special.gammasgn(x + 1.0) * special.gammasgn(np.where(pole, 1.0, lower))
    return np.where(pole, -np.inf, log), np.where(pole, 0.0, sign)


def sampled_rank_pmf(n: int, m: int, ranks: NDArray[np.float64]) -> NDArray[np.float64]:
    r""":math:`P(\tilde r = s \mid r)` for every ``r`` in ``ranks`` (rows) and ``s = 1..m+1`` (columns).

    ``ranks`` may be real (quadrature nodes): the binomials are then the polynomials in ``r``
    that they are at whole ranks.

    Parameters
    ----------
    n : int
        The catalog size: the positive's true rank is one of 1..n.
    m : int
        The number of sampled negatives (sampled ranks 1..m+1).
    ranks : array of float
        The true ranks, one row each.
    """
    r = np.asarray(ranks, dtype=np.float64)[:, None]
    s = np.arange(1, m + 2, dtype=np.float64)[None, :]
    log_a, sign_a = _log_binom(r - 1.0, s - 1.0)
    log_b, sign_b = _log_binom(n - r, m + 1.0 - s)
    log_total = special.gammaln(n) - special.gammaln(m + 1.0) - special.gammaln(n - m)
    return sign_a * sign_b * np.exp(log_a + log_b - log_total)


@functools.lru_cache(maxsize=16)
def _chebyshev_quadrature(n: int, q: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Nodes (as ranks 1..n) and weights summing any polynomial of degree < 2q over r = 1..n exactly.

    The monic discrete Chebyshev polynomials on x = 0..n-1 satisfy
    p_{k+1} = (x - (n-1)/2) p_k - beta_k p_{k-1}, beta_k = k^2 (n^2 - k^2) / (4 (4k^2 - 1)),
    beta_0 = n. Golub-Welsch: the nodes are the eigenvalues of the Jacobi matrix, the weights
    ``n`` times the squared first components of its unit eigenvectors. (The Christoffel numbers
    from the three-term recurrence are cheaper but wrong once ``q`` is a sizable fraction of
    ``n``: at ``n = 10^4``, ``q = 1001`` their sum misses ``n`` by 0.1%, the recurrence being
    unstable near the ends of the range.) Read-only, cached.
    """
    k = np.arange(1, q, dtype=np.float64)
    beta = k * k * (float(n) * n - k * k) / (4.0 * (4.0 * k * k - 1.0))
    x, vectors = linalg.eigh_tridiagonal(np.zeros(q), np.sqrt(beta))
    return _frozen(x + (n - 1) / 2.0 + 1.0), _frozen(n * vectors[0] ** 2)


def _by_quadrature(n: int, m: int) -> bool:
    """Whether sums over the ranks 1..n go through the quadrature: when summing every rank costs
    too much, and ``n`` is at least 3 (m + 1): nearer ``m``, the polynomials P(s | r) take huge
    values between whole ranks and the quadrature's sum cancels them in floating point."""
    return n * (m + 1) ** 2 > _DIRECT_BUDGET and n >= 3 * (m + 1)


class _GramCache:
    """The last Gram matrices computed, up to ``_GRAM_BUDGET`` bytes (a count would hold 16 of
    80 kB at 100 negatives, fewer than the distinct ``n`` of one MovieLens, and thrash)."""

    def __init__(self) -> None:
        self.entries: OrderedDict[tuple[int, int], tuple[NDArray[np.float64], NDArray[np.float64]]] = OrderedDict()
        self.nbytes = 0

    def get(self, n: int, m: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        key = (n, m)
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key]
        value = _gram(n, m)
        self.entries[key] = value
        self.nbytes += value[0].nbytes + value[1].nbytes
        while len(self.entries) > 1 and self.nbytes > _GRAM_BUDGET:
            gram, c = self.entries.popitem(last=False)[1]
            self.nbytes -= gram.nbytes + c.nbytes
        return value

    def cache_clear(self) -> None:
        self.entries.clear()
        self.nbytes = 0


_grams = _GramCache()


def gram_terms(n: int, m: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""``G`` (:math:`\sum_r p(r) P(s|r) P(t|r)`) and ``c`` (:math:`\sum_r p(r) P(s|r)`), uniform prior.

    Shared by every metric and estimator of one ``(n, m)`` (cached in memory; read-only arrays).
    """
    return _grams.get(int(n), int(m))


gram_terms.cache_clear = _grams.cache_clear  # type: ignore[attr-defined]  # as functools' caches have


def _gram(n: int, m: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    if not _by_quadrature(n, m):
        a = sampled_rank_pmf(n, m, np.arange(1, n + 1, dtype=np.float64))
        return _frozen((a.T @ a) / n), _frozen(a.sum(axis=0) / n)
    nodes, weights = _chebyshev_quadrature(n, m + 1)
    a = sampled_rank_pmf(n, m, nodes) * np.sqrt(weights / n)[:, None]  # Gauss weights are positive
    # the sampled rank of a positive at a uniform true rank is uniform on 1..m+1
    upper = linalg.blas.dsyrk(1.0, a, trans=1)  # a.T @ a, one triangle: half the work of a matmul
    return _frozen(np.triu(upper) + np.triu(upper, 1).T), _frozen(np.full(m + 1, 1.0 / (m + 1)))


def _frozen(array: NDArray[np.float64]) -> NDArray[np.float64]:
    array.flags.writeable = False
    return array


def _rhs(n: int, m: int, value: RankValue) -> NDArray[np.float64]:
    r""":math:`b_s = \sum_r p(r) P(\tilde r = s \mid r) M(r)`: over the ranks where ``M`` is not 0.

    A cutoff metric sums its ``k`` ranks. :math:`M(r) = 1/r` over every rank (MRR, MAP) would
    sum ``n`` ranks; instead, with :math:`P_s(r) = P(\tilde r = s \mid r)` a polynomial of degree
    ``m`` in ``r``, :math:`(P_s(r) - P_s(0)) / r` is a polynomial of degree ``m - 1``, summed
    exactly by the Gauss quadrature of the Gram matrix, and
    :math:`\sum_r P_s(r)/r = \sum_r (P_s(r) - P_s(0))/r + P_s(0) H_n` with :math:`H_n` the
    harmonic number and :math:`P_s(0) = (-1)^{s-1}\binom{n}{m+1-s}/\binom{n-1}{m}` (the
    polynomials at 0: :math:`\binom{-1}{s-1} = (-1)^{s-1}`).
    """
    last = n if value.k is None else min(value.k, n)
    if value.kind == "rr" and last == n and _by_quadrature(n, m):
        return _reciprocal_rank_rhs(n, m)
    chunk = max(1, int(2e6 // (m + 1)))
    b = np.zeros(m + 1)
    for start in range(1, last + 1, chunk):
        ranks = np.arange(start, min(start + chunk, last + 1), dtype=np.float64)
        b += value(ranks) @ sampled_rank_pmf(n, m, ranks)
    return b / n


def _reciprocal_rank_rhs(n: int, m: int) -> NDArray[np.float64]:
    """``b`` of :math:`M(r) = 1/r` over every rank ``1..n``, from ``m + 1`` quadrature nodes (see :func:`_rhs`)."""
    nodes, weights = _chebyshev_quadrature(n, m + 1)
    s = np.arange(1, m + 2, dtype=np.float64)
    at_zero = (np.where(s % 2 == 1, 1.0, -1.0)
               * np.exp(special.gammaln(n + 1.0) - special.gammaln(m + 2.0 - s) - special.gammaln(n - m + s)
                        - special.gammaln(n) + special.gammaln(m + 1.0) + special.gammaln(n - m)))
    polynomial = (sampled_rank_pmf(n, m, nodes) - at_zero) / nodes[:, None]
    harmonic = special.digamma(n + 1.0) + np.euler_gamma
    return np.asarray((weights @ polynomial + at_zero * harmonic) / n, dtype=np.float64)


@functools.lru_cache(maxsize=4096)
def estimator_table(n: int, m: int, value: RankValue, estimator: str, gamma: float) -> NDArray[np.float64]:
    r"""The value :math:`\tilde M(s)` of every sampled rank ``s = 1..m+1`` (read-only, cached).

    ``naive``: :math:`M(s)`, the metric of the sampled list. ``rescaled``: :math:`M(\hat r)` with
    :math:`\hat r = 1 + (s-1)(n-1)/m`, the true rank whose expected sampled rank is ``s``
    (:math:`E[\tilde r \mid r] = 1 + m (r-1)/(n-1)`). ``minimal_bias`` and ``bias_variance``:
    the least-squares tables of the module docstring (``gamma`` weighs the variance), kept on
    disk between runs (the same bits as computing them again; docs/sampled.md).

    Parameters
    ----------
    n : int
        The catalog size: the positive's true rank is one of 1..n.
    m : int
        The number of sampled negatives (sampled ranks 1..m+1).
    value : RankValue
        The metric as a function of the positive's true rank.
    estimator : str
        The estimator: ``"naive"``, ``"rescaled"``, ``"minimal_bias"`` or ``"bias_variance"``.
    gamma : float
        Weight of the variance, in [0, 1] (``bias_variance`` only).
    """
    s = np.arange(1, m + 2, dtype=np.float64)
    table: NDArray[Any]
    if estimator == "naive":
        table = value(s)
    elif estimator == "rescaled":
        table = value(1.0 + (s - 1.0) * (n - 1.0) / m)
    else:
        key = table_key(n, m, value, estimator, gamma)
        stored = None if key is None else load_table(key, m + 1)
        if stored is not None:
            table = stored
        else:
            table = _least_squares(n, m, value, estimator, gamma)
            if key is not None:
                save_table(key, table)
    table = np.asarray(table, dtype=np.float64)
    table.flags.writeable = False
    return table


def _least_squares(n: int, m: int, value: RankValue, estimator: str, gamma: float) -> NDArray[np.float64]:
    gram, c = gram_terms(n, m)
    b = _rhs(n, m, value)
    if estimator == "minimal_bias":
        return np.asarray(np.linalg.lstsq(gram, b, rcond=None)[0], dtype=np.float64)
    return np.asarray(np.linalg.solve((1.0 - gamma) * gram + gamma * np.diag(c), b), dtype=np.float64)


@contextlib.contextmanager
def table_progress(enabled: bool | None) -> Iterator[None]:
    """Within the block, :func:`estimator_tables` shows its bar (True), never (False), or when
    standard error is a terminal (None, the default outside any block)."""
    token = _progress.set(enabled)
    try:
        yield
    finally:
        _progress.reset(token)


def estimator_tables(sizes: Sequence[int] | NDArray[np.int64], m: int, value: RankValue, estimator: str,
                     gamma: float, *, desc: str = "sampled-candidate tables") -> NDArray[np.float64]:
    """The tables of every ``n`` in ``sizes`` (one row each), as :func:`estimator_table` computes them.

    A tqdm bar over the tables appears once they have taken ``PROGRESS_DELAY`` seconds (the
    first run of a per-user ``n_items``; later runs read them from disk), unless
    :func:`table_progress` turned it off.
    """
    enabled = _progress.get()
    if enabled is None:
        enabled = sys.stderr is not None and sys.stderr.isatty()
    bar = None
    # the naive and rescaled tables are a formula each: no bar
    if enabled and len(sizes) > 1 and estimator in ("minimal_bias", "bias_variance"):
        from tqdm.auto import tqdm
        bar = tqdm(total=len(sizes), desc=f"rankeval: {desc}", unit="table", leave=False, delay=PROGRESS_DELAY)
    rows = []
    try:
        for n in sizes:
            rows.append(estimator_table(int(n), m, value, estimator, gamma))
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    return np.stack(rows) if rows else np.empty((0, m + 1))
