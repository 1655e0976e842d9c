"""Several training runs (seeds) of one system in a comparison.

A system of :func:`~rankeval.compare` may be given as ``{seed label: lists}`` (each
``lists`` a frame or one frame per split, as any system). Every run is evaluated as a
system of its own (named ``"<system>[<seed>]"``); the runs' per-user values are then
averaged per (split, user) into the system's values, which the paired tests use, and
each system's spread over seeds and its variance decomposition
(:func:`rankeval.stats.seed_decomposition`) are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..stats import SEED_COLUMNS, seed_decomposition

__all__ = ["SeedRuns"]


@dataclass(frozen=True)
class SeedRuns:
    """Per system, the names of its runs (one run, its own name, for a system without seeds).

    Attributes
    ----------
    runs : dict of str -> list of str
        The run names of every system, in the order given.
    seeded : frozenset of str
        The systems given with seeds.
    """

    runs: dict[str, list[str]]
    seeded: frozenset[str]

    @classmethod
    def expand(cls, systems: Mapping[Any, Any], names: list[str]) -> tuple[dict[str, Any], list[str], SeedRuns]:
        """Every run as a system of its own: (runs' lists, run names, the runs of each system).

        Parameters
        ----------
        systems : mapping
            compare's ``systems``: name -> lists, or name -> {seed label: lists}.
        names : list of str
            The systems' names as strings, in order.
        """
        flat: dict[str, Any] = {}
        runs: dict[str, list[str]] = {}
        seeded = set()
        for name, value in zip(names, systems.values()):
            if not isinstance(value, Mapping):
                runs[name] = [name]
                flat[name] = value
                continue
            if not value:
                raise ValueError(f"`systems['{name}']` has no seed runs: give {{seed label: lists, ...}}")
            seeded.add(name)
            runs[name] = [f"{name}[{label}]" for label in value]
            if len(set(runs[name])) != len(runs[name]):
                raise ValueError(f"`systems['{name}']` seed labels must be distinct as strings, got {list(value)}")
            flat.update(zip(runs[name], value.values()))
        clash = sorted(set(names) & {r for n in seeded for r in runs[n]})
        if clash:
            raise ValueError(f"`systems`: the seed run name(s) {clash} are also system names; rename them")
        return flat, [r for n in names for r in runs[n]], cls(runs, frozenset(seeded))

    def collapse(self, values: dict[tuple[str, str], np.ndarray], evaluated: dict[str, np.ndarray],
                 split_values: dict[str, pd.DataFrame], metrics: list[str]) -> tuple[Any, ...]:
        """The runs' values averaged into their system's: (values, evaluated, split values,
        system names, the seed table).

        A unit's average is over every run: NaN when a run has no value there (the test
        then leaves the unit out and counts it). The seed table has one row per (metric,
        seeded system), over the units every run has a value for.

        Parameters
        ----------
        values : dict
            Per (metric, run), its value on every unit.
        evaluated : dict
            Per run, the units it evaluated.
        split_values : dict
            Per run, its per-split values of the metrics listed without a test.
        metrics : list of str
            The tested metrics.
        """
        names = list(self.runs)
        if not self.seeded:
            return values, evaluated, split_values, names, None
        out_values, out_evaluated, out_split = {}, {}, {}
        rows, keys = [], []
        for metric in metrics:
            for name in names:
                x = np.column_stack([values[(metric, r)] for r in self.runs[name]])
                out_values[(metric, name)] = x.mean(axis=1)
                if name in self.seeded:
                    keys.append((metric, name))
                    rows.append(seed_decomposition(x[~np.isnan(x).any(axis=1)]))
        for name in names:
            out_evaluated[name] = np.logical_or.reduce([evaluated[r] for r in self.runs[name]])
            out_split[name] = sum(split_values[r] for r in self.runs[name]) / len(self.runs[name])
        table = pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(keys, names=["metric", "system"]),
                             columns=list(SEED_COLUMNS))
        table[["n_seeds", "n_users"]] = table[["n_seeds", "n_users"]].astype(np.int64)
        return out_values, out_evaluated, out_split, names, table
