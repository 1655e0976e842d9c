"""Remake docs/img/report.png, the picture of the demo's report in the README and docs/report.md,
from today's code, with what it shows beside it in docs/img/report.json.

Runs ``examples/demo.py`` (which writes ``examples/output/report.html``; its comparison plot
becomes docs/img/comparison.png), screenshots the top of
that page in headless Chromium (Debian's ``chromium``: ``make browser`` installs it; another with
``RANKEVAL_CHROMIUM``), and writes the page's title, its sections, its summary table and the PNG's
SHA-256 to ``report.json``. ``tests/test_examples.py`` renders the demo's report again and compares
it with that file: a picture made by older code (other numbers, other sections) fails the test,
and so does a PNG not made with its JSON.

Run from the repository root after any change to the demo or the page::

    .venv/bin/python docs/_gen/report_image.py            # about 30 s
    .venv/bin/python docs/_gen/report_image.py --no-demo  # the page the demo wrote last
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from html import unescape
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "examples" / "output" / "report.html"
PNG = ROOT / "docs" / "img" / "report.png"
#: the demo's comparison plot, shown in docs/compare.md: copied as the demo drew it
COMPARISON = ("examples/output/comparison.png", "docs/img/comparison.png")
SHOWN = PNG.with_suffix(".json")
#: the screenshot: the page's width on a laptop, tall enough for the summary and the curves
WINDOW = (1280, 2400)
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--no-first-run", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  "--disable-dev-shm-usage")


def page_summary(html: str) -> dict[str, Any]:
    """What the picture shows, read from the page: its title, its sections and its summary table."""
    title = re.search(r"<h1>(.*?)</h1>", html, flags=re.S)
    table = re.search(r'<table class="sortable" id="means">(.*?)</table>', html, flags=re.S)
    if title is None or table is None:
        raise ValueError("the page has no <h1> title or no summary table (id 'means'): is it a rankeval report?")
    head = [unescape(re.sub(r"<[^>]+>", "", cell)).strip()
            for cell in re.findall(r"<th[^>]*>(.*?)</th>", table.group(1), flags=re.S)]
    rows = [[unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row,
                                                                                   flags=re.S)]
            for row in re.findall(r"<tr>\s*(<td.*?)</tr>", table.group(1), flags=re.S)]
    return {"title": unescape(title.group(1)).strip(),
            "sections": re.findall(r'<section id="([^"]+)"', html),
            "summary": {"head": head, "rows": rows}}


def screenshot(page: Path, png: Path) -> None:
    """The top of ``page`` as ``png`` (``WINDOW`` pixels), in headless Chromium, with no network."""
    chromium = os.environ.get("RANKEVAL_CHROMIUM", "/usr/bin/chromium")
    if not os.access(chromium, os.X_OK):
        raise SystemExit(f"no Chromium at {chromium}: run `make browser` (apt-get install chromium), "
                         f"or set RANKEVAL_CHROMIUM")
    with tempfile.TemporaryDirectory(prefix="rankeval-shot-") as profile:
        target = Path(profile) / "shot.png"  # written whole, then moved: no half picture in docs/
        subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                        f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--screenshot={target}",
                        page.resolve().as_uri()], check=True, capture_output=True, timeout=120)
        os.replace(target, png)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-demo", action="store_true", help="use the page the demo wrote last")
    args = parser.parse_args(argv)
    if not args.no_demo:
        subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py")], check=True, cwd=ROOT)
    screenshot(PAGE, PNG)
    if not args.no_demo:
        shutil.copyfile(ROOT / COMPARISON[0], ROOT / COMPARISON[1])
    shown = {"made_by": "docs/_gen/report_image.py", "page": "examples/output/report.html",
             **page_summary(PAGE.read_text(encoding="utf-8")),
             "png_sha256": hashlib.sha256(PNG.read_bytes()).hexdigest()}
    SHOWN.write_text(json.dumps(shown, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {PNG.relative_to(ROOT)} and {SHOWN.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
