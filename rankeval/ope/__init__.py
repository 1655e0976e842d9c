"""Off-policy estimation from logged feedback: a new system's expected reward from another system's log.

A production system showed lists, each shown item at a position, and logged a reward
(a click) per position with the probability it had of showing it. :func:`off_policy_value`
estimates what a new system's lists would have earned on the same traffic, with the
estimators of the slate off-policy literature (:data:`ESTIMATORS`; docs/ope.md), each
with a bootstrap interval over the logged slates.
"""

from ._api import OffPolicyResult, off_policy_value
from ._estimators import ESTIMATORS

__all__ = ["off_policy_value", "OffPolicyResult", "ESTIMATORS"]
