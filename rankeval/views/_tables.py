"""Publication tables of a comparison: markdown and LaTeX.

Table 1: the mean of every system (rows) on every metric (columns); the best value per
metric in bold; a superscript lists the systems (by letter) that this system beats
significantly after the correction. Metrics with no per-user value to pair (system-level
ones, micro averages: ``Comparison.system_values``) follow as plain values, their
names marked with a dagger, never bold and never with a superscript. Table 2: every
tested difference with its CI.
"""

from __future__ import annotations

import string

import numpy as np

from ._comparison import Comparison

__all__ = ["markdown", "latex", "tex_escape", "effect_rows", "effect_note", "system_letters", "wins_over",
           "listed_metrics", "listed_note", "describe_tests",
           "difference_rows", "friedman_rows", "format_p", "is_p_column", "P_FLOOR"]

#: the smallest p-value written as a number; below it, ``< 0.0001`` (four decimals show no more)
P_FLOOR = 1e-4


def system_letters(n: int) -> list[str]:
    alphabet = string.ascii_lowercase
    return [alphabet[i] if i < 26 else alphabet[i // 26 - 1] + alphabet[i % 26] for i in range(n)]


def wins_over(res: Comparison) -> dict[tuple[str, str], list[str]]:
    """(metric, system) -> systems it is significantly better than."""
    out: dict[tuple[str, str], list[str]] = {}
    for (metric, a, b), row in res.table.iterrows():
        if not row["significant"] or np.isnan(row["diff"]) or row["diff"] == 0:
            continue
        b_better = (row["diff"] > 0) == res.higher_is_better.get(metric, True)
        winner, loser = (b, a) if b_better else (a, b)
        out.setdefault((metric, winner), []).append(loser)
    return out


def _cells(res: Comparison, digits: int, bold: tuple[str, str], sup: tuple[str, str]) -> list[list[str]]:
    means = res.system_means()
    letter = dict(zip(res.systems, system_letters(len(res.systems))))
    beats = wins_over(res)
    rows = []
    for system in res.systems:
        cells = [f"{system} ({letter[system]})"]
        for metric in res.metrics:
            column = means[metric]
            value = column[system]
            if np.isnan(value):
                cells.append("–")
                continue
            text = f"{value:.{digits}f}"
            best = column.max() if res.higher_is_better.get(metric, True) else column.min()
            if value == best:
                text = f"{bold[0]}{text}{bold[1]}"
            marks = "".join(sorted(letter[s] for s in beats.get((metric, system), [])))
            if marks:
                text += f"{sup[0]}{marks}{sup[1]}"
            cells.append(text)
        for metric in listed_metrics(res):  # system-level values: no test, so no marks
            value = float(res.system_values.loc[system, metric])
            cells.append("–" if np.isnan(value) else f"{value:.{digits}f}")
        rows.append(cells)
    return rows


def listed_metrics(res: Comparison) -> list[str]:
    """The metrics listed per system without a test (``res.system_values``' columns)."""
    values = getattr(res, "system_values", None)
    return [] if values is None else [str(c) for c in values.columns]


def listed_note(res: Comparison, dagger: str) -> str:
    if not listed_metrics(res):
        return ""
    return (f" {dagger}: no per-user value to pair (a system-level metric or a pooled average): the "
            f"system's value, mean over splits, not tested.")


def describe_tests(res: Comparison) -> str:
    test = {"paired_t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
            "randomization": f"paired randomization test ({res.n_resamples} sign flips)"}[res.test]
    corr = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "Benjamini-Hochberg",
            None: "no"}[res.correction]
    level = 100 * (1 - res.alpha)
    method = {"bca": "BCa", "percentile": "percentile", "basic": "basic"}[res.ci_method]
    return (f"{test}, {corr} correction, alpha = {res.alpha:g}; CI: {level:g}% paired bootstrap ({method}, "
            f"{res.n_resamples} resamples, seed {res.seed})")


def difference_rows(res: Comparison, digits: int, star: str) -> list[list[str]]:
    rows = []
    for (metric, a, b), row in res.table.iterrows():
        mark = star if row["significant"] else ""
        ci = ("–" if np.isnan(row["ci_low"]) or np.isnan(row["ci_high"])
              else f"[{_signed(row['ci_low'], digits)}, {_signed(row['ci_high'], digits)}]")
        diff = "–" if np.isnan(row["diff"]) else f"{_signed(row['diff'], digits)}{mark}"
        rows.append([metric, f"{b} − {a}", diff, ci, format_p(row["p_adjusted"]), f"{int(row['n'])}"])
    return rows


def effect_rows(res: Comparison, digits: int) -> list[list[str]]:
    """Per tested difference: the relative difference in % and d_z, each with its interval
    (none when the table has no effect-size columns: a result not made by compare)."""
    if "rel_diff" not in res.table.columns:
        return []

    def interval(low: float, high: float, places: int) -> str:
        return "–" if np.isnan(low) or np.isnan(high) else f"[{_signed(low, places)}, {_signed(high, places)}]"

    rows = []
    for (metric, a, b), row in res.table.iterrows():
        rel = "–" if np.isnan(row["rel_diff"]) else f"{_signed(row['rel_diff'], 2)}%"
        dz = "–" if np.isnan(row["effect_size"]) else _signed(row["effect_size"], 2)
        rows.append([metric, f"{b} − {a}", rel, interval(row["rel_ci_low"], row["rel_ci_high"], 2), dz,
                     interval(row["dz_ci_low"], row["dz_ci_high"], 2)])
    return rows


def effect_note(res: Comparison) -> str:
    """What the effect-size table shows."""
    return (f"Relative: 100 (mean_b / mean_a − 1), its {100 * (1 - res.alpha):g}% interval the percentile interval "
            f"of the ratio over the CI's bootstrap resamples; d_z: mean / sd of the per-user differences, its "
            f"interval exact from the noncentral t.")


def _signed(value: float, digits: int) -> str:
    """``+0.1234``; a difference that rounds to zero shows as ``0.0000``, never ``-0.0000``."""
    text = f"{value:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def format_p(p: float) -> str:
    """A p-value as every table of rankeval writes it: ``0.0123``, ``< 0.0001`` below :data:`P_FLOOR`
    (never ``0.0000``: a p-value is never zero), ``–`` for NaN."""
    p = float(p)
    if np.isnan(p):
        return "–"
    return f"< {P_FLOOR:.4f}" if p < P_FLOOR else f"{p:.4f}"


def is_p_column(name: object) -> bool:
    """Whether a column holds p-values, by its name: ``p``, ``p_value``, ``p_adjusted``,
    ``p (adjusted)``, ``p (F)``, ``iman_davenport_p`` (the names rankeval's tables give them);
    not ``P@10`` nor a name that merely starts with ``p_``."""
    text = str(name).lower()
    return text in ("p", "p_value", "p_adjusted", "pvalue") or text.startswith("p (") or text.endswith("_p")


def friedman_rows(res: Comparison, digits: int) -> tuple[list[str], list[list[str]]]:
    """Per tested metric: the Friedman line (chi-square, p, Iman-Davenport F, p, n, k) and
    the systems' mean ranks (rank 1 = best)."""
    fr = res.friedman()
    ranks = res.mean_ranks()
    head = ["metric", "chi2_F", "p", "F_ID", "p (F)", "n", *(f"rank {s}" for s in res.systems)]
    rows = []
    for metric in res.metrics:
        f = fr.loc[metric]
        numbers = [f"{f['statistic']:.{digits}f}", format_p(f["p_value"]), f"{f['iman_davenport_F']:.{digits}f}",
                   format_p(f["iman_davenport_p"]), f"{int(f['n'])}"]
        numbers = ["–" if "nan" in x else x for x in numbers]
        rows.append([metric, *numbers, *("–" if np.isnan(r) else f"{r:.2f}" for r in ranks.loc[metric])])
    return head, rows


def _friedman_markdown(res: Comparison, digits: int) -> list[str]:
    head, rows = friedman_rows(res, digits)
    lines = ["", "| " + " | ".join(head) + " |", "|:---|" + "|".join(["---:"] * (len(head) - 1)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", "Friedman's test over the units where every system has a value (chi-square with tie "
              "correction; Iman-Davenport F), and each system's mean rank (1 = best)."]
    return lines


def markdown(res: Comparison, digits: int = 4, *, friedman: bool = False) -> str:
    listed = listed_metrics(res)
    head = ["system", *res.metrics, *(f"{m}†" for m in listed)]
    n_cols = len(res.metrics) + len(listed)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join([":---"] + ["---:"] * n_cols) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in _cells(res, digits, ("**", "**"), ("<sup>", "</sup>"))]
    lines += ["", f"Best value per metric in bold; a superscript lists the systems this system is "
              f"significantly better than ({describe_tests(res)}).{listed_note(res, '†')}", ""]
    if not res.metrics:  # only listed metrics: no difference was tested
        return "\n".join(lines)
    lines += ["| metric | difference | mean | CI | p (adjusted) | n |", "|:---|:---|---:|:---:|---:|---:|"]
    lines += ["| " + " | ".join(r) + " |" for r in difference_rows(res, digits, "*")]
    lines += ["", "\\* significant after correction."]
    effects = effect_rows(res, digits)
    if effects:
        lines += ["", "| metric | difference | relative | CI | d_z | CI |", "|:---|:---|---:|:---:|---:|:---:|"]
        lines += ["| " + " | ".join(r) + " |" for r in effects] + ["", effect_note(res)]
    if friedman:
        lines += _friedman_markdown(res, digits)
    return "\n".join(lines) + "\n"


def tex_escape(text: str) -> str:
    special = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#", "$": r"\$",
               "{": r"\{", "}": r"\}", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}", "−": "$-$"}
    return "".join(special.get(char, char) for char in text)


def latex(res: Comparison, digits: int = 4, *, friedman: bool = False) -> str:
    cells = _cells(res, digits, (r"\textbf{", "}"), (r"$^{\mathrm{", "}}$"))
    listed = listed_metrics(res)
    cols = "l" + "r" * (len(res.metrics) + len(listed))
    out = [r"\begin{table}[t]", r"\centering", rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
           " & ".join(["System", *(tex_escape(m) for m in res.metrics),
                       *(tex_escape(m) + r"$^\dagger$" for m in listed)])
           + r" \\", r"\midrule"]
    for row in cells:
        out.append(" & ".join([tex_escape(row[0]), *row[1:]]) + r" \\")
    note = tex_escape(listed_note(res, "†")).replace("†", r"$^\dagger$")
    out += [r"\bottomrule", r"\end{tabular}",
            rf"\caption{{Best value per metric in bold; superscripts: systems this one is significantly "
            rf"better than ({tex_escape(describe_tests(res))}).{note}}}", r"\end{table}"]
    if not res.metrics:  # only listed metrics: no difference was tested
        return "\n".join(out) + "\n"
    out += ["", r"\begin{table}[t]", r"\centering", r"\begin{tabular}{llrcrr}", r"\toprule",
            r"Metric & Difference & Mean & CI & $p$ (adj.) & $n$ \\", r"\midrule"]
    for row in difference_rows(res, digits, "$^*$"):
        row[4] = row[4].replace("< ", "$<$ ")
        out.append(" & ".join(tex_escape(c) if i < 2 else c for i, c in enumerate(row)) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}", r"\caption{Paired differences (b $-$ a) with their bootstrap "
            r"confidence intervals; $^*$: significant after correction.}", r"\end{table}"]
    effects = effect_rows(res, digits)
    if effects:
        out += ["", r"\begin{table}[t]", r"\centering", r"\begin{tabular}{llrcrc}", r"\toprule",
                r"Metric & Difference & Relative & CI & $d_z$ & CI \\", r"\midrule"]
        out += [" & ".join(tex_escape(c) for c in row) + r" \\" for row in effects]
        out += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{tex_escape(effect_note(res))}}}", r"\end{table}"]
    if friedman:
        head, rows = friedman_rows(res, digits)
        out += ["", r"\begin{table}[t]", r"\centering", rf"\begin{{tabular}}{{l{'r' * (len(head) - 1)}}}",
                r"\toprule", " & ".join(tex_escape(h) for h in head).replace("chi2\\_F", r"$\chi^2_F$")
                .replace("F\\_ID", r"$F_{ID}$") + r" \\", r"\midrule"]
        out += [" & ".join(tex_escape(c).replace("< ", "$<$ ") for c in row) + r" \\" for row in rows]
        out += [r"\bottomrule", r"\end{tabular}", r"\caption{Friedman's test (with tie correction) and the "
                r"Iman--Davenport $F$ over the units where every system has a value; mean ranks, 1 = best.}",
                r"\end{table}"]
    return "\n".join(out) + "\n"
