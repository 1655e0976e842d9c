"""What the views read of a comparison: the shape of :class:`~rankeval.ComparisonResult`.

The views sit below the result class (its methods call them), so they name the result by
its shape, never by its class: any object with these attributes can be drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import pandas as pd

__all__ = ["Comparison"]


class Comparison(Protocol):
    """A comparison of systems as the views read it (see :class:`~rankeval.ComparisonResult`)."""

    @property
    def table(self) -> pd.DataFrame: ...
    @property
    def units(self) -> pd.DataFrame: ...
    @property
    def systems(self) -> tuple[str, ...]: ...
    @property
    def metrics(self) -> tuple[str, ...]: ...
    @property
    def test(self) -> str: ...
    @property
    def correction(self) -> str | None: ...
    @property
    def alpha(self) -> float: ...
    @property
    def n_resamples(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def higher_is_better(self) -> Mapping[str, bool]: ...
    @property
    def convention(self) -> str: ...
    @property
    def ci_method(self) -> str: ...
    @property
    def system_values(self) -> pd.DataFrame: ...

    def system_means(self) -> pd.DataFrame: ...
