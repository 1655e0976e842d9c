"""Generate RecBole 1.2.1's own per-user and system values, stored as test references.

This script runs ONLY in a RecBole venv (not rankeval's)::

    python3.11 -m venv /tmp/peers/recbole
    /tmp/peers/recbole/bin/pip install --no-deps recbole==1.2.1
    /tmp/peers/recbole/bin/pip install --only-binary=:all: torch==2.13.0 numpy==1.23.5 pandas==1.5.3 \\
        scipy scikit-learn==1.5.2 tensorboard texttable colorlog==4.7.2 colorama==0.4.4 tqdm pyyaml
    /tmp/peers/recbole/bin/python tests/reference/recbole/generate.py

RecBole imports torch everywhere: ``recbole/evaluator/base_metric.py`` (``import torch``),
``collector.py`` and ``recbole/utils/utils.py`` (which also needs tensorboard and texttable).
The CPU torch wheel (``torch==2.13.0+cpu``, 190 MB) installed from the machine's local wheel
directory; the whole install took about a minute. ``--no-deps`` leaves out ray, thop, plotly
and the other training-side requirements, which evaluation does not import. numpy 1.23:
``metrics.py`` uses ``np.float`` and ``np.bool``, removed in numpy 1.24. It takes a few seconds.

What runs is RecBole's own evaluation path without a model: the real ``Dataset`` and
``data_preparation`` (from atomic files written to a temporary folder), the real
``Collector`` (``data_collect(train_data)``, ``eval_batch_collect`` per test batch, with the
``_full_sort_batch_eval`` masking of ``Trainer``), and the real ``Evaluator``. Only the
model's ``full_sort_predict`` is replaced by the scores in ``pred.csv``: a listed item gets
its score, every other item ``-inf``.

What it writes (next to this file)
----------------------------------
- ``pred.csv``, ``truth.csv``, ``train.csv``: ``peer_dataset.make_dataset(SEED, min_len=5,
  ties=False, short_lists_fully_judged=True)`` (see ``tests/reference/peer_dataset.py``):
  distinct scores within a user (``torch.topk`` does not define the order of ties), lists of
  5-25 items, and a user whose list is shorter than 10 has all of their truth items listed,
  so the items RecBole ranks after the list (score ``-inf``, in an order torch does not
  define) are never hits.
- ``recbole_per_user.csv``: ``metric, user_id, value``: the ``metric_info`` matrix of each
  top-k metric (``Hit``, ``MRR``, ``NDCG``, ``MAP``, ``Precision``, ``Recall`` at k = 5, 10;
  ``AveragePopularity`` and ``TailPercentage`` at k = 1, 3, 5), column k - 1, per test user.
- ``recbole_system.csv``: ``metric, value``: ``Evaluator.evaluate`` (``metric_decimal_place``
  17, so RecBole's ``round`` keeps every digit), including ``ItemCoverage``, ``GiniIndex``
  and ``ShannonEntropy``, which have no per-user value.
- ``provenance.json``.

RecBole 1.2.1 cannot evaluate its beyond-accuracy metrics as released: ``data_collect`` stores
``data.num_items`` (an int) and ``data.count_items`` (a Counter) in the data struct, and
``Collector.get_data_struct`` then calls ``.cpu()`` on them and raises AttributeError
(RecBole issues #2131, #2191 and #2194, open). For those runs this script takes a deep copy of
the collected struct instead (the fix proposed in #2131: ``.cpu()`` on tensors only; every
tensor here is on the CPU). The accuracy run uses ``get_data_struct`` itself.

The RecBole data
----------------
``benchmark_filename = ["train", "valid", "test"]``: ``ref.train.inter`` holds ``train.csv``;
``ref.test.inter`` the truth rows of the 300 users with a list (RecBole ranks the whole
catalog for every test user, so the truth-only users, who have no list, cannot be
represented, and the pred-only users have no test item); ``ref.valid.inter`` one training
row (RecBole requires the file; it only adds that already-seen item to the history that
``_full_sort_batch_eval`` masks). Every truth row is a positive item. ``topk`` is
``[5, 10]`` for the accuracy metrics and ``[1, 3, 5]`` for the beyond-accuracy ones (every
list has at least 5 items). ``TailPercentage`` runs with ``tail_ratio`` 0.125, 0.25 and 0.5
(the training items are 400, so ``int(400 * t)`` is whole).
"""

from __future__ import annotations

import copy
import datetime
import json
import os
import platform
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import peer_dataset  # noqa: E402

SEED = 20250605  # the first seed from 20250603 whose training data holds all 400 items
ACCURACY = ["Hit", "MRR", "NDCG", "MAP", "Precision", "Recall"]
ACCURACY_K = [5, 10]
BEYOND = ["ItemCoverage", "AveragePopularity", "GiniIndex", "ShannonEntropy", "TailPercentage"]
BEYOND_K = [1, 3, 5]
TAIL_RATIOS = (0.125, 0.25, 0.5)


def read(name: str) -> pd.DataFrame:
    return pd.read_csv(os.path.join(HERE, name), dtype={"user_id": str, "item_id": str})


def write_atomic(folder: str, pred: pd.DataFrame, truth: pd.DataFrame, train: pd.DataFrame) -> None:
    os.makedirs(os.path.join(folder, "ref"))
    test = truth[truth.user_id.isin(set(pred.user_id))]
    for name, df in (("train", train), ("valid", train.iloc[:1]), ("test", test)):
        df[["user_id", "item_id"]].to_csv(os.path.join(folder, "ref", f"ref.{name}.inter"), sep="\t", index=False,
                                          header=["user_id:token", "item_id:token"])


def evaluate(folder: str, pred: pd.DataFrame, metrics: list[str], topk: list[int], tail_ratio=None):
    """RecBole's Trainer.evaluate, with pred.csv's scores in place of the model's."""
    import torch
    from recbole.config import Config
    from recbole.data import create_dataset, data_preparation
    from recbole.evaluator import Collector, Evaluator

    config = Config(model="Pop", dataset="ref", config_dict={
        "data_path": folder, "benchmark_filename": ["train", "valid", "test"],
        "load_col": {"inter": ["user_id", "item_id"]}, "metrics": metrics, "topk": topk,
        "metric_decimal_place": 17, "tail_ratio": tail_ratio, "valid_metric": f"{metrics[0]}@{topk[0]}",
        "eval_args": {"mode": "full", "order": "RO", "group_by": "user"}, "device": "cpu", "use_gpu": False,
        "show_progress": False, "log_wandb": False, "checkpoint_dir": os.path.join(folder, "saved"),
        "eval_batch_size": 4096, "train_batch_size": 4096})
    dataset = create_dataset(config)
    train_data, _, test_data = data_preparation(config, dataset)
    item_token = dataset.field2id_token["item_id"]
    user_token = dataset.field2id_token["user_id"]
    item_id = {tok: j for j, tok in enumerate(item_token)}
    lists = {u: (g.item_id.map(item_id).to_numpy(), g.score.to_numpy()) for u, g in pred.groupby("user_id")}

    collector, evaluator = Collector(config), Evaluator(config)
    collector.data_collect(train_data)
    users = []
    for interaction, history_index, positive_u, positive_i in test_data:
        batch_users = [user_token[int(u)] for u in interaction["user_id"]]
        users += batch_users
        scores = torch.full((len(batch_users), dataset.item_num), -np.inf, dtype=torch.float64)
        for row, u in enumerate(batch_users):
            ids, s = lists[u]
            scores[row, torch.as_tensor(ids)] = torch.as_tensor(s, dtype=torch.float64)
        scores[:, 0] = -np.inf  # Trainer._full_sort_batch_eval
        if history_index is not None:
            scores[history_index] = -np.inf
        collector.eval_batch_collect(scores, interaction, positive_u, positive_i)
    if any(isinstance(v, torch.Tensor) is False for v in collector.data_struct._data_dict.values()):
        # RecBole 1.2.1 bug (issues #2131, #2191, #2194): get_data_struct calls .cpu() on every
        # entry, and data_collect stored an int (data.num_items) or a Counter (data.count_items)
        # there, so any metric that needs them raises AttributeError. The fix proposed in #2131:
        # the same steps, .cpu() on tensors only (everything here is on the CPU already).
        struct = copy.deepcopy(collector.data_struct)
    else:
        struct = collector.get_data_struct()
    system = evaluator.evaluate(struct)
    per_user = {}
    for name, metric in evaluator.metric_class.items():
        if name in ("hit", "mrr", "precision"):
            values = metric.metric_info(metric.used_info(struct)[0])
        elif name in ("ndcg", "map", "recall"):
            values = metric.metric_info(*metric.used_info(struct))
        elif name == "averagepopularity":
            values = metric.metric_info(metric.get_pop(*metric.used_info(struct)))
        elif name == "tailpercentage":
            values = metric.metric_info(metric.get_tail(*metric.used_info(struct)))
        else:
            continue  # system level only
        per_user[name] = values
    info = {"num_items": int(dataset.item_num), "train_items": len(train_data.dataset.item_counter)}
    return users, system, per_user, info


def main() -> None:
    import recbole
    import torch

    pred, truth, train, _ = peer_dataset.make_dataset(SEED, min_len=5, ties=False, short_lists_fully_judged=True)
    for name, df in (("pred", pred), ("truth", truth), ("train", train)):
        df.to_csv(os.path.join(HERE, f"{name}.csv"), index=False, float_format="%.17g")
    pred, truth, train = read("pred.csv"), read("truth.csv"), read("train.csv")
    assert train.item_id.nunique() == 400, "int(n * tail_ratio) must be whole"

    per_user, system, infos = [], [], {}
    runs = [("accuracy", ACCURACY, ACCURACY_K, None)] + [
        (f"beyond tail_ratio={t}", BEYOND, BEYOND_K, t) for t in TAIL_RATIOS]
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write_atomic(folder, pred, truth, train)
        for run, metrics, topk, tail in runs:
            users, sys_values, values, info = evaluate(folder, pred, metrics, topk, tail)
            infos[run] = info
            for key, value in sys_values.items():
                name, k = key.split("@")
                if name == "tailpercentage":
                    key = f"tailpercentage(tail_ratio={tail})@{k}"
                elif run != runs[1][0] and run != "accuracy":
                    continue  # the other metrics do not depend on tail_ratio: stored once
                system.append((key, float(value)))
            for name, matrix in values.items():
                if name == "tailpercentage":
                    label = f"tailpercentage(tail_ratio={tail})"
                elif run != runs[1][0] and run != "accuracy":
                    continue
                else:
                    label = name
                for k in topk:
                    per_user += [(f"{label}@{k}", u, float(v)) for u, v in zip(users, matrix[:, k - 1])]
    for key, value in system:
        print(f"{key:36s} {value:.6f}")

    pd.DataFrame(per_user, columns=["metric", "user_id", "value"]).to_csv(
        os.path.join(HERE, "recbole_per_user.csv"), index=False, float_format="%.17g")
    pd.DataFrame(system, columns=["metric", "value"]).to_csv(
        os.path.join(HERE, "recbole_system.csv"), index=False, float_format="%.17g")
    info = {
        "peer": "RecBole", "package": "recbole", "version": recbole.__version__, "torch": torch.__version__,
        "install": ["python3.11 -m venv /tmp/peers/recbole",
                    "/tmp/peers/recbole/bin/pip install --no-deps recbole==1.2.1",
                    "/tmp/peers/recbole/bin/pip install --only-binary=:all: torch==2.13.0 numpy==1.23.5 "
                    "pandas==1.5.3 scipy scikit-learn==1.5.2 tensorboard texttable colorlog==4.7.2 "
                    "colorama==0.4.4 tqdm pyyaml"],
        "python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__,
        "date": datetime.date.today().isoformat(), "seed": SEED,
        "path": "recbole.config.Config(model='Pop', dataset='ref', benchmark_filename=[train, valid, test]); "
                "create_dataset; data_preparation; Collector.data_collect(train_data); per test batch: "
                "scores from pred.csv (-inf elsewhere), scores[:, 0] = -inf, scores[history_index] = -inf, "
                "Collector.eval_batch_collect; Evaluator.evaluate(Collector.get_data_struct())",
        "runs": {run: {"metrics": metrics, "topk": topk, "tail_ratio": tail, **infos[run]}
                 for run, metrics, topk, tail in runs},
        "per_user": "metric.metric_info(...) of each top-k metric, column k - 1 (RecBole averages it for the "
                    "system value)",
        "dataset": peer_dataset.summary(pred, truth),
    }
    with open(os.path.join(HERE, "provenance.json"), "w") as fh:
        json.dump(info, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
