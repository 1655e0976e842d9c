"""The ``rankeval`` command: evaluate and compare recommenders from the shell.

A thin argparse layer over the public API (:class:`~rankeval.EvalModel`,
:func:`~rankeval.compare`, :func:`~rankeval.parse_metric`, :mod:`rankeval.io`)::

    rankeval evaluate --pred run.csv --truth test.csv -m NDCG@10 -m MAP@10
    rankeval compare --system pop=pop.csv --system knn=knn.csv --truth test.csv -m NDCG@10

User errors (a missing file or column, a bad metric name, a bad option value) print one
line, ``rankeval: error: ...``, on stderr and exit with status 2; warnings print one line
each, ``rankeval: warning: ...``. See docs/cli.md.

The parser is in :mod:`._parser`, the commands in :mod:`._commands` (their inputs in
:mod:`._inputs`, their tables in :mod:`._output`); this module runs one command and turns
what stops it (a user error, Ctrl-C, SIGTERM) into one line and an exit status.
"""

from __future__ import annotations

import contextlib
import re
import signal
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from ._id_hint import cli_id_hint
from ._output import MAX_DIGITS
from ._parser import build_parser
from ._side_files import SIDE_OPTIONS
from ._usage import PROG, UsageError, check_option_integer

__all__ = ["main"]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


#: API parameter names in rankeval's messages -> the options that set them
_OPTIONS = {"alpha": "--alpha", "n_resamples": "--n-resamples", "seed": "--seed", "split_names": "--split-name",
            "missing_users": "--missing-users", "relevant_threshold": "--threshold", "ties": "--ties",
            "baseline": "--baseline", "test": "--test", "correction": "--correction", "convention": "--convention",
            "ci_method": "--ci-method", "test_size": "--test-size", "n_last": "--n-last", "cutoff": "--cutoff",
            "n_splits": "--n-splits", "by": "--by", "min_interactions": "--min-interactions",
            "drop_cold_items": "--drop-cold-items", "user_col": "--user-col", "item_col": "--item-col",
            "score_col": "--score-col", "rank_col": "--rank-col", "time_col": "--time-col",
            "truth_user_col": "--truth-user-col", "truth_item_col": "--truth-item-col",
            "truth_score_col": "--truth-score-col", "decimal": "--decimal", "sep": "--sep",
            "estimator": "--estimator", "sampled": "--sampled", "n_bootstrap": "--n-bootstrap",
            "image_format": "--image-format", "rounding": "--rounding",
            "score_order": "--score-order"}
_OPTIONS.update(SIDE_OPTIONS)
#: where a command reads a frame from another option than the API parameter of that name
_COMMAND_OPTIONS = {"audit": {"test": "--truth"},
                    "ope": {"logging": "--logging", "reward_model": "--reward-model", "estimators": "--estimator",
                            "slate_col": "--slate-col", "position_col": "--position-col", "reward_col": "--reward-col",
                            "item_col": "--item-col",
                            "log": "--log", "policy": "--policy"}}
#: `alpha`, and alpha= or score_col='rating' (a value quoted, None, or a bare word)
_PARAM = re.compile(r"`([a-z_]+)`|\b([a-z_]+)=(?:'([^']*)'|\"([^\"]*)\"|(None)\b|([\w.@+-]+))?")
#: Python names of the API that an option replaces in a message
_PYTHON_WORDS = ((" to Split", ""), ("; convert it with pd.to_numeric", ""),
                 (", or read it with read_frame(path, encoding=...)", ""))


def _cli_words(text: str, command: str | None = None) -> str:
    """Name the option rather than the Python parameter, once for every message: "`alpha` must be" ->
    "--alpha must be", "pass score_col='rating'" -> "pass --score-col rating"."""
    options = {**_OPTIONS, **_COMMAND_OPTIONS.get(command or "", {})}

    def option(m: re.Match[str]) -> str:
        name = m[1] or m[2]
        if name not in options:
            return m[0]
        if m[1]:
            return options[name]
        value = next((v for v in m.groups()[2:] if v is not None), None)
        return options[name] if value in (None, "None") else f"{options[name]} {value}"

    text = _PARAM.sub(option, text)
    for python, words in _PYTHON_WORDS:
        text = text.replace(python, words)
    # the API's messages add the flag for CLI readers ("; --train on the command line", "(rank_col=, CLI
    # --rank-col)", "(CLI --score-order ascending)"): here the flag is said already
    text = re.sub(r"; --[a-z-]+ on the command\s+line\)", ")", text)
    text = re.sub(r" \(CLI --[a-z-]+(?: [^()]*)?\)", "", text)
    return re.sub(r", CLI --[a-z-]+", "", text)


def _say(kind: str, message: Any, stream: TextIO | None = None) -> None:
    print(f"{PROG}: {kind}: {_one_line(str(message))}", file=stream or sys.stderr, flush=True)


class _Terminated(BaseException):
    """SIGTERM, raised where the run stands, so that outputs being written are cleaned up as on Ctrl-C."""


@contextlib.contextmanager
def _terminate_as_exception() -> Iterator[None]:
    """While the command runs, SIGTERM unwinds it (status 143) instead of killing it mid-write."""
    def terminate(signum: int, frame: Any) -> None:
        raise _Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, terminate)
    except ValueError:  # not the main thread: signals cannot be handled here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankeval`` command; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success; 2 for a user error (one ``rankeval: error: ...`` line on stderr) or
        a bad command line (argparse's usage message); 130 when interrupted (Ctrl-C,
        SIGINT), 143 when terminated (SIGTERM). An output being written when the run stops
        is left as it was before (outputs are written under a temporary name, then renamed).
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or argparse's usage error (status 2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command line, shown by `report`
    if args.digits is not None:
        try:
            check_option_integer("--digits", args.digits, 0, MAX_DIGITS)
        except UsageError as exc:
            _say("error", exc)
            return 2
    seen: set[str] = set()

    def show(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None,
             line: str | None = None) -> None:
        text = _cli_words(_one_line(str(message)), args.command)
        if text not in seen:
            seen.add(text)
            _say("warning", text)

    with warnings.catch_warnings(), _terminate_as_exception():
        warnings.simplefilter("always", UserWarning)  # every rankeval warning, once per message (above)
        warnings.showwarning = show
        try:
            return int(args.run(args))
        except KeyboardInterrupt:
            _say("error", "interrupted")
            return 130
        except _Terminated:
            _say("error", "terminated")
            return 143
        except (ValueError, TypeError, OSError, ImportError) as exc:
            message = str(exc)
            if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
                message = f"{exc.strerror}: '{exc.filename}'"
            _say("error", _cli_words(cli_id_hint(exc, message, args), args.command) or type(exc).__name__)
            return 2
