"""The HTML report, checked as a reader sees it: the page of the bundled demo data opened in
headless Chromium (file://, no network), its tables read from the DOM and compared with the
API's numbers, every figure drawn, no console error, sortable headers; then the page's
self-containment, the CLI and the error paths without a browser.

Every page kind (a comparison with groups and Friedman's test, one system, and a richer pair
with NaN values, missing users, system-level metrics and a one-system page with groups) is
read back whole: every table cell by cell against the API's numbers to the digits shown,
and every figure's ``data-values`` against numbers computed here: the curves' points from
the API, their bands by a percentile bootstrap written out below with plain numpy (the
draws the page documents, seed included) to 1e-12, the box and violin statistics from the
per-user values, the critical-difference diagrams from ``nemenyi()``. Changing any one cell
or any one number makes these checks fail (tested), and so does a band made at 92% instead
of 95%, with another seed, without the splits, with the other mean or as a basic interval
(the page's bootstrap patched).

The browser is Debian's ``chromium`` and ``chromium-driver`` (``make test`` installs them),
driven by selenium. A missing browser fails these tests; it never skips them.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import numbers
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from html import unescape
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

import rankeval as rk
from rankeval.cli import main
from rankeval.datasets import make_ratings, recommend, train_test_folds
from rankeval.page import Report
from rankeval.stats import bootstrap_mean_ci

for _module in ("jinja2", "matplotlib"):  # never skipped: without them the report is untested
    try:
        __import__(_module)
    except ImportError:
        pytest.fail(f"the report's tests need {_module}: pip install -e '.[test,report]' (or run `make test`)",
                    pytrace=False)

CHROMIUM = os.environ.get("RANKEVAL_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("RANKEVAL_CHROMEDRIVER", "/usr/bin/chromedriver")
SYSTEMS = ("popularity", "random", "noisy_oracle")
METRIC_NAMES = ("NDCG@1,5,10", "MAP@10")
HOW_TO_INSTALL = ("run `make test`, which installs them (apt-get install chromium chromium-driver), or set "
                  "RANKEVAL_CHROMIUM / RANKEVAL_CHROMEDRIVER to a Chromium and its driver")


# ---------------------------------------------------------------------- the demo data, small
@pytest.fixture(scope="module")
def demo() -> dict:
    """examples/demo.py's data (three recommenders), small enough for a quick test."""
    ratings = make_ratings(n_users=150, n_items=120, ratings_per_user=25, seed=0)
    folds = list(train_test_folds(ratings, n_folds=2, seed=0))
    truths = [test for _, test in folds]
    lists = {name: [recommend(train, test, name, n=20, seed=i) for i, (train, test) in enumerate(folds)]
             for name in SYSTEMS}
    metrics = [rk.parse_metric(m) for m in METRIC_NAMES]
    comparison = rk.compare(lists, truths, metrics, n_resamples=200, seed=0)
    return {"truths": truths, "lists": lists, "metrics": metrics, "comparison": comparison, "train": folds[0][0]}


@pytest.fixture(scope="module")
def demo_model(demo) -> dict:
    """noisy_oracle's EvalModel on the demo data, fitted, and its table by half of the users."""
    model = rk.EvalModel(demo["lists"]["noisy_oracle"], demo["truths"], demo["metrics"])
    frames = model.fit()
    groups = model.by_group({"first half": [f"u{i:04d}" for i in range(75)],
                             "second half": [f"u{i:04d}" for i in range(75, 150)]})
    return {"model": model, "frames": frames, "groups": groups}


@pytest.fixture(scope="module")
def pages(demo, demo_model, tmp_path_factory) -> dict[str, Report]:
    """The comparison's page (inline SVG) and one system's page (PNG figures)."""
    folder = tmp_path_factory.mktemp("report")
    model, groups = demo_model["model"], demo_model["groups"]
    return {
        "comparison": rk.report(demo["comparison"], folder / "comparison.html", metrics=demo["metrics"],
                                n_bootstrap=200, groups=groups, progress=False),
        "single": rk.report(model, folder / "single.html", system_name="noisy_oracle", image_format="png",
                            n_bootstrap=200, progress=False),
    }


#: a frame of every kind of cell the page's tables know: text, missing text, yes/no, integers, floats, NaN
ODD_CELLS = pd.DataFrame({"label": ["x & <y>", None], "flag": [True, False], "count": [3, 4], "share": [0.25, np.nan]})


@pytest.fixture(scope="module")
def rich(tmp_path_factory) -> dict:
    """Four systems, two of them close (p-values that are not all tiny); NaN values (users without an
    item at the threshold 4.5); one system missing six users of every split; system-level metrics.
    report() runs compare itself (so it knows the truth users); the one-system page has groups."""
    ratings = make_ratings(n_users=120, n_items=100, ratings_per_user=20, seed=5)
    folds = list(train_test_folds(ratings, n_folds=2, seed=5))
    truths, trains = [test for _, test in folds], [train for train, _ in folds]
    kinds = {"pop": "popularity", "rnd1": "random", "rnd2": "random", "oracle": "noisy_oracle"}
    lists = {name: [recommend(train, test, kind, n=15, seed=i + 10 * j) for i, (train, test) in enumerate(folds)]
             for j, (name, kind) in enumerate(kinds.items())}
    gone = [f"u{i:04d}" for i in range(6)]
    lists["rnd2"] = [frame[~frame["user_id"].isin(gone)] for frame in lists["rnd2"]]
    metrics = [rk.RecallAtK([5, 10], relevant_threshold=4.5), rk.MRR(), rk.CatalogCoverage(), rk.GiniIndex()]
    folder = tmp_path_factory.mktemp("rich")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comparison = rk.compare(lists, truths, metrics, train=trains, n_resamples=200, seed=3)
        model = rk.EvalModel(lists["rnd2"], truths, metrics[:2])
        frames = model.fit()
        halves = model.by_group({"first": [f"u{i:04d}" for i in range(60)],
                                 "second": [f"u{i:04d}" for i in range(60, 120)]})
        page = rk.report(systems=lists, truth=truths, metrics=metrics, train=trains, n_resamples=200, seed=3,
                         n_bootstrap=300, kind="violin", groups={"rnd2 by half": halves, "odd cells": ODD_CELLS},
                         path=folder / "rich.html", progress=False)
        single = rk.report(model, folder / "rich_single.html", system_name="rnd2", kind="violin", n_bootstrap=300,
                           seed=3, groups=halves, progress=False)
    assert {type(w.message) for w in caught} == {rk.MissingUsersWarning, rk.DroppedUnitsWarning}
    return {"lists": lists, "truths": truths, "trains": trains, "comparison": comparison, "frames": frames,
            "halves": halves, "page": page, "single": single}


def _case(report: Report, *, res=None, frames=None, system: str = "", groups=(), lists=None, truths=None,
          bands=(200, 0.95, 0), kind: str = "box", trains=None) -> dict:
    """What a page shows, from the API: the comparison or the fitted model, the group tables in order,
    the inputs (to count truth users, when the page knows them), the bands asked for and the plots' kind.
    One system: ``frames`` are its EvalModel.fit() frames (sys_result, users_result)."""
    case = {"report": report, "res": res, "groups": list(groups), "bands": bands, "kind": kind}
    # with train, the page audits every split with every system's lists (rankeval.audit)
    case["audits"] = [] if trains is None else [rk.audit(train, truth, {s: f[i] for s, f in lists.items()})
                                                for i, (train, truth) in enumerate(zip(trains, truths))]
    if res is not None:
        case.update(systems=tuple(res.systems), metrics=tuple(res.metrics), units=res.units,
                    splits=res.units[("split", "")].astype(str).to_numpy())
    else:
        sys_result, users_result = frames
        units = pd.DataFrame({(m, system): users_result[m].to_numpy(dtype=float) for m in users_result.columns})
        case.update(systems=(system,), metrics=tuple(map(str, users_result.columns)), units=units,
                    splits=users_result.index.get_level_values(0).astype(str).to_numpy(), sys_result=sys_result,
                    users_result=users_result)
    case["counts"] = None if lists is None else _truth_counts(lists, truths, list(dict.fromkeys(case["splits"])))
    return case


def _truth_counts(lists: dict, truths: list, splits: list[str]) -> dict[tuple[str, str], tuple[int, int]]:
    """Per (split, system): the truth users, and those of them the system has no list for."""
    out = {}
    for i, (split, truth) in enumerate(zip(splits, truths)):
        users = pd.Index(truth["user_id"].unique())
        for system, frames in lists.items():
            out[(split, system)] = (len(users), int((~users.isin(frames[i]["user_id"])).sum()))
    return out


@pytest.fixture(scope="module")
def cases(demo, demo_model, pages, rich) -> dict[str, dict]:
    """Every page kind with the API objects it shows."""
    return {
        "comparison": _case(pages["comparison"], res=demo["comparison"], groups=[demo_model["groups"]]),
        "single": _case(pages["single"], frames=demo_model["frames"], system="noisy_oracle",
                        lists={"noisy_oracle": demo["lists"]["noisy_oracle"]}, truths=demo["truths"]),
        "rich": _case(rich["page"], res=rich["comparison"], groups=[rich["halves"], ODD_CELLS], lists=rich["lists"],
                      truths=rich["truths"], bands=(300, 0.95, 3), kind="violin", trains=rich["trains"]),
        "rich_single": _case(rich["single"], frames=rich["frames"], system="rnd2", groups=[rich["halves"]],
                             lists={"rnd2": rich["lists"]["rnd2"]}, truths=rich["truths"], bands=(300, 0.95, 3),
                             kind="violin"),
    }


# ---------------------------------------------------------------------- the browser
@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through selenium, with the browser's console log kept."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not (os.path.isfile(p) and os.access(p, os.X_OK))]
    if missing:
        pytest.fail(f"the report's browser tests need Chromium and its driver; not found: {missing}: "
                    f"{HOW_TO_INSTALL}", pytrace=False)
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("the report's browser tests need selenium: pip install -e '.[test]' (or run `make test`)",
                    pytrace=False)
    profile = tempfile.mkdtemp(prefix="rankeval-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1600", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _open(driver, report: Report) -> list[dict]:
    """Load the page from disk; return the browser's console messages of the load."""
    driver.get_log("browser")  # forget earlier pages
    driver.get(report.path.resolve().as_uri())
    driver.execute_script("return document.readyState")
    return driver.get_log("browser")


def _rows(driver, table_id: str) -> list[list[str]]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#' + arguments[0] + ' tbody tr'))"
        ".map(r => Array.from(r.cells).map(c => c.textContent.trim()));", table_id)


def _markdown_tables(markdown: str) -> list[list[list[str]]]:
    """The body rows of every table of a markdown text, marks turned into plain text."""
    tables, current = [], None
    for line in markdown.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if current is None:
                current = []
                tables.append(current)
            elif not set("".join(cells)) <= set(":-"):
                current.append([re.sub(r"</?sup>|\*\*", "", c).replace("\\*", "*") for c in cells])
        else:
            current = None
    return tables


def test_the_page_shows_the_same_numbers_as_the_api(browser, demo, pages):
    res = demo["comparison"]
    assert _open(browser, pages["comparison"]) == []
    means_md, diffs_md = _markdown_tables(res.to_markdown())[:2]
    shown = _rows(browser, "means")
    assert shown == means_md  # every cell: value, best, superscripts, as to_markdown prints them
    # and the values are the API's: ComparisonResult.system_means(), four decimals
    values = browser.execute_script(
        "return Array.from(document.querySelectorAll('#means tbody tr')).map(r => "
        "Array.from(r.querySelectorAll('td.num .v')).map(c => c.textContent));")
    expected = [[f"{res.system_means().loc[s, m]:.4f}" for m in res.metrics] for s in res.systems]
    assert values == expected
    diffs = [row[:6] for row in _rows(browser, "differences")]
    assert diffs == diffs_md
    for shown_row, ((metric, a, b), row) in zip(diffs, res.table.iterrows()):
        assert shown_row[0] == metric and shown_row[1] == f"{b} − {a}"
        assert shown_row[3] in (f"[{row['ci_low']:+.4f}, {row['ci_high']:+.4f}]",)
        assert shown_row[5] == str(int(row["n"]))


def test_every_figure_is_drawn_and_nothing_is_fetched(browser, pages):
    for name in ("comparison", "single"):
        log = _open(browser, pages[name])
        assert [m for m in log if m["level"] in ("SEVERE", "WARNING")] == [], log
        sizes = browser.execute_script(
            "return Array.from(document.querySelectorAll('svg.figure, img')).map(e => {"
            "  const r = e.getBoundingClientRect();"
            "  return [e.tagName.toLowerCase(), r.width, r.height, e.complete === undefined ? 1 : e.naturalWidth];});")
        assert sizes, f"no figure in the {name} page"
        for tag, width, height, natural in sizes:
            assert width > 50 and height > 50 and natural > 0, (name, tag, width, height, natural)
        # a file:// page that loads nothing else: no resource entry at all
        assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    tags = browser.execute_script("return Array.from(document.querySelectorAll('img')).length")
    assert tags >= 2  # the single-system page draws PNGs (curves, distributions)


def test_every_section_is_there(browser, pages):
    _open(browser, pages["comparison"])
    headings = browser.execute_script("return Array.from(document.querySelectorAll('section h2'))"
                                      ".map(h => h.textContent)")
    assert headings == ["Summary", "How sure is this?", "Metrics at every cutoff", "Per-user distributions",
                        "Many systems: Friedman test and critical differences", "Beyond accuracy and groups",
                        "Metric card"]
    assert pages["comparison"].sections == ("summary", "sure", "curves", "distributions", "many", "beyond", "card")
    text = browser.find_element("css selector", "#card").text
    for fact in ("rankeval", "numpy", "pandas", "scipy", "python", "row_order", "user's mean truth score",
                 "rankeval.report(", "fold1", "fold2"):
        assert fact in text
    assert len(browser.find_elements("css selector", "#many svg.figure")) == 4  # one CD diagram per metric


def test_the_audit_is_one_table_whose_notes_wrap(browser, cases):
    """Every split's audit in one table that fits its card at 1280 pixels: the notes wrap in their cells,
    none is cut behind a scrollbar."""
    _open(browser, cases["rich"]["report"])
    shown = browser.execute_script(
        "const s = document.querySelector('#audit'); const w = s.querySelector('.table-wrap');"
        "const notes = Array.from(s.querySelectorAll('tbody tr')).map(r => r.cells[r.cells.length - 1]);"
        "return {tables: s.querySelectorAll('table').length, scroll: w.scrollWidth, client: w.clientWidth,"
        "  right: w.getBoundingClientRect().right, rows: notes.length,"
        "  wraps: notes.map(c => getComputedStyle(c).whiteSpace),"
        "  rights: notes.map(c => c.getBoundingClientRect().right),"
        "  lines: notes.map(c => Math.round(c.querySelector('.v').getBoundingClientRect().height /"
        "    parseFloat(getComputedStyle(c).lineHeight)))};")
    audits = cases["rich"]["audits"]
    assert shown["tables"] == 1 and shown["rows"] == sum(len(a.table) for a in audits)
    assert shown["scroll"] <= shown["client"], shown  # no horizontal scrollbar
    assert set(shown["wraps"]) == {"normal"}
    assert max(shown["rights"]) <= shown["right"] + 0.5
    assert max(shown["lines"]) >= 2  # the longest notes take two lines or more instead of widening the table


def test_clicking_a_header_sorts_the_table(browser, demo, pages):
    _open(browser, pages["comparison"])
    res = demo["comparison"]

    def column(table: str, index: int) -> list[str]:
        return [row[index] for row in _rows(browser, table)]

    headers = browser.find_elements("css selector", "#means thead th")
    position = 1 + list(res.metrics).index("NDCG@10")
    means = res.system_means()["NDCG@10"]
    headers[position].click()
    assert column("means", 0)[0].startswith(means.idxmin())
    assert headers[position].get_attribute("aria-sort") == "ascending"
    headers[position].click()
    assert [c.split(" (")[0] for c in column("means", 0)] == list(means.sort_values(ascending=False).index)
    assert headers[position].get_attribute("aria-sort") == "descending"
    headers[0].click()  # by name, as text
    assert [c.split(" (")[0] for c in column("means", 0)] == sorted(res.systems)

    p_header = browser.find_elements("css selector", "#differences thead th")[2]  # the mean difference
    p_header.click()
    shown = [float(v.rstrip("*")) for v in column("differences", 2)]
    assert shown == sorted(shown)


# ---------------------------------------------------------------------- every number of every page
PAGE_KINDS = ("comparison", "single", "rich", "rich_single")

#: every sortable table as the browser shows it: header labels, and per cell its value, marks and sort key
READ_TABLES = """
return Array.from(document.querySelectorAll('table.sortable')).map(t => ({
  id: t.id,
  head: Array.from(t.tHead.rows[0].cells).map(c => c.textContent.trim()),
  rows: Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c => {
    const sup = c.querySelector('sup.beats');
    return {text: c.querySelector('.v').textContent, sup: sup ? sup.textContent : '',
            star: c.querySelector('.star') !== null, best: c.classList.contains('best'),
            sort: c.getAttribute('data-sort')};
  }))}));
"""
#: every figure: its section, how many images it draws, and its data-values as the browser parses them
READ_FIGURES = """
return Array.from(document.querySelectorAll('figure')).map(f => ({
  section: f.closest('section').id,
  drawn: f.querySelectorAll('svg.figure, img.figure').length,
  values: f.hasAttribute('data-values') ? JSON.parse(f.getAttribute('data-values')) : null}));
"""


def _figure_values(page: str) -> list[dict]:
    """The data-values of every figure of a page, read from its HTML without a browser."""
    return [json.loads(unescape(text)) for text in re.findall(r'<figure[^>]* data-values="([^"]*)"', page)]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Warnings of rankeval (units left out, missing users) expected while a page is remade."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        yield


# --- the tables, from the API: each cell its text, superscript, star, bold and sort key (ANY: not a number)
def _cell(text: str, sort=mock.ANY, *, sup: str = "", star: bool = False, best: bool = False) -> dict:
    return {"text": text, "sup": sup, "star": star, "best": best, "sort": sort}


def _number(value, digits: int = 4, **marks) -> dict:
    """A number as the page shows it (``digits`` decimals, NaN as –), its unrounded value as the sort key."""
    value = float(value)
    return _cell("–", "", **marks) if math.isnan(value) else _cell(f"{value:.{digits}f}", repr(value), **marks)


def _fixed(value, digits: int = 4) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def _signed(value: float, digits: int = 4) -> str:
    text = f"{value:+.{digits}f}"
    return text[1:] if float(text) == 0 else text  # a difference that rounds to zero has no sign


def _p_text(p: float) -> str:
    return "–" if math.isnan(p) else "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def _means_table(res) -> tuple[list[str], list[list[dict]]]:
    """The means (the API's system_means(), checked against the units' nanmean), best in bold, and the letters
    of the systems each one beats (a significant difference in its favour), then the system-level values."""
    means = res.system_means()
    for metric in res.metrics:
        np.testing.assert_allclose(means[metric], [np.nanmean(res.units[(metric, s)]) for s in res.systems],
                                   rtol=1e-12)
    letter = {s: "abcdefghijklmnopqrstuvwxyz"[i] for i, s in enumerate(res.systems)}
    beaten: dict[tuple[str, str], list[str]] = {}
    for (metric, a, b), row in res.table.iterrows():
        if row["significant"] and row["diff"] != 0:
            b_better = (row["diff"] > 0) == res.higher_is_better.get(metric, True)
            winner, loser = (b, a) if b_better else (a, b)
            beaten.setdefault((metric, winner), []).append(letter[loser])
    listed = [str(c) for c in res.system_values.columns]
    rows = []
    for system in res.systems:
        row = [_cell(f"{system} ({letter[system]})")]
        for metric in res.metrics:
            best = means[metric].max() if res.higher_is_better.get(metric, True) else means[metric].min()
            row.append(_number(means.loc[system, metric], sup="".join(sorted(beaten.get((metric, system), []))),
                               best=bool(means.loc[system, metric] == best)))
        rows.append(row + [_number(res.system_values.loc[system, m]) for m in listed])
    return ["system", *res.metrics, *(f"{m}†" for m in listed)], rows


def _differences_table(res) -> tuple[list[str], list[list[dict]]]:
    """Every row of compare's table: b − a, mean (starred when significant), CI, adjusted p, n, w/t/l, d_z."""
    rows = []
    for (metric, a, b), row in res.table.iterrows():
        ci = "–" if np.isnan(row["ci_low"]) else f"[{_signed(row['ci_low'])}, {_signed(row['ci_high'])}]"
        rows.append([_cell(metric), _cell(f"{b} − {a}"),
                     _cell(_signed(row["diff"]), repr(float(row["diff"])), star=bool(row["significant"])),
                     _cell(ci, repr(float(row["ci_low"]))),
                     _cell(_p_text(row["p_adjusted"]), repr(float(row["p_adjusted"]))),
                     _cell(str(int(row["n"]))),
                     _cell(f"{int(row['wins'])} / {int(row['ties'])} / {int(row['losses'])}"),
                     _number(row["effect_size"], 2),
                     *_effect_cells(row)])
    return ["metric", "difference", "mean", "CI", "p (adjusted)", "n", "wins / ties / losses", "Cohen's d_z",
            "d_z CI", "relative", "relative CI"], rows


def _effect_cells(row) -> list[dict]:
    """d_z's interval, 100 (mean_b / mean_a - 1) % and the ratio's interval, two decimals, signed."""
    rel = 100 * (row["mean_b"] / row["mean_a"] - 1)
    return [_cell(f"[{_signed(row['dz_ci_low'], 2)}, {_signed(row['dz_ci_high'], 2)}]", repr(float(row["dz_ci_low"]))),
            _cell(f"{_signed(rel, 2)}%", repr(float(row["rel_diff"]))),
            _cell(f"[{_signed(row['rel_ci_low'], 2)}, {_signed(row['rel_ci_high'], 2)}]",
                  repr(float(row["rel_ci_low"])))]


def _power_table(res) -> tuple[list[str], list[list[dict]]]:
    """The "How sure" card's power table: ComparisonResult.power() (tested in test_power.py), the MDE in % of a."""
    with _quiet():
        power = res.power().table
    frame = pd.DataFrame({"n": power["n"], "difference": power["mean_diff"], "MDE": power["mde"],
                          "MDE (% of a)": 100 * power["mde"] / res.table["mean_a"].abs(),
                          "MDE (d_z)": power["mde_dz"], "power for the difference": power["power"],
                          "users needed for the difference": [None if pd.isna(v) else int(v)
                                                              for v in power["n_needed"]]})
    return _frame_table(frame)


def _complete_units(res, metric: str) -> np.ndarray:
    x = np.column_stack([res.units[(metric, s)].to_numpy(dtype=float) for s in res.systems])
    return x[~np.isnan(x).any(axis=1)]


def _friedman_table(res) -> tuple[list[str], list[list[dict]]]:
    """friedman() and mean_ranks(), themselves checked against scipy's Friedman test and rankdata."""
    with _quiet():
        friedman, ranks = res.friedman(), res.mean_ranks()
    rows = []
    for metric in res.metrics:
        x = _complete_units(res, metric)
        by_hand = scipy_stats.friedmanchisquare(*x.T)
        sign = -1 if res.higher_is_better.get(metric, True) else 1
        f = friedman.loc[metric]
        assert math.isclose(f["statistic"], by_hand.statistic, rel_tol=1e-9) and int(f["n"]) == len(x)
        np.testing.assert_allclose(ranks.loc[metric], scipy_stats.rankdata(sign * x, axis=1).mean(axis=0),
                                   rtol=1e-12)
        rows.append([_cell(metric), _cell(_fixed(f["statistic"])), _cell(_p_text(f["p_value"])),
                     _cell(_fixed(f["iman_davenport_F"])), _cell(_p_text(f["iman_davenport_p"])),
                     _cell(str(int(f["n"]))), *(_cell(_fixed(r, 2)) for r in ranks.loc[metric])])
    return ["metric", "chi2_F", "p", "F_ID", "p (F)", "n", *(f"rank {s}" for s in res.systems)], rows


def _frame_table(frame: pd.DataFrame) -> tuple[list[str], list[list[dict]]]:
    """Any frame (by_group, system_values): its index as columns; yes/no, integers, 4 decimals, – when missing."""
    flat = frame if isinstance(frame.index, pd.RangeIndex) else frame.reset_index()

    def cell(value) -> dict:
        if isinstance(value, (bool, np.bool_)):
            return _cell("yes" if value else "no")
        if isinstance(value, numbers.Integral):
            return _cell(str(value), str(value))
        if isinstance(value, numbers.Real):
            return _number(value)
        return _cell("–" if value is None else str(value))

    return [str(c) for c in flat.columns], [[cell(v) for v in record] for record in flat.itertuples(index=False)]


def _splits_table(sys_result: pd.DataFrame, users_result: pd.DataFrame) -> tuple[list[str], list[list[dict]]]:
    """EvalModel's per-split table: each split's mean over its users (NaN left out), then their plain mean."""
    by_split = users_result.groupby(level=0, sort=False).mean()
    np.testing.assert_allclose(sys_result.drop(index="mean").to_numpy(), by_split.to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(sys_result.loc["mean"].to_numpy(), by_split.mean().to_numpy(), rtol=1e-12)
    rows = [[_cell(str(split), str(i)), *(_number(v) for v in values)]
            for i, (split, values) in enumerate(sys_result.iterrows())]
    return ["split", *map(str, sys_result.columns)], rows


def _users_table(case: dict) -> tuple[list[str], list[list[dict]]]:
    """Per split and system: truth users and those without a list (– when the page cannot know them), the units,
    those with a value, and the NaN values per metric."""
    rows = []
    for split in dict.fromkeys(case["splits"]):
        in_split = case["splits"] == split
        for system in case["systems"]:
            block = np.column_stack([case["units"][(m, system)].to_numpy(dtype=float)[in_split]
                                     for m in case["metrics"]])
            nan = np.isnan(block)
            known = case["counts"][(split, system)] if case["counts"] is not None else ("–", "–")
            nan_text = ", ".join(f"{m}: {c}" for m, c in zip(case["metrics"], nan.sum(axis=0)) if c) or "none"
            rows.append([_cell(split), _cell(system), _cell(str(known[0])), _cell(str(known[1])),
                         _cell(str(int(in_split.sum()))), _cell(str(int((~nan).any(axis=1).sum()))),
                         _cell(nan_text)])
    return ["split", "system", "truth users", "without a list", "units", "with a value", "NaN values (per metric)"], rows


def _expected_tables(case: dict) -> dict[str, tuple[list[str], list[list[dict]]]]:
    """Every table of the page, in page order, from the API."""
    res = case["res"]
    out = {}
    if res is not None:
        out["means"] = _means_table(res)
        out["differences"] = _differences_table(res)
        if res.metrics:
            out["power"] = _power_table(res)
        if len(res.systems) >= 3:
            out["friedman"] = _friedman_table(res)
        if len(res.system_values.columns):
            out["system-values"] = _frame_table(res.system_values)
    else:
        out["means"] = _splits_table(case["sys_result"], case["users_result"])
    for i, frame in enumerate(case["groups"]):
        out[f"extra-{i + 1}"] = _frame_table(frame)
    if case["audits"]:
        out["audit"] = _audit_table(case["audits"])
    out["users"] = _users_table(case)
    return out


def _audit_table(results: list) -> tuple[list[str], list[list[dict]]]:
    """Every split's audit in one table as the page shows it: a check's splits together (check, then split),
    count, of, share, users affected (– when not meaningful), note."""
    def count(value) -> dict:
        return _cell("–") if pd.isna(value) else _cell(str(int(value)), str(int(value)))

    rows = [[_cell(str(check)), _cell(f"fold{i + 1}"), count(line["count"]), count(line["of"]),
             _number(line["share"]), count(line["users_affected"]), _cell(str(line["note"]))]
            for check in results[0].table.index for i, result in enumerate(results)
            for line in [result.table.loc[check]]]
    return ["check", "split", "count", "of", "share", "users_affected", "note"], rows


def _assert_tables(shown: list[dict], expected: dict) -> None:
    assert [t["id"] for t in shown] == list(expected)  # every table of the page is checked, in order
    for table in shown:
        head, rows = expected[table["id"]]
        assert table["head"] == head, table["id"]
        assert len(table["rows"]) == len(rows), table["id"]
        for i, (got, want) in enumerate(zip(table["rows"], rows)):
            assert got == want, f"table {table['id']}, row {i}"


# --- the figures, from the API and by hand
def _percentile_bootstrap(values: np.ndarray, splits: np.ndarray, n_resamples: int, confidence: float, seed: int,
                          statistic: str) -> tuple[np.ndarray, np.ndarray]:
    """The bands as docs/report.md says the page draws them, written out here: numpy's default_rng(seed); each
    split in turn (in the order of the units) draws n_resamples rows of its units with replacement, as many as
    it holds, integers(0, n_split, (n_resamples, n_split)); every column uses the same draws; a resample's
    mean leaves NaN out (pooled over the splits, or the mean of the splits' means); the ends are the
    (1 ∓ confidence) / 2 quantiles (linear interpolation) of the resampled means."""
    assert n_resamples * len(values) <= 4_000_000  # up to there the page draws every resample in one batch
    rng = np.random.default_rng(seed)
    sums, counts = [], []
    for split in dict.fromkeys(splits):
        block = values[splits == split]
        sample = block[rng.integers(0, len(block), size=(n_resamples, len(block)))]  # resamples × units × columns
        sums.append(np.nansum(sample, axis=1))
        counts.append((~np.isnan(sample)).sum(axis=1))
    total, count = np.array(sums), np.array(counts)
    if statistic == "pooled":
        means = total.sum(axis=0) / count.sum(axis=0)
    else:
        defined = count > 0
        per_split = np.where(defined, total, 0.0) / np.maximum(count, 1)
        means = per_split.sum(axis=0) / defined.sum(axis=0)
    assert not np.isnan(means).any()
    tail = (1 - confidence) / 2
    return np.quantile(means, tail, axis=0), np.quantile(means, 1 - tail, axis=0)


def _expected_curves(case: dict, confidence: float | None = None) -> dict | None:
    """The curves: per stem with two or more cutoffs, each system's API value at every k and its band."""
    stems: dict[str, list[tuple[int, str]]] = {}
    for name in case["metrics"]:
        match = re.fullmatch(r"(.+)@(\d+)", name)
        if match:
            stems.setdefault(match[1], []).append((int(match[2]), name))
    stems = {stem: sorted(cols) for stem, cols in stems.items() if len(cols) >= 2}
    if not stems:
        return None
    n_resamples, asked, seed = case["bands"]
    confidence = asked if confidence is None else confidence
    res = case["res"]
    statistic = "pooled" if res is not None else "group_mean"
    center = res.system_means() if res is not None else case["sys_result"].loc[["mean"]].set_axis(case["systems"])
    columns = [(name, s) for cols in stems.values() for _, name in cols for s in case["systems"]]
    matrix = np.column_stack([case["units"][column].to_numpy(dtype=float) for column in columns])
    low, high = _percentile_bootstrap(matrix, case["splits"], n_resamples, confidence, seed, statistic)
    band = {column: (lo, hi) for column, lo, hi in zip(columns, low, high)}
    panels = [{"stem": stem, "k": [k for k, _ in cols], "metrics": [name for _, name in cols],
               "lines": [{"system": s, "value": [center.loc[s, name] for _, name in cols],
                          "ci_low": [band[(name, s)][0] for _, name in cols],
                          "ci_high": [band[(name, s)][1] for _, name in cols]} for s in case["systems"]]}
              for stem, cols in stems.items()]
    return {"figure": "curves", "bootstrap": {"method": "percentile", "confidence": confidence,
                                              "n_resamples": n_resamples, "seed": seed, "statistic": statistic,
                                              "splits": list(dict.fromkeys(case["splits"]))}, "panels": panels}


def _box(values: np.ndarray, kind: str) -> dict:
    """What a box (whiskers at 1.5 IQR, as matplotlib) or a violin of the per-user values shows, NaN left out."""
    data = values[~np.isnan(values)]
    if not len(data):
        return {"n": 0, **dict.fromkeys(["mean", "median", "q1", "q3", "min", "max"], math.nan)}
    q1, median, q3 = np.percentile(data, [25, 50, 75])
    out = {"n": len(data), "mean": data.mean(), "median": median, "q1": q1, "q3": q3, "min": data.min(),
           "max": data.max()}
    if kind == "box":
        reach = 1.5 * (q3 - q1)
        low = min(data[data >= q1 - reach].min(), q1)
        high = max(data[data <= q3 + reach].max(), q3)
        out.update(whislo=low, whishi=high, fliers=int(((data < low) | (data > high)).sum()))
    return out


def _expected_distributions(case: dict) -> list[dict]:
    """One figure per four metrics of a comparison (with every tested difference and its CI), one for a system."""
    res, metrics = case["res"], list(case["metrics"])
    chunks = [metrics[i:i + 4] for i in range(0, len(metrics), 4)] if res is not None else [metrics]
    figures = []
    for chunk in chunks:
        figure = {"figure": "distributions", "kind": case["kind"], "panels": [
            {"metric": m, "systems": [{"system": s, **_box(case["units"][(m, s)].to_numpy(dtype=float), case["kind"])}
                                      for s in case["systems"]]} for m in chunk]}
        if res is not None:
            figure["differences"] = [
                {"metric": m, "a": a, "b": b, "diff": row["diff"], "ci_low": row["ci_low"], "ci_high": row["ci_high"],
                 "significant": bool(row["significant"])}
                for (m, a, b), row in res.table.iterrows() if m in chunk]
        figures.append(figure)
    return figures


def _expected_cd(res, metric: str) -> dict:
    """A critical-difference diagram from nemenyi(): mean ranks (best first), CD (checked against Demšar's
    formula with scipy's studentized range), and the maximal runs of systems no pair of which differs."""
    with _quiet():
        table = res.nemenyi().xs(metric, level="metric")
    ranks, significant = {}, {}
    for (a, b), row in table.iterrows():
        ranks[a], ranks[b] = row["mean_rank_a"], row["mean_rank_b"]
        significant[frozenset((a, b))] = bool(row["significant"])
    k, n = len(res.systems), len(_complete_units(res, metric))
    cd = float(table["critical_difference"].iloc[0])
    q = scipy_stats.studentized_range.ppf(1 - res.alpha, k, np.inf) / np.sqrt(2)
    assert math.isclose(cd, q * np.sqrt(k * (k + 1) / (6 * n)), rel_tol=1e-9)
    order = sorted(res.systems, key=lambda s: ranks[s])
    groups: list[list[str]] = []
    for i in range(k):
        j = i
        while j + 1 < k and not any(significant[frozenset((order[x], order[j + 1]))] for x in range(i, j + 1)):
            j += 1
        if j > i and not any(set(order[i:j + 1]) <= set(g) for g in groups):
            groups.append(order[i:j + 1])
    return {"figure": "critical difference", "metric": metric, "alpha": res.alpha, "critical_difference": cd,
            "mean_ranks": {s: ranks[s] for s in order}, "groups": groups}


def _expected_figures(case: dict) -> list[dict]:
    """Every figure of the page, in page order: curves, distributions, then one CD diagram per metric."""
    curves = _expected_curves(case)
    figures = ([curves] if curves is not None else []) + _expected_distributions(case)
    res = case["res"]
    if res is not None and len(res.systems) >= 3:
        figures += [_expected_cd(res, m) for m in res.metrics]
    return figures


def _assert_same(shown, expected, where: str = "figure") -> None:
    """``shown`` (parsed JSON) equals ``expected``: same keys in the same order, same lengths, equal text and
    flags, numbers to 1e-12 (relative or absolute), NaN as null."""
    if isinstance(expected, dict):
        assert isinstance(shown, dict) and list(shown) == list(expected), f"{where}: keys {shown!r} != {expected!r}"
        for key, value in expected.items():
            _assert_same(shown[key], value, f"{where}.{key}")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(shown, list) and len(shown) == len(expected), f"{where}: {shown!r} != {expected!r}"
        for i, (got, want) in enumerate(zip(shown, expected)):
            _assert_same(got, want, f"{where}[{i}]")
    elif isinstance(expected, (bool, np.bool_, str)):
        assert type(shown) is type(expected if isinstance(expected, str) else True) and shown == expected, \
            f"{where}: {shown!r} != {expected!r}"
    elif math.isnan(expected):
        assert shown is None, f"{where}: {shown!r} != NaN"
    else:
        assert isinstance(shown, (int, float)) and not isinstance(shown, bool), f"{where}: {shown!r}"
        assert math.isclose(shown, float(expected), rel_tol=1e-12, abs_tol=1e-12), \
            f"{where}: {shown!r} != {float(expected)!r}"


def _numbers(tree, path: tuple = ()):
    """The path of every number in a parsed JSON tree."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _numbers(value, (*path, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from _numbers(value, (*path, i))
    elif isinstance(tree, (int, float)) and not isinstance(tree, bool):
        yield path


def _nudged(tree, path: tuple, step: float = 1e-10):
    """A copy of ``tree`` with the number at ``path`` moved by ``step`` (relative, or absolute near 0)."""
    out = copy.deepcopy(tree)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] += step * max(1.0, abs(node[path[-1]]))
    return out


@pytest.mark.parametrize("name", PAGE_KINDS)
def test_every_table_shows_the_apis_numbers(browser, cases, name):
    """Every table of every page kind, cell by cell: text to the digits shown, bold, superscripts, stars and the
    unrounded sort keys; then every cell changed one at a time (text, bold, star) is caught."""
    case = cases[name]
    assert _open(browser, case["report"]) == []
    shown = browser.execute_script(READ_TABLES)
    expected = _expected_tables(case)
    _assert_tables(shown, expected)
    for t, table in enumerate(shown):
        for r, row in enumerate(table["rows"]):
            for c, cell in enumerate(row):
                text = cell["text"]
                digits = [i for i, ch in enumerate(text) if ch.isdigit()]
                changed = (text[:digits[-1]] + str((int(text[digits[-1]]) + 1) % 10) + text[digits[-1] + 1:]
                           if digits else text + "x")
                for change in ({"text": changed}, {"best": not cell["best"]}, {"star": not cell["star"]}):
                    mutant = copy.deepcopy(shown)
                    mutant[t]["rows"][r][c].update(change)
                    with pytest.raises(AssertionError):
                        _assert_tables(mutant, expected)


@pytest.mark.parametrize("name", PAGE_KINDS)
def test_every_figure_carries_the_numbers_it_draws(browser, cases, name):
    """Each figure's data-values, parsed by the browser: the curves' points are the API's means, their bands the
    percentile bootstrap by hand to 1e-12; the boxes and violins the per-user values' statistics; the CD
    diagrams nemenyi()'s ranks, CD and groups. Any one number moved by 1e-10 is caught."""
    case = cases[name]
    _open(browser, case["report"])
    shown = browser.execute_script(READ_FIGURES)
    assert all(f["drawn"] == 1 and f["values"] is not None for f in shown), shown
    # the browser reads what was written (selenium hands objects back with their keys sorted: the order, e.g.
    # the ranks' best first, is read from the written text)
    values = _figure_values(case["report"].html)
    assert [f["values"] for f in shown] == values
    expected = _expected_figures(case)
    sections = {"curves": "curves", "distributions": "distributions", "critical difference": "many"}
    assert [f["section"] for f in shown] == [sections[e["figure"]] for e in expected]
    _assert_same(values, expected)
    for path in _numbers(values):
        with pytest.raises(AssertionError):
            _assert_same(_nudged(values, path), expected)


def _remade(case: dict, **options) -> str:
    """The page of the same result remade (the bands only matter here): its HTML."""
    n_resamples, confidence, seed = case["bands"]
    kwargs = {"n_bootstrap": n_resamples, "confidence": confidence, "seed": seed, "progress": False, **options}
    with _quiet():
        if case["res"] is not None:
            return rk.report(case["res"], **kwargs).html
        return rk.report((case["sys_result"], case["users_result"]), system_name=case["systems"][0], **kwargs).html


@pytest.mark.parametrize("name", ["rich", "rich_single"])
def test_the_bands_follow_the_confidence_asked_for(cases, name):
    """At confidence=0.9 the ends are the 5% and 95% quantiles of the same draws: inside the 95% band, narrower."""
    case = cases[name]
    page = _remade(case, confidence=0.9)
    curves = _figure_values(page)[0]
    _assert_same(curves, _expected_curves(case, confidence=0.9))
    wide = _figure_values(case["report"].html)[0]
    for narrow_panel, wide_panel in zip(curves["panels"], wide["panels"]):
        for narrow, broad in zip(narrow_panel["lines"], wide_panel["lines"]):
            assert narrow["value"] == broad["value"]
            assert np.all(np.array(narrow["ci_low"]) >= broad["ci_low"])
            assert np.all(np.array(narrow["ci_high"]) <= broad["ci_high"])
            assert np.all(np.subtract(narrow["ci_high"], narrow["ci_low"])
                          < np.subtract(broad["ci_high"], broad["ci_low"]))
    assert "its 90% percentile bootstrap interval" in page and "90% percentile bootstrap of each system" in page


def _basic(bootstrap):
    """Basic intervals (2·mean − the percentile ends) instead of percentile ones."""
    def patched(values, groups=None, **kwargs):
        low, high = bootstrap(values, groups, **kwargs)
        mean = np.nanmean(values, axis=0)
        return 2 * mean - high, 2 * mean - low
    return patched


BAND_MUTATIONS = {
    "92% instead of 95%": lambda f: lambda values, groups=None, **k: f(values, groups, **{**k, "confidence": 0.92}),
    "another seed": lambda f: lambda values, groups=None, **k: f(values, groups, **{**k, "seed": k["seed"] + 1}),
    "units drawn across the splits": lambda f: lambda values, groups=None, **k: f(values, None, **k),
    "the other mean": lambda f: lambda values, groups=None, **k: f(values, groups, **{
        **k, "statistic": {"pooled": "group_mean", "group_mean": "pooled"}[k["statistic"]]}),
    "basic intervals": _basic,
}


@pytest.mark.parametrize("name, mutation", [
    *((name, "92% instead of 95%") for name in ("comparison", "single", "rich", "rich_single")),
    ("rich_single", "another seed"), ("rich", "units drawn across the splits"), ("rich", "the other mean"),
    ("rich_single", "the other mean"), ("rich", "basic intervals"), ("rich_single", None),
])
def test_a_band_made_otherwise_is_caught(cases, name, mutation):
    """The page's bootstrap patched inside the page builder: the band check fails (None: unpatched, it passes)."""
    from rankeval.stats import bootstrap_mean_ci as original

    case = cases[name]
    patched = original if mutation is None else BAND_MUTATIONS[mutation](original)
    with mock.patch("rankeval.page._figures.bootstrap_mean_ci", side_effect=patched) as spy:
        curves = _figure_values(_remade(case))[0]
    assert spy.call_count == 1
    if mutation is None:
        _assert_same(curves, _expected_curves(case))
        return
    with pytest.raises(AssertionError):
        _assert_same(curves, _expected_curves(case))
    _assert_same(curves["bootstrap"], _expected_curves(case)["bootstrap"])  # the page still says what was asked


@pytest.mark.filterwarnings("ignore:Tight layout not applied:UserWarning")  # matplotlib, with names this long
def test_the_figure_data_is_inert_text(browser, demo, tmp_path):
    """Names with quotes, markup and script in the figures' data are escaped text: nothing runs or loads,
    and the browser reads the names back as they were given."""
    names = ['"q\' </figure><script>window.ran=1</script>', "<img src=x onerror=window.ran=2>", "a & b"]
    lists = dict(zip(names, demo["lists"].values()))
    with _quiet():
        page = rk.report(systems=lists, truth=demo["truths"], metrics=demo["metrics"], n_resamples=100,
                         n_bootstrap=50, path=tmp_path / "names.html", progress=False)
    log = _open(browser, page)
    assert [m for m in log if m["level"] in ("SEVERE", "WARNING")] == [], log
    assert browser.execute_script("return window.ran === undefined")
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert browser.execute_script("return document.querySelectorAll('script').length") == 1  # the sorting one
    figures = browser.execute_script(READ_FIGURES)
    assert [line["system"] for line in figures[0]["values"]["panels"][0]["lines"]] == names
    assert set(figures[-1]["values"]["mean_ranks"]) == set(names)
    for name in names:
        assert name not in page.html


# ---------------------------------------------------------------------- without a browser
def test_the_page_is_self_contained(pages):
    for report in pages.values():
        html = report.html
        assert html == report.path.read_text(encoding="utf-8")
        urls = set(re.findall(r"https?://[^\s\"'<>)]+", html))
        assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}  # namespaces only
        assert not re.search(r"<link\b|<script\s[^>]*src=|@import|url\((?!#)", html)  # url(#id): in-page
        assert re.search(r"<style>", html) and "<script>" in html


def test_the_page_escapes_what_it_shows(demo, tmp_path):
    lists = {"<b>pop</b>": demo["lists"]["popularity"], "rnd & co": demo["lists"]["random"]}
    page = rk.report(systems=lists, truth=demo["truths"], metrics=[rk.MAPAtK(10)], title="<script>x</script>",
                     n_resamples=100, n_bootstrap=50, progress=False)
    assert "<script>x</script>" not in page.html and "&lt;script&gt;x&lt;/script&gt;" in page.html
    assert "<b>pop</b>" not in page.html and "rnd &amp; co" in page.html
    assert page.path is None


def test_curve_bands_are_seeded_percentile_bootstraps():
    rng = np.random.default_rng(1)
    values = rng.normal(size=(4000, 2))
    values[:10, 1] = np.nan
    low, high = bootstrap_mean_ci(values, n_resamples=400, seed=3)
    again = bootstrap_mean_ci(values, n_resamples=400, seed=3)
    np.testing.assert_array_equal(low, again[0])
    half = (high - low) / 2
    np.testing.assert_allclose(half, 1.96 / np.sqrt(4000), rtol=0.15)  # the normal theory width
    assert np.all(low < np.nanmean(values, axis=0)) and np.all(np.nanmean(values, axis=0) < high)
    # splits resampled on their own; the mean of the splits' means
    groups = np.repeat([0, 1], [1000, 3000])
    shifted = values[:, :1] + np.where(groups == 0, 10.0, 0.0)[:, None]
    low, high = bootstrap_mean_ci(shifted, groups, n_resamples=400, statistic="group_mean")
    assert low[0] < 5.0 < high[0]
    assert np.isnan(bootstrap_mean_ci(np.full((5, 1), np.nan), n_resamples=20)[0][0])


@pytest.mark.parametrize("kwargs, error, match", [
    pytest.param({}, ValueError, r"nothing to report: pass `result`", id="nothing"),
    pytest.param({"systems": {"a": None}}, ValueError, r"`systems` needs `truth` and `metrics`", id="no-truth"),
    pytest.param({"result": "x"}, TypeError, r"`result` must be a ComparisonResult", id="bad-result"),
    pytest.param({"result": "cmp", "kind": "bars"}, ValueError, r"`kind` must be one of \['box', 'violin'\]",
                 id="kind"),
    pytest.param({"result": "cmp", "image_format": "gif"}, ValueError, r"`image_format` must be one of",
                 id="image-format"),
    pytest.param({"result": "cmp", "n_bootstrap": 5}, ValueError, r"`n_bootstrap` must be an integer >= 10",
                 id="n-bootstrap"),
    pytest.param({"result": "cmp", "confidence": 1.5}, ValueError, r"`confidence` must be a number in \(0, 1\)",
                 id="confidence"),
    pytest.param({"result": "cmp", "path": "/no/such/folder/r.html"}, ValueError, r"folder .* does not exist",
                 id="folder"),
    pytest.param({"result": "cmp", "alpha": 0.1}, ValueError, r"\['alpha'\] only apply when report\(\) runs",
                 id="compare-option-with-result"),
    pytest.param({"result": "cmp", "groups": [1]}, TypeError, r"`groups` must be a DataFrame", id="groups"),
    pytest.param({"result": "cmp", "metrics": [rk.MRR()]}, ValueError, r"`metrics` must be the metrics of",
                 id="other-metrics"),
])
def test_bad_input_is_a_clear_error(demo, kwargs, error, match):
    if kwargs.get("result") == "cmp":
        kwargs = {**kwargs, "result": demo["comparison"]}
    with pytest.raises(error, match=match):
        rk.report(**kwargs)


def test_progress_bar_over_the_sections(demo, capsys):
    rk.report(demo["comparison"], n_bootstrap=20, progress=True)
    assert "rankeval report" in capsys.readouterr().err
    rk.report(demo["comparison"], n_bootstrap=20, progress=False)
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------------- the command
@pytest.fixture(scope="module")
def files(demo, tmp_path_factory) -> dict[str, list[str]]:
    folder = tmp_path_factory.mktemp("cli")
    out: dict[str, list[str]] = {"truth": []}
    for i, truth in enumerate(demo["truths"]):
        out["truth"].append(str(folder / f"truth{i}.csv"))
        truth.to_csv(out["truth"][-1], index=False)
        for name, frames in demo["lists"].items():
            path = str(folder / f"{name}{i}.csv")
            frames[i].to_csv(path, index=False)
            out.setdefault(name, []).append(path)
    return out


def test_cli_writes_the_report(files, tmp_path, capsys):
    out = tmp_path / "report.html"
    argv = ["report", *(f"--system={n}={','.join(files[n])}" for n in SYSTEMS),
            *(f"--truth={t}" for t in files["truth"]), "-m", "NDCG@1,5,10", "-m", "MAP@10",
            "--n-resamples", "100", "--n-bootstrap", "50", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == f"report written to {out}\n"
    html = out.read_text(encoding="utf-8")
    assert "rankeval report --system=popularity=" in html  # the command line, in the metric card
    assert 'id="means"' in html and 'id="friedman"' in html


def test_cli_report_of_one_system(files, tmp_path, capsys):
    out = tmp_path / "one.html"
    assert main(["report", f"--system=mf={files['noisy_oracle'][0]}", f"--truth={files['truth'][0]}",
                 "-m", "R@5,10", "--out", str(out), "-q", "--n-bootstrap", "20"]) == 0
    assert 'id="curves"' in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("change, match", [
    pytest.param(lambda a, t: a + ["-m", "NOPE@10"], r"unknown metric 'NOPE@10'", id="unknown-metric"),
    pytest.param(lambda a, t: [x.replace("truth0.csv", "gone.csv") for x in a], r"file not found", id="missing-file"),
    pytest.param(lambda a, t: a + ["--out", str(t / "no" / "such" / "r.html")],
                 r"--out .*: the folder '.*' does not exist", id="out-folder-missing"),
    pytest.param(lambda a, t: a + ["--out", str(t)], r"--out .*: is a folder", id="out-is-a-folder"),
    pytest.param(lambda a, t: a + ["--n-bootstrap", "3"], r"--n-bootstrap must be an integer from 10 to 100,000, "
                 r"got 3", id="n-bootstrap"),
    pytest.param(lambda a, t: a + ["--n-bootstrap", str(10**12)], r"--n-bootstrap must be an integer from 10 to "
                 r"100,000, got 1000000000000", id="n-bootstrap-huge"),
    pytest.param(lambda a, t: a + ["--digits", "-1"], r"--digits must be an integer from 0 to 17, got -1", id="digits"),
])
def test_cli_bad_input_is_status_2_and_one_line(files, tmp_path, capsys, change, match):
    base = ["report", f"--system=a={files['popularity'][0]}", f"--system=b={files['random'][0]}",
            f"--truth={files['truth'][0]}", "-m", "MAP@10", "-q"]
    argv = change(base, tmp_path)
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "r.html")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rankeval: error: ")
    assert re.search(match, err), err


MATH_NAMES = ["a$\\frac$b", "$x$", "c$"]


def test_system_names_with_dollars_are_drawn_literally(tmp_path):
    """matplotlib would read $...$ as math: a name like a$\\frac$b failed to draw after the whole run."""
    import matplotlib

    matplotlib.use("Agg")
    ratings = make_ratings(n_users=60, n_items=40, ratings_per_user=15, seed=3)
    train, test = next(iter(train_test_folds(ratings, n_folds=2, seed=3)))
    systems = {name: recommend(train, test, kind, n=10, seed=i)
               for i, (name, kind) in enumerate(zip(MATH_NAMES, ["popularity", "random", "random"]))}
    res = rk.compare(systems, test, [rk.NDCGAtK(5), rk.MRR()], n_resamples=200, seed=0)
    fig = res.plot(tmp_path / "cmp.png")
    labels = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels() + ax.get_xticklabels()]
    assert any("a$\\frac$b" in t for t in labels) and any("$x$" in t for t in labels)
    texts = [t for ax in fig.axes for t in ax.get_yticklabels() if "$" in t.get_text()]
    assert texts and not any(t._parse_math for t in texts)  # drawn as written, not as math
    assert (tmp_path / "cmp.png").stat().st_size > 1000
    cd = res.plot_cd(path=tmp_path / "cd.png")
    assert any("$x$" in t.get_text() for ax in cd.axes for t in ax.texts)
    page = rk.report(res, path=tmp_path / "page.html", n_bootstrap=50, progress=False)
    assert "a$\\frac$b" in page.html and (tmp_path / "page.html").exists()
    assert matplotlib.rcParams["text.parse_math"]  # the caller's setting is left as it was


def test_a_huge_n_bootstrap_is_refused_before_the_comparison(demo, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the comparison ran before the arguments were checked")

    monkeypatch.setattr(rk, "compare", never)
    with pytest.raises(ValueError, match=r"`n_bootstrap` must be at most 100,000 .*got 1,000,000,000,000"):
        rk.report(systems=demo["lists"], truth=demo["truths"], metrics=demo["metrics"], n_bootstrap=10**12,
                  progress=False)


def test_the_card_names_the_line_that_made_the_page(demo):
    """The page's command card points at the caller's own line, not at a frame inside rankeval."""
    import html
    import inspect

    line = inspect.currentframe().f_lineno + 1
    page = rk.report(demo["comparison"], metrics=demo["metrics"], n_bootstrap=20, progress=False)
    assert f"# called from {__file__}:{line}" in html.unescape(page.html)
