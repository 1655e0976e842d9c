#!/usr/bin/env bash
# The installed package, as a user gets it: build the wheel and the sdist, `twine check` them,
# install the wheel into a fresh venv in a temporary folder and run the CLI's evaluate,
# compare and report there, outside the checkout, on the sample data of rankeval.datasets.
# Fails on a file missing from the wheel (templates, py.typed) and on a deprecation warning
# of our own making while building or installing.
# Usage: .ci/wheel_check.sh PYTHON   (a Python with `build` and `twine`; make wheel-check)
set -euo pipefail
PY=${1:?usage: wheel_check.sh PYTHON}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$PY" -m build --outdir "$WORK/dist" "$ROOT" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; exit 1; }
if grep -iE "deprecat|SetuptoolsWarning" "$WORK/build.log"; then
  echo "wheel-check: the build warns (above)" >&2; exit 1
fi
"$PY" -m twine check --strict "$WORK"/dist/*
# the distribution is rankeval-recsys (pyproject.toml), its files rankeval_recsys-*; the import name rankeval
WHEEL=$(ls "$WORK"/dist/rankeval_recsys-*.whl)
ls "$WORK"/dist/rankeval_recsys-*.tar.gz >/dev/null
# every file of the package in the checkout (modules, templates, py.typed) must be in the wheel
"$PY" - "$WHEEL" "$ROOT" <<'PY'
import pathlib, subprocess, sys, zipfile
wheel, root = sys.argv[1], sys.argv[2]
tracked = subprocess.run(["git", "-C", root, "ls-files", "rankeval"], capture_output=True, text=True, check=True)
expected = {p for p in tracked.stdout.split() if (pathlib.Path(root) / p).exists()}
missing = sorted(expected - set(zipfile.ZipFile(wheel).namelist()))
if missing or "rankeval/py.typed" not in expected:
    sys.exit(f"wheel-check: not in the wheel: {missing}")
print(f"wheel-check: the wheel holds all {len(expected)} files of rankeval/")
PY

"$PY" -m venv "$WORK/venv"
VPY="$WORK/venv/bin/python"
"$VPY" -m pip install --disable-pip-version-check -q "$WHEEL[report]" >"$WORK/install.log" 2>&1 \
  || { cat "$WORK/install.log"; exit 1; }
if grep -iE "deprecat" "$WORK/install.log"; then
  echo "wheel-check: pip install warns (above)" >&2; exit 1
fi

mkdir "$WORK/run" && cd "$WORK/run"
"$VPY" - <<'PY'
import importlib.metadata, rankeval, pathlib
from rankeval.datasets import make_ratings, recommend, train_test_folds
assert "site-packages" in rankeval.__file__, rankeval.__file__
# installed under its own name, with the package's version; PyPI's other `rankeval` is not there
assert importlib.metadata.version("rankeval-recsys") == rankeval.__version__, importlib.metadata.version("rankeval-recsys")
try:
    importlib.metadata.version("rankeval")
except importlib.metadata.PackageNotFoundError:
    pass
else:
    raise SystemExit("wheel-check: a distribution named rankeval is installed beside rankeval-recsys")
ratings = make_ratings(n_users=200, n_items=150)
train, test = next(train_test_folds(ratings))
test.to_csv("truth.csv", index=False)
for kind in ("popularity", "random"):
    recommend(train, test, kind).to_csv(f"{kind}.csv", index=False)
PY
RK="$WORK/venv/bin/rankeval"
"$RK" evaluate --pred popularity.csv --truth truth.csv -m NDCG@10 -m MAP@10 -q > evaluate.txt
"$RK" compare --system pop=popularity.csv --system rand=random.csv --truth truth.csv -m NDCG@10 -m MRR@10 \
  --n-resamples 200 -q > compare.txt
"$RK" report --system pop=popularity.csv --system rand=random.csv --truth truth.csv -m NDCG@10 \
  --out report.html -q
grep -q "NDCG@10" evaluate.txt && grep -q "NDCG@10" compare.txt && grep -q "<html" report.html \
  || { echo "wheel-check: the CLI's output lacks what it should hold" >&2; head evaluate.txt compare.txt; exit 1; }
echo "wheel-check: wheel and sdist built, twine check passed, evaluate/compare/report ran from $WORK/run"
