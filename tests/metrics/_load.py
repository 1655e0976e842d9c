"""Shared helpers of the metric test modules: the oracles and strategies, and the checks."""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from rankeval import Split
from rankeval.exceptions import MissingUsersWarning

RTOL = ATOL = 1e-12


def load_sibling(name: str):
    """Import tests/<name>.py whatever pytest's import mode or sys.path is."""
    if name in sys.modules:
        return sys.modules[name]
    key = f"_rankeval_tests_{name}"
    if key in sys.modules:
        return sys.modules[key]
    path = Path(__file__).resolve().parents[1] / f"{name}.py"
    spec = importlib.util.spec_from_file_location(key, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def quiet_split(pred: pd.DataFrame, truth: pd.DataFrame, **kwargs) -> Split:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        return Split(pred, truth, **kwargs)


def describe(pred, truth) -> str:
    return f"\npred=\n{pred.to_string()}\ntruth=\n{truth.to_string()}"


def assert_users(metric, split, expected: pd.Series, pred, truth):
    """Per-user values equal ``expected`` (by user id, NaN in the same places); returns the result."""
    res = metric.perform(split)
    name = str(metric)
    users = res.users[name]
    assert users.dtype == np.float64
    got = dict(zip(users.index.tolist(), users.tolist()))
    assert set(got) == set(expected.index.tolist()), (name, sorted(map(str, got)), sorted(map(str, expected.index)))
    got_arr = np.array([got[u] for u in expected.index.tolist()], dtype=float)
    exp_arr = expected.to_numpy(dtype=float)
    if not np.allclose(got_arr, exp_arr, rtol=RTOL, atol=ATOL, equal_nan=True):
        table = pd.DataFrame({"fast": got_arr, "oracle": exp_arr}, index=expected.index)
        raise AssertionError(f"{name} differs from the oracle:\n{table.to_string()}" + describe(pred, truth))
    return res


def assert_system(res, name: str, expected: float, pred=None, truth=None):
    got = float(res.system.loc["sys", name])
    if np.isnan(expected):
        assert np.isnan(got), (name, got)
    else:
        assert np.isclose(got, expected, rtol=RTOL, atol=ATOL), (name, got, expected,
                                                                 describe(pred, truth) if pred is not None else "")


def nanmean(values: pd.Series) -> float:
    finite = values.to_numpy(dtype=float)
    finite = finite[~np.isnan(finite)]
    return float(finite.mean()) if len(finite) else float("nan")
