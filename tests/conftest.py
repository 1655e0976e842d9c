"""Shared fixtures: the toy frames (three users, worked out by hand in the tests) and one local Spark session."""

from __future__ import annotations

import os
import sys

import pandas as pd
import pytest

from ._hypothesis import deviation, load
from ._require import require

# --doctest-modules imports every module it collects: the toy metric's file registers its name
# when imported, so only tests/test_toy_metric.py may import it (and unregister it after)
collect_ignore = ["_toy_metric.py"]

# before any test module makes its @settings: each inherits the profile (tests/_hypothesis.py)
load()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a property test whose settings escape the loaded hypothesis profile (its own derandomize or database)."""
    problem = deviation(getattr(item, "obj", None))
    if problem:
        pytest.fail(problem, pytrace=False)


@pytest.fixture(autouse=True, scope="session")
def _sampled_table_cache(tmp_path_factory):
    """The sampled-candidate tables are cached in a folder of this run, never in the user's cache."""
    previous = os.environ.get("RANKEVAL_CACHE_DIR")
    os.environ["RANKEVAL_CACHE_DIR"] = str(tmp_path_factory.mktemp("rankeval-cache"))
    yield
    if previous is None:
        os.environ.pop("RANKEVAL_CACHE_DIR", None)
    else:
        os.environ["RANKEVAL_CACHE_DIR"] = previous


@pytest.fixture
def toy_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Relevant = truth score >= the user's own mean truth score (the default).

    u1 truth a=5 b=1 c=4 (mean 3.33: a, c relevant)  list a, x, c  (x unjudged)
    u2 truth d=2 e=4     (mean 3:    e relevant)     list d, x, e
    u3 truth f=1         (mean 1:    f relevant)     list y, z
    """
    pred = pd.DataFrame({
        "user_id": ["u1", "u1", "u1", "u2", "u2", "u2", "u3", "u3"],
        "item_id": ["a", "x", "c", "d", "x", "e", "y", "z"],
        "score": [0.9, 0.8, 0.7, 0.9, 0.8, 0.7, 0.9, 0.8],
    })
    truth = pd.DataFrame({
        "user_id": ["u1", "u1", "u1", "u2", "u2", "u3"],
        "item_id": ["a", "b", "c", "d", "e", "f"],
        "score": [5.0, 1.0, 4.0, 2.0, 4.0, 1.0],
    })
    return pred, truth


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for the whole run (pyspark's RankingMetrics and the Spark engine).

    Skipped when pyspark is not installed, unless RANKEVAL_REQUIRE_SPARK is set (``make
    test``), where a missing pyspark is a failure.
    """
    require("pyspark")
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers run this interpreter
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master("local[2]").appName("rankeval-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.driver.memory", "2g")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session


@pytest.fixture(scope="session")
def spark_connect(spark):
    """A Spark Connect session on the same local cluster as ``spark``, for the whole run.

    Its DataFrames are ``pyspark.sql.connect.dataframe.DataFrame``: every plan goes through
    Spark Connect (protobuf over gRPC), every Python function through Connect's own
    serialization. One process cannot start a second local cluster next to a classic
    session (``SparkSession.builder.remote("local[2]")`` refuses while one runs, and a
    classic session cannot start after it), so the Connect server is started inside the
    classic session's JVM, on a free port, and a Connect client connects to it: both
    kinds of session in one process, one JVM, one set of Python workers, started once.
    Skipped or failing exactly as ``spark`` when pyspark (or its ``connect`` extra) is missing.
    """
    require("grpc")
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    jvm = spark.sparkContext._jvm
    service = getattr(getattr(jvm.org.apache.spark.sql.connect.service, "SparkConnectService$"), "MODULE$")
    if service.server() is None:
        context = spark.sparkContext._jsc.sc()
        context.conf().set("spark.connect.grpc.binding.port", "0")  # any free port
        jvm.org.apache.spark.sql.connect.service.SparkConnectService.start(context)
    port = service.server().getPort()
    session = ConnectSession.builder.remote(f"sc://localhost:{port}").getOrCreate()
    session.conf.set("spark.sql.shuffle.partitions", "4")
    yield session
    session.stop()
