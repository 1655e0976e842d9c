"""The mutation run is a script (``make mutation``), not a test module: pytest does not import it."""

collect_ignore = ["run_mutants.py"]
