"""The version of rankeval (the same as pyproject.toml's) and the name it is distributed under."""

__version__ = "0.1.0"

#: pyproject.toml's ``[project] name``: what ``pip install`` and ``importlib.metadata`` know this
#: package by (the name ``rankeval`` on PyPI is another project); the import name is ``rankeval``
DISTRIBUTION = "rankeval-recsys"
