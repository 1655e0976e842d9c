"""Results in a notebook: ComparisonResult, MetricResult and the report show themselves as HTML
(``_repr_html_``) with the report's own tables; examples/movielens.ipynb runs end to end
(nbclient, a real kernel) on MovieLens-100K and is committed without outputs."""

from __future__ import annotations

import html
import json
import os
import re
import sys
import types
import warnings
import zipfile
from pathlib import Path

import pytest

import rankeval as rk
from rankeval.datasets import make_ratings, recommend, train_test_folds
from rankeval.views._tables import describe_tests

from ._require import require, unavailable
from .test_split_movielens import MEMBER, _wheel

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "movielens.ipynb"


@pytest.fixture(scope="module")
def comparison():
    ratings = make_ratings(n_users=120, n_items=100, ratings_per_user=20, seed=1)
    train, test = next(train_test_folds(ratings, n_folds=2, seed=1))
    lists = {k: recommend(train, test, k, n=10, seed=1) for k in ("popularity", "random", "noisy_oracle")}
    metrics = [rk.NDCGAtK(5), rk.MRR()]
    return rk.compare(lists, test, metrics, n_resamples=200, seed=0), metrics


def _table(page: str, table_id: str) -> str:
    match = re.search(rf'<table class="sortable" id="{table_id}">.*?</table>', page, flags=re.DOTALL)
    assert match, f"no table {table_id}"
    return re.sub(r"<caption>.*?</caption>", "", match.group(0))  # the page heads some tables with an <h3>


def test_comparison_shows_the_reports_summary_tables(comparison):
    res, metrics = comparison
    shown = res._repr_html_()
    page = rk.report(res, metrics=metrics, n_bootstrap=20, progress=False).html
    # the same cells, markers and CIs as the page: the same builders and the same macro
    assert _table(shown, "means") == _table(page, "means")
    assert _table(shown, "differences") == _table(page, "differences")
    assert html.escape(describe_tests(res)) in shown  # the settings line
    # a significance marker is there: the oracle beats random on both metrics at this size
    assert re.search(r'<sup class="beats">[a-c]*b[a-c]*</sup>', _table(shown, "means"))
    best = float(res.system_means()["NDCG@5"].max())
    assert f'<td class="num best" data-sort="{best!r}"><span class="v">{best:.4f}</span>' in shown


def test_metric_result_shows_system_value_and_users():
    train, truth = next(train_test_folds(make_ratings(n_users=30, n_items=40, ratings_per_user=10, seed=2), seed=2))
    pred = recommend(train, truth, "noisy_oracle", n=5, seed=2)
    res = rk.NDCGAtK(5).perform(rk.Split(pred, truth))
    shown = res._repr_html_()
    value = float(res.system.loc["sys", "NDCG@5"])
    users = res.users["NDCG@5"]
    assert f'<span class="v">{value:.4f}</span>' in _table(shown, "system")
    assert f'<span class="v">{users.median():.4f}</span>' in _table(shown, "users")
    assert f"{len(users)} users; {int(users.isna().sum())} undefined" in shown


def test_report_shows_inline_and_still_saves(comparison, tmp_path):
    res, metrics = comparison
    page = rk.report(res, tmp_path / "r.html", metrics=metrics, n_bootstrap=20, progress=False)
    inline = page._repr_html_()
    assert inline.startswith("<iframe srcdoc=") and "<html" not in inline  # escaped inside the attribute
    srcdoc = re.match(r'<iframe srcdoc="([^"]*)"', inline).group(1)
    assert html.unescape(srcdoc) == page.html
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == page.html
    assert page.save(tmp_path / "again.html").read_text(encoding="utf-8") == page.html


@pytest.fixture
def notebook_without_widgets(monkeypatch):
    """What tqdm.auto takes for a Jupyter notebook (an ipykernel shell), without ipywidgets; tqdm's
    notebook modules forgotten, so that importing them runs their checks (and warnings) again."""
    plt = require("matplotlib.pyplot")
    plt.close(plt.figure())  # pyplot picks its backend (and display hook) here, outside the pretended kernel
    shell = type("ZMQInteractiveShell", (), {})()
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell
    ipython.version_info = (9, 0)  # matplotlib asks (IPython >= 8.24 needs nothing of it)
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("ipykernel.zmqshell"))
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import ipywidgets raises ImportError
    for name in ("tqdm.auto", "tqdm.autonotebook", "tqdm.notebook"):
        monkeypatch.delitem(sys.modules, name, raising=False)


@pytest.mark.parametrize("progress", [True, False], ids=["progress", "no-progress"])
def test_no_tqdm_warning_in_a_notebook_without_widgets(notebook_without_widgets, comparison, capsys, progress):
    res, metrics = comparison
    ratings = make_ratings(n_users=40, n_items=30, ratings_per_user=8, seed=3)
    train, truth = next(train_test_folds(ratings, n_folds=2, seed=3))
    lists = {k: recommend(train, truth, k, n=5, seed=3) for k in ("popularity", "random")}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rk.EvalModel(lists["popularity"], truth, metrics, progress=progress).fit()
        rk.compare(lists, truth, metrics, n_resamples=50, seed=0, progress=progress)
        rk.report(res, metrics=metrics, n_bootstrap=10, progress=progress)
    assert [str(w.message) for w in caught if "tqdm" in type(w.message).__module__] == []
    assert "tqdm.autonotebook" not in sys.modules and "tqdm.notebook" not in sys.modules
    err = capsys.readouterr().err
    # progress on: tqdm's text bars (no widget can be drawn); off: nothing
    assert ("rankeval: metrics" in err and "rankeval: resampling" in err) == progress
    assert "IProgress" not in err


def test_the_widget_is_asked_for_only_in_a_kernel_with_ipywidgets(notebook_without_widgets, monkeypatch):
    from rankeval import _progress

    assert not _progress._widgets_available()  # the kernel, without ipywidgets
    found = object()
    monkeypatch.setattr(_progress.importlib.util, "find_spec", lambda name: found if name == "ipywidgets" else None)
    assert _progress._widgets_available()
    monkeypatch.setenv("QT_API", "pyqt5")  # a Qt console draws no widget
    assert not _progress._widgets_available()
    monkeypatch.delenv("QT_API")
    monkeypatch.delitem(sys.modules, "ipykernel.zmqshell")  # a terminal, or plain IPython
    assert not _progress._widgets_available()


def test_no_renderer_means_the_plain_repr():
    from rankeval._html import html_of

    assert html_of(object()) is None


def test_notebook_is_committed_without_outputs():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert code
    stored = [i for i, c in enumerate(code) if c.get("outputs") or c.get("execution_count") is not None]
    assert not stored, f"code cells {stored} of {NOTEBOOK.name} hold outputs: clear them before committing"


@pytest.fixture(scope="module")
def ml100k_file(tmp_path_factory) -> Path:
    wheel = _wheel()
    if wheel is None:
        unavailable("recbole", "RecBole 1.2.1's wheel (MovieLens-100K) could not be fetched with pip")
    target = tmp_path_factory.mktemp("ml100k") / "ml-100k.inter"
    with zipfile.ZipFile(wheel) as archive:
        target.write_bytes(archive.read(MEMBER))
    return target


def test_movielens_notebook_runs_end_to_end(ml100k_file, tmp_path, monkeypatch):
    nbclient = require("nbclient")
    nbformat = require("nbformat")

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    monkeypatch.setenv("RANKEVAL_ML100K", str(ml100k_file))
    # the kernel imports this checkout's rankeval, as the tests do
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # the kernel has no ipywidgets: tqdm's "IProgress not found" warning must not reach a cell
    assert not [o for o in outputs if o.output_type == "stream" and "TqdmWarning" in o.get("text", "")]
    assert "943 users, 1682 items, 100000 ratings" in "".join(o.get("text", "") for o in outputs)
    rich = [o["data"]["text/html"] for o in outputs if "data" in o and "text/html" in o["data"]]
    assert any('id="differences"' in h for h in rich), "compare's summary was not shown as HTML"
    assert any(h.startswith("<iframe srcdoc=") for h in rich), "the report was not shown inline"
    assert (tmp_path / "movielens_report.html").stat().st_size > 10_000
