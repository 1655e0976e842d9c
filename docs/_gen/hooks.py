"""MkDocs hooks of the documentation site (mkdocs.yml): generated pages, so the site follows the code.

- ``index.md``: the README;
- ``api/index.md``: every name of ``rankeval.__all__``, then one page per public subpackage
  with the names of its ``__all__`` that the top level does not already hand on;
- ``img/built/*.svg``: figures drawn at build time (the gallery);
- ``cli-reference.md`` is the ``--help`` of every command, read
  from the argparse parser;
- ``getting_started.md``'s code blocks are run by tests/test_docs.py (not here).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

#: subpackages left out of the API reference: the command line has its own page; the page,
#: the engines and the views are reached through rankeval.report, compare and the plots
INTERNAL = {"cli", "engines", "page", "views", "data", "evaluation"}


def _public_subpackages() -> list[str]:
    import rankeval

    return sorted(m.name for m in pkgutil.iter_modules(rankeval.__path__)
                  if not m.name.startswith("_") and m.name not in INTERNAL)


def _api_pages() -> dict[str, str]:
    import rankeval

    top = {id(getattr(rankeval, n)) for n in rankeval.__all__}
    pages = {}
    lines = ["# API reference", "",
             "Every name of `rankeval.__all__` (`import rankeval as rk`), in the order the package lists them. "
             "The subpackages:", ""]
    for sub in _public_subpackages():
        lines.append(f"- [`rankeval.{sub}`]({sub}.md)")
    lines.append("")
    for name in rankeval.__all__:
        lines += [f"::: rankeval.{name}", ""]
    pages["api/index.md"] = "\n".join(lines)
    for sub in _public_subpackages():
        module = importlib.import_module(f"rankeval.{sub}")
        doc = [f"# rankeval.{sub}", "", f"::: rankeval.{sub}", "    options:", "      members: false", ""]
        names = list(getattr(module, "__all__", []))
        shared = [n for n in names if id(getattr(module, n)) in top]
        if shared:
            doc += ["Also here, documented on the [top-level page](index.md): "
                    + ", ".join(f"[`{n}`][rankeval.{n}]" for n in shared) + ".", ""]
        for name in names:
            if name not in shared:
                doc += [f"::: rankeval.{sub}.{name}", ""]
        pages[f"api/{sub}.md"] = "\n".join(doc)
    return pages


def _cli_page() -> str:
    from rankeval.cli._parser import build_parser

    parser = build_parser()
    parser.prog = "rankeval"
    out = ["# CLI reference", "",
           "The `--help` of every command, read from the parser at build time. "
           "The guide with examples is [the command line](cli.md).", "",
           "```text", parser.format_help().rstrip(), "```", ""]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                sub.prog = f"rankeval {name}"
                out += [f"## rankeval {name}", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(out)


def _home_page(config: Any) -> str:
    """The README, its links made relative to docs/ (``docs/x.md`` -> ``x.md``)."""
    readme = Path(config["config_file_path"]).parent / "README.md"
    return readme.read_text(encoding="utf-8").replace("](docs/", "](")


def on_config(config: Any) -> Any:
    """The API entry of the nav: the top level, then one page per public subpackage."""
    api = [{"rankeval": "api/index.md"}] + [{f"rankeval.{sub}": f"api/{sub}.md"} for sub in _public_subpackages()]
    for section in config["nav"]:
        if isinstance(section, dict) and "Reference" in section:
            section["Reference"][0] = {"API": api}
    return config


def _built_figures() -> dict[str, str]:
    """Figures drawn by this build from rankeval.datasets' sample data (gallery.md shows them),
    so the gallery shows what the code draws today."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import rankeval as rk
    from rankeval.datasets import make_ratings, recommend, train_test_folds

    train, test = next(train_test_folds(make_ratings(n_users=200, n_items=150, seed=0), seed=0))
    lists = {k: recommend(train, test, k, n=20, seed=0) for k in ("popularity", "random", "noisy_oracle")}
    res = rk.compare(lists, test, [rk.NDCGAtK(10), rk.RecallAtK(10)], n_resamples=200, progress=False)
    out = {}
    for name, kind in (("comparison_box", "box"), ("comparison_violin", "violin")):
        buffer = io.StringIO()
        figure = res.plot(kind=kind)
        figure.savefig(buffer, format="svg")
        matplotlib.pyplot.close(figure)
        out[f"img/built/{name}.svg"] = buffer.getvalue()
    return out


def on_files(files: Files, config: Any) -> Files:
    pages = {"index.md": _home_page(config), **_api_pages(), "cli-reference.md": _cli_page(), **_built_figures()}
    for path, text in pages.items():
        files.append(File.generated(config, path, content=text))
    return files
