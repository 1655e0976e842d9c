"""The documentation site (mkdocs.yml, built by `make docs` into site/, which `make test` runs first)
and the Getting started page, whose code blocks are run here so the page cannot rot.

The site is read in headless Chromium (tests/test_report.py's ``browser`` fixture) over a local
HTTP server: the home page, the API page of NDCGAtK with its formula, the search box finding it.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import rankeval as rk

from .test_report import browser  # noqa: F401  (the fixture, shared)

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"


def _python_blocks(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.DOTALL | re.MULTILINE)


def test_getting_started_runs_end_to_end(tmp_path, monkeypatch, capsys):
    blocks = _python_blocks(ROOT / "docs" / "getting_started.md")
    assert len(blocks) == 7
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "getting_started.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "['user_id', 'item_id', 'score']" in out
    # the truth under MovieLens' names gives the same numbers, bit for bit
    assert namespace["same"].equals(namespace["sys_result"]) and "True" in out
    res = namespace["res"]
    assert isinstance(res, rk.ComparisonResult) and set(res.systems) == {"popularity", "random"}
    # the page's numbers are those of the API: EvalModel's mean equals compare's mean of the same system
    sys_result = namespace["sys_result"]
    assert sys_result.loc["mean", "NDCG@10"] == pytest.approx(res.system_means().loc["popularity", "NDCG@10"],
                                                             rel=1e-12)
    assert (tmp_path / "report.html").stat().st_size > 10_000


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """site/ served over HTTP (the search runs in a web worker, which file:// URLs do not allow)."""
    if not (SITE / "index.html").is_file():
        pytest.fail("site/ is not built: run `make docs` (make test runs it first)", pytrace=False)
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def test_api_reference_has_every_public_name():
    text = (SITE / "api" / "index.html").read_text(encoding="utf-8")
    missing = [n for n in rk.__all__ if n != "__version__" and f'id="rankeval.{n}"' not in text]
    assert not missing, f"site/api/index.html lacks {missing}: rebuild with `make docs`"
    cli = (SITE / "cli-reference.html").read_text(encoding="utf-8")
    for command in ("rankeval evaluate", "rankeval compare", "rankeval report", "--truth", "--posthoc"):
        assert command in cli


def test_home_page_loads(browser, site):  # noqa: F811
    browser.get(site + "/index.html")
    assert browser.title.startswith("rankeval")
    assert browser.find_element("css selector", "article h1").text == "rankeval"
    nav = browser.find_element("css selector", "nav.md-nav").get_attribute("textContent")
    assert "Getting started" in nav and "API" in nav


def test_api_page_shows_the_formula(browser, site):  # noqa: F811
    browser.get(site + "/api/index.html#rankeval.NDCGAtK")
    heading = browser.find_element("id", "rankeval.NDCGAtK")
    section = heading.find_element("xpath", "./following-sibling::div[contains(@class, 'doc-contents')][1]")
    maths = section.find_elements("css selector", ".arithmatex math")
    assert maths, "NDCGAtK's docstring formula is not written as MathML"
    # drawn by the browser (a box of its own, a fraction in it), the TeX kept as its annotation only
    formula = maths[0]
    assert formula.size["width"] > 50 and formula.size["height"] > 20, formula.size
    assert formula.find_elements("css selector", "mfrac")
    annotation = formula.find_element("css selector", "annotation").get_attribute("textContent")
    assert r"\frac{DCG@k_u}{IDCG@k_u}" in annotation
    assert "\\frac" not in section.text and "\\(" not in section.text and "$$" not in section.text


def _site_pages() -> list[Path]:
    pages = sorted(SITE.rglob("*.html"))
    assert len(pages) > 20, "site/ is not built: run `make docs`"
    return pages


def test_every_formula_of_the_site_is_mathml():
    """No page leaves TeX for a script to typeset: arithmatex's every element holds MathML."""
    n_formulas = 0
    for page in _site_pages():
        text = page.read_text(encoding="utf-8")
        elements = re.findall(r'<(span|div) class="arithmatex">(.{0,40})', text, flags=re.S)
        raw = [body for _, body in elements if not body.startswith("<math ")]
        assert not raw, f"{page.relative_to(SITE)}: formulas left as TeX: {raw[:3]}"
        n_formulas += len(elements)
    assert n_formulas > 300  # the guides' and the docstrings' (about 600 when written)
    metrics = (SITE / "metrics.html").read_text(encoding="utf-8")
    assert metrics.count("<math ") > 100 and "<mfrac>" in metrics


def test_the_site_loads_nothing_from_the_network():
    """Scripts, styles, fonts and images are the site's own files: it reads the same offline."""
    remote = re.compile(r'<(?:script|img|iframe|source)\b[^>]*\bsrc="(?:https?:)?//[^"]*"'
                        r'|<link\b[^>]*\bhref="(?:https?:)?//[^"]*"', re.I)
    loads = {f"{page.relative_to(SITE)}: {m}" for page in _site_pages()
             for m in remote.findall(page.read_text(encoding="utf-8"))}
    assert not loads, sorted(loads)[:5]
    css = [path for path in SITE.rglob("*.css") if re.search(r"url\((['\"]?)(?:https?:)?//|@import\s+['\"]?(?:url\()?https?:",
                                                           path.read_text(encoding="utf-8"))]
    assert not css, css


def _mathml_hook():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_mathml", ROOT / "docs" / "_gen" / "mathml.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_hook_writes_mathml_and_refuses_tex_it_cannot_convert():
    hook = _mathml_hook()
    page = ('<p><span class="arithmatex">\\(m_u &lt; k\\)</span> and</p>'
            '<div class="arithmatex">\\[\\arg\\min_x \\frac{1}{|U|}\\]</div>')
    out = hook.arithmatex_to_mathml(page, "x.md")
    inline, block = re.findall(r"<math [^>]*>", out)
    assert 'display="inline"' in inline and 'display="block"' in block
    assert "<mo>&#x0003C;</mo>" in out and "<mfrac>" in out and ">arg</mo>" in out
    # the TeX kept (escaped) as each formula's annotation
    assert '<annotation encoding="application/x-tex">m_u &lt; k</annotation>' in out
    with pytest.raises(hook.MathError, match=r"x\.md: .*\\\\unknowncommand"):
        hook.arithmatex_to_mathml('<span class="arithmatex">\\(\\unknowncommand{x}\\)</span>', "x.md")


def test_search_finds_ndcgatk(browser, site):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(site + "/index.html")
    # the window is wide enough for the header's search field (narrower, it hides behind an icon)
    box = WebDriverWait(browser, 10).until(ec.element_to_be_clickable((By.CSS_SELECTOR, "input.md-search__input")))
    box.click()
    box.send_keys("NDCGAtK")
    WebDriverWait(browser, 20).until(
        lambda d: any("NDCGAtK" in e.text for e in d.find_elements(By.CSS_SELECTOR, ".md-search-result__item")))
    links = [e.get_attribute("href") for e in browser.find_elements(By.CSS_SELECTOR, ".md-search-result__link")]
    # search links carry the query as ?h=ndcgatk before the anchor
    assert any(link and re.search(r"/api/index\.html(\?h=[^#]*)?#rankeval\.NDCGAtK$", link) for link in links), links


def test_site_is_not_committed():
    assert "site/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert os.path.isdir(SITE)


def test_gallery_shows_the_figures_of_docs_img_and_of_the_build():
    gallery = (SITE / "gallery.html").read_text(encoding="utf-8")
    shown = set(re.findall(r'<img [^>]*src="(img/[^"]+)"', gallery))
    committed = {f"img/{p.name}" for p in (ROOT / "docs" / "img").glob("*.png")}
    assert committed <= shown, committed - shown
    built = {"img/built/comparison_box.svg", "img/built/comparison_violin.svg"}
    assert built <= shown
    for path in built:
        assert (SITE / path).read_text(encoding="utf-8").lstrip().startswith(("<?xml", "<svg"))


def test_every_guide_is_in_the_sites_navigation():
    """A page left out of ``nav`` is built but reachable only by search: every docs page is listed."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:", 1)[1]
    listed = set(re.findall(r":\s*([\w/.-]+\.md)\s*$", nav, flags=re.M))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert pages - listed == set(), f"mkdocs.yml's nav lacks {sorted(pages - listed)}"
    assert "index.md" in listed
