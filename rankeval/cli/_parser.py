"""The argparse parser of the ``rankeval`` command: its six subcommands and their options.

The lists of values an option accepts are the library's own (the tests and corrections of
:func:`~rankeval.compare`, the bootstrap intervals, the split options, the conventions, the
readers' formats), so that the command offers exactly what the API takes.
"""

from __future__ import annotations

import argparse

from .. import conventions
from .._version import __version__
from ..data.internal import MISSING_USERS, SCORE_ORDERS, TIES
from ..evaluation import CORRECTIONS, TESTS
from ..io.internal import FORMAT_NAMES
from ..split.internal import BY, ROUNDING
from ..stats import CI_METHODS
from ._commands import compare_command, evaluate_command, report_command
from ._ope import add_ope
from ._output import OUTPUT_FORMATS, POSTHOC
from ._power import add_power
from ._propensity import add_propensity_arguments, add_strata_argument
from ._rank import add_rank
from ._sampled import add_sampled_arguments
from ._side_files import add_side_arguments
from ._splitting import AUDIT_FORMATS, METHODS, SPLIT_FORMATS, audit_command, split_command
from ._text_files import add_text_arguments
from ._usage import PROG

__all__ = ["build_parser", "FILE_FORMATS", "CORRECTION_CHOICES"]

#: --pred-format and --truth-format: the readers' formats, both TREC layouts as one "trec"
#: (the role of the file decides which), and "auto" (by extension)
FILE_FORMATS = ("auto", *(fmt for fmt in FORMAT_NAMES if not fmt.startswith("trec_")), "trec")
#: --correction: compare()'s corrections, None spelled "none"
CORRECTION_CHOICES = tuple("none" if c is None else c for c in CORRECTIONS)


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("-m", "--metric", action="append", required=True, metavar="METRIC",
                   help="a metric by name, e.g. NDCG@10, MAP@10, MRR, P@10, R@10, HR@10, pearson@10; "
                        "repeat for several")
    p.add_argument("--metric-module", action="append", default=None, metavar="FILE_OR_MODULE",
                   help="a Python file (my_metrics.py) or importable module whose metric classes declare "
                        "their names (names = (...)) or call rankeval.register_metric: run before the "
                        "-m names are read, so -m takes those names; repeat for several")
    p.add_argument("--truth", action="append", required=True, metavar="PATH",
                   help="held-out ratings (user, item, score); repeat for several splits, in order")
    p.add_argument("--threshold", type=float, default=None, metavar="X",
                   help="fixed relevance threshold (relevant = truth score >= X) for every metric that "
                        "has one; default: each user's mean truth score. Write --threshold=-inf for "
                        "negative values")
    p.add_argument("--missing-users", choices=MISSING_USERS, default=None,
                   help="truth users without recommendations: leave out with a warning (ignore, the "
                        "default), score 0 (zero) or fail (error); default: ignore, or the convention's")
    p.add_argument("--convention", choices=conventions.names(), default=None, metavar="NAME",
                   help=f"a peer's definitions for every metric, the tie rule and missing users: "
                        f"{', '.join(conventions.names())} (see docs/conventions.md); options given explicitly "
                        f"win over the preset")
    add_sampled_arguments(p)
    add_propensity_arguments(p)
    p.add_argument("--split-name", action="append", default=None, metavar="NAME",
                   help="name of a split in the results (repeat, one per split; default fold1, fold2, ...)")
    _add_columns(p)
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show the stages of the run (reading, validation and join, metrics, tests) and "
                        "progress bars (default: when standard error is a terminal)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress display (warnings and errors are still printed)")
    p.add_argument("--digits", type=int, default=None, metavar="N",
                   help="decimals shown by the table, latex and markdown formats (csv and json always keep "
                        "full precision)")
    add_side_arguments(p)


def _add_columns(p: argparse.ArgumentParser) -> None:
    """The "columns and file formats" group of every subcommand."""
    cols = p.add_argument_group("columns and file formats")
    cols.add_argument("--user-col", default="user_id", metavar="NAME", help="user id column (default user_id)")
    cols.add_argument("--item-col", default="item_id", metavar="NAME", help="item id column (default item_id)")
    cols.add_argument("--score-col", default="score", metavar="NAME",
                      help="predicted score / truth rating column (default score)")
    cols.add_argument("--score-order", choices=SCORE_ORDERS, default="descending",
                      help="how the recommendations' scores order a list: descending (higher is better, the "
                           "default) or ascending (lower is better: distances); ties follow --ties either way")
    _add_truth_columns(cols)
    cols.add_argument("--rank-col", default="rank", metavar="NAME",
                      help="rank column of the recommendations, 1 = best (default rank; used when present)")
    cols.add_argument("--ignore-rank", action="store_true",
                      help="order the lists by score even when the recommendation files have a rank column "
                           "(as trec_eval does with TREC runs)")
    cols.add_argument("--pred-format", choices=FILE_FORMATS, default="auto",
                      help="format of the recommendation files (default: by extension; .run/.trec = TREC run)")
    cols.add_argument("--truth-format", choices=FILE_FORMATS, default="auto",
                      help="format of the truth files (default: by extension; .qrels/.trec = TREC qrels)")
    add_text_arguments(cols)
    cols.add_argument("--ties", choices=TIES, default=None,
                      help="order of tied scores: input row order (the default, or the convention's), item id "
                           "ascending, or item id descending as strings (trec_eval)")


def _add_truth_columns(cols: argparse._ArgumentGroup) -> None:
    """The truth's (and --train's) own column names, shared by evaluate, compare, report and audit."""
    cols.add_argument("--truth-score-col", default=None, metavar="NAME",
                      help="the truth (and --train) files' rating column when it is named otherwise than the "
                           "recommendations' score, e.g. rating (default: --score-col)")
    cols.add_argument("--truth-user-col", default=None, metavar="NAME",
                      help="the truth (and --train) files' user id column when it is named otherwise than the "
                           "recommendations', e.g. userId (default: --user-col)")
    cols.add_argument("--truth-item-col", default=None, metavar="NAME",
                      help="the truth (and --train) files' item id column when it is named otherwise than the "
                           "recommendations', e.g. movieId (default: --item-col)")


def _add_test_options(p: argparse.ArgumentParser) -> None:
    """The paired tests' options, shared by ``compare`` and ``report``."""
    p.add_argument("--test", choices=TESTS, default="paired_t", help="paired test (default paired_t)")
    p.add_argument("--correction", choices=CORRECTION_CHOICES, default="holm",
                   help="multiple-testing correction over every (metric, pair) test (default holm)")
    p.add_argument("--baseline", metavar="NAME", default=None,
                   help="compare every other system with this one (default: every pair)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--n-resamples", type=int, default=10_000, metavar="N",
                   help="resamples of the randomization test and of the bootstrap CI (default 10000)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed of every random draw (default 0)")
    p.add_argument("--ci-method", choices=CI_METHODS, default="bca",
                   help="bootstrap interval of every difference, as scipy.stats.bootstrap (default bca)")


def _add_evaluate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ev = sub.add_parser("evaluate", help="metrics of one system over one or more splits",
                        description="Compute metrics of one recommender over one or more splits. Prints the "
                                    "system table: one row per split and their mean, one column per metric.")
    ev.add_argument("--pred", action="append", required=True, metavar="PATH",
                    help="recommendation lists (user, item, score and/or rank); repeat for several splits, "
                         "in the order of --truth")
    _add_common(ev)
    ev.add_argument("--per-user", metavar="OUT",
                    help="also write the per-user values (split, user_id, one column per metric) to OUT "
                         "(.csv, .tsv, .parquet or .json)")
    ev.add_argument("--format", choices=OUTPUT_FORMATS, default="table", help="output format (default table)")
    ev.set_defaults(run=evaluate_command)


def _add_compare(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cp = sub.add_parser("compare", help="paired significance tests between systems",
                        description="Compare recommenders with paired tests over (split, user) units, "
                                    "corrected for multiple testing.")
    cp.add_argument("--system", action="append", required=True, metavar="NAME=PATH[,PATH...]",
                    help="a system and its recommendation file(s), one per split in the order of --truth; "
                         "repeat NAME=PATH for the next split, or give NAME=PATH1,PATH2; NAME[SEED]=PATH is one "
                         "training seed's run of system NAME (tested on the per-user values averaged over seeds)")
    _add_common(cp)
    _add_test_options(cp)
    cp.add_argument("--plot", metavar="OUT", default=None,
                    help="save a figure of the per-user values and paired differences (e.g. OUT.png; "
                         "needs matplotlib)")
    cp.add_argument("--format", choices=OUTPUT_FORMATS, default="table",
                    help="output format (default table; markdown and latex: the publication tables)")
    cp.add_argument("--posthoc", choices=POSTHOC, action="append", default=None,
                    help="many-system analysis after the pairwise tests, on the units where every system has a "
                         "value: friedman (Friedman's test, Iman-Davenport F, mean ranks), nemenyi (Nemenyi's "
                         "all-pairs test on the mean ranks), tukey (Tukey's HSD; ignores the pairing). Repeat "
                         "for several; printed after the comparison (--format table, markdown or latex)")
    cp.add_argument("--equivalence-margin", metavar="DELTA", default=None,
                    help="also test every pair for equivalence within +-DELTA (two one-sided tests): a number in "
                         "the metric's units, or a share of system a's mean such as 1%%; printed after the "
                         "comparison (--format table, markdown or latex)")
    cp.add_argument("--per-user", metavar="OUT", default=None,
                    help="also write the per-user values tested (split, user, system, one column per metric) to "
                         "OUT (.csv, .tsv, .parquet or .json), for `rankeval power`")
    cp.add_argument("--system-values", metavar="OUT", default=None,
                    help="also write the values of the metrics compared without a test (system-level ones such "
                         "as Coverage, Gini; micro averages), one row per system, to OUT (.csv, .tsv, .parquet "
                         "or .json)")
    cp.set_defaults(run=compare_command)


def _add_report(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rp = sub.add_parser("report", help="one self-contained HTML page of a comparison (or of one system)",
                        description="Write one HTML page that opens offline: the summary tables (as compare "
                                    "--format markdown, sortable), metric@k curves with bootstrap bands, per-user "
                                    "distributions and paired differences, Friedman's test and critical-difference "
                                    "diagrams (3+ systems), system-level metrics and a metric card (conventions, "
                                    "users per split, versions, this command). See docs/report.md.")
    rp.add_argument("--system", action="append", required=True, metavar="NAME=PATH[,PATH...]",
                    help="a system and its recommendation file(s), one per split in the order of --truth (as "
                         "compare); one system gives the page of its evaluation, two or more compare them")
    rp.add_argument("--out", required=True, metavar="PATH",
                    help="the HTML file to write (e.g. report.html); its folder must exist")
    _add_common(rp)
    _add_test_options(rp)
    rp.add_argument("--title", default="rankeval report", help="title of the page (default 'rankeval report')")
    # the page's Kind and ImageFormat are Literal types there, with no tuple of their values to import
    rp.add_argument("--kind", choices=("box", "violin"), default="box",
                    help="plots of the per-user distributions (default box)")
    rp.add_argument("--image-format", choices=("svg", "png"), default="svg",
                    help="figures as inline SVG (default) or PNG")
    rp.add_argument("--n-bootstrap", type=int, default=1000, metavar="N",
                    help="resamples of the bands of the metric@k curves (default 1000)")
    rp.add_argument("--equivalence-margin", metavar="DELTA", default=None,
                    help="also test every pair for equivalence within +-DELTA (two one-sided tests): a number in "
                         "the metric's units, or a share of system a's mean such as 1%%; shown in the page's "
                         "How sure is this? card")
    add_strata_argument(rp)
    rp.set_defaults(run=report_command)


def _add_interaction_columns(p: argparse.ArgumentParser, truth: bool = False) -> None:
    """The column and separator options of ``split`` and ``audit`` (``truth``: and the --truth-*-col ones)."""
    cols = p.add_argument_group("columns and files")
    cols.add_argument("--user-col", default="user_id", metavar="NAME", help="user id column (default user_id)")
    cols.add_argument("--item-col", default="item_id", metavar="NAME", help="item id column (default item_id)")
    cols.add_argument("--score-col", default="score", metavar="NAME", help="rating column (default score)")
    cols.add_argument("--time-col", default="timestamp", metavar="NAME",
                      help="time column: numbers, or ISO 8601 text read as datetimes (default timestamp)")
    if truth:
        _add_truth_columns(cols)
    add_text_arguments(cols)


def _add_split(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("split", help="split an interactions file into train/test files",
                        description="Split one interactions file (user, item, rating, optional time) with one of "
                                    "rankeval.split's splitters, and write fold1/train.csv, fold1/test.csv, ... "
                                    "and params.json (how the split was made) under --out-dir. See "
                                    "docs/protocol.md for which split answers which question.")
    sp.add_argument("--in", dest="input", required=True, metavar="PATH",
                    help="the interactions (.csv, .tsv, .parquet, RecBole .inter; text may be compressed)")
    sp.add_argument("--method", required=True, metavar="{" + ",".join(METHODS) + "}",
                    help="random (random_holdout), temporal (temporal_holdout: each user's latest), global "
                         "(global_temporal: one time cut), kfold, bootstrap")
    sp.add_argument("--out-dir", required=True, metavar="DIR",
                    help="the folder to write (created when missing; files already there are replaced)")
    amount = sp.add_argument_group("how much goes to test (each method takes some)")
    amount.add_argument("--test-size", type=float, default=None, metavar="F",
                        help="share in (0, 1) put in test (random: default 0.2; temporal: each user's latest "
                             "share; global: the share after the cut)")
    amount.add_argument("--n-last", type=int, default=None, metavar="N",
                        help="temporal: each user's N latest interactions (default 1 without --test-size)")
    amount.add_argument("--cutoff", default=None, metavar="T",
                        help="global: the first test time (a number, or an ISO time for datetime columns)")
    amount.add_argument("--n-splits", type=int, default=None, metavar="K", help="kfold: the folds (default 5)")
    amount.add_argument("--by", choices=BY, default=None,
                        help="random, temporal, kfold: within each user (default) or over all records")
    amount.add_argument("--seed", type=int, default=None, metavar="S",
                        help="random, kfold, bootstrap: the draw's seed (default 0)")
    amount.add_argument("--rounding", choices=ROUNDING, default=None,
                        help="temporal with --test-size: how F x n_u becomes a count: floor (default; RecBole), "
                             "half_even (LensKit's LastFrac), train_half_even (MS Recommenders' "
                             "python_chrono_split)")
    sp.add_argument("--min-interactions", type=int, default=1, metavar="N",
                    help="users with fewer interactions stay in train only (default 1)")
    sp.add_argument("--drop-cold-items", action="store_true",
                    help="drop test interactions of items without a train interaction (counted in a warning)")
    sp.add_argument("--out-format", choices=SPLIT_FORMATS, default="csv", help="files written (default csv)")
    _add_interaction_columns(sp)
    sp.set_defaults(run=split_command, digits=None)


def _add_audit(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    au = sub.add_parser("audit", help="what in a split (and in lists made from it) can make a comparison wrong",
                        description="Audit a train/test split and, optionally, recommendation lists made from it: "
                                    "temporal leakage (per user and global), time ties and first sessions, seen and "
                                    "future items recommended, items outside a catalog, overlap, duplicates, repeat "
                                    "test items, cold users and items, the test set's shape and, with two systems, "
                                    "the minimum detectable effect. Prints the "
                                    "table and a short verdict (rankeval.audit; see docs/protocol.md).")
    au.add_argument("--train", required=True, metavar="PATH", help="the interactions a recommender learned from")
    au.add_argument("--truth", required=True, metavar="PATH", help="the held-out interactions it is judged on")
    au.add_argument("--pred", default=None, metavar="PATH", help="the recommendation lists of one system")
    au.add_argument("--system", action="append", default=None, metavar="NAME=PATH",
                    help="the lists of a named system (repeat for several); instead of --pred")
    au.add_argument("--threshold", type=float, default=None, metavar="X",
                    help="relevant = score >= X in the test-set shape (default: the user's mean score)")
    au.add_argument("--catalog", default=None, metavar="PATH",
                    help="the items that exist (one id per line, or a CSV/TSV/Parquet file with the item column): "
                         "listed items outside it are counted per system")
    au.add_argument("--session-gap", type=float, default=3600.0, metavar="SECONDS",
                    help="a gap longer than this (in seconds; numeric times are read as seconds) starts a new "
                         "session, for the first-session lines (default 3600: one hour)")
    au.add_argument("--format", choices=AUDIT_FORMATS, default="table",
                    help="table (default) and markdown: the table and the verdict; csv: the table at full "
                         "precision; json: an object with the verdict, the checks skipped and the table's rows")
    au.add_argument("--digits", type=int, default=None, metavar="N",
                    help="decimals of the shares (as percentages) in table and markdown (default 2)")
    _add_interaction_columns(au, truth=True)
    au.set_defaults(run=audit_command)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``rankeval evaluate | compare | report | split | audit | ope | power | rank``; each subcommand
    sets ``run``."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Ranking metrics for recommender systems: evaluate recommendation lists "
                               "against held-out ratings, compare systems with paired tests, split "
                               "interactions into train and test, audit a split, and rank items from a "
                               "model's vectors.",
        epilog="Files: .csv, .tsv/.tab, .parquet/.pq, TREC .run/.trec and .qrels, RecBole .inter/.item/.user "
               "(text files may be .gz/.bz2/.zip/.xz compressed). See docs/cli.md.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True,
                                metavar="{evaluate,compare,report,split,audit,ope,power,rank}")
    _add_evaluate(sub)
    _add_compare(sub)
    _add_report(sub)
    _add_split(sub)
    _add_audit(sub)
    add_ope(sub)
    add_power(sub)
    add_rank(sub)
    return parser
