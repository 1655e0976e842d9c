"""Failures of the machine, not of the input: a Spark cluster that loses an executor or a Python
worker mid-job still gives the same numbers, bit for bit.

Each case runs spark_cluster/kill_executor.py in a process of its own: a multi-process
``local-cluster[2,1,1024]`` (a master, two worker JVMs, one executor JVM each, as a cluster
has), one clean run of ``EvalModel`` on Spark frames, then the same run while one process dies mid-task:
an executor JVM killed with SIGKILL, or a Python worker that exits. Spark retries the lost tasks; the
engine keeps no state in a worker between attempts, so the retried buckets give the same rows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ._require import require

SCRIPT = Path(__file__).resolve().parent / "spark_cluster" / "kill_executor.py"


@pytest.fixture(scope="module", autouse=True)
def _needs_pyspark():
    require("pyspark")  # make test: a missing pyspark is a failure


@pytest.mark.parametrize("mode", ["executor", "python_worker"])
def test_a_killed_worker_is_retried_to_the_same_numbers(mode, tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), mode], cwd=tmp_path, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if mode == "executor":
        assert result.get("killed", "nothing").startswith("executor pid "), result
        assert result["victim_alive"] is False, result  # the executor JVM really died
        assert result["executor_replaced"], result  # and its worker launched a new one
    else:
        assert result.get("killed") == "python_worker (os._exit)", result  # a task's worker died once
        assert not result["executor_replaced"], result  # the executors lived on
    assert result["same_system"] and result["same_users"], result
    assert result["same_as_pandas"], result
    assert result["n_users"] == result["n_users_pandas"] > 19_000, result
