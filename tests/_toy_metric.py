"""A metric written outside the package, the way a user writes one: this file is all of it.

``ToyJudged@k`` is the share of the first k positions of a list that hold an item with a
truth score (judged, relevant or not):

.. math:: J_u@k = \\frac{|\\{i \\in L_u[:k] : i \\text{ has a truth score}\\}|}{k}

Declaring ``names`` registers the name when the class is defined, so ``parse_metric``, the
command line (``--metric-module tests/_toy_metric.py``) and every engine know it. It is not
imported by the tests as a module of theirs: tests/test_toy_metric.py runs it through the
command line's loader, as a user's file.
"""

import rankeval as rk


class ToyJudgedAtK(rk.RankingMetric):
    """Share of the first k listed items that have a truth score."""

    stem = "ToyJudged"
    names = ("ToyJudged",)

    def __init__(self, k: int, *, name: str | None = None) -> None:
        super().__init__(k, None, name)

    def per_user(self, lists):
        return lists.segment_sum((lists.position <= self.k) & lists.judged) / self.k
