"""Error metrics: the predicted score against the truth score (rating prediction)."""

from ._errors import MAE, MSE, RMSE

__all__ = ["MAE", "MSE", "RMSE"]
