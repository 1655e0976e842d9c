"""Sampled-candidate runs as a user meets them: tables cached on disk between runs, progress
while they compute, ``gamma=`` wherever ``estimator=`` is, per-user sizes from the command line."""

from __future__ import annotations

import io
import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.exceptions import RankevalWarning
from rankeval.metrics.sampled import RankValue, _store, _tables
from rankeval.sampled import SampledCandidates, SampledMetric, estimator_table

from ._require import require
from .test_sampled import sampled_frames

M = 10
N_USERS = 40


def per_user_sizes(seed=3, low=30, high=90):
    return pd.Series(np.random.default_rng(seed).integers(low, high, N_USERS), index=range(N_USERS))


def clear_memory():
    """Forget every table in memory, so the next one comes from disk or is computed."""
    estimator_table.cache_clear()
    _tables.gram_terms.cache_clear()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("RANKEVAL_CACHE_DIR", str(folder))
    monkeypatch.delenv("RANKEVAL_NO_CACHE", raising=False)
    clear_memory()
    yield folder / "sampled-tables"
    clear_memory()


def table_files(folder):
    return sorted(folder.glob("*.bin")) if folder.exists() else []


def users_values(pred, truth, n_items, **options):
    metrics = [rk.HitRateAtK(5), rk.NDCGAtK(5), rk.MRR()]
    _, users = rk.EvalModel(pred, truth, metrics, sampled=SampledCandidates(n_items, M), progress=False,
                            **options).fit()
    return users


# ---------------------------------------------------------------- the disk cache
def test_tables_from_disk_are_bit_identical_to_computed_ones(cache, monkeypatch):
    pred, truth = sampled_frames(N_USERS, M, seed=1)
    n_items = per_user_sizes()
    monkeypatch.setenv("RANKEVAL_NO_CACHE", "1")
    computed = users_values(pred, truth, n_items)
    assert table_files(cache) == []  # turned off: nothing written
    monkeypatch.delenv("RANKEVAL_NO_CACHE")
    clear_memory()
    cold = users_values(pred, truth, n_items)  # computes and writes
    files = table_files(cache)
    # one file per (n, metric) of the corrected columns: the naive tables are not worth a file
    assert len(files) == 3 * n_items.nunique()
    clear_memory()
    calls = []
    monkeypatch.setattr(_tables, "_least_squares", lambda *a: calls.append(a))
    warm = users_values(pred, truth, n_items)  # reads every table back: nothing computed
    assert calls == []
    for frame in (cold, warm):
        pd.testing.assert_frame_equal(frame, computed, check_exact=True)
        assert frame.to_numpy().tobytes() == computed.to_numpy().tobytes()


def test_a_corrupt_or_foreign_file_is_recomputed_never_trusted(cache):
    value = RankValue("dcg", 5)
    expected = estimator_table(200, M, value, "bias_variance", 0.1).copy()
    (path,) = table_files(cache)
    key = _store.table_key(200, M, value, "bias_variance", 0.1)
    good = path.read_bytes()
    other = _store.table_key(201, M, value, "bias_variance", 0.1)
    wrong_numbers = good[:-8] + np.float64(0.5).tobytes()
    for bad in (good[:-3], good[:10], b"", wrong_numbers, good.replace(key.encode(), other.encode()),
                good.replace(b"rankeval-sampled-table 1", b"rankeval-sampled-table 0")):
        path.write_bytes(bad)
        assert _store.load_table(key, M + 1) is None
        clear_memory()
        np.testing.assert_array_equal(estimator_table(200, M, value, "bias_variance", 0.1), expected)
        assert path.read_bytes() == good  # rewritten whole


def test_the_key_holds_everything_the_table_depends_on(cache, monkeypatch):
    value = RankValue("hit", 5)
    base = _store.table_key(100, M, value, "bias_variance", 0.1)
    others = [_store.table_key(101, M, value, "bias_variance", 0.1),
              _store.table_key(100, M + 1, value, "bias_variance", 0.1),
              _store.table_key(100, M, RankValue("hit", 6), "bias_variance", 0.1),
              _store.table_key(100, M, RankValue("rr", 5), "bias_variance", 0.1),
              _store.table_key(100, M, RankValue("dcg", 5, "jarvelin"), "bias_variance", 0.1),
              _store.table_key(100, M, RankValue("dcg", 5, "log2", np.log), "bias_variance", 0.1),
              _store.table_key(100, M, value, "minimal_bias", 0.1),
              _store.table_key(100, M, value, "bias_variance", 0.1 + 1e-17 + 2**-55)]
    assert len({base, *others}) == len(others) + 1
    # a code change makes every stored table stale
    monkeypatch.setattr(_store, "_code_version", lambda: "another version of _tables.py")
    assert _store.table_key(100, M, value, "bias_variance", 0.1) != base
    # a discount written in Python could compute anything: kept in memory only
    assert _store.table_key(100, M, RankValue("dcg", 5, "log2", lambda x: np.log2(x)), "bias_variance", 0.1) is None


def test_an_unwritable_cache_warns_once_and_changes_nothing(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RANKEVAL_CACHE_DIR", str(blocker))
    monkeypatch.setattr(_store, "_unwritable", set())
    clear_memory()
    pred, truth = sampled_frames(N_USERS, M, seed=1)
    with pytest.warns(RankevalWarning, match=r"cannot be cached in .*a-file.*RANKEVAL_CACHE_DIR") as caught:
        got = users_values(pred, truth, per_user_sizes())
    assert len([w for w in caught if "cannot be cached" in str(w.message)]) == 1
    clear_memory()
    monkeypatch.setenv("RANKEVAL_NO_CACHE", "1")
    pd.testing.assert_frame_equal(got, users_values(pred, truth, per_user_sizes()), check_exact=True)


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("RANKEVAL_NO_CACHE", raising=False)
    monkeypatch.setenv("RANKEVAL_CACHE_DIR", str(tmp_path / "x"))
    assert _store.cache_dir() == tmp_path / "x" / "sampled-tables"
    monkeypatch.delenv("RANKEVAL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _store.cache_dir() == tmp_path / "xdg" / "rankeval" / "sampled-tables"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert _store.cache_dir() == tmp_path / "home" / ".cache" / "rankeval" / "sampled-tables"
    for off in ("1", "yes", "true"):
        monkeypatch.setenv("RANKEVAL_NO_CACHE", off)
        assert _store.cache_dir() is None
    monkeypatch.setenv("RANKEVAL_NO_CACHE", "0")
    assert _store.cache_dir() is not None


def test_every_metric_of_a_run_shares_one_gram_matrix_per_size(cache, monkeypatch):
    # 60 sizes, three metrics: the Gram matrix of each size is computed once, not once per metric
    pred, truth = sampled_frames(N_USERS, M, seed=1)
    n_items = pd.Series(np.arange(N_USERS) + 40, index=range(N_USERS))
    computed = []
    original = _tables._gram
    monkeypatch.setattr(_tables, "_gram", lambda n, m: computed.append(n) or original(n, m))
    monkeypatch.setenv("RANKEVAL_NO_CACHE", "1")
    users_values(pred, truth, n_items)
    assert sorted(computed) == list(range(40, 40 + N_USERS))


# ---------------------------------------------------------------- progress
def run_with_stderr(capsys, progress, monkeypatch):
    monkeypatch.setattr(_tables, "PROGRESS_DELAY", 0.0)
    pred, truth = sampled_frames(N_USERS, M, seed=1)
    rk.EvalModel(pred, truth, [rk.NDCGAtK(5)], sampled=SampledCandidates(per_user_sizes(), M),
                 progress=progress).fit()
    return capsys.readouterr().err


def test_the_tables_of_a_per_user_size_show_progress(cache, capsys, monkeypatch):
    err = run_with_stderr(capsys, True, monkeypatch)
    n = per_user_sizes().nunique()
    assert f"rankeval: tables of NDCG@5:   0%|          | 0/{n} " in err
    assert "tables of NDCG@5-naive" not in err  # a formula per table: nothing to wait for
    clear_memory()
    assert "tables of" not in run_with_stderr(capsys, False, monkeypatch)


def test_the_bar_waits_a_second(cache, capsys, monkeypatch):
    # the default delay: tables computed in well under a second show nothing
    assert _tables.PROGRESS_DELAY == 1.0
    pred, truth = sampled_frames(N_USERS, M, seed=1)
    rk.EvalModel(pred, truth, [rk.NDCGAtK(5)], sampled=SampledCandidates(per_user_sizes(), M), progress=True).fit()
    assert "tables of" not in capsys.readouterr().err


# ---------------------------------------------------------------- gamma= beside estimator=
def test_gamma_on_evalmodel_and_compare_is_sampledmetrics_gamma():
    pred, truth = sampled_frames(N_USERS, M, seed=2)
    design = SampledCandidates(per_user_sizes(), M)
    metric = rk.NDCGAtK(5)
    _, default = rk.EvalModel(pred, truth, [metric], sampled=design).fit()
    _, given = rk.EvalModel(pred, truth, [metric], sampled=design, gamma=0.5).fit()
    _, direct = rk.EvalModel(pred, truth, [SampledMetric(metric, design, gamma=0.5)]).fit()
    np.testing.assert_array_equal(given["NDCG@5"].to_numpy(), direct["NDCG@5"].to_numpy())
    assert not np.allclose(given["NDCG@5"].to_numpy(), default["NDCG@5"].to_numpy())
    # the naive column has no gamma
    np.testing.assert_array_equal(given["NDCG@5-naive"].to_numpy(), default["NDCG@5-naive"].to_numpy())
    pred_b = pred.assign(score=-pred.score)
    _, direct_b = rk.EvalModel(pred_b, truth, [SampledMetric(metric, design, gamma=0.5)]).fit()
    res = rk.compare({"a": pred, "b": pred_b}, truth, [metric], sampled=design, gamma=0.5, n_resamples=100)
    row = res.table.reset_index().set_index("metric").loc["NDCG@5"]
    assert row["mean_a"] == direct["NDCG@5"].mean()
    assert row["mean_b"] == direct_b["NDCG@5"].mean()


@pytest.mark.parametrize("options, match", [
    ({"gamma": 0.5}, r"`gamma`=0.5 needs `sampled=`"),
    ({"gamma": 1.5, "sampled": SampledCandidates(100, M)}, r"`gamma` must be a number in \[0, 1\], got 1.5"),
    ({"gamma": True, "sampled": SampledCandidates(100, M)}, r"`gamma` must be a number in \[0, 1\], got True"),
    ({"gamma": 0.5, "sampled": SampledCandidates(100, M), "estimator": "rescaled"},
     r"`gamma`=0.5 weighs the variance of the bias-variance estimator only; `estimator`='rescaled'"),
    ({"estimator": "exact", "sampled": SampledCandidates(100, M)}, r"`estimator` must be one of \['naive'"),
])
def test_bad_gamma(options, match):
    pred, truth = sampled_frames(5, M, seed=2)
    with pytest.raises(ValueError, match=match):
        rk.EvalModel(pred, truth, [rk.NDCGAtK(5)], **options)
    with pytest.raises(ValueError, match=match):
        rk.compare({"a": pred, "b": pred}, truth, [rk.NDCGAtK(5)], **options)


def test_report_states_gamma(tmp_path):
    require("jinja2")
    require("matplotlib")
    pred, truth = sampled_frames(20, 100, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page = rk.report(systems={"a": pred, "b": pred.assign(score=-pred.score)}, truth=truth,
                         metrics=[rk.NDCGAtK(10)], sampled=SampledCandidates(2000, 100), gamma=0.25, n_resamples=100)
    assert "estimator &#39;bias_variance&#39; (gamma 0.25)" in page.html


# ---------------------------------------------------------------- the command line
def cli_frames(tmp_path):
    pred, truth = sampled_frames(N_USERS, M, seed=4)
    pred.to_csv(tmp_path / "pred.csv", index=False)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    return pred, truth, ["evaluate", "--pred", str(tmp_path / "pred.csv"), "--truth", str(tmp_path / "truth.csv"),
                         "-m", "NDCG@5", "-m", "MRR", "--format", "csv", "-q", "--per-user",
                         str(tmp_path / "users.csv")]


def cli_users(tmp_path, capsys, args):
    from rankeval.cli import main
    assert main(args) == 0, capsys.readouterr().err
    capsys.readouterr()
    # round_trip: pandas 2.2's default float parser is off in the last places (the CLI writes every bit)
    return pd.read_csv(tmp_path / "users.csv", float_precision="round_trip").set_index(["split", "user_id"])


def test_cli_gamma_equals_the_api(tmp_path, capsys):
    pred, truth, args = cli_frames(tmp_path)
    got = cli_users(tmp_path, capsys, [*args, "--sampled", "120:10", "--gamma", "0.5"])
    _, expected = rk.EvalModel(pred, truth, [rk.NDCGAtK(5), rk.MRR()], sampled=SampledCandidates(120, M),
                               gamma=0.5).fit()
    for col in ("NDCG@5", "MRR", "NDCG@5-naive"):
        np.testing.assert_allclose(got[col].to_numpy(), expected[col].to_numpy(), rtol=1e-15)
    default = cli_users(tmp_path, capsys, [*args, "--sampled", "120:10"])
    assert not np.allclose(got["NDCG@5"].to_numpy(), default["NDCG@5"].to_numpy())


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_cli_per_user_sizes_equal_the_api(tmp_path, capsys, fmt):
    if fmt == "parquet":
        require("pyarrow")
    pred, truth, args = cli_frames(tmp_path)
    n_items = per_user_sizes()
    sizes = pd.DataFrame({"user_id": n_items.index, "n_items": n_items.to_numpy()})
    path = tmp_path / f"sizes.{fmt}"
    if fmt == "parquet":
        sizes.assign(user_id=sizes.user_id.astype(str)).to_parquet(path)
    else:
        sizes.to_csv(path, index=False, sep="," if fmt == "csv" else "\t")
    got = cli_users(tmp_path, capsys, [*args, "--sampled", "10", "--sampled-n-items", str(path)])
    _, expected = rk.EvalModel(pred, truth, [rk.NDCGAtK(5), rk.MRR()], sampled=SampledCandidates(n_items, M)).fit()
    for col in ("NDCG@5", "MRR"):
        np.testing.assert_allclose(got[col].to_numpy(), expected[col].to_numpy(), rtol=1e-15)
    # not one size for everyone
    _, one = rk.EvalModel(pred, truth, [rk.NDCGAtK(5)], sampled=SampledCandidates(60, M)).fit()
    assert not np.allclose(got["NDCG@5"].to_numpy(), one["NDCG@5"].to_numpy())


def test_cli_per_user_sizes_take_the_user_column_name(tmp_path, capsys):
    pred, truth, args = cli_frames(tmp_path)
    renamed = [a.replace("pred.csv", "pred2.csv").replace("truth.csv", "truth2.csv") for a in args]
    pred.rename(columns={"user_id": "uid"}).to_csv(tmp_path / "pred2.csv", index=False)
    truth.rename(columns={"user_id": "uid"}).to_csv(tmp_path / "truth2.csv", index=False)
    n_items = per_user_sizes()
    # columns in another order, and a third column the reader ignores
    pd.DataFrame({"n_items": n_items.to_numpy(), "note": "x", "uid": n_items.index}).to_csv(
        tmp_path / "sizes.csv", index=False)
    from rankeval.cli import main
    assert main([*renamed, "--user-col", "uid", "--sampled", "10", "--sampled-n-items",
                 str(tmp_path / "sizes.csv")]) == 0, capsys.readouterr().err
    got = pd.read_csv(tmp_path / "users.csv", float_precision="round_trip")  # every bit, on pandas 2.2 too
    _, expected = rk.EvalModel(pred, truth, [rk.NDCGAtK(5)], sampled=SampledCandidates(n_items, M)).fit()
    np.testing.assert_allclose(got["NDCG@5"].to_numpy(), expected["NDCG@5"].to_numpy(), rtol=1e-15)


@pytest.mark.parametrize("extra, match", [
    (["--gamma", "0.5"], r"--gamma needs --sampled"),
    (["--estimator", "rescaled"], r"--estimator needs --sampled"),
    (["--sampled-n-items", "SIZES"], r"--sampled-n-items needs --sampled"),
    (["--sampled", "120:10", "--gamma", "2"], r"--gamma must be a number in \[0, 1\], got 2.0"),
    (["--sampled", "120:10", "--gamma", "0.5", "--estimator", "naive"],
     r"--gamma weighs the variance of --estimator bias_variance only, not of naive"),
    (["--sampled", "120:10", "--sampled-n-items", "SIZES"], r"with --sampled-n-items give N_NEGATIVES alone"),
    (["--sampled", "10"], r"--sampled '10' must be N_ITEMS:N_NEGATIVES.*--sampled-n-items"),
    (["--sampled", "10", "--sampled-n-items", "BAD"], r"--sampled-n-items file .*needs a user column"),
    (["--sampled", "10", "--sampled-n-items", "SHORT"],
     r"--sampled-n-items file '.*short.csv' has no n_items for 1 user\(s\) with a list and truth, e.g. \['39'\]"),
    (["--sampled", "10", "--sampled-n-items", "SMALL"],
     r"--sampled-n-items .*small.csv: `n_items` must be whole numbers above `n_negatives`=10"),
    (["--sampled", "10", "--sampled-n-items", "sizes.txt"], r"--sampled-n-items: .*extension"),
])
def test_cli_sampled_errors(tmp_path, capsys, extra, match):
    from rankeval.cli import main
    _, _, args = cli_frames(tmp_path)
    n_items = per_user_sizes()
    frame = pd.DataFrame({"user_id": n_items.index, "n_items": n_items.to_numpy()})
    frame.to_csv(tmp_path / "sizes.csv", index=False)
    frame.head(N_USERS - 1).to_csv(tmp_path / "short.csv", index=False)
    frame.assign(n_items=5).to_csv(tmp_path / "small.csv", index=False)
    frame.assign(a=1, b=2).rename(columns={"user_id": "who", "n_items": "size"}).to_csv(tmp_path / "bad.csv",
                                                                                         index=False)
    paths = {"SIZES": "sizes.csv", "BAD": "bad.csv", "SHORT": "short.csv", "SMALL": "small.csv"}
    extra = [str(tmp_path / paths[a]) if a in paths else str(tmp_path / a) if a.endswith(".txt") else a
             for a in extra]
    assert main([*args, *extra]) == 2
    err = capsys.readouterr().err
    assert re.search(match, err), err


def test_the_cache_is_not_in_the_users_home_during_tests():
    # conftest points the cache at a folder of the test run
    assert "rankeval-cache" in os.environ["RANKEVAL_CACHE_DIR"]


def test_cli_compare_with_per_user_sizes_and_gamma_equals_the_api(tmp_path, capsys):
    from rankeval.cli import main
    pred, truth = sampled_frames(N_USERS, M, seed=5)
    pred_b = pred.assign(score=np.random.default_rng(6).permutation(len(pred)).astype(float))
    pred.to_csv(tmp_path / "a.csv", index=False)
    pred_b.to_csv(tmp_path / "b.csv", index=False)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    n_items = per_user_sizes()
    pd.DataFrame({"user_id": n_items.index, "n_items": n_items.to_numpy()}).to_csv(tmp_path / "sizes.csv",
                                                                                    index=False)
    assert main(["compare", "--system", f"a={tmp_path / 'a.csv'}", "--system", f"b={tmp_path / 'b.csv'}",
                 "--truth", str(tmp_path / "truth.csv"), "-m", "NDCG@5", "--format", "csv", "-q",
                 "--n-resamples", "100", "--sampled", "10", "--sampled-n-items", str(tmp_path / "sizes.csv"),
                 "--gamma", "0.3"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("metric")
    res = rk.compare({"a": pred, "b": pred_b}, truth, [rk.NDCGAtK(5)], sampled=SampledCandidates(n_items, M),
                     gamma=0.3, n_resamples=100)
    expected = res.table.reset_index().set_index("metric")
    for col in ("mean_a", "mean_b", "p_value"):
        assert got.loc["NDCG@5", col] == pytest.approx(expected.loc["NDCG@5", col], rel=1e-12)
    default = rk.compare({"a": pred, "b": pred_b}, truth, [rk.NDCGAtK(5)], sampled=SampledCandidates(n_items, M),
                         n_resamples=100).table.reset_index().set_index("metric")
    assert got.loc["NDCG@5", "mean_a"] != pytest.approx(default.loc["NDCG@5", "mean_a"], rel=1e-6)


def test_cli_report_takes_gamma_and_per_user_sizes(tmp_path, capsys):
    require("jinja2")
    require("matplotlib")
    from rankeval.cli import main
    _, _, _ = cli_frames(tmp_path)
    n_items = per_user_sizes()
    pd.DataFrame({"user_id": n_items.index, "n_items": n_items.to_numpy()}).to_csv(tmp_path / "sizes.csv",
                                                                                    index=False)
    out = tmp_path / "page.html"
    assert main(["report", "--system", f"a={tmp_path / 'pred.csv'}", "--truth", str(tmp_path / "truth.csv"),
                 "-m", "NDCG@5", "-q", "--out", str(out), "--sampled", "10", "--sampled-n-items",
                 str(tmp_path / "sizes.csv"), "--gamma", "0.25"]) == 0, capsys.readouterr().err
    html = out.read_text(encoding="utf-8")
    assert "estimator &#39;bias_variance&#39; (gamma 0.25)" in html


def test_the_gram_cache_keeps_to_its_byte_budget(monkeypatch):
    cache = _tables._GramCache()
    one = sum(a.nbytes for a in _tables._gram(40, M))
    monkeypatch.setattr(_tables, "_GRAM_BUDGET", 3 * one)
    for n in range(40, 46):
        cache.get(n, M)
    assert list(cache.entries) == [(43, M), (44, M), (45, M)] and cache.nbytes == 3 * one
    cache.get(44, M)  # a hit moves to the end: 43 goes first
    cache.get(46, M)
    assert list(cache.entries) == [(45, M), (44, M), (46, M)] and cache.nbytes == 3 * one
