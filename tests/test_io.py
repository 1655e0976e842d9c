"""rankeval.io: CSV/TSV/Parquet/TREC readers and result writers, exact floats, clear errors."""

from __future__ import annotations

import json
from pathlib import Path
import sys

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
import rankeval.io
import rankeval.io._files
from rankeval.io import format_of, read_frame, read_trec_qrels, read_trec_run, write_frame
from ._require import require

# floats whose shortest repr has 17 significant digits: pandas' default CSV parser reads
# about a quarter of such values one unit in the last place off
FLOATS = np.random.default_rng(7).random(2000) * 10 - 3


def _frame(n: int = len(FLOATS)) -> pd.DataFrame:
    return pd.DataFrame({"user_id": [f"{i % 37:04d}" for i in range(n)], "item_id": [f"i{i}" for i in range(n)],
                         "score": FLOATS[:n]})


# ---------------------------------------------------------------------- formats
@pytest.mark.parametrize("name, expected", [
    ("a.csv", ("csv", None)), ("a.CSV", ("csv", None)), ("a.tsv", ("tsv", None)), ("a.tab", ("tsv", None)),
    ("a.parquet", ("parquet", None)), ("a.pq", ("parquet", None)), ("a.csv.gz", ("csv", "gzip")),
    ("a.tsv.bz2", ("tsv", "bz2")), ("a.csv.zip", ("csv", "zip")), ("a.csv.xz", ("csv", "xz")),
    ("x.run", ("trec_run", None)), ("x.trec", ("trec_run", None)), ("x.qrels", ("trec_qrels", None)),
    ("x.run.gz", ("trec_run", "gzip")), ("my.data.v2.csv", ("csv", None)),
])
def test_format_of(name, expected):
    assert format_of(name) == expected


@pytest.mark.parametrize("name", ["a.xlsx", "a", "a.parquet.gz", "a.json", "a.gz"])
def test_unknown_extension_names_the_file_and_lists_the_supported(tmp_path, name):
    path = tmp_path / name
    path.write_text("x")
    with pytest.raises(ValueError, match="unknown file extension|no file extension") as err:
        read_frame(path)
    assert str(path) in str(err.value)
    for ext in (".csv", ".tsv", ".parquet", ".run", ".qrels", ".gz"):
        assert ext in str(err.value)


def test_write_formats():
    assert format_of("out.json", write=True) == ("json", None)
    with pytest.raises(ValueError, match=r"cannot write 'out.run'.*\.json"):
        format_of("out.run", write=True)
    with pytest.raises(ValueError, match="unknown file extension"):
        format_of("out.json.gz", write=True)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="file not found: '.*nope.csv'"):
        read_frame(tmp_path / "nope.csv")
    with pytest.raises(FileNotFoundError, match="nope.run"):
        read_trec_run(tmp_path / "nope.run")
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(IsADirectoryError, match="is a directory"):
        read_frame(tmp_path / "d.csv")


def test_bad_format_argument(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("user_id,item_id,score\nu,i,1\n")
    with pytest.raises(ValueError, match="`format` must be one of"):
        read_frame(path, format="excel")


# ---------------------------------------------------------------------- CSV / TSV / Parquet
@pytest.mark.parametrize("name", ["f.csv", "f.tsv", "f.tab", "f.csv.gz", "f.tsv.bz2", "f.csv.zip", "f.csv.xz"])
def test_text_round_trip_is_exact(tmp_path, name):
    df = _frame()
    path = tmp_path / name
    write_frame(df, path)
    back = read_frame(path, dtype={"user_id": str})
    pd.testing.assert_frame_equal(back, df)
    assert back["user_id"].iloc[1] == "0001"  # as text, the zero stays
    assert np.array_equal(back["score"].to_numpy(), FLOATS)  # bit for bit


def test_csv_floats_are_read_exactly_where_pandas_default_is_not(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("score\n" + "\n".join(repr(float(x)) for x in FLOATS) + "\n")
    assert np.array_equal(read_frame(path)["score"].to_numpy(), FLOATS)
    # the reason for float_precision="round_trip" on pandas 2: its default parser is off in the
    # last bit (pandas 3 parses exactly by default and deprecates the option)
    exact_by_default = int(pd.__version__.split(".")[0]) >= 3
    assert np.array_equal(pd.read_csv(path)["score"].to_numpy(), FLOATS) == exact_by_default


def test_read_frame_passes_options(tmp_path):
    path = tmp_path / "f.tsv"
    path.write_text("a\tb\n1\t2\n")
    assert read_frame(path, usecols=["b"]).to_dict("list") == {"b": [2]}
    assert read_frame(path, sep=",").columns.tolist() == ["a\tb"]


def test_empty_csv_is_a_value_error(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("")
    with pytest.raises(ValueError, match="e.csv' is empty"):
        read_frame(path)


def test_parquet_round_trip(tmp_path):
    require("pyarrow")
    df = _frame()
    df["rank"] = np.arange(1, len(df) + 1)
    path = tmp_path / "f.parquet"
    write_frame(df, path)
    back = read_frame(path)
    pd.testing.assert_frame_equal(back, df)
    assert read_frame(path, columns=["item_id"]).columns.tolist() == ["item_id"]
    write_frame(df, tmp_path / "f.pq")
    pd.testing.assert_frame_equal(read_frame(tmp_path / "f.pq"), df)


def test_parquet_without_pyarrow_says_what_to_install(tmp_path, monkeypatch):
    path = tmp_path / "f.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow -> ImportError
    with pytest.raises(ImportError, match=r"pip install 'pyarrow>=15'") as err:
        read_frame(path)
    assert "f.parquet" in str(err.value)
    with pytest.raises(ImportError, match=r"pip install 'pyarrow>=15'"):
        write_frame(_frame(3), tmp_path / "out.parquet")


# ---------------------------------------------------------------------- TREC
RUN = """\
0042 Q0 d7 1 12.5 bm25
0042 Q0 NA 2 11.0 bm25

0042\tQ0\td3   3  1e-3\tbm25
  7 Q0 0001 1 -0.30000000000000004 bm25
"""
QRELS = """\
0042 0 d7 2
0042 0 NA 0
7 0 0001 1.5
"""


def test_read_trec_run(tmp_path):
    path = tmp_path / "bm25.run"
    path.write_text(RUN)
    df = read_trec_run(path)
    assert df.columns.tolist() == ["user_id", "item_id", "rank", "score"]
    assert df["user_id"].tolist() == ["0042", "0042", "0042", "7"]
    assert df["item_id"].tolist() == ["d7", "NA", "d3", "0001"]  # "NA" is an id, not a missing value
    assert df["rank"].dtype == np.int64 and df["rank"].tolist() == [1, 2, 3, 1]
    assert df["score"].dtype == np.float64 and df["score"].tolist() == [12.5, 11.0, 1e-3, -0.30000000000000004]
    pd.testing.assert_frame_equal(read_frame(path), df)
    pd.testing.assert_frame_equal(read_frame(tmp_path / "bm25.run", format="trec_run"), df)


def test_read_trec_qrels(tmp_path):
    path = tmp_path / "test.qrels"
    path.write_text(QRELS)
    df = read_trec_qrels(path)
    assert df.columns.tolist() == ["user_id", "item_id", "score"]
    assert df["user_id"].tolist() == ["0042", "0042", "7"]
    assert df["item_id"].tolist() == ["d7", "NA", "0001"]
    assert df["score"].dtype == np.float64 and df["score"].tolist() == [2.0, 0.0, 1.5]
    pd.testing.assert_frame_equal(read_frame(path), df)


def test_trec_compressed_and_format_override(tmp_path):
    import gzip
    path = tmp_path / "bm25.run.gz"
    with gzip.open(path, "wt") as f:
        f.write(RUN)
    df = read_frame(path)
    assert df["item_id"].tolist() == ["d7", "NA", "d3", "0001"]
    plain = tmp_path / "judgments.txt"
    plain.write_text(QRELS)
    assert read_frame(plain, format="trec_qrels")["score"].tolist() == [2.0, 0.0, 1.5]
    with pytest.raises(TypeError, match="TREC files take no reader options"):
        read_frame(tmp_path / "bm25.run.gz", dtype=str)


def test_empty_trec_files(tmp_path):
    (tmp_path / "e.run").write_text("")
    (tmp_path / "e.qrels").write_text("\n\n")
    run, qrels = read_trec_run(tmp_path / "e.run"), read_trec_qrels(tmp_path / "e.qrels")
    assert run.columns.tolist() == ["user_id", "item_id", "rank", "score"] and len(run) == 0
    assert qrels.columns.tolist() == ["user_id", "item_id", "score"] and len(qrels) == 0


@pytest.mark.parametrize("reader, text, line, what", [
    (read_trec_run, "q Q0 d 1 0.5 t\n\nq Q0 e 2 0.4\n", 3, r"expected 6 whitespace-separated fields .*found 5"),
    (read_trec_run, "# a comment\nq Q0 d 1 0.5\n", 2, "found 5"),
    (read_trec_qrels, "q 0 d 1\nq 0 e 2 extra words\n", 2, "found 6"),
    (read_trec_run, "q Q0 d 1 0.5 t\nq Q0 e two 0.4 t\n", 2, r"the rank \(field 4\) must be an integer, got 'two'"),
    (read_trec_run, "q Q0 d 1 0.5 t\nq Q0 e 2.5 0.4 t\n", 2, "must be an integer, got '2.5'"),
    (read_trec_run, "q Q0 d 1 0.5 t\n\n\nq Q0 e 2 high t\n", 4, r"the score \(field 5\) must be a number"),
    (read_trec_qrels, "q 0 d 1\nq 0 e\n", 2, r"expected 4 whitespace-separated fields \(qid 0 docid rel\)"),
    (read_trec_qrels, "q 0 d 1\nq 0 e 1 x\n", 2, "found 5"),
    (read_trec_qrels, "q 0 d 1\nq 0 e rel\n", 2, r"the relevance grade \(field 4\) must be a number, got 'rel'"),
    (read_trec_qrels, "q Q0 d 1 0.5 t\n", 1, "expected 4"),  # a run given as qrels
])
def test_malformed_trec_line_names_file_line_and_content(tmp_path, reader, text, line, what):
    path = tmp_path / ("x.run" if reader is read_trec_run else "x.qrels")
    path.write_text(text)
    with pytest.raises(ValueError, match=what) as err:
        reader(path)
    message = str(err.value)
    assert message.startswith(f"{path}, line {line}: ")
    bad = [ln for ln in text.splitlines()][line - 1]
    assert repr(bad) in message


def test_malformed_compressed_trec_line(tmp_path):
    import bz2
    path = tmp_path / "x.qrels.bz2"
    with bz2.open(path, "wt") as f:
        f.write("q 0 d 1\n" * 5 + "q 0 e ?\n")
    with pytest.raises(ValueError, match=r"x.qrels.bz2, line 6: .*got '\?'"):
        read_frame(path)


def test_trec_files_evaluate_like_the_equivalent_frames(tmp_path, toy_frames):
    pred, truth = toy_frames
    pred = pred.assign(rank=pred.groupby("user_id").cumcount() + 1)
    (tmp_path / "r.run").write_text("".join(f"{u} Q0 {i} {r} {s!r} t\n" for u, i, s, r in pred.itertuples(index=False)))
    (tmp_path / "t.qrels").write_text("".join(f"{u} 0 {i} {s}\n" for u, i, s in truth.itertuples(index=False)))
    run, qrels = read_frame(tmp_path / "r.run"), read_frame(tmp_path / "t.qrels")
    pd.testing.assert_frame_equal(run, pred[["user_id", "item_id", "rank", "score"]])
    pd.testing.assert_frame_equal(qrels, truth)
    metrics = [rk.NDCGAtK(10), rk.MAPAtK(10), rk.MRR()]
    a = rk.EvalModel(run, qrels, metrics).fit()[0]
    b = rk.EvalModel(pred, truth, metrics).fit()[0]
    pd.testing.assert_frame_equal(a, b, check_exact=True)


# ---------------------------------------------------------------------- writers
def test_json_is_exact_with_null_for_nan(tmp_path):
    df = pd.DataFrame({"split": ["fold1", "fold1"], "user_id": ["0042", "7"], "MRR": [FLOATS[0], np.nan],
                       "n": np.array([3, 4], dtype=np.int64), "significant": [True, False]})
    path = tmp_path / "out.json"
    write_frame(df, path)
    rows = json.loads(path.read_text())
    assert rows == [{"split": "fold1", "user_id": "0042", "MRR": float(FLOATS[0]), "n": 3, "significant": True},
                    {"split": "fold1", "user_id": "7", "MRR": None, "n": 4, "significant": False}]
    assert "NaN" not in path.read_text()


def test_writers_keep_a_named_index(tmp_path, toy_frames):
    pred, truth = toy_frames
    sys_result, users_result = rk.EvalModel(pred, truth, [rk.MRR()]).fit()
    write_frame(sys_result, tmp_path / "sys.csv")
    back = read_frame(tmp_path / "sys.csv", index_col="split")
    pd.testing.assert_frame_equal(back, sys_result, check_exact=True)
    write_frame(users_result, tmp_path / "users.json")
    rows = json.loads((tmp_path / "users.json").read_text())
    assert [r["user_id"] for r in rows] == ["u1", "u2", "u3"] and rows[1]["MRR"] == 1 / 3
    write_frame(pd.DataFrame({"a": [1.5]}, index=[7]), tmp_path / "plain.csv")  # unnamed index: left out
    assert (tmp_path / "plain.csv").read_text() == "a\n1.5\n"


def test_write_frame_errors(tmp_path):
    with pytest.raises(ValueError, match=r"cannot write '.*out.xlsx': unknown file extension '.xlsx'"):
        write_frame(_frame(2), tmp_path / "out.xlsx")
    with pytest.raises(TypeError, match=r"`df` must be a pandas, polars \(DataFrame or LazyFrame\), pyarrow.Table"):
        write_frame({"a": [1]}, tmp_path / "out.csv")


def test_trec_crlf_and_values_only_python_parses(tmp_path):
    path = tmp_path / "w.run"
    path.write_bytes(b"q Q0 d 1 0.5 t\r\nq Q0 e 2 inf t\r\n\r\nq Q0 f 3 -1e400 t\r\n")
    df = read_trec_run(path)
    assert df["item_id"].tolist() == ["d", "e", "f"]
    assert df["score"].tolist() == [0.5, np.inf, -np.inf]
    (tmp_path / "o.run").write_text("q Q0 d 1 0.5 t\nq Q0 e 99999999999999999999 0.4 t\n")
    with pytest.raises(ValueError, match=r"o.run: cannot read the numeric fields"):
        read_trec_run(tmp_path / "o.run")
    (tmp_path / "b.qrels").write_bytes(b"q 0 d 1\nq 0 \xff\xfe 1\n")
    with pytest.raises(ValueError, match=r"b.qrels, line 2: not UTF-8 text"):
        read_trec_qrels(tmp_path / "b.qrels")


def test_csv_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("user_id,item_id,score\nu1,caf\xe9,1\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin.csv' is not UTF-8 text .*save it as UTF-8"):
        read_frame(path)
    assert read_frame(path, encoding="latin-1")["item_id"].tolist() == ["caf\xe9"]


def test_trec_files_are_read_as_trec_eval_reads_them(tmp_path):
    """get_trec_results.c / get_qrels.c: whitespace runs of tabs and spaces separate fields, a line
    starting with '#' is a comment, a run line may carry text after its run tag."""
    run = tmp_path / "r.run"
    run.write_text("# produced by bm25\n"
                   "q1\tQ0  d#1 1\t\t2.5 tag   with a note\n"
                   "   # indented comment\n"
                   "q1 Q0 d2 2 1.5 tag\n")
    got = read_trec_run(run)
    assert got.to_dict("list") == {"user_id": ["q1", "q1"], "item_id": ["d#1", "d2"], "rank": [1, 2],
                                   "score": [2.5, 1.5]}
    qrels = tmp_path / "t.qrels"
    qrels.write_text("#qid iter docno rel\nq1\t0\td#1\t2\nq1 0  d2   0\n")
    assert read_trec_qrels(qrels).to_dict("list") == {"user_id": ["q1", "q1"], "item_id": ["d#1", "d2"],
                                                      "score": [2.0, 0.0]}


def test_rows_longer_than_the_header_are_refused_not_shifted(tmp_path):
    """pandas reads a CSV whose every row has one field more than its header with the first field
    as the index, every value one column off (ids become scores): rankeval refuses it."""
    path = tmp_path / "pred.csv"
    path.write_text("user_id,item_id,score\nu1,a,1,9\nu2,b,2,8\n")
    with pytest.raises(ValueError, match=r"its rows have more fields than its header \(3 column name\(s\) "
                                         r"\['user_id', 'item_id', 'score'\], 4 fields a row\)"):
        rk.io.read_frame(path)
    # an index the caller asks for is theirs
    frame = rk.io.read_frame(path, index_col=0)
    assert list(frame.index) == ["u1", "u2"] and list(frame.columns) == ["user_id", "item_id", "score"]
    assert frame["user_id"].tolist() == ["a", "b"]


# ---------------------------------------------------------------------- atomic writes
def test_a_writer_killed_mid_write_leaves_the_previous_file_whole(tmp_path):
    """SIGKILL while write_frame is writing: the target still holds the old table, byte for byte."""
    import signal
    import subprocess
    import sys
    import time

    target = tmp_path / "users.csv"
    old = pd.DataFrame({"user_id": ["u1"], "NDCG@10": [0.5]})
    rankeval.io.write_frame(old, target)
    before = target.read_bytes()
    script = (
        "import numpy as np, pandas as pd, rankeval.io\n"
        "df = pd.DataFrame({'user_id': np.arange(3_000_000), 'x': np.random.default_rng(0).random(3_000_000)})\n"
        f"rankeval.io.write_frame(df, {str(target)!r})\n")
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 120
        while not any(p.name.startswith(".users.csv.") and p.stat().st_size > 0 for p in tmp_path.iterdir()):
            assert proc.poll() is None, "the writer finished before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert target.read_bytes() == before


@pytest.mark.parametrize("name", ["users.csv", "users.csv.gz", "users.json", "users.parquet"])
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch, name):
    target = tmp_path / name
    rankeval.io.write_frame(pd.DataFrame({"a": [1.0]}), target)
    before = target.read_bytes()

    def broken(self, path, *args, **kwargs):
        Path(path).write_bytes(b"half a tab")  # part of the file is written, then the writer fails
        raise OSError("disk full")

    for method in ("to_csv", "to_parquet"):
        monkeypatch.setattr(pd.DataFrame, method, broken)
    monkeypatch.setattr(rankeval.io._files, "json_text", lambda out: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        rankeval.io.write_frame(pd.DataFrame({"a": [2.0, 3.0]}), target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_written_files_keep_the_usual_permissions(tmp_path):
    import os
    import stat

    fresh = tmp_path / "new.csv"
    rankeval.io.write_frame(pd.DataFrame({"a": [1.0]}), fresh)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    kept = tmp_path / "kept.csv"
    kept.write_text("x\n")
    kept.chmod(0o640)
    rankeval.io.write_frame(pd.DataFrame({"a": [1.0]}), kept)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640


@pytest.mark.parametrize("kind", ["polars", "arrow"])
def test_write_frame_takes_polars_and_arrow_frames(tmp_path, kind):
    import polars as pl
    import pyarrow as pa

    df = pd.DataFrame({"user_id": ["u1", "u2"], "NDCG@10": [0.25, 1 / 3]})
    frame = pl.from_pandas(df) if kind == "polars" else pa.Table.from_pandas(df, preserve_index=False)
    rankeval.io.write_frame(frame, tmp_path / "out.csv")
    back = rankeval.io.read_frame(tmp_path / "out.csv")
    assert back["user_id"].tolist() == ["u1", "u2"]
    assert back["NDCG@10"].tolist() == [0.25, 1 / 3]  # exact floats
