"""Off-policy estimation of a ranked list's reward (rankeval.ope) against obp's own code and a plain loop.

Open Bandit Pipeline 0.5.7 declares Python < 3.11, so it is not installed: its source
distribution is fetched once with ``pip download`` into the data cache (checked against
its SHA-256) and three of its modules are loaded from it as they are: ``obp/utils.py``,
``obp/ope/helper.py``, ``obp/ope/estimators.py`` and ``obp/ope/estimators_slate.py``.
One stand-in, cited: ``obp/utils.py`` imports ``torch`` (line 13) only to annotate two
functions these estimators never call, so an empty ``torch`` module with ``tensor`` and
``Tensor`` is given to it. The sdist also holds the Open Bandit Dataset's small sample
(``obp/dataset/obd/{random,bts}/all/all.csv``), read from the same download.
"""

from __future__ import annotations

import hashlib
import io
import importlib.util
import os
import subprocess
import sys
import tarfile
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankeval import RankevalWarning
from rankeval.ope import ESTIMATORS, off_policy_value

from ._require import require

# obp's estimators.py has docstrings with invalid escapes, compiled when the test loads it
pytestmark = pytest.mark.filterwarnings("ignore:invalid escape sequence:DeprecationWarning")

SDIST = "obp-0.5.7.tar.gz"
SDIST_SHA256 = "3060d67fedfcfadf1e7a6f2608987f74412b5eb74d2c567edeb147595c68f2a0"


def _sdist() -> Path:
    cache = Path(os.environ.get("RANKEVAL_DATA_CACHE", Path.home() / ".cache" / "rankeval"))
    path = cache / SDIST
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        "--ignore-requires-python", "-q", "obp==0.5.7", "-d", str(cache)], check=True, timeout=300)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == SDIST_SHA256
    return path


@pytest.fixture(scope="module")
def obp_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("obp")
    with tarfile.open(_sdist()) as tar:
        members = [m for m in tar.getmembers()
                   if m.name.endswith(("obp/utils.py", "ope/helper.py", "ope/estimators.py",
                                       "ope/estimators_slate.py", "random/all/all.csv", "bts/all/all.csv"))]
        tar.extractall(root, members=members, filter="data")
    return root / "obp-0.5.7" / "obp"


def _load(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def obp(obp_root) -> types.SimpleNamespace:
    require("sklearn")
    saved = {k: sys.modules.get(k) for k in ("torch", "obp", "obp.utils", "obp.ope", "obp.ope.helper",
                                             "obp.ope.estimators", "obp.ope.estimators_slate")}
    torch = types.ModuleType("torch")
    torch.tensor = object  # type: ignore[attr-defined]
    torch.Tensor = type("Tensor", (), {})  # type: ignore[attr-defined]
    sys.modules["torch"] = torch
    for pkg, path in (("obp", obp_root), ("obp.ope", obp_root / "ope")):
        module = types.ModuleType(pkg)
        module.__path__ = [str(path)]  # type: ignore[attr-defined]
        sys.modules[pkg] = module
    _load("obp.utils", obp_root / "utils.py")
    _load("obp.ope.helper", obp_root / "ope" / "helper.py")
    single = _load("obp.ope.estimators", obp_root / "ope" / "estimators.py")
    slate = _load("obp.ope.estimators_slate", obp_root / "ope" / "estimators_slate.py")
    yield types.SimpleNamespace(single=single, slate=slate)
    for key, value in saved.items():
        if value is None:
            sys.modules.pop(key, None)
        else:
            sys.modules[key] = value


def slate_log(seed: int, n_slates: int = 300, length: int = 3, n_items: int = 6) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A log of slates drawn by a known stochastic policy, and a second policy's probabilities of them."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_slates):
        shown = rng.permutation(n_items)[:length]
        pb = rng.uniform(0.05, 1.0, length)
        pe = rng.uniform(0.0, 1.0, length)
        for pos in range(length):
            rows.append({"slate_id": f"s{s}", "position": pos, "item_id": int(shown[pos]),
                         "reward": float(rng.random() < 0.3),
                         "pscore_item_position": pb[pos], "e_ip": pe[pos],
                         "pscore_cascade": float(np.prod(pb[:pos + 1])), "e_cascade": float(np.prod(pe[:pos + 1])),
                         "pscore": float(np.prod(pb)), "e_slate": float(np.prod(pe))})
    log = pd.DataFrame(rows)
    policy = log[["slate_id", "position"]].assign(
        pscore=log["e_slate"], pscore_item_position=log["e_ip"], pscore_cascade=log["e_cascade"])
    return log, policy


OBP_SLATE = {"sips": ("SlateStandardIPS", "pscore", "pscore", "e_slate"),
             "snsips": ("SelfNormalizedSlateStandardIPS", "pscore", "pscore", "e_slate"),
             "iips": ("SlateIndependentIPS", "pscore_item_position", "pscore_item_position", "e_ip"),
             "sniips": ("SelfNormalizedSlateIndependentIPS", "pscore_item_position", "pscore_item_position", "e_ip"),
             "rips": ("SlateRewardInteractionIPS", "pscore_cascade", "pscore_cascade", "e_cascade"),
             "snrips": ("SelfNormalizedSlateRewardInteractionIPS", "pscore_cascade", "pscore_cascade", "e_cascade")}


@pytest.mark.parametrize("name", list(OBP_SLATE))
def test_slate_estimators_equal_obps(obp, name):
    log, policy = slate_log(3)
    cls, argument, column, target = OBP_SLATE[name]
    codes = pd.factorize(log["slate_id"])[0]
    expected = getattr(obp.slate, cls)(len_list=3).estimate_policy_value(
        slate_id=codes, reward=log["reward"].to_numpy(), position=log["position"].to_numpy(),
        **{argument: log[column].to_numpy(), f"evaluation_policy_{argument}": log[target].to_numpy()})
    got = off_policy_value(log, policy, estimators=[name], n_resamples=0)
    assert got[name] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def _obd(obp_root: Path, policy: str) -> pd.DataFrame:
    return pd.read_csv(obp_root / "dataset" / "obd" / policy / "all" / "all.csv", index_col=0, usecols=range(6))


def _bts_shares(bts: pd.DataFrame) -> pd.DataFrame:
    """The BTS policy as its logs' item-by-position shares: pi_e(item | position)."""
    counts = bts.groupby(["position", "item_id"]).size()
    return (counts / counts.groupby(level="position").transform("sum")).rename("pi").reset_index()


@pytest.mark.parametrize("name, cls", [("ipw", "InverseProbabilityWeighting"),
                                       ("snipw", "SelfNormalizedInverseProbabilityWeighting"),
                                       ("dr", "DoublyRobust")])
def test_one_position_estimators_on_the_open_bandit_dataset_equal_obps(obp, obp_root, name, cls):
    random, bts = _obd(obp_root, "random"), _obd(obp_root, "bts")
    shares = _bts_shares(bts)
    n_items, positions = 80, 3
    pi = np.zeros((n_items, positions))
    pi[shares["item_id"], shares["position"] - 1] = shares["pi"]
    q = np.random.default_rng(1).uniform(0, 0.01, (len(random), n_items, positions))  # any reward model
    action, position = random["item_id"].to_numpy(), random["position"].to_numpy() - 1
    action_dist = np.broadcast_to(pi[None], (len(random), n_items, positions)).copy()
    kwargs = {"reward": random["click"].to_numpy(), "action": action, "position": position,
              "pscore": random["propensity_score"].to_numpy(), "action_dist": action_dist}
    if name == "dr":
        kwargs["estimated_rewards_by_reg_model"] = q
    expected = getattr(obp.single, cls)().estimate_policy_value(**kwargs)
    rows = np.arange(len(random))
    log = random.assign(slate_id=rows, q_logged=q[rows, action, position],
                        q_target=(pi[None, :, :] * q).sum(axis=1)[rows, position])
    target = log[["slate_id", "position"]].assign(pscore_item_position=pi[action, position])
    got = off_policy_value(log, target, estimators=[name], reward_col="click", n_resamples=0,
                           logging={"pscore_item_position": "propensity_score"},
                           reward_model={"logged": "q_logged", "target": "q_target"} if name == "dr" else None)
    assert got[name] == pytest.approx(expected, rel=1e-12)


def test_the_random_logs_estimate_the_bts_click_rate(obp_root):
    random, bts = _obd(obp_root, "random"), _obd(obp_root, "bts")
    shares = _bts_shares(bts)
    log = random.reset_index(names="slate_id").merge(shares, on=["position", "item_id"], how="left")
    target = log[["slate_id", "position"]].assign(pscore_item_position=log["pi"].fillna(0.0))
    result = off_policy_value(log, target, estimators=["ipw", "snipw"], reward_col="click",
                              logging={"pscore_item_position": "propensity_score"}, n_resamples=2000, seed=3)
    truth = bts["click"].mean()
    for name in ("ipw", "snipw"):
        row = result.table.loc[name]
        assert row["ci_low"] < row["value"] < row["ci_high"]
        assert row["ci_low"] <= truth <= row["ci_high"]  # the on-policy click rate is inside the interval
    # both weigh the same rows: IPW's mean weight is 1 in expectation, SNIPW divides by it
    w = target["pscore_item_position"] / log["propensity_score"]
    assert result["snipw"] == pytest.approx(result["ipw"] / w.mean(), rel=1e-12)


def loop_estimate(log: pd.DataFrame, name: str) -> float:
    """Each estimator's formula, slate by slate and position by position."""
    spec = ESTIMATORS[name]
    kind = spec.kind
    target = {"pscore": "e_slate", "pscore_item_position": "e_ip", "pscore_cascade": "e_cascade"}[kind]
    rows = [dict(r) for _, r in log.iterrows()]
    for r in rows:
        r["w"] = r[target] / r[kind]
    if spec.normalise == "position":
        for pos in {r["position"] for r in rows}:
            at = [r for r in rows if r["position"] == pos]
            mean_w = sum(r["w"] for r in at) / len(at)
            for r in at:
                r["w"] = r["w"] / mean_w
    elif spec.normalise == "all":
        mean_w = sum(r["w"] for r in rows) / len(rows)
        for r in rows:
            r["w"] = r["w"] / mean_w
    units = len(rows) if spec.per_row else len({r["slate_id"] for r in rows})
    return sum(r["w"] * r["reward"] for r in rows) / units


@given(seed=st.integers(0, 10_000), n_slates=st.integers(1, 30), length=st.integers(1, 4))
def test_every_estimator_is_its_formula(seed, n_slates, length):
    log, policy = slate_log(seed, n_slates=n_slates, length=length, n_items=length + 2)
    log = log.sample(frac=1.0, random_state=seed)  # any row order
    names = [n for n, spec in ESTIMATORS.items() if not spec.doubly_robust]
    got = off_policy_value(log, policy, estimators=names, n_resamples=0)
    for name in names:
        assert got[name] == pytest.approx(loop_estimate(log, name), rel=1e-12, abs=1e-15), name


def test_a_deterministic_list_weighs_what_it_would_have_shown():
    # three slates of two positions; the new list agrees with s1 at the top only, with s2 fully,
    # and with s3 at the second position only (so not down to it)
    log = pd.DataFrame({"slate_id": ["s1", "s1", "s2", "s2", "s3", "s3"], "position": [1, 2] * 3,
                        "item_id": ["a", "b", "c", "d", "e", "f"], "reward": [1.0, 1.0, 0.0, 1.0, 1.0, 1.0],
                        "pscore_item_position": [0.5, 0.25, 0.5, 0.5, 0.25, 0.5],
                        "pscore_cascade": [0.5, 0.125, 0.5, 0.25, 0.25, 0.125],
                        "pscore": [0.125, 0.125, 0.25, 0.25, 0.125, 0.125]})
    lists = pd.DataFrame({"slate_id": ["s1", "s1", "s2", "s2", "s3", "s3"], "position": [1, 2] * 3,
                          "item_id": ["a", "x", "c", "d", "z", "f"]})
    got = off_policy_value(log, lists, estimators=["iips", "rips", "sips"], n_resamples=0)
    assert got["iips"] == pytest.approx((1 / 0.5 + 0 + 0 + 1 / 0.5 + 0 + 1 / 0.5) / 3)
    assert got["rips"] == pytest.approx((1 / 0.5 + 0 + 0 + 1 / 0.25 + 0 + 0) / 3)
    assert got["sips"] == pytest.approx((0 + 0 + 0 + 1 / 0.25 + 0 + 0) / 3)


def test_a_self_normalised_interval_normalises_every_resample_anew():
    log, policy = slate_log(6, n_slates=30, length=2)
    result = off_policy_value(log, policy, estimators=["sniips"], n_resamples=300, seed=4)
    from rankeval.stats import bootstrap_column_means
    # the engine's draws, read back as each slate's count in every resample
    counts = np.rint(bootstrap_column_means(np.eye(30), n_resamples=300, seed=4) * 30).astype(int)
    slates = pd.factorize(log["slate_id"])[0]
    estimates = []
    for row in counts:  # a plain loop: each resample's log, then SNIIPS on it
        drawn = log.loc[np.repeat(log.index.to_numpy(), row[slates])]
        w = drawn["e_ip"] / drawn["pscore_item_position"]
        estimates.append(sum((drawn["reward"] * w)[drawn["position"] == pos].sum()
                             / w[drawn["position"] == pos].mean() for pos in (0, 1)) / 30)
    low, high = np.quantile(estimates, [0.025, 0.975])
    assert result.table.loc["sniips", "ci_low"] == pytest.approx(low, rel=1e-12)
    assert result.table.loc["sniips", "ci_high"] == pytest.approx(high, rel=1e-12)


def test_the_interval_is_the_percentile_bootstrap_over_slates():
    log, policy = slate_log(5, n_slates=50)
    result = off_policy_value(log, policy, estimators=["iips"], n_resamples=400, seed=2)
    per_slate = (log["reward"] * log["e_ip"] / log["pscore_item_position"]).groupby(log["slate_id"], sort=False).sum()
    from rankeval.stats import bootstrap_column_means
    boot = bootstrap_column_means(per_slate.to_numpy()[:, None], n_resamples=400, seed=2)[:, 0]
    assert (result.table.loc["iips", "ci_low"], result.table.loc["iips", "ci_high"]) == tuple(
        np.quantile(boot, [0.025, 0.975]))
    assert result.table.loc["iips", "units"] == 50


@pytest.mark.parametrize("edit, match", [
    (lambda log, pol: (log.assign(pscore_item_position=0.0), pol), r"must lie in \(0, 1\]"),
    (lambda log, pol: (log.assign(reward=np.nan), pol), "NaN"),
    (lambda log, pol: (log.assign(position=0), pol), "two items at one position"),
    (lambda log, pol: (log, pd.concat([pol, pd.DataFrame({"slate_id": ["s0"], "position": [7], "pscore": [0.1],
                                                           "pscore_item_position": [0.1],
                                                           "pscore_cascade": [0.1]})])), "longer than the log"),
    (lambda log, pol: (log, pol.assign(pscore_cascade=1.5)), r"\[0, 1\]"),
    (lambda log, pol: (log.assign(pscore=np.arange(len(log)) / len(log) + 0.01), pol), "one number per slate"),
])
def test_bad_logs_are_refused_with_the_rows_named(edit, match):
    log, policy = slate_log(1, n_slates=5)
    bad_log, bad_policy = edit(log, policy)
    with pytest.raises(ValueError, match=match):
        off_policy_value(bad_log, bad_policy, n_resamples=0)


def test_dr_needs_a_reward_model_and_an_unlisted_slate_is_refused():
    log, policy = slate_log(1, n_slates=5)
    with pytest.raises(ValueError, match="needs a reward model"):
        off_policy_value(log, policy, estimators=["dr"], n_resamples=0)
    lists = log[["slate_id", "position", "item_id"]].iloc[1:]
    with pytest.raises(ValueError, match="has no row for"):
        off_policy_value(log[["slate_id", "position", "item_id", "reward", "pscore_item_position"]], lists,
                         n_resamples=0)


def test_a_position_the_new_policy_never_shows_makes_the_normalised_form_nan_with_a_warning():
    log, policy = slate_log(2, n_slates=8)
    policy = policy.assign(pscore_item_position=np.where(policy["position"] == 1, 0.0,
                                                         policy["pscore_item_position"]))
    with pytest.warns(RankevalWarning, match="undefined"):
        got = off_policy_value(log, policy, estimators=["sniips", "iips"], n_resamples=0)
    assert np.isnan(got["sniips"]) and np.isfinite(got["iips"])


def test_the_command_prints_the_apis_table(tmp_path, capsys):
    from rankeval.cli import main

    log, policy = slate_log(4, n_slates=40)
    log.drop(columns=["e_ip", "e_cascade", "e_slate"]).rename(columns={"reward": "click"}).to_csv(
        tmp_path / "log.csv", index=False)
    policy.to_csv(tmp_path / "policy.csv", index=False)
    argv = ["ope", "--log", str(tmp_path / "log.csv"), "--policy", str(tmp_path / "policy.csv"),
            "--reward-col", "click", "-e", "rips", "-e", "sniips", "--n-resamples", "50", "--format", "csv"]
    assert main(argv) == 0
    # pandas 2's default float parser is off in the last bit; pandas 3 parses exactly and deprecates the option
    exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    got = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="estimator", **exact)
    expected = off_policy_value(log, policy, estimators=["rips", "sniips"], n_resamples=50)
    pd.testing.assert_frame_equal(got[["value", "ci_low", "ci_high"]], expected.table[["value", "ci_low", "ci_high"]])
    assert main(argv[:5] + ["--reward-col", "clicks"]) == 2
    assert "--log has no column 'clicks'" in capsys.readouterr().err
