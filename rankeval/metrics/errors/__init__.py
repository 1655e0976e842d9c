"""Error metrics: the predicted score against the truth score (rating prediction); the log loss of
predicted probabilities."""

from ._errors import MAE, MSE, RMSE
from ._logloss import LogLoss

__all__ = ["MAE", "MSE", "RMSE", "LogLoss"]
