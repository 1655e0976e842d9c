"""The command line's side data: --train, --catalog, --item-features (--feature-sets), --system-values.

Every number is checked against the Python API on the same frames (csv keeps floats exactly).
"""

from __future__ import annotations

import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.cli import main
from rankeval.datasets import make_ratings, recommend, train_test_folds
from rankeval.exceptions import RankevalWarning
from rankeval.io._files import EXACT_FLOATS

RATINGS = make_ratings(90, 50, 10, seed=5)
FOLDS = list(train_test_folds(RATINGS, 3, seed=5))[:2]
ITEMS = sorted(RATINGS["item_id"].unique())
RNG = np.random.default_rng(5)
VECTORS = pd.DataFrame(RNG.normal(size=(len(ITEMS), 3)), index=pd.Index(ITEMS, name="item_id"), columns=list("abc"))
GENRES = ["|".join(sorted(set(RNG.choice(["Action", "Drama", "Comedy", "Horror"], 2)))) for _ in ITEMS]
SETS = pd.DataFrame({"genres": [frozenset(g.split("|")) for g in GENRES]}, index=pd.Index(ITEMS, name="item_id"))
CATALOG = ITEMS + ["i0999"]


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for f, (train, test) in enumerate(FOLDS, 1):
        train.to_csv(f"train{f}.csv", index=False)
        test.to_csv(f"truth{f}.csv", index=False)
        for kind in ("popularity", "random"):
            recommend(train, test, kind, 8, seed=5).to_csv(f"{kind}{f}.csv", index=False)
    (tmp_path / "catalog.txt").write_text("\n".join(CATALOG) + "\n\n")
    pd.DataFrame({"item_id": CATALOG}).to_csv("catalog.csv", index=False)
    VECTORS.rename_axis("movie").reset_index().to_csv("vectors.csv", index=False)  # ids in the first column
    features = VECTORS.reset_index().assign(genres=GENRES)
    features.to_csv("features.csv", index=False)
    return tmp_path


def run(*args: str, capsys) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def read_csv(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), **EXACT_FLOATS)


def api(metrics, split, **side):
    train, test = FOLDS[split]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return rk.EvalModel(recommend(train, test, "popularity", 8, seed=5), test, metrics, **side).fit()[0]


METRICS = ["NDCG@8", "Coverage@8", "Gini@8", "Entropy@8", "ARP@8", "TailShare@8", "Novelty@8", "EPC@8", "ILD@8"]


@pytest.mark.parametrize("catalog", ["catalog.txt", "catalog.csv"])
def test_evaluate_with_every_side_file_equals_the_api(files, capsys, catalog):
    args = ["evaluate", "--pred", "popularity1.csv", "--truth", "truth1.csv", "--train", "train1.csv",
            "--catalog", catalog, "--item-features", "features.csv", "--feature-sets", "genres", "--format", "csv"]
    status, out, err = run(*args, *[a for m in METRICS for a in ("-m", m)], capsys=capsys)
    assert status == 0, err
    got = read_csv(out).set_index("split")
    expected = api([rk.parse_metric(m) for m in METRICS], 0, train=FOLDS[0][0], catalog=CATALOG, item_features=SETS)
    for m in METRICS:
        assert got.loc["fold1", m] == expected.loc["fold1", m], m
    # the catalog's extra item counts: coverage over 51 items, not 50
    assert got.loc["fold1", "Coverage@8"] == pytest.approx(
        recommend(*FOLDS[0], "popularity", 8, seed=5)["item_id"].nunique() / 51, abs=1e-15)


def test_numeric_item_features_with_ids_in_the_first_column(files, capsys):
    status, out, err = run("evaluate", "--pred", "popularity1.csv", "--truth", "truth1.csv", "--item-features",
                           "vectors.csv", "-m", "ILD@8", "--format", "csv", capsys=capsys)
    assert status == 0, err
    expected = api([rk.IntraListDiversity(8)], 0, item_features=VECTORS)
    assert read_csv(out).set_index("split").loc["fold1", "ILD@8"] == expected.loc["fold1", "ILD@8"]


def test_one_train_per_split_or_one_for_all(files, capsys):
    base = ["evaluate", "--pred", "popularity1.csv", "--pred", "popularity2.csv", "--truth", "truth1.csv",
            "--truth", "truth2.csv", "-m", "Novelty@8", "--format", "csv"]
    status, out, err = run(*base, "--train", "train1.csv", "--train", "train2.csv", capsys=capsys)
    assert status == 0, err
    per_split = read_csv(out).set_index("split")["Novelty@8"]
    assert per_split["fold2"] == api([rk.Novelty(8)], 1, train=FOLDS[1][0]).loc["fold1", "Novelty@8"]
    status, out, err = run(*base, "--train", "train1.csv", capsys=capsys)
    assert status == 0, err
    one = read_csv(out).set_index("split")["Novelty@8"]
    assert one["fold1"] == per_split["fold1"] and one["fold2"] != per_split["fold2"]


def test_compare_tests_per_user_metrics_and_lists_system_level_ones(files, capsys):
    args = ["compare", "--system", "pop=popularity1.csv,popularity2.csv", "--system", "rnd=random1.csv,random2.csv",
            "--truth", "truth1.csv", "--truth", "truth2.csv", "--train", "train1.csv", "--train", "train2.csv",
            "--n-resamples", "100", "-m", "ARP@8", "-m", "Coverage@8", "-m", "Gini@8"]
    status, out, err = run(*args, "--format", "csv", "--system-values", "values.csv", capsys=capsys)
    assert status == 0, err
    assert err == ""
    table = read_csv(out)
    assert table["metric"].tolist() == ["ARP@8"]
    systems = {k: [recommend(tr, te, k, 8, seed=5) for tr, te in FOLDS] for k in ("popularity", "random")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        res = rk.compare({"pop": systems["popularity"], "rnd": systems["random"]}, [te for _, te in FOLDS],
                         [rk.AveragePopularity(8), rk.CatalogCoverage(8), rk.GiniIndex(8)],
                         train=[tr for tr, _ in FOLDS], n_resamples=100)
    assert table.loc[0, "diff"] == res.table.loc[("ARP@8", "pop", "rnd"), "diff"]
    values = pd.read_csv("values.csv", **EXACT_FLOATS).set_index("system")
    pd.testing.assert_frame_equal(values, res.system_values, check_names=False, check_column_type=False)
    # csv without --system-values: one warning says where the listed metrics went
    status, out, err = run(*args, "--format", "csv", capsys=capsys)
    assert status == 0 and "['Coverage@8', 'Gini@8'] have no per-user value" in err and "--system-values" in err
    # the table and markdown formats show them
    status, out, err = run(*args, capsys=capsys)
    assert status == 0 and "no test (no per-user value; mean over splits):" in out and "Coverage@8" in out
    status, out, err = run(*args, "--format", "markdown", capsys=capsys)
    assert status == 0 and "| Coverage@8† | Gini@8† |" in out.splitlines()[0]


@pytest.mark.parametrize("extra, match", [
    (["--train", "nope.csv"], r"not found: 'nope.csv'"),
    (["--train", "truth1.csv", "--train", "truth2.csv", "--train", "train1.csv"],
     r"--train is given 3 times for 1 split\(s\)"),
    (["--train", "catalog.csv"], r"--train file 'catalog.csv' has no column 'user_id'"),
    (["--catalog", "empty.txt"], r"--catalog file 'empty.txt' holds no item id"),
    (["--catalog", "vectors.csv"], r"--catalog file 'vectors.csv' has no 'item_id' column and 4 columns"),
    (["--item-features", "features.csv"], r"column 'genres' is not numeric .* --feature-sets genres"),
    (["--item-features", "features.csv", "--feature-sets", "tags"], r"--feature-sets 'tags': .* has no such column"),
    (["--feature-sets", "genres"], r"--feature-sets names a column of --item-features, which is not given"),
    (["--item-features", "dup.csv"], r"--item-features features|--item-features dup.csv: --item-features repeats 1 item "
                                     r"id in 2 rows"),
    (["--item-features", "catalog.txt"], r"unknown|extension|\.txt"),
])
def test_bad_side_files_are_one_line_errors_with_status_2(files, capsys, extra, match):
    (files / "empty.txt").write_text("\n \n")
    pd.DataFrame({"item_id": ["i0001", "i0001"], "x": [1.0, 2.0]}).to_csv("dup.csv", index=False)
    status, out, err = run("evaluate", "--pred", "popularity1.csv", "--truth", "truth1.csv", "-m", "ILD@8",
                           "-m", "ARP@8", *extra, capsys=capsys)
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankeval: error: "), err
    assert re.search(match, lines[0]), lines[0]


def test_a_metric_without_its_side_file_names_the_option(files, capsys):
    status, out, err = run("evaluate", "--pred", "popularity1.csv", "--truth", "truth1.csv", "-m", "Novelty@8",
                           capsys=capsys)
    assert status == 2 and "Novelty@8 needs side data (split 'fold1'): pass --train (the interactions the recommender learned from)\n" in err
