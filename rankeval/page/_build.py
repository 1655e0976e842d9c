"""The template's context: the page assembled section by section from a :class:`View`."""

from __future__ import annotations

import datetime as _dt
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..evaluation import ComparisonResult
from ._card import card
from ._figure_data import critical_difference_values, figure_json
from ._figures import (
    COLORS,
    ImageFormat,
    Kind,
    comparison_distributions,
    curves_figure,
    cutoff_groups,
    embed,
    evaluation_distribution,
)
from ._sure import sure_section
from ._tables import counts_table, evaluation_table, frame_table, friedman_table, summary_tables
from ._view import View

__all__ = ["build"]


def build(view: View, bar: Any, *, title: str, digits: int, n_bootstrap: int, confidence: float, seed: int,
          kind: Kind, image_format: ImageFormat, tables_extra: list[tuple[str, dict[str, Any]]], command: str,
          caught: list[warnings.WarningMessage]) -> dict[str, Any]:
    """The template's context, section by section (one progress step each)."""
    res = view.comparison
    sections: list[dict[str, Any]] = []

    def step(text: str) -> None:
        bar.set_postfix_str(text, refresh=True)

    step("summary tables")
    sections.append(_summary_section(view, digits))
    bar.update()
    if res is not None:
        sure = sure_section(res, digits)
        if sure is not None:
            sections.append(sure)
    step("metric@k curves")
    curves = _curves_section(view, n_bootstrap, confidence, seed, image_format)
    if curves is not None:
        sections.append(curves)
    bar.update()
    step("per-user distributions")
    sections.append(_distributions_section(view, kind, image_format))
    bar.update()
    step("Friedman test and critical differences")
    if res is not None and len(res.systems) >= 3:
        sections.append(_many_systems_section(res, digits, image_format))
    bar.update()
    step("beyond accuracy and groups")
    extra = _beyond_tables(res, tables_extra, digits)
    if extra:
        sections.append({"id": "beyond", "title": "Beyond accuracy and groups", "tables": extra})
    bar.update()
    if view.audits:
        sections.append(_audit_section(view.audits, digits))
    step("metric card")
    sections.append(_card_section(view, command, caught))
    bar.update()
    generated = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    subtitle = (f"{len(view.systems)} system{'s' if len(view.systems) > 1 else ''} · {len(view.metrics)} metrics · "
                f"{len(view.split_names)} split{'s' if len(view.split_names) != 1 else ''} · "
                f"{len(view.units)} (split, user) units")
    return {"title": title, "subtitle": subtitle, "generated": generated, "sections": sections,
            "systems": [(s, COLORS[i % len(COLORS)]) for i, s in enumerate(view.systems)]}


def _summary_section(view: View, digits: int) -> dict[str, Any]:
    """(a) The tables of means and of paired differences; for one system, its per-split table."""
    res = view.comparison
    if res is not None:
        means, diffs, note = summary_tables(res, digits)
        return {"id": "summary", "title": "Summary", "means": means, "differences": diffs, "note": note}
    assert view.sys_result is not None
    return {"id": "summary", "title": "Summary", "means": evaluation_table(view.sys_result, digits),
            "differences": None,
            "note": f"{view.systems[0]}: the mean over each split's users (NaN values left out), "
                    f"and the unweighted mean of the splits."}


def _curves_section(view: View, n_bootstrap: int, confidence: float, seed: int,
                    image_format: ImageFormat) -> dict[str, Any] | None:
    """(b) The metric@k curves with their bands; None when no metric has several cutoffs."""
    groups = cutoff_groups(view.metrics)
    if not groups:
        return None  # no metric at several cutoffs: no card rather than an empty one
    fig, values = curves_figure(view, groups, n_bootstrap, confidence, seed)
    stems = ", ".join(groups)
    return {"id": "curves", "title": "Metrics at every cutoff", "figures": [
        _figure(fig, values, image_format, f"metric at k curves of {stems}")],
        "note": f"Each line: a system's mean at every cutoff; the band: its {100 * confidence:g}% percentile "
                f"bootstrap interval ({n_bootstrap} resamples of the users within each split, seed {seed})."}


def _distributions_section(view: View, kind: Kind, image_format: ImageFormat) -> dict[str, Any]:
    """(c) Per-user distributions, and for a comparison the paired differences with their CIs."""
    res = view.comparison
    if res is not None:
        figures = [_figure(f, values, image_format, f"per-user distributions and paired differences, figure {i + 1}")
                   for i, (f, values) in enumerate(comparison_distributions(res, kind))]
        note = ("Top: each system's per-user values (the diamond is the mean). Bottom: every tested difference "
                "b − a with its CI; filled markers are significant after the correction.")
    else:
        figures = [_figure(*evaluation_distribution(view, kind), image_format, "per-user distributions")]
        note = "The per-user values of every metric (the diamond is the mean), NaN values left out."
    return {"id": "distributions", "title": "Per-user distributions", "figures": figures, "note": note}


def _many_systems_section(res: ComparisonResult, digits: int, image_format: ImageFormat) -> dict[str, Any]:
    """(d) Three or more systems: Friedman's test and one critical-difference diagram per metric."""
    diagrams = []
    for metric in res.metrics:
        try:
            ax = res.plot_critical_difference(metric)
        except ValueError as exc:  # too few complete units for this metric
            diagrams.append({"metric": metric, "figure": None, "note": str(exc)})
            continue
        ax.set_title(metric, fontsize=10)
        values = critical_difference_values(ax, metric, res.alpha)
        diagrams.append({"metric": metric, "note": "", **_figure(ax.figure, values, image_format,
                                                                 f"critical-difference diagram of {metric}")})
    return {"id": "many", "title": "Many systems: Friedman test and critical differences",
            "friedman": friedman_table(res, digits), "diagrams": diagrams,
            "note": "Friedman's test over the units where every system has a value (chi-square with "
                    "tie correction; Iman-Davenport F), and each system's mean rank (1 = best). "
                    "Critical-difference diagrams: systems joined by a thick bar are not "
                    f"significantly different (Nemenyi test, alpha = {res.alpha:g}).",
            "posthoc_note": _posthoc_note(res)}


def _posthoc_note(res: ComparisonResult) -> str:
    """Why Nemenyi and the paired tests of the summary can disagree, and the pairs where they do."""
    why = ("Nemenyi and the paired tests of the summary can disagree: Nemenyi compares mean ranks across "
           "all systems at once (its critical difference grows with their number, and it sees only each "
           "unit's order of the systems), while a paired test reads the two systems' own per-unit "
           "differences, corrected over the pairs tested.")
    nemenyi = res.nemenyi()
    nemenyi = nemenyi[nemenyi["p_value"].notna()]  # a metric with too few complete units is not tested
    paired = {(m, frozenset((a, b))): bool(sig) for (m, a, b), sig in res.table["significant"].items()}
    differ = [f"{m}: {a} vs {b}" for (m, a, b), sig in nemenyi["significant"].items()
              if (m, frozenset((a, b))) in paired and paired[(m, frozenset((a, b)))] != bool(sig)]
    return why + (f" Here they disagree on {len(differ)} pair(s): {'; '.join(differ)}." if differ else "")


def _figure(fig: Any, values: dict[str, Any], image_format: ImageFormat, alt: str) -> dict[str, Any]:
    """A figure for the template: its HTML (:func:`embed`, which closes it) and its values as JSON."""
    return {"figure": embed(fig, image_format, alt), "values": figure_json(values)}


def _beyond_tables(res: ComparisonResult | None, tables_extra: list[tuple[str, dict[str, Any]]],
                   digits: int) -> list[tuple[str, dict[str, Any]]]:
    """(e) The comparison's system-level metrics, then the tables passed as ``groups``."""
    extra = list(tables_extra)
    if res is not None and len(res.system_values.columns):
        extra.insert(0, ("system-level metrics (mean over splits, not tested)",
                         frame_table("system-values", res.system_values, digits)))
    return extra


def _audit_section(audits: list[tuple[str, Any]], digits: int) -> dict[str, Any]:
    """The protocol audit of every split (rankeval.audit): each split's verdict, and one table of
    every check of every split, a check's splits side by side (check, then split, order)."""
    frames = []
    for name, result in audits:
        frame = result.table.copy()
        frame["share"] = frame["share"].astype(np.float64)
        frames.append(frame.rename_axis("check").reset_index().assign(split=name))
    table = pd.concat(frames, ignore_index=True)
    # the checks in the audit's own order (the first split's, then any a later split adds), splits in order
    order = pd.Index(pd.unique(table["check"]))
    table["_check"] = order.get_indexer(table["check"])
    table = table.sort_values(["_check"], kind="stable").drop(columns="_check")
    table = table[["check", "split", *(c for c in table.columns if c not in ("check", "split"))]]
    table = table.astype({c: object for c in ("count", "of", "users_affected")})
    table = table.where(table.notna(), None).reset_index(drop=True)
    return {"id": "audit", "title": "Protocol audit",
            "verdicts": [f"{name}: {result.verdict}" for name, result in audits],
            "table": frame_table("audit", table, digits, wrap=("note",)),
            "note": "rankeval.audit(train, test, pred) of each split: leakage, time ties and first sessions, seen "
                    "and future items recommended, items outside the catalog (when one is given), overlap, repeat "
                    "test items, cold users and items, the test set's shape and, with two systems or more, the "
                    "minimum detectable effect (docs/protocol.md). One row per check and split; share = count / of."}


def _card_section(view: View, command: str, caught: list[warnings.WarningMessage]) -> dict[str, Any]:
    """(f) The metric card, the users per split and the warnings raised while the page was made."""
    items = card(view, command)  # before the warnings are read: any it raises is listed too
    notes = []
    for w in caught:
        text = " ".join(str(w.message).split())
        if text not in notes:
            notes.append(text)
    return {"id": "card", "title": "Metric card", "card": items, "users": counts_table(view), "warnings": notes}
