"""One self-contained HTML page of an evaluation or a comparison: :func:`report`.

The page (docs/report.md) holds, in this order:

- the summary: the table of means with significance marks and the table of paired
  differences with their CIs, the same numbers as :meth:`ComparisonResult.to_markdown`
  (sortable by clicking a column header); for one system, the per-split table of
  :class:`~rankeval.EvalModel`;
- metric@k curves: every metric computed at several cutoffs (``NDCG@1``, ``NDCG@5``,
  ...: one panel per stem), one line per system with a percentile-bootstrap band of
  its mean;
- per-user distributions per system and the paired differences with their CIs
  (:meth:`ComparisonResult.plot`);
- with 3 or more systems, Friedman's test with the mean ranks and one
  critical-difference diagram per metric;
- beyond accuracy and groups: the system-level metrics of the comparison and any table
  passed as ``groups`` (e.g. :meth:`EvalModel.by_group`);
- the metric card: convention, relevance threshold, tie rule, tests, users per split,
  versions and the command or call that made the page.

Figures are drawn with matplotlib and embedded in the page (inline SVG, or PNG as a
``data:`` URI); each ``<figure>`` carries the numbers it draws as JSON in a ``data-values``
attribute (escaped text, never run); styles and the sorting script are inline: the page
needs no network and no other file. Needs the ``report`` extra, Jinja2 and matplotlib:
``pip install 'jinja2>=3.1' 'matplotlib>=3.8'``.
"""

from __future__ import annotations

import html as html_text
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from ..data.internal import check_choice, check_integer, check_number
from ..evaluation import ComparisonResult
from ..io.internal import atomic_path
from ..views.internal import literal_text
from ._build import build
from ._card import default_command
from ._figures import ImageFormat, Kind, require_matplotlib
from ._strata import propensity_setting, strata_frames, strata_section
from ._tables import groups_tables
from ._view import View, from_comparison, from_evaluation, truth_user_counts, view_of

if TYPE_CHECKING:
    from ..evaluation import EvalModel
    from ..metrics import RankingMetric

__all__ = ["report", "Report", "MAX_BOOTSTRAP"]

#: the most bootstrap resamples of the report's bands
MAX_BOOTSTRAP = 100_000
#: the height in pixels of a report shown inline in a notebook (the page scrolls inside its frame)
INLINE_HEIGHT = 600


@dataclass(frozen=True)
class Report:
    """A rendered report: the HTML text and where it was written.

    Attributes
    ----------
    html : str
        The whole page: one self-contained HTML document.
    path : Path or None
        The file written, or None when :func:`report` was given no ``path``.
    sections : tuple of str
        The ``id`` of every section the page holds, in order (e.g. ``"summary"``,
        ``"curves"``, ``"distributions"``, ``"many"``, ``"beyond"``, ``"card"``).
    """

    html: str
    path: Path | None
    sections: tuple[str, ...]

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (UTF-8) and return it as a Path."""
        target = Path(path)
        with atomic_path(target) as temporary:
            Path(temporary).write_text(self.html, encoding="utf-8")
        return target

    def _repr_html_(self) -> str:
        """The page inline in a notebook, in an ``<iframe srcdoc>`` so its styles and script
        stay inside it (the notebook's own styles untouched)."""
        return (f'<iframe srcdoc="{html_text.escape(self.html, quote=True)}" style="width: 100%; '
                f'height: {INLINE_HEIGHT}px; border: 1px solid #ddd;" sandbox="allow-scripts" '
                f'title="rankeval report"></iframe>')


@literal_text
def sampled_setting(options: Mapping[str, Any], metrics: Sequence[RankingMetric] | None) -> str:
    """The metric card's line on a sampled-candidate design ("" without one)."""
    from ..metrics.sampled import DEFAULT_GAMMA, SampledMetric
    found = [m for m in metrics or [] if isinstance(m, SampledMetric)]
    # the corrected column's metric names the estimator (a naive column is there with every estimator)
    found.sort(key=lambda m: m.estimator == "naive")
    design = options.get("sampled", found[0].design if found else None)
    if design is None:
        return ""
    estimator = options.get("estimator", found[0].estimator if found else "bias_variance")
    if estimator == "bias_variance":
        gamma = options.get("gamma")
        gamma = gamma if gamma is not None else (found[0].gamma if found else DEFAULT_GAMMA)
        estimator = f"{estimator!r} (gamma {gamma:g})"
    else:
        estimator = repr(estimator)
    return (f"{design!r}, estimator {estimator}: each metric is the estimate of its full-catalog value "
            f"from the sampled rank of the positive; METRIC-naive is the value of the sampled list itself "
            f"(docs/sampled.md)")


def report(result: ComparisonResult | EvalModel | tuple[pd.DataFrame, pd.DataFrame] | None = None,
           path: str | os.PathLike[str] | None = None, *,
           systems: Mapping[str, Any] | None = None, truth: Any = None,
           metrics: Sequence[RankingMetric] | None = None, system_name: str = "system",
           groups: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None, title: str = "rankeval report",
           strata: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None,
           digits: int = 4, n_bootstrap: int = 1000, confidence: float = 0.95, seed: int = 0,
           kind: Kind = "box", image_format: ImageFormat = "svg", command: str | None = None,
           progress: bool | None = None, **compare_options: Any) -> Report:
    """Write one self-contained HTML page of an evaluation or a comparison.

    Give either a finished ``result`` or ``systems``, ``truth`` and ``metrics`` (then
    :func:`~rankeval.compare` runs here, with ``compare_options``; a mapping of one
    system runs :class:`~rankeval.EvalModel` instead). See docs/report.md for the page.

    Parameters
    ----------
    result : ComparisonResult, EvalModel or (sys_result, users_result), optional
        A comparison (:func:`~rankeval.compare`), or one system's evaluation: an
        :class:`~rankeval.EvalModel` (fitted here if it was not) or the frames its
        ``fit()`` returned.
    path : str or PathLike, optional
        Where to write the page (UTF-8). Its folder must exist.
    systems : mapping of name -> DataFrame or list of DataFrame, optional
        Recommendation lists per system (one frame per split), as :func:`compare` takes them.
    truth : DataFrame or list of DataFrame, optional
        Held-out ratings, one frame per split.
    metrics : list of RankingMetric, optional
        The metrics to compute (with ``systems``); with a ``result``, the metrics that
        made it, shown in the metric card (relevance threshold, parameters).
    system_name : str
        The system's name in the page of a single evaluation.
    groups : DataFrame or mapping of str -> DataFrame, optional
        Beyond-accuracy or per-group results to show as tables, e.g.
        :meth:`EvalModel.by_group`'s frame; a mapping gives each table a title.
    title : str
        The page's title.
    strata : DataFrame or mapping of str -> DataFrame, optional
        Popularity strata (:func:`rankeval.unbiased.stratified`), one frame per system: a
        section with their table and a figure of each metric from the tail stratum to the head.
    digits : int
        Decimals of the tables (as :meth:`ComparisonResult.to_markdown`).
    n_bootstrap : int
        Resamples of the bands of the metric@k curves (at least 10).
    confidence : float
        Confidence of those bands, in (0, 1).
    seed : int
        Seed of the bands' resampling (and of ``compare`` when it runs here, unless
        ``compare_options`` holds a ``seed`` of its own).
    kind : {"box", "violin"}
        Plots of the per-user distributions.
    image_format : {"svg", "png"}
        Figures as inline SVG (sharp at any zoom) or as PNG data URIs (smaller with
        very many users).
    command : str, optional
        What made the page, shown in the metric card (the CLI passes its command line);
        default this call, the file and line that made it and the process's command line.
    progress : bool, optional
        A progress bar over the sections on standard error (default: on a terminal).
    **compare_options
        Passed to :func:`~rankeval.compare` (``test``, ``correction``, ``alpha``,
        ``n_resamples``, ``ci_method``, ``baseline``, ``convention``, ``missing_users``,
        ``split_names``, side data, column names, ``score_order``, ``ties``...) or, for one system, to
        :class:`~rankeval.EvalModel`. Only with ``systems``. When the train frames are
        known (``truth`` a Splits object, ``train=``, or side data holding ``train``), the
        page audits every split with every system's lists (:func:`rankeval.audit`).

    Returns
    -------
    Report
        The HTML text, the file written (if any) and the sections of the page.

    Raises
    ------
    ValueError
        Neither or both of ``result`` and ``systems``; ``systems`` without ``truth`` or
        ``metrics``; a bad option value; ``path`` in a folder that does not exist.
    TypeError
        ``result`` or ``groups`` of a wrong type.
    ImportError
        Jinja2 or matplotlib missing (``pip install 'jinja2>=3.1' 'matplotlib>=3.8'``, the ``report`` extra).

    Notes
    -----
    The bands of the curves are percentile-bootstrap intervals of each system's mean,
    users drawn with replacement within each split (:func:`rankeval.stats.bootstrap_mean_ci`): they
    describe each system on its own; whether two systems differ is what the paired tests
    of the summary say. Warnings raised while the page is made (e.g. units the Friedman
    test leaves out) are listed in the metric card and passed on to the caller.
    """
    from ..evaluation import EvalModel

    digits = check_integer("digits", digits, 0)
    n_bootstrap = check_integer("n_bootstrap", n_bootstrap, 10)
    if n_bootstrap > MAX_BOOTSTRAP:
        # every resampled mean is kept for the quantiles: memory grows with the count
        raise ValueError(f"`n_bootstrap` must be at most {MAX_BOOTSTRAP:,} (the bands' Monte Carlo error is then "
                         f"far below their width), got {n_bootstrap:,}")
    seed = check_integer("seed", seed, 0)
    confidence = check_number("confidence", confidence)
    kind = cast(Kind, check_choice("kind", kind, ["box", "violin"]))
    image_format = cast(ImageFormat, check_choice("image_format", image_format, ["svg", "png"]))
    if not isinstance(title, str):
        raise TypeError(f"`title` must be a str, got {type(title).__name__}")
    if command is not None and not isinstance(command, str):
        raise TypeError(f"`command` must be a str, got {type(command).__name__}")
    target = _target(path)
    if result is not None and systems is not None:
        raise ValueError("pass either `result` (a ComparisonResult or an evaluation) or `systems`, `truth` and "
                         "`metrics`, not both")
    if result is None and systems is None:
        raise ValueError("nothing to report: pass `result` (a ComparisonResult, an EvalModel or its fit() "
                         "frames) or `systems`, `truth` and `metrics`")
    if result is not None and compare_options:
        raise ValueError(f"{sorted(compare_options)} only apply when report() runs compare itself (with "
                         f"`systems`, `truth` and `metrics`); the result given was already computed")
    jinja2 = _jinja2()
    require_matplotlib()
    tables_extra = groups_tables(groups, digits)
    strata_by_system = strata_frames(strata)

    caught: list[warnings.WarningMessage] = []
    settings = {"n_bootstrap": n_bootstrap, "confidence": confidence, "seed": seed, "kind": kind,
                "image_format": image_format}
    steps = 6 + (systems is not None)
    bar = _progress(progress, steps)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if systems is not None:
                bar.set_postfix_str("computing the metrics", refresh=True)
                view = _run(systems, truth, metrics, system_name, seed, progress, compare_options)
                bar.update()
                kind_text = f"systems={{{', '.join(repr(str(s)) for s in systems)}}}, truth=..., metrics=[...]"
                call_options = {**compare_options, **settings}
            else:
                view = view_of(result, metrics, system_name, EvalModel)
                kind_text = {True: "<ComparisonResult>", False: "<evaluation>"}[view.comparison is not None]
                call_options = settings
            view.call_settings = {"curve bands": f"{100 * confidence:g}% percentile bootstrap of each system's "
                                                 f"mean, {n_bootstrap} resamples within splits, seed {seed}"}
            sampled = sampled_setting(compare_options if systems is not None else {}, view.metric_objects)
            if sampled:
                view.call_settings["sampled candidates"] = sampled
            view.call_settings.update(propensity_setting(view.metric_objects))
            if command is None:
                command = default_command(kind_text, target, call_options)  # here: it reads its caller's frame
            page = build(view, bar, title=title, digits=digits, n_bootstrap=n_bootstrap, confidence=confidence,
                         seed=seed, kind=kind, image_format=image_format, tables_extra=tables_extra,
                         command=command, caught=caught)
            if strata_by_system:  # before the metric card, the last section
                page["sections"].insert(-1, strata_section(strata_by_system, digits, image_format))
    finally:
        bar.close()
    _pass_on(caught)
    html = jinja2.render(page)
    out = Report(html=html, path=target, sections=tuple(s["id"] for s in page["sections"]))
    if target is not None:
        out.save(target)
    return out


def _target(path: str | os.PathLike[str] | None) -> Path | None:
    """``path`` as a Path, checked before any work: a file in a folder that exists."""
    target = None if path is None else Path(path)
    if target is not None:
        if target.is_dir():
            raise ValueError(f"`path` {str(target)!r} is a folder, not a file")
        if not target.resolve().parent.is_dir():
            raise ValueError(f"`path` {str(target)!r}: the folder '{target.resolve().parent}' does not exist")
    return target


def _pass_on(caught: list[warnings.WarningMessage]) -> None:
    """Warn again, once each, of every warning caught while the page was made."""
    seen: set[str] = set()
    for w in caught:
        text = str(w.message)
        if text not in seen:
            seen.add(text)
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _progress(show: bool | None, total: int) -> Any:
    """A tqdm bar over the page's sections on standard error (default: on a terminal)."""
    from .._progress import progress_bar

    enabled = sys.stderr.isatty() if show is None else bool(show)
    return progress_bar(enabled=enabled, total=total, desc="rankeval report", unit="section", leave=False,
                        bar_format="{desc}: {n_fmt}/{total_fmt} sections [{elapsed}] {postfix}")


def _jinja2() -> Any:
    """The page's template, or an ImportError saying how to install Jinja2."""
    try:
        import jinja2
    except ImportError as exc:
        raise ImportError("the report is written with Jinja2, which is not installed: "
                          "pip install 'jinja2>=3.1' 'matplotlib>=3.8' (the report extra)") from exc
    env = jinja2.Environment(loader=jinja2.PackageLoader("rankeval.page", "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    return env.get_template("report.html.j2")


def _run(systems: Mapping[str, Any], truth: Any, metrics: Sequence[RankingMetric] | None, system_name: str,
         seed: int, progress: bool | None, options: dict[str, Any]) -> View:
    """Compute what the page shows: :func:`compare` over the systems, or EvalModel for one system."""
    from ..evaluation import EvalModel, compare
    from ..evaluation.internal import splits_as_truth

    if not isinstance(systems, Mapping) or not systems:
        raise ValueError(f"`systems` must be a non-empty mapping of name -> DataFrame(s), got {systems!r:.80}")
    if truth is None or metrics is None:
        raise ValueError("`systems` needs `truth` and `metrics` too: report() runs compare(systems, truth, metrics)")
    # a Splits truth: its tests, with its trains as train= and its names as split_names=
    given = {k: v for k, v in options.items() if k not in ("train", "split_names")}
    truth, train, split_names, given = splits_as_truth(truth, options.get("train"), options.get("split_names"), given)
    options = {**given, **{k: v for k, v in (("train", train), ("split_names", split_names)) if v is not None}}
    names = [str(s) for s in systems]
    n_splits = len(truth) if isinstance(truth, (list, tuple)) else 1
    split_names = [str(s) for s in options.get("split_names") or [f"fold{i + 1}" for i in range(n_splits)]]
    user_col = options.get("user_col", "user_id")
    if len(names) == 1:
        frames = next(iter(systems.values()))
        compare_only = {"test", "correction", "baseline", "alpha", "n_resamples", "seed", "ci_method"}
        extra = {k: v for k, v in options.items() if k not in compare_only}
        model = EvalModel(frames, truth, metrics, progress=None if progress else False, **extra)
        view = from_evaluation(*model.fit(), names[0], model)
    else:
        res = compare(systems, truth, metrics, **{"seed": seed, "progress": None if progress else False, **options})
        view = from_comparison(res)
        objects = [e for m in metrics for e in m.expand()]
        if res.convention != "rankeval":
            objects = [m.with_convention(res.convention) for m in objects]
        view.metric_objects = objects
        from .. import conventions
        preset = conventions.get_convention(res.convention) if res.convention in conventions.names() else None
        view.ties = options.get("ties") or (preset.ties if preset is not None else "row_order")
        view.score_order = options.get("score_order")
        view.missing_users = options.get("missing_users") or (preset.missing_users if preset is not None
                                                              else "ignore")
        try:
            view.user_counts = truth_user_counts(systems, truth, split_names, user_col,
                                                 options.get("truth_user_col") or user_col)
        except (KeyError, TypeError, ValueError):  # an input kind the counts cannot read: shown as unknown
            view.user_counts = None
    view.audits = _audits(systems, truth, options, split_names)
    return view


def _audits(systems: Mapping[str, Any], truth: Any, options: Mapping[str, Any], split_names: list[str]
            ) -> list[tuple[str, Any]] | None:
    """The audit of every split, with every system's lists, when ``train`` (or the side data's
    train, as the command line's ``--train`` gives it) is known and local."""
    from ..data import Columns
    from ..data.internal import ids_under_truth_names, is_frame, is_spark_frame, to_pandas
    from ..split import audit

    truths = list(truth) if isinstance(truth, (list, tuple)) else [truth]
    train = options.get("train")
    if train is None:  # the train frames of side data (the command line's --train): the same audit
        train = _side_trains(options.get("side"), len(truths), Columns.from_options(options))
    if train is None:
        return None
    trains = list(train) if isinstance(train, (list, tuple)) else [train] * len(truths)
    frames = {str(name): list(f) if isinstance(f, (list, tuple)) else [f] for name, f in systems.items()}
    every = trains + truths + [f for fs in frames.values() for f in fs]
    if len(trains) != len(truths) or not all(is_frame(f) and not is_spark_frame(f) for f in every):
        return None  # Spark or another shape: the page says nothing rather than something partial
    c = Columns.from_options(options)
    catalogs = _catalogs(options, len(truths), c.truth_item)
    # the audit reads the lists under the truth's names
    return [(name, audit(trains[i], truths[i], {s: ids_under_truth_names(to_pandas(fs[i], "pred"), c)
                                                 for s, fs in frames.items()},
                         user_col=c.truth_user, item_col=c.truth_item, score_col=c.truth_score,
                         relevant_threshold=_threshold_of(options), catalog=catalogs[i]))
            for i, name in enumerate(split_names)]


def _catalogs(options: Mapping[str, Any], n_splits: int, item_col: str) -> list[Any]:
    """The catalog given for every split (``catalog=``, or the side data's), None where there is none."""
    from ..data.internal import sides_per_split

    side = options.get("side")
    if side is not None:
        sides = list(side) if isinstance(side, (list, tuple)) else [side] * n_splits
    else:
        sides = sides_per_split(n_splits, catalog=options.get("catalog"), item_col=item_col)
    return [s.catalog if s is not None and getattr(s, "catalog_given", False) else None for s in sides]


def _side_trains(side: Any, n_splits: int, c: Any) -> list[Any] | None:
    """The train frame of every split's SideData (one for every split, or a list with one per
    split), or None unless every split has one under the truth's column names."""
    sides = list(side) if isinstance(side, (list, tuple)) else [side] * n_splits
    trains = [getattr(s, "train", None) for s in sides]
    if not trains or any(t is None or c.truth_user not in t.columns or c.truth_item not in t.columns
                         for t in trains):
        return None
    return trains


def _threshold_of(options: Mapping[str, Any]) -> float | None:
    """The fixed relevance threshold of the call, if one was given (the audit's test-set shape uses it)."""
    value = options.get("relevant_threshold")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

