"""Ranking accuracy: where the relevant items sit in each list (NDCG, MAP, MRR, P@k, R@k,
HR@k, bpref, RBP, ERR, AUC) and how the list's order agrees with the truth scores (correlation)."""

from ._auc import AUC, GAUC, LAUC, UndefinedAUCWarning
from ._average_precision import MAP, MAPAtK
from ._correlation import Correlation
from ._ir import RBP, BPref, ERRAtK
from ._ndcg import DCG, NDCG, DCGAtK, NDCGAtK
from ._precision_recall import HitRateAtK, PrecisionAtK, RecallAtK
from ._reciprocal_rank import MRR, MRRAtK

__all__ = ["NDCG", "NDCGAtK", "DCG", "DCGAtK", "MAP", "MAPAtK", "MRR", "MRRAtK", "PrecisionAtK", "RecallAtK",
           "HitRateAtK", "Correlation", "BPref", "RBP", "ERRAtK", "AUC", "GAUC", "LAUC", "UndefinedAUCWarning"]
