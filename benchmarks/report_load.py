"""How fast the HTML review page opens and answers with 50,000 findings.

    python benchmarks/report_load.py [--findings 50000] [--repeat 3]

Builds a run of generated Spanish rulings with their English sources and ``--findings``
findings (every severity, a dozen codes, alignment scores spread over 0.3..1), writes
report.html with the real writer, opens it in Debian's Chromium (``/usr/bin/chromium``,
headless, driven by Playwright) and measures, as the median of ``--repeat`` page loads: the
time from navigation to the page being ready (data parsed, first findings shown), and the
time of what a reviewer does next (a filter, a search, the other order, the next page) until
the browser has painted. Results go to ``benchmarks/results/report_load.{json,md}``.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

from common import data, md_table, page, parser, record

from pipelines.model import Alignment, Finding, Ruling
from pipelines.report.writers.html import write_html
from pipelines.tables import RunTables

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
DATA = data("report_load")
"""The generated findings' codes, the generated rulings' words, the reviewer's actions."""
PAUSE = "() => new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))"
"""Resolves after the browser has laid out and painted what the last action changed."""


def generated_run(count: int, seed: int = 16) -> RunTables:
    rng = random.Random(seed)
    rulings, alignment, findings = [], [], []
    pairs, codes, words = max(1, count // 4), DATA["codes"], DATA["words"]
    for n in range(pairs):
        card = f"Card {n // 5:05d}"
        source, target = (f"{lang}/{n // 50:04d}.txt:{n % 50 + 1}" for lang in ("en", "es"))
        for id_, lang in ((source, "en"), (target, "es")):
            chosen = rng.choices(words[lang].split(), k=rng.randint(20, 45))
            text = " ".join(chosen).capitalize() + "."
            file, line = id_.rsplit(":", 1)
            fields = dict(id=id_, file=file, line=int(line), format="plain-dated", doc_title=card)
            fields |= dict(card=card, section=None, doc_lang=lang, lang=lang, spans=[], doc=file)
            rulings.append(Ruling(**fields, date="2024-02-02", date_raw="02/02/2024", text=text))
        alignment.append(Alignment(source, target, "es", round(rng.uniform(0.3, 1.0), 3), "rule"))
    for n in range(count):
        pair, (code, category, severity) = n % pairs, codes[n % len(codes)]
        target = alignment[pair].target_id
        file, line = target.rsplit(":", 1)
        findings.append(
            Finding(
                code=code,
                category=category,
                severity=severity,
                lang="es",
                file=file,
                line=int(line),
                ruling_id=target,
                source_id=alignment[pair].source_id,
                card=f"Card {pair // 5:05d}",
                section=None,
                message=f"Generated finding {n} of {code}.",
                evidence={"expected": "habilidad disparada", "found": f"variante {n}"},
            )
        )
    return RunTables(rulings, alignment, findings)


def measure(page, action: str) -> float:
    """Milliseconds of one page action (JavaScript) until the browser has painted."""
    start = time.perf_counter()
    page.evaluate(action)
    page.evaluate(PAUSE)
    return (time.perf_counter() - start) * 1000


def markdown(f: dict) -> str:
    rows = [["open the page (navigation to ready and painted)", f["load_ms"]]]
    rows += [[name, ms] for name, ms in f["actions_ms"].items()]
    return page(
        f"The HTML review page with {f['findings']:,} findings",
        f"Produced by `python benchmarks/report_load.py --findings {f['findings']} "
        f"--repeat {f['repeat']}` (numbers in `report_load.json`). A generated run of "
        f"{f['rulings']:,} rulings and {f['findings']:,} findings; report.html is "
        f"{f['html_bytes'] / 1024**2:.1f} MB, written in {f['write_seconds']:.1f} s. Opened in "
        f"headless Chromium; median of {f['repeat']} page loads, milliseconds until the browser "
        f"has painted. The page builds the first {f['cards_built_at_load']} findings of the "
        "current order and filters, and more as the reader scrolls.",
        f["machine"],
        md_table(["what", "ms"], rows),
    )


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"report_load": markdown})
    cli.add_argument("--findings", type=int, default=50_000)
    cli.add_argument("--repeat", type=int, default=3)
    args = cli.parse_args(argv)
    if not CHROMIUM.is_file():
        raise SystemExit(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    run = generated_run(args.findings)
    with tempfile.TemporaryDirectory(prefix="rulings-report-load-") as work:
        start = time.perf_counter()
        page_path = write_html(run, Path(work))
        write_seconds = time.perf_counter() - start
        loads, actions, shown = [], {name: [] for name in DATA["actions"]}, []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            for _ in range(args.repeat):
                context = browser.new_context(viewport={"width": 1280, "height": 1000})
                tab = context.new_page()
                start = time.perf_counter()
                tab.goto(page_path.as_uri())
                tab.wait_for_selector("html[data-ready='1']", timeout=600_000)
                tab.evaluate(PAUSE)
                loads.append((time.perf_counter() - start) * 1000)
                shown.append(tab.locator("article.finding").count())
                for name, action in DATA["actions"].items():
                    actions[name].append(measure(tab, action))
                context.close()
            browser.close()
        size = page_path.stat().st_size
    figures = {
        "findings": args.findings,
        "rulings": len(run.rulings),
        "html_bytes": size,
        "write_seconds": round(write_seconds, 2),
        "load_ms": round(statistics.median(loads)),
        "load_ms_all": [round(x) for x in loads],
        "cards_built_at_load": shown[0],
        "actions_ms": {name: round(statistics.median(v)) for name, v in actions.items()},
        "repeat": args.repeat,
    }
    record("report_load", figures, markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
