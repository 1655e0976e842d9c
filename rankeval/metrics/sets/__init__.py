"""Set metrics: each list as a set of retrieved items, order ignored (ClayRS's classification
metrics and trec_eval's set_* measures), with macro or micro averaging, and the counts."""

from ._sets import FMeasure, FMeasureAtK, NumRel, NumRelRet, NumRet, Precision, Recall, RPrecision

__all__ = ["Precision", "Recall", "FMeasure", "FMeasureAtK", "RPrecision", "NumRet", "NumRel", "NumRelRet"]
