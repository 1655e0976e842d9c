"""How the report reads, checked on the objects drawn and the HTML written:
few, short tick labels that do not run into each other on the paired-difference axes; no card
without content; one protocol-audit table; one p-value format on the whole page; a note on why
Nemenyi and the paired tests can disagree. (The browser reads the audit's wrapping notes in
tests/test_report.py.)"""

from __future__ import annotations

import re
import warnings
from html import unescape

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.datasets import make_ratings, recommend
from rankeval.views._tables import format_p


SYSTEMS = {"popularity": "popularity", "random": "random", "noisy_oracle": "noisy_oracle"}
#: names long enough that the pairs' labels take a good part of the figure's width
LONG = {"a_fairly_long_system_name_one": "popularity", "another_long_system_name_two": "random",
        "a_third_system_with_a_long_name": "random"}


def _lists(splits, kinds: dict[str, str]) -> dict[str, list]:
    return {name: [recommend(train, test, kind, n=20, seed=i + 7 * j) for i, (train, test) in enumerate(splits)]
            for j, (name, kind) in enumerate(kinds.items())}


@pytest.fixture(scope="module")
def data() -> dict:
    ratings = make_ratings(n_users=300, n_items=200, ratings_per_user=30, seed=0, timestamps=True)
    splits = rk.split.kfold(ratings, n_splits=2, seed=0)
    return {"splits": splits, "lists": _lists(splits, SYSTEMS), "long": _lists(splits, LONG)}


@pytest.fixture(scope="module")
def comparison(data) -> rk.ComparisonResult:
    return rk.compare(data["lists"], data["splits"], [rk.NDCGAtK([5, 10]), rk.MRRAtK(10)], n_resamples=200,
                      seed=0)


def _difference_labels(fig) -> list[tuple[list[str], list]]:
    """Per panel of paired differences (the figure's bottom row): the tick labels shown (inside the
    axis' limits) and their extents as drawn."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes[len(fig.axes) // 2:]:
        low, high = ax.get_xlim()
        shown = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()
                 and low <= t.get_position()[0] <= high]
        out.append(([t.get_text() for t in shown], [t.get_window_extent(renderer) for t in shown]))
    return out


@pytest.mark.parametrize("systems", ["lists", "long"])
def test_the_difference_axes_have_few_short_labels_that_do_not_overlap(data, systems):
    import matplotlib.pyplot as plt

    res = rk.compare(data[systems], data["splits"], [rk.NDCGAtK([5, 10, 20]), rk.MRRAtK(10)], n_resamples=200,
                     seed=0)
    fig = res.plot()
    try:
        panels = _difference_labels(fig)
    finally:
        plt.close(fig)
    assert len(panels) == 4
    for labels, extents in panels:
        assert 2 <= len(labels) <= 5, labels
        # compact: no trailing zero ("0.50", "0.0"), a true minus sign
        assert all(not re.search(r"\.\d*0$", text) and "-" not in text for text in labels), labels
        for left, right in zip(extents, extents[1:]):
            assert left.x1 < right.x0, (labels, left, right)


def test_a_report_without_several_cutoffs_has_no_curves_card(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        page = rk.report(systems=data["lists"], truth=data["splits"], metrics=[rk.NDCGAtK(10), rk.MRRAtK(10)],
                         n_resamples=200, n_bootstrap=50, progress=False)
    assert "curves" not in page.sections
    assert "Metrics at every cutoff" not in page.html and 'href="#curves"' not in page.html
    assert page.sections[:3] == ("summary", "sure", "distributions")


def _tables(html: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    """Every table of a page: id -> (header, rows of cell texts)."""
    out = {}
    for table in re.findall(r'<table class="sortable" id="([^"]+)">(.*?)</table>', html, flags=re.S):
        table_id, body = table
        head = [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<th[^>]*>(.*?)</th>", body, flags=re.S)]
        rows = [[unescape(c) for c in re.findall(r'<span class="v">(.*?)</span>', row, flags=re.S)]
                for row in re.findall(r"<tr>\s*(<td.*?)</tr>", body, flags=re.S)]
        out[table_id] = (head, rows)
    return out


def test_the_audit_of_every_split_is_one_table_with_every_number(data):
    splits, lists = data["splits"], data["lists"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        page = rk.report(systems=lists, truth=splits, metrics=[rk.NDCGAtK(10)], n_resamples=200, n_bootstrap=50,
                         progress=False)
    audit_section = page.html[page.html.index('<section id="audit"'):]
    audit_section = audit_section[:audit_section.index("</section>")]
    assert audit_section.count("<table") == 1
    head, rows = _tables(page.html)["audit"]
    assert head == ["check", "split", "count", "of", "share", "users_affected", "note"]
    audits = [rk.audit(train, test, {s: f[i] for s, f in lists.items()}) for i, (train, test) in enumerate(splits)]
    checks = list(audits[0].table.index)
    assert len(rows) == len(checks) * len(splits)
    # a check's splits side by side, every number of every split's audit
    for row, (check, i) in zip(rows, [(c, i) for c in checks for i in range(len(splits))]):
        line = audits[i].table.loc[check]
        assert row[:2] == [check, splits.names[i]]
        for text, key in zip(row[2:4] + row[5:6], ("count", "of", "users_affected")):
            assert text == ("–" if pd.isna(line[key]) else str(int(line[key])))
        assert row[4] == ("–" if pd.isna(line["share"]) else f"{float(line['share']):.4f}")
        assert row[6] == str(line["note"])
    # the notes wrap in their cells
    notes = re.findall(r'<td class="([^"]*)"[^>]*><span class="v">[^<]*\(share of', audit_section)
    assert notes and all("wrap" in c.split() for c in notes)
    for i, name in enumerate(splits.names):
        assert f"<li>{name}: {audits[i].verdict}</li>".replace("'", "&#39;") in audit_section


def test_every_p_value_of_the_page_is_written_one_way(data, comparison):
    """The Friedman table, the paired differences and any table handed to the page (here the post-hoc tables)
    write a p-value by one rule: < 0.0001 below it, never 0.0000."""
    friedman, nemenyi = comparison.friedman(), comparison.nemenyi()
    assert (friedman["p_value"] < 1e-4).any() and (nemenyi["p_value"] < 1e-4).any()  # the case this is about
    page = rk.report(comparison, groups={"Friedman": friedman, "Nemenyi": nemenyi}, n_bootstrap=50,
                     progress=False)
    tables = _tables(page.html)
    head, rows = tables["friedman"]
    assert [r[head.index("p")] for r in rows] == [format_p(p) for p in friedman["p_value"]]
    assert [r[head.index("p (F)")] for r in rows] == [format_p(p) for p in friedman["iman_davenport_p"]]
    head, rows = tables["differences"]
    assert [r[head.index("p (adjusted)")] for r in rows] == [format_p(p) for p in comparison.table["p_adjusted"]]
    for table_id, frame in (("extra-1", friedman), ("extra-2", nemenyi)):
        head, rows = tables[table_id]
        for column in ("p_value", "iman_davenport_p"):
            if column in frame.columns:
                assert [r[head.index(column)] for r in rows] == [format_p(p) for p in frame[column]]
    assert "&lt; 0.0001" in page.html
    for table_id, (head, rows) in tables.items():
        p_columns = [i for i, h in enumerate(head) if h in ("p", "p (F)", "p (adjusted)", "p_value",
                                                             "iman_davenport_p")]
        assert all(r[i] != "0.0000" for r in rows for i in p_columns), table_id


def test_format_p():
    assert [format_p(p) for p in (0.0, 3e-5, 1e-4, 0.01234, 1.0, float("nan"))] == \
        ["< 0.0001", "< 0.0001", "0.0001", "0.0123", "1.0000", "–"]


def _tenth_and_eleventh_swapped(frame: pd.DataFrame) -> pd.DataFrame:
    """The same lists with each user's 10th and 11th items swapped: a small change in the same direction
    for the few users whose 10th item is relevant."""
    position = frame.groupby("user_id").cumcount().to_numpy()
    items = frame["item_id"].to_numpy().copy()
    tenth, eleventh = np.flatnonzero(position == 9), np.flatnonzero(position == 10)
    items[tenth], items[eleventh] = items[eleventh], items[tenth].copy()
    return frame.assign(item_id=items)


def test_the_many_systems_card_says_why_nemenyi_and_the_paired_tests_differ(data):
    """A small difference in one direction: the paired test finds it, Nemenyi on the ranks of three systems
    does not; the card says why, and names the pairs."""
    popularity = data["lists"]["popularity"]
    lists = {"popularity": popularity, "popularity_swapped": [_tenth_and_eleventh_swapped(f) for f in popularity],
             "random": data["lists"]["random"]}
    res = rk.compare(lists, data["splits"], [rk.NDCGAtK(10), rk.PrecisionAtK(10)], n_resamples=200, seed=0)
    pair = ("popularity", "popularity_swapped")
    for metric in ("NDCG@10", "P@10"):  # the case this is about
        assert res.table.loc[(metric, *pair), "significant"]
        assert not res.nemenyi().loc[(metric, *pair), "significant"]
    page = rk.report(res, n_bootstrap=50, progress=False)
    note = re.search(r'<p class="note posthoc">(.*?)</p>', page.html, flags=re.S)
    assert note is not None
    text = unescape(note.group(1))
    assert "mean ranks across all systems" in text and "per-unit differences" in text
    assert text.endswith("Here they disagree on 2 pair(s): NDCG@10: popularity vs popularity_swapped; "
                         "P@10: popularity vs popularity_swapped.")
    # where they agree, nothing is named
    agree = rk.report(rk.compare(data["lists"], data["splits"], [rk.NDCGAtK(10)], n_resamples=200, seed=0),
                      n_bootstrap=50, progress=False)
    assert "mean ranks across all systems" in agree.html and "disagree on" not in agree.html


@pytest.mark.parametrize("name, is_p", [("p", True), ("p_value", True), ("p_adjusted", True), ("p (F)", True),
                                        ("p (adjusted)", True), ("iman_davenport_p", True), ("P@10", False),
                                        ("precision", False), ("p_at_10", False), ("popularity", False)])
def test_which_columns_hold_p_values(name, is_p):
    from rankeval.views._tables import is_p_column

    assert is_p_column(name) is is_p
