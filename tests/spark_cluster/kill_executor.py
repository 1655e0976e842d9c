"""Run the Spark engine on a multi-process local cluster, kill a worker mid-job, compare with a clean run.

Started by tests/test_spark_failures.py in a process of its own (one SparkContext per JVM:
the test session's local[2] context cannot be a cluster). Prints one JSON line: the clean
and the failed run's system rows and per-user values, and what was killed.

``local-cluster[2,1,1024]`` starts a master, two worker JVMs and one executor JVM per worker,
as a cluster has. ``mode``:

- ``executor``: the first time a custom metric's ``per_user`` runs (a marker file makes it once
  per run), it finds the executor JVM that started its Python worker (its ancestor in
  ``/proc``) and kills it with SIGKILL: the kill lands while a task of the job runs, every
  time. The executor's tasks and shuffle files are lost; the worker launches a new executor
  and Spark reruns what was lost;
- ``python_worker``: a custom metric's ``per_user`` ends its Python worker process with
  ``os._exit(1)`` the first time it runs (a marker file makes it once per run): the task
  fails and Spark retries it.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import numpy as np
import pandas as pd


def _executor_of_this_worker() -> int:
    """The pid of the executor JVM that started this Python worker (its nearest such ancestor)."""
    pid = os.getppid()
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if b"CoarseGrainedExecutorBackend" in f.read():
                return pid
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    raise RuntimeError("this Python worker was not started by an executor JVM")


def _executors() -> set[int]:
    """The pids of the executor JVMs running now (read from /proc: ``ps`` cuts long command lines)."""
    found = set()
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if entry.isdigit() and b"CoarseGrainedExecutorBackend" in f.read():
                    found.add(int(entry))
        except OSError:  # not a process, or one that ended while we looked
            continue
    return found


def _judged_metric(rk, k: int, crash: str | None, marker: str):
    class Judged(rk.RankingMetric):
        stem = "Judged"

        def per_user(self, lists):
            if crash is not None and not os.path.exists(marker):
                if crash == "python_worker":
                    open(marker, "w").close()
                    os._exit(1)  # the Python worker dies mid-task, as an out-of-memory kill would end it
                victim = _executor_of_this_worker()
                with open(marker, "w") as f:
                    f.write(str(victim))
                os.kill(victim, signal.SIGKILL)  # the executor JVM dies while its task runs
                os._exit(1)  # and this worker goes with it (an orphan would hold the executor's pipes)
            top = lists.position <= self.k
            return lists.segment_sum(top & ~np.isnan(lists.truth_score)) / self.k

    return Judged(k)


def main() -> None:
    mode = sys.argv[1]
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    import rankeval as rk

    spark = (SparkSession.builder.master("local-cluster[2,1,1024]").appName("rankeval-failures")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.execution.arrow.pyspark.enabled", "true")
             .config("spark.task.maxFailures", "8").config("spark.sql.shuffle.partitions", "8")
             .config("spark.driver.memory", "2g")
             .getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    rng = np.random.default_rng(0)
    n_users, length = 20_000, 20
    pred = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), length),
                         "item_id": rng.integers(0, 5_000, n_users * length),
                         "score": rng.random(n_users * length)}).drop_duplicates(["user_id", "item_id"])
    truth = pred.sample(frac=0.3, random_state=1)[["user_id", "item_id"]].assign(
        score=rng.integers(1, 6, int(round(0.3 * len(pred)))).astype(float))
    metrics = [rk.NDCGAtK(10), rk.MAPAtK(10), rk.MRR(), rk.PrecisionAtK(5)]
    sp_pred, sp_truth = spark.createDataFrame(pred), spark.createDataFrame(truth)
    marker = os.path.abspath("crashed-once")
    if os.path.exists(marker):
        os.remove(marker)  # left by an earlier run in this folder

    def run(crash: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
        judged = _judged_metric(rk, 10, crash, marker)
        sys_result, users = rk.EvalModel(sp_pred, sp_truth, [*metrics, judged], n_buckets=16).fit()
        users = users.toPandas() if hasattr(users, "toPandas") else users.reset_index()
        return sys_result, users.sort_values(list(users.columns[:2])).reset_index(drop=True)

    clean_sys, clean_users = run(crash=None)
    before = _executors()
    failed_sys, failed_users = run(crash=mode)
    report: dict = {"killed": "nothing"}
    if os.path.exists(marker):
        with open(marker) as f:
            victim = f.read()
        report["killed"] = f"executor pid {victim}" if victim else "python_worker (os._exit)"
        if victim:
            report["victim_alive"] = os.path.exists(f"/proc/{victim}")
    # the worker launches a new executor JVM in place of a killed one (within seconds)
    deadline = time.monotonic() + (60 if mode == "executor" else 0)
    while not (_executors() - before) and time.monotonic() < deadline:
        time.sleep(0.5)
    report["executor_replaced"] = bool(_executors() - before)
    pandas_sys, pandas_users = rk.EvalModel(pred, truth, [*metrics, _judged_metric(rk, 10, None, marker)]).fit()
    print(json.dumps({
        **report,
        "same_system": clean_sys.equals(failed_sys),
        "same_users": clean_users.equals(failed_users),
        "same_as_pandas": bool((clean_sys.to_numpy() == pandas_sys.to_numpy()).all()),
        "n_users": int(len(failed_users)),
        "n_users_pandas": int(len(pandas_users)),
    }), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
