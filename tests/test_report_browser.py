"""The HTML review page in a real browser (Debian's Chromium, driven by Playwright).

Skipped when /usr/bin/chromium or the playwright package is missing, unless
RULINGS_REQUIRE_BROWSER=1 (CI) makes that a failure. Never downloads a browser.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, ROOT

from pipelines.model import Finding, Ruling
from pipelines.report.writers.html import write_html
from pipelines.tables import RunTables

sys.path.insert(0, str(ROOT / "tools"))
import screenshot

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SEEDS = ("000_40e512ac1ae253c1.txt", "001_09da9df6e0e3ee52.txt", "002_f829283b2bc10ea3.txt")
INJECTED_SCRIPT = "<script>window.__pwned=1</script>"
INJECTED_IMG = '<img src=x onerror="window.__pwned=2">'
HOSTILE_DOCUMENT = f"""Prueba de escape {INJECTED_SCRIPT}

19/03/2021 Si un duelista elige {INJECTED_SCRIPT} no poner una carta en el campo de batalla, \
ese duelista puede poner una carta {INJECTED_IMG} la próxima vez que le llegue el proceso.
"""
LOCAL_SCHEMES = ("file:", "blob:", "data:", "about:")


def _playwright() -> Any:
    """The sync Playwright entry point, or a skip (a failure under RULINGS_REQUIRE_BROWSER=1)."""
    required = os.environ.get("RULINGS_REQUIRE_BROWSER") == "1"
    problem = None
    if not CHROMIUM.is_file():
        problem = f"{CHROMIUM} is not installed (apt-get install chromium)"
    else:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            problem = "the playwright package is not installed (pip install -e '.[test]')"
    if problem:
        if required:
            pytest.fail(f"RULINGS_REQUIRE_BROWSER=1 but {problem}", pytrace=False)
        pytest.skip(problem)
    return sync_playwright


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_playwright = _playwright()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipelines", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def read_findings(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real run: three seed files and a document that tries to inject script."""
    root = tmp_path_factory.mktemp("browser")
    corpus = root / "corpus"
    corpus.mkdir()
    for name in SEEDS:
        shutil.copy(CORPUS / name, corpus / name)
    (corpus / "escape.txt").write_text(HOSTILE_DOCUMENT, encoding="utf-8")
    out = root / "out"
    done = run_cli("run", str(corpus), "--out", str(out), cwd=root)
    assert done.returncode in (0, 1), done.stderr
    assert (out / "report.html").is_file()
    return out


@dataclass
class Page:
    """A page with everything it logged and every request it tried."""

    page: Any
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert self.console_errors == []
        assert self.blocked == []
        assert [url for url in self.requests if not url.startswith(LOCAL_SCHEMES)] == []

    def shown(self) -> int:
        count = int(self.page.get_attribute("#shown", "data-count"))
        assert self.page.locator("article.finding:visible").count() == count
        return count

    def visible_fingerprints(self) -> set[str]:
        return set(
            self.page.eval_on_selector_all(
                "article.finding",
                "cards => cards.filter(c => !c.closest('[hidden]')).map(c => c.dataset.fp)",
            )
        )


def open_report(browser: Any, path: Path, **context_options: Any) -> tuple[Any, Page]:
    context = browser.new_context(accept_downloads=True, **context_options)
    page = context.new_page()
    seen = Page(page)
    page.on("console", lambda m: m.type == "error" and seen.console_errors.append(m.text))
    page.on("pageerror", lambda error: seen.console_errors.append(str(error)))
    page.on("request", lambda request: seen.requests.append(request.url))

    def guard(route: Any) -> None:
        if route.request.url.startswith(LOCAL_SCHEMES):
            route.continue_()
        else:
            seen.blocked.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("html[data-ready='1']", timeout=10_000)
    return context, seen


def test_filters_change_the_visible_findings(browser: Any, hostile_run: Path) -> None:
    findings = read_findings(hostile_run / "findings.jsonl")
    context, view = open_report(browser, hostile_run / "report.html")
    page = view.page
    assert view.shown() == len(findings)
    assert view.visible_fingerprints() == {f["fingerprint"] for f in findings}

    page.select_option("#f-lang", "zh")
    zh = {f["fingerprint"] for f in findings if f["lang"] == "zh"}
    assert 0 < view.shown() == len(zh) < len(findings)
    assert view.visible_fingerprints() == zh
    assert page.text_content("#shown") == f"Showing {len(zh)} of {len(findings)} findings"
    chip = page.locator('.chip[data-category="untranslated"] b')
    assert chip.text_content() == str(
        sum(f["category"] == "untranslated" for f in findings if f["lang"] == "zh")
    )

    page.select_option("#f-lang", "es")
    page.select_option("#f-category", "terminology")
    expected = {
        f["fingerprint"] for f in findings if f["lang"] == "es" and f["category"] == "terminology"
    }
    assert view.visible_fingerprints() == expected and view.shown() == len(expected)

    page.select_option("#f-severity", "error")
    expected = {
        f["fingerprint"]
        for f in findings
        if f["lang"] == "es" and f["category"] == "terminology" and f["severity"] == "error"
    }
    assert view.visible_fingerprints() == expected

    page.click("#f-reset")
    assert view.shown() == len(findings)
    target = next(f for f in findings if f["code"] == "TERM004" and f["file"] == "escape.txt")
    page.fill("#f-text", target["fingerprint"])
    assert view.visible_fingerprints() == {target["fingerprint"]}
    page.fill("#f-text", "duelista")
    shown = view.visible_fingerprints()
    assert target["fingerprint"] in shown and len(shown) < len(findings)
    page.fill("#f-text", "no such words anywhere")
    assert view.shown() == 0
    assert page.locator("section.group:visible").count() == 0

    page.click("#f-reset")
    page.click('.chip[data-category="terminology"]')
    assert view.shown() == sum(f["category"] == "terminology" for f in findings)
    view.assert_clean()
    context.close()


def test_injected_markup_stays_text(browser: Any, hostile_run: Path) -> None:
    context, view = open_report(browser, hostile_run / "report.html")
    page = view.page
    assert page.evaluate("() => window.__pwned") is None
    body = page.inner_text("#groups")
    assert INJECTED_SCRIPT in body
    assert INJECTED_IMG in body
    assert page.locator("#groups img, #groups script").count() == 0
    # The CSP admits the page's own script only: an injected one would not run either.
    page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.__pwned = 3'; document.body.appendChild(s); }"
    )
    assert page.evaluate("() => window.__pwned") is None
    view.console_errors.clear()  # the CSP violation report of the line above
    view.assert_clean()
    context.close()


def test_exported_baseline_suppresses_the_accepted_findings(
    browser: Any, hostile_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    shutil.copytree(hostile_run, out)
    context, view = open_report(browser, out / "report.html")
    page = view.page
    assert page.is_disabled("#export")
    boxes = page.locator("article.finding .accept input")
    chosen = []
    for index in (0, 3):
        card = page.locator("article.finding").nth(index)
        chosen.append(card.get_attribute("data-fp"))
        boxes.nth(index).check()
    assert page.text_content("#accepted-count").startswith("2 findings accepted")
    with page.expect_download() as event:
        page.click("#export")
    download = event.value
    assert download.suggested_filename == "baseline.json"
    baseline = tmp_path / "baseline.json"
    download.save_as(baseline)
    data = json.loads(baseline.read_text(encoding="utf-8"))
    assert sorted(entry["fingerprint"] for entry in data["accepted"]) == sorted(chosen)
    before = {f["fingerprint"]: f for f in read_findings(out / "findings.jsonl")}
    for entry in data["accepted"]:
        finding = before[entry["fingerprint"]]
        assert (entry["code"], entry["file"], entry["message"]) == (
            finding["code"],
            finding["file"],
            finding["message"],
        )

    done = run_cli("check", "--out", str(out), "--baseline", str(baseline), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    remaining = {f["fingerprint"] for f in read_findings(out / "findings.jsonl")}
    suppressed = {f["fingerprint"] for f in read_findings(out / "suppressed.jsonl")}
    assert not remaining & set(chosen)
    assert suppressed == set(chosen)
    assert remaining | suppressed == set(before)
    view.assert_clean()
    context.close()


def test_the_page_opens_on_errors_surest_first_with_the_document_order_one_click_away(
    browser: Any, hostile_run: Path
) -> None:
    context, view = open_report(browser, hostile_run / "report.html")
    page = view.page
    data = page.evaluate("() => JSON.parse(document.getElementById('data').textContent)")
    ranks = page.eval_on_selector_all("article.finding", "cards => cards.map(c => +c.dataset.rank)")
    assert ranks == sorted(ranks) == list(range(len(data["findings"])))
    severities = page.eval_on_selector_all(
        "article.finding", "cards => cards.map(c => c.classList[1])"
    )
    order = {"error": 0, "warning": 1, "info": 2}
    assert severities[0] == "error"
    assert [order[s] for s in severities] == sorted(order[s] for s in severities)
    assert page.get_attribute("#order-priority", "aria-pressed") == "true"

    page.click("#order-document")
    assert page.get_attribute("#order-document", "aria-pressed") == "true"
    in_page = page.eval_on_selector_all("article.finding", "cards => cards.map(c => c.dataset.fp)")
    assert in_page == [f["fp"] for f in data["findings"]]
    headings = page.eval_on_selector_all("section.group h2", "hs => hs.map(h => h.textContent)")
    assert headings == list(dict.fromkeys(f["group"] for f in data["findings"]))
    page.select_option("#f-severity", "warning")
    assert view.shown() == sum(f["severity"] == "warning" for f in data["findings"])
    page.click("#order-priority")
    assert page.locator("section.group h2").all_text_contents() == ["Most important first"]
    view.assert_clean()
    context.close()


def many_findings(count: int) -> RunTables:
    """A run with ``count`` findings on as many rulings (for the page-at-a-time view)."""
    rulings, findings = [], []
    for n in range(count):
        rulings.append(
            Ruling(
                id=f"t.txt:{n + 1}",
                file="t.txt",
                line=n + 1,
                format="plain-dated",
                doc_title="Hipergénesis",
                card="Hypergenesis",
                section=None,
                doc_lang="es",
                lang="es",
                spans=[],
                date=None,
                date_raw=None,
                text=f"Regla número {n}: una habilidad activada.",
                doc="t.txt",
            )
        )
        findings.append(
            Finding(
                code="TERM004" if n % 3 else "TERM001",
                category="terminology",
                severity="warning" if n % 3 else "error",
                lang="es",
                file="t.txt",
                line=n + 1,
                ruling_id=f"t.txt:{n + 1}",
                source_id=None,
                card="Hypergenesis",
                section=None,
                message=f"Finding number {n}.",
                evidence={"found": f"número {n}"},
            )
        )
    return RunTables(rulings, [], findings)


def test_a_long_report_shows_a_page_at_a_time(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    write_html(many_findings(250), tmp_path)
    context, view = open_report(browser, tmp_path / "report.html")
    page = view.page
    assert page.get_attribute("#shown", "data-count") == "250"
    assert page.locator("article.finding").count() == 100
    assert page.locator("article.finding").first.get_attribute("class") == "finding error"
    assert page.text_content("#more") == "Show 100 more (150 not shown yet)"
    page.eval_on_selector("#more", "button => button.click()")
    assert page.locator("article.finding").count() == 200
    page.locator("#more").scroll_into_view_if_needed()  # scrolling down loads the rest
    expect(page.locator("article.finding")).to_have_count(250)
    assert page.locator("#more").is_hidden()
    page.select_option("#f-severity", "error")
    errors = len(range(0, 250, 3))
    assert view.shown() == errors and page.locator("#more").is_hidden()
    page.click("#f-reset")
    page.click("#accept-shown")  # every finding that passes the filters, shown or not yet
    assert page.text_content("#accepted-count").startswith("250 findings accepted")
    page.fill("#f-text", "number 249.")
    assert view.visible_fingerprints() == {
        page.evaluate(
            "() => JSON.parse(document.getElementById('data').textContent)"
            ".findings.find(f => f.message === 'Finding number 249.').fp"
        )
    }
    view.assert_clean()
    context.close()


def test_the_screenshot_tool_writes_where_it_is_told_never_into_docs(
    browser: Any, hostile_run: Path, tmp_path: Path
) -> None:
    """The README's picture is regenerated by `python tools/screenshot.py`, not by the
    tests: they write only to temporary folders."""
    tracked = screenshot.SCREENSHOT
    before = (tracked.stat().st_mtime_ns, tracked.read_bytes()) if tracked.exists() else None
    png = screenshot.capture(browser, hostile_run / "report.html", tmp_path / "page.png")
    assert png == tmp_path / "page.png" and png.read_bytes().startswith(b"\x89PNG")
    assert png.stat().st_size > 10_000
    after = (tracked.stat().st_mtime_ns, tracked.read_bytes()) if tracked.exists() else None
    assert after == before
