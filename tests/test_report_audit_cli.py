"""The report's protocol audit is the same page from the command line as from Python.

``report(truth=splits)`` audits every split with its train frame; ``rankeval report --train``
gives those train frames as side data, which the page now audits too. The pages are read
as text (no browser): the audit section's headings and every cell of its tables, which
must be equal between the two pages and hold rankeval.audit's own counts.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

import rankeval as rk
from rankeval.cli import main
from rankeval.datasets import make_ratings, recommend

from tests._require import require

require("jinja2")
require("matplotlib")

SYSTEMS = ("popularity", "random")


class _Section(HTMLParser):
    """The text of the headings, list items (each split's verdict) and table cells inside
    ``<section id="audit">``, and the table's rows."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # sections open inside the audit section (0: outside it)
        self.cell: list[str] | None = None
        self.parts: list[str] = []
        self.rows: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section" and (self.depth or dict(attrs).get("id") == "audit"):
            self.depth += 1
        elif self.depth and tag == "tr":
            self.rows.append([])
        elif self.depth and tag in ("h2", "h3", "li", "th", "td"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "section" and self.depth:
            self.depth -= 1
        elif self.depth and tag in ("h2", "h3", "li", "th", "td") and self.cell is not None:
            self.parts.append(" ".join("".join(self.cell).split()))
            if tag in ("th", "td") and self.rows:
                self.rows[-1].append(self.parts[-1])
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def _audit_text(page: Path) -> list[str]:
    parser = _Section()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.parts


def _audit_counts(page: Path) -> dict[tuple[str, str], str]:
    """The count cell of every (check, split) row of the page's one audit table."""
    parser = _Section()
    parser.feed(page.read_text(encoding="utf-8"))
    header, *rows = parser.rows
    at = {name: header.index(name) for name in ("check", "split", "count")}
    return {(row[at["check"]], row[at["split"]]): row[at["count"]] for row in rows}


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict:
    """Two folds of timed ratings written as files, two systems' lists; the page made by the
    command and by report(truth=splits), and the audit of each fold by rankeval.audit."""
    folder = tmp_path_factory.mktemp("audit_pages")
    ratings = make_ratings(n_users=40, n_items=50, ratings_per_user=12, seed=1, timestamps=True)
    splits = rk.split.kfold(ratings, n_splits=2, seed=0)
    root = splits.to_dir(folder / "cv", format="csv")
    lists = {k: [recommend(train, test, k, n=10, seed=i) for i, (train, test) in enumerate(splits)]
             for k in SYSTEMS}
    argv = ["report"]
    for k, frames in lists.items():
        paths = []
        for i, frame in enumerate(frames):
            paths.append(str(folder / f"{k}{i}.csv"))
            frame.to_csv(paths[-1], index=False)
        argv.append(f"--system={k}={','.join(paths)}")
    for name in splits.names:
        argv += ["--truth", str(root / name / "test.csv"), "--train", str(root / name / "train.csv"),
                 "--split-name", name]
    common = {"n_bootstrap": 20, "n_resamples": 100, "seed": 0}
    argv += ["-m", "NDCG@10", "--out", str(folder / "cli.html"), "-q", "--n-bootstrap", "20",
             "--n-resamples", "100", "--seed", "0"]
    assert main(argv) == 0
    metrics = [rk.parse_metric("NDCG@10")]
    rk.report(systems=lists, truth=splits, metrics=metrics, path=folder / "api.html", progress=False, **common)
    # the same train frames as side data, from Python: the page the command makes
    sides = [rk.SideData(train=train) for train, _ in splits]
    rk.report(systems=lists, truth=list(splits.tests), metrics=metrics, side=sides, split_names=splits.names,
              path=folder / "side.html", progress=False, **common)
    audits = [rk.audit(train, test, {k: lists[k][i] for k in SYSTEMS}) for i, (train, test) in enumerate(splits)]
    return {"folder": folder, "names": splits.names, "audits": audits}


def test_the_command_line_page_has_the_audit_of_every_split(pages):
    shown = _audit_text(pages["folder"] / "cli.html")
    assert shown and shown[0] == "Protocol audit"
    for name, result in zip(pages["names"], pages["audits"]):
        assert f"{name}: {result.verdict}" in shown  # each split's heading: its verdict
        leak = result.table.loc["temporal leakage, per user"]
        assert int(leak["count"]) > 0  # the data leaks: the numbers below are not zeros by default
        for check, line in result.table.iterrows():
            assert str(check) in shown


def test_the_audit_is_the_same_from_the_command_line_and_from_python(pages):
    cli = _audit_text(pages["folder"] / "cli.html")
    assert cli == _audit_text(pages["folder"] / "api.html")
    assert cli == _audit_text(pages["folder"] / "side.html")
    # and it holds rankeval.audit's counts, each on its (check, split) row
    shown = _audit_counts(pages["folder"] / "cli.html")
    expected = {(str(check), name): str(int(count)) for name, result in zip(pages["names"], pages["audits"])
                for check, count in result.table["count"].items() if count == count}
    assert expected and {key: shown.get(key) for key in expected} == expected
