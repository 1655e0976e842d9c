"""The HTML report, checked as a reader sees it: the page of the bundled demo data opened in
headless Chromium (file://, no network), its tables read from the DOM and compared with the
API's numbers, every figure drawn, no console error, sortable headers; then the page's
self-containment, the CLI and the error paths without a browser.

The browser is Debian's ``chromium`` and ``chromium-driver`` (``make test`` installs them),
driven by selenium. A missing browser fails these tests; it never skips them.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile

import numpy as np
import pytest

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
def pages(demo, tmp_path_factory) -> dict[str, Report]:
    """The comparison's page (inline SVG) and one system's page (PNG figures)."""
    folder = tmp_path_factory.mktemp("report")
    model = rk.EvalModel(demo["lists"]["noisy_oracle"], demo["truths"], demo["metrics"])
    model.fit()
    groups = model.by_group({"first half": [f"u{i:04d}" for i in range(75)],
                             "second half": [f"u{i:04d}" for i in range(75, 150)]})
    return {
        "comparison": rk.report(demo["comparison"], folder / "comparison.html", metrics=demo["metrics"],
                                n_bootstrap=200, groups=groups, progress=False),
        "single": rk.report(model, folder / "single.html", system_name="noisy_oracle", image_format="png",
                            n_bootstrap=200, progress=False),
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
    assert headings == ["Summary", "Metrics at every cutoff", "Per-user distributions",
                        "Many systems: Friedman test and critical differences", "Beyond accuracy and groups",
                        "Metric card"]
    assert pages["comparison"].sections == ("summary", "curves", "distributions", "many", "beyond", "card")
    text = browser.find_element("css selector", "#card").text
    for fact in ("rankeval", "numpy", "pandas", "scipy", "python", "row_order", "user's mean truth score",
                 "rankeval.report(", "fold1", "fold2"):
        assert fact in text
    assert len(browser.find_elements("css selector", "#many svg.figure")) == 4  # one CD diagram per metric


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
