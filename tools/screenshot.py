"""Regenerate docs/report.png, the README's picture of the HTML review page.

    python tools/screenshot.py [--out docs/report.png]

Runs ``rulings run`` on corpus/ into a temporary folder, opens its report.html in Debian's
Chromium (``/usr/bin/chromium``, driven by Playwright; never a downloaded browser), shows the
Spanish findings, most important first, under the totals, chart and filters, and saves the
viewport. The
test suite never writes docs/: tests/test_report_browser.py calls ``capture`` into a
temporary folder.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = ROOT / "docs" / "report.png"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 1500}
FILTERS = {"#f-lang": "es"}
"""The Spanish findings, most important first."""


def capture(browser: Any, report: Path, png: Path) -> Path:
    """Open ``report`` in ``browser`` (a Playwright Chromium), set the filter, save ``png``."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(report.resolve().as_uri())
        page.wait_for_selector("html[data-ready='1']", timeout=10_000)
        for selector, value in FILTERS.items():
            page.select_option(selector, value)
        png.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(png), full_page=False)
    finally:
        context.close()
    return png


def seed_report(folder: Path) -> Path:
    """The report of a run on corpus/, in ``folder``."""
    done = subprocess.run(
        [sys.executable, "-m", "pipelines", "run", str(ROOT / "corpus"), "--out", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"rulings run failed: {done.stderr.strip()}")
    return folder / "report.html"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=SCREENSHOT, help="the PNG to write")
    args = parser.parse_args()
    if not CHROMIUM.is_file():
        raise SystemExit(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="rulings-screenshot-") as work:
        report = seed_report(Path(work) / "out")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                capture(browser, report, args.out)
            finally:
                browser.close()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
