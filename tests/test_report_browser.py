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
SCREENSHOT = ROOT / "docs" / "report.png"
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


def test_screenshot_of_the_default_corpus(browser: Any, tmp_path: Path) -> None:
    """Writes docs/report.png, the README's picture of the page (the Spanish terminology
    errors of the seed corpus, under the totals, chart and filters)."""
    out = tmp_path / "out"
    done = run_cli("run", str(CORPUS), "--out", str(out), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    context, view = open_report(
        browser, out / "report.html", viewport={"width": 1280, "height": 1500}
    )
    assert view.shown() == len(read_findings(out / "findings.jsonl"))
    view.page.select_option("#f-lang", "es")
    view.page.select_option("#f-category", "terminology")
    view.page.select_option("#f-severity", "error")
    SCREENSHOT.parent.mkdir(exist_ok=True)
    view.page.screenshot(path=str(SCREENSHOT), full_page=False)
    assert SCREENSHOT.stat().st_size > 10_000
    view.assert_clean()
    context.close()
