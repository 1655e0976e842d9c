"""The shared argument checks (``rankeval.data.internal``): what they accept and what they say."""

from __future__ import annotations

import re

import numpy as np
import pytest

import rankeval as rk
from rankeval.data.internal import check_integer, check_number


@pytest.mark.parametrize("args, kwargs, value, message", [
    ((0, 1), {}, 1.0, "`x` must be a number in (0, 1), got 1.0"),
    ((0, 0.5), {"closed_low": True}, -0.1, "`x` must be a number in [0, 0.5), got -0.1"),
    ((0, None), {}, 0, "`x` must be a finite number > 0, got 0"),
    ((2, None), {"closed_low": True}, 1.5, "`x` must be a finite number >= 2, got 1.5"),
    ((None, 3), {"closed_high": True}, 3.5, "`x` must be a finite number <= 3, got 3.5"),
    ((None, None), {}, float("inf"), "`x` must be a finite number, got inf"),
    ((None, None), {"why": " or None"}, "a", "`x` must be a finite number or None, got 'a'"),
    ((None, None), {}, True, "`x` must be a finite number, got True"),
])
def test_check_number_names_the_interval(args, kwargs, value, message):
    with pytest.raises(ValueError, match=re.escape(message) + "$"):
        check_number("x", value, *args, **kwargs)


@pytest.mark.parametrize("args, kwargs, value", [
    ((0, None), {}, 1e300), ((0, 1), {"closed_low": True}, 0), ((None, None), {}, np.float32(-2.5)),
    ((1, None), {}, np.int64(2)), ((None, 0), {"closed_high": True}, 0.0),
])
def test_check_number_takes_every_real_in_its_interval_as_a_float(args, kwargs, value):
    got = check_number("x", value, *args, **kwargs)
    assert type(got) is float and got == float(value)


def test_check_integer_bounds():
    assert check_integer("k", np.int32(3), 0) == 3
    with pytest.raises(ValueError, match=re.escape("`k` must be an integer >= 0, got -1")):
        check_integer("k", -1, 0)
    with pytest.raises(ValueError, match=re.escape("`k` must be an integer >= 0, got 1.0")):
        check_integer("k", 1.0, 0)


@pytest.mark.parametrize("make, message", [
    (lambda: rk.FMeasure(0), "`beta` must be a finite number > 0, got 0"),
    (lambda: rk.Miscalibration(alpha=1), "`alpha` must be a number in [0, 1), got 1"),
    (lambda: rk.Miscalibration(base=float("inf")), "`base` must be a finite number > 1, got inf"),
    (lambda: rk.LogLoss(eps=0.5), "`eps` must be a number in [0, 0.5), got 0.5"),
    (lambda: rk.ShannonEntropy(base=1), "`base` must be a finite number > 0 other than 1, got 1"),
    (lambda: rk.ShannonEntropy(base=-2), "`base` must be a finite number > 0 other than 1, got -2"),
    (lambda: rk.LogWeight(offset=True), "`offset` must be an integer >= 0, got True"),
])
def test_parameters_are_checked_by_the_shared_checks(make, message):
    with pytest.raises(ValueError, match=re.escape(message) + "$"):
        make()


def test_numpy_scalars_are_numbers_to_the_metrics():
    assert rk.FMeasure(np.float32(0.5)).beta == 0.5
    assert rk.Miscalibration(alpha=np.float64(0.1)).alpha == 0.1
    assert rk.LogLoss(eps=np.float32(0.25)).eps == 0.25
