"""The HTML review page without a browser: escaping, CSP, determinism, completeness."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

from pipelines.model import Alignment, Finding, Mark, Ruling
from pipelines.report import WRITERS
from pipelines.report.kept_rows import PreviousReports
from pipelines.report.writers import html as html_writer
from pipelines.report.writers.html import (
    certainty,
    chart_svg,
    json_for_script,
    marks_of,
    page_data,
    review_priority,
    variant_panes,
    write_html,
)
from pipelines.resources import resource_path
from pipelines.store import open_store
from pipelines.tables import RunTables
from pipelines.vocabulary import Role, Side
from pipelines.work import Cache

SCRIPT_ATTACK = "</script><script>alert(1)</script>"
IMG_ATTACK = "<img src=x onerror=alert(1)>"
DATA_BLOCK = re.compile(r'<script type="application/json" id="data">(.*?)</script>', re.S)


def ruling(id_: str, text: str, lang: str, **extra) -> Ruling:
    file, line = id_.rsplit(":", 1)
    values = {
        "id": id_,
        "file": file,
        "line": int(line),
        "format": "plain-dated",
        "doc_title": None,
        "card": None,
        "section": None,
        "doc_lang": lang,
        "lang": lang,
        "spans": [],
        "date": "2024-02-02",
        "date_raw": "02/02/2024",
        "text": text,
    }
    values.update(extra)
    return Ruling(**values)


def finding(code: str, category: str, severity: str, **extra) -> Finding:
    values = {
        "code": code,
        "category": category,
        "severity": severity,
        "lang": "es",
        "file": "t.txt",
        "line": 3,
        "ruling_id": "t.txt:3",
        "source_id": "s.txt:1",
        "card": None,
        "section": None,
        "message": "A message.",
        "evidence": {},
    }
    values.update(extra)
    return Finding(**values)


def hostile_run() -> RunTables:
    """A run whose corpus text, titles, card names and languages try to inject markup."""
    evil_text = (
        f"Si {SCRIPT_ATTACK} un duelista {IMG_ATTACK} pone una habilidad activada "
        "en la pila\u2028y sigue & termina > fin."
    )
    source = ruling("s.txt:1", "If a player puts a triggered ability on the stack, {X}.", "en")
    target = ruling(
        "t.txt:3",
        evil_text,
        "es",
        doc_title=f"T\u00edtulo {IMG_ATTACK}",
        card=f"</title>{SCRIPT_ATTACK}",
    )
    start = evil_text.index("habilidad activada")
    x_at = source.text.index("{X}")
    findings = [
        finding(
            "TERM001",
            "terminology",
            "error",
            card=target.card,
            message=f"\u201chabilidad activada\u201d is wrong {IMG_ATTACK}.",
            evidence={
                "source_term": "triggered ability",
                "expected": ["habilidad disparada"],
                "found": [f"habilidad activada{SCRIPT_ATTACK}"],
            },
            marks=[
                Mark.target(start, start + len("habilidad activada")).as_dict(),
                Mark.source(19, 36, Role.TERM).as_dict(),
            ],
        ),
        finding(
            "PH001",
            "placeholder",
            "error",
            card=target.card,
            evidence={"kind": "symbol", "expected": ["{X}"], "found": [], "missing": ["{X}"]},
            marks=[Mark.source(x_at, x_at + 3, Role.MISSING).as_dict()],
        ),
        finding(
            "TERM004",
            "terminology",
            "warning",
            lang="<svg onload=alert(4)>",
            source_id=None,
            evidence={"expected": ["jugador"], "found": ["duelista"]},
            marks=[Mark.target(0, 3).as_dict()],
        ),
        finding(
            "PARSE005",
            "parse",
            "warning",
            lang=None,
            file=f"{IMG_ATTACK}.txt",
            line=9,
            ruling_id=None,
            source_id=None,
            message=f"The heading {SCRIPT_ATTACK} has no content under it.",
            evidence={"heading": SCRIPT_ATTACK, "lines": [8]},
        ),
    ]
    suppressed = [
        finding(
            "STYLE003",
            "style",
            "warning",
            evidence={"found": "x"},
            marks=[Mark.target(4, 9).as_dict()],
        ),
    ]
    return RunTables(
        rulings=[source, target], findings=findings, suppressed=suppressed, source_lang="en"
    )


class Tags(HTMLParser):
    """Every start tag with its attribute names, and the document's title."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, list[str]]] = []
        self.titles: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append((tag, [name for name, _ in attrs]))
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.titles.append(data)


def markup_outside_scripts(page: str) -> str:
    """The page with the two script elements' contents removed: what the HTML parser sees."""
    return re.sub(r"(<script[^>]*>)(.*?)(</script>)", r"\1\3", page, flags=re.S)


def test_writer_is_registered() -> None:
    entry = WRITERS["html"]
    assert entry.target is write_html
    assert entry.meta["filename"] == "report.html"


def test_corpus_text_cannot_become_markup(tmp_path: Path) -> None:
    path = write_html(hostile_run(), tmp_path)
    assert path == tmp_path / "report.html"
    page = path.read_text(encoding="utf-8")
    lowered = page.lower()
    # Exactly two script elements: the JSON data block and the page's own script.
    assert lowered.count("<script") == 2
    assert lowered.count("</script") == 2
    # No executable form anywhere: not in the markup, not in the JSON block (< > escaped).
    for attack in (SCRIPT_ATTACK, IMG_ATTACK, "<svg onload", "<script>alert"):
        assert attack not in page
    # What an HTML parser builds from the page: no injected element, no event handler.
    tags = Tags()
    tags.feed(page)
    assert [t for t, _ in tags.seen if t == "script"] == ["script", "script"]
    assert not [t for t, _ in tags.seen if t in ("img", "iframe", "object", "embed", "base")]
    assert not [(t, a) for t, attrs in tags.seen for a in attrs if a.startswith("on")]
    assert tags.titles[0] == "Translation review: 4 findings"
    data = DATA_BLOCK.search(page).group(1)
    for char in ("<", ">", "&", "\u2028", "\u2029"):
        assert char not in data
    # The escaped JSON still gives back the exact corpus text.
    parsed = json.loads(data)
    assert parsed["rulings"]["t.txt:3"]["text"] == hostile_run().rulings[1].text
    assert any(f["group"] == f"</title>{SCRIPT_ATTACK}" for f in parsed["findings"])


def test_language_in_the_chart_is_escaped() -> None:
    svg = chart_svg(hostile_run().findings)
    assert "<svg onload" not in svg
    assert "&lt;svg onload=alert(4)&gt;" in svg


def test_the_script_renders_text_only() -> None:
    script = resource_path("report/report.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script
    assert "textContent" in script


def test_content_security_policy_allows_only_the_page_script(tmp_path: Path) -> None:
    page = write_html(hostile_run(), tmp_path).read_text(encoding="utf-8")
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert csp, "the page has no Content-Security-Policy"
    policy = csp.group(1)
    assert "default-src 'none'" in policy
    assert "unsafe-inline" not in policy.split("script-src", 1)[1].split(";")[0]
    assert "unsafe-eval" not in policy
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy
    # Self-contained: nothing is loaded from anywhere.
    assert not re.search(r"\b(src|href)=\"(?!data:)", page)
    assert "http://" not in markup_outside_scripts(page).replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )
    assert "https://" not in page


def test_same_tables_give_the_same_bytes(tmp_path: Path) -> None:
    first = write_html(hostile_run(), tmp_path / "a").read_bytes()
    second = write_html(hostile_run(), tmp_path / "b").read_bytes()
    assert first == second
    shuffled = hostile_run()
    random.Random(7).shuffle(shuffled.findings)
    shuffled.rulings.reverse()
    assert write_html(shuffled, tmp_path / "c").read_bytes() == first


def test_every_finding_is_in_the_page(tmp_path: Path) -> None:
    run = hostile_run()
    page = write_html(run, tmp_path).read_text(encoding="utf-8")
    data = json.loads(DATA_BLOCK.search(page).group(1))
    in_page = {f["fp"]: f for f in data["findings"]}
    for item in run.findings + run.suppressed:
        assert item.fingerprint in page
        row = in_page[item.fingerprint]
        assert (row["code"], row["file"], row["message"]) == (item.code, item.file, item.message)
    assert [f["baseline"] for f in data["findings"] if f["code"] == "STYLE003"] == [True]
    # The file-level finding has its own group, named after its file.
    parse = next(f for f in data["findings"] if f["code"] == "PARSE005")
    assert parse["ruling"] is None and parse["group"] == f"{IMG_ATTACK}.txt"


def test_the_evidence_is_highlighted() -> None:
    run = hostile_run()
    data = page_data(run)
    rows = {f["code"]: f for f in data["findings"]}
    text = run.by_id["t.txt:3"].text
    start, end = rows["TERM001"]["marks"]["target"][0]
    assert text[start:end] == "habilidad activada"
    source = run.by_id["s.txt:1"].text
    assert [source[s:e] for s, e in rows["PH001"]["marks"]["source"]] == ["{X}"]
    assert rows["TERM001"]["expected"] == "\u201chabilidad disparada\u201d"
    [[start, end]] = rows["TERM001"]["marks"]["source"]
    assert source[start:end] == "triggered ability"


def test_marks_are_clipped_merged_and_converted_to_utf16() -> None:
    text = "\U0001f600 a habilidad activada"
    start = text.index("habilidad")
    marked = finding(
        "TERM001",
        "terminology",
        "error",
        marks=[
            Mark.target(start, start + 9).as_dict(),
            Mark.target(start + 5, start + 12).as_dict(),
            Mark.target(999, 1000).as_dict(),
            Mark.source(0, 3, Role.MISSING).as_dict(),
        ],
    )
    # the emoji is two UTF-16 units; overlapping marks merge; out-of-range ones go
    assert marks_of(marked, Side.TARGET, text) == [[start + 1, start + 13]]
    assert marks_of(marked, Side.SOURCE, "Pay {T}") == [[0, 3]]


def test_variants_mark_the_words_that_differ() -> None:
    panes = variant_panes(
        {
            "variants": [
                {"text": "la segunda habilidad disparada", "preferred": True, "rulings": ["a:1"]},
                {"text": "la \u201csegunda\u201d habilidad activada", "rulings": ["b:2"]},
            ]
        },
        "b:2",
    )
    assert [p["this"] for p in panes] == [False, True]
    preferred, other = panes
    assert [preferred["text"][s:e] for s, e in preferred["marks"]] == ["disparada"]
    assert [other["text"][s:e] for s, e in other["marks"]] == ["activada"]


def test_the_findings_own_version_shows_its_own_card_not_the_one_that_stands_for_it() -> None:
    """Altar's Reap's ruling reads as Fling's but for the card it names: their version's
    text is Fling's, and the Altar's Reap finding's own pane shows Altar's Reap's line,
    with the words that differ from the preferred version marked in it."""
    evidence = {
        "variants": [
            {
                "text": "Como coste adicional para lanzar Arrojar, sacrifica una criatura.",
                "preferred": True,
                "rulings": ["es/fling.txt:3"],
            },
            {
                "text": "Como coste adicional para lanzar Arrojar, sacrificas una criatura.",
                "rulings": ["es/altar-s-reap.txt:3", "es/fling-2.txt:3"],
            },
        ]
    }
    own_text = "Como coste adicional para lanzar Cosecha del altar, sacrificas una criatura."
    preferred, own = variant_panes(evidence, "es/altar-s-reap.txt:3", own_text)
    assert own["this"] and own["text"] == own_text
    # the card it names is not a difference; its own wording is
    assert [own["text"][s:e] for s, e in own["marks"]] == ["sacrificas"]
    assert preferred["text"].endswith("lanzar Arrojar, sacrifica una criatura.")
    assert [preferred["text"][s:e] for s, e in preferred["marks"]] == ["sacrifica"]
    # a finding without its ruling in the run shows the version's text
    _, own = variant_panes(evidence, "es/altar-s-reap.txt:3")
    assert "Arrojar" in own["text"]
    # where the version names its card instead of "this spell", the own card's name is marked
    evidence["variants"][0]["text"] = "Como coste adicional para lanzar este hechizo, sacrifica"
    evidence["variants"][1]["text"] = "Como coste adicional para lanzar Arrojar, sacrifica"
    own_text = "Como coste adicional para lanzar la Cosecha del altar, sacrifica"
    _, own = variant_panes(evidence, "es/altar-s-reap.txt:3", own_text)
    assert [own["text"][s:e] for s, e in own["marks"]] == ["la Cosecha del altar"]


def test_json_for_script_escapes_what_could_end_the_script() -> None:
    text = json_for_script({"t": "</script><!-- & \u2028\u2029"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"t": "</script><!-- & \u2028\u2029"}


def test_json_for_script_written_in_parts_is_the_whole_encoding(monkeypatch) -> None:
    """The page's JSON block is encoded and escaped part by part (a large run's block would
    be in memory several times over): the parts make exactly the one-shot encoding."""
    data = {
        "rulings": {"b": {"t": "</script>&<"}, "a": {"t": "中\u2028"}, "c": {}},
        "findings": [{"z": 1.5, "a": [1, None, True]}, [], "x" * 40],
        "empty": {},
        "numbers": {1: "int keys", 2: "encoded whole"},
    }
    whole = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for char, escape in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        whole = whole.replace(char, escape)
    whole = whole.replace("\u2028", "\\u2028")
    assert json_for_script(data) == whole
    monkeypatch.setattr(html_writer, "_PART_SIZE", 5)
    parts = list(html_writer.json_for_script_parts(data))
    assert len(parts) > 5 and "".join(parts) == whole
    for at_once in (1, 2):  # the runs of items encoded in one call end inside each container
        monkeypatch.setattr(html_writer, "ITEMS_AT_ONCE", at_once)
        assert "".join(html_writer.json_for_script_parts(data)) == whole


# --- the order a reviewer sees -----------------------------------------------------------------


def test_errors_come_first_then_warnings_each_surest_first() -> None:
    """The page opens on what matters: errors before warnings before infos, and within a
    severity the findings on the surest pairs first; document order breaks ties."""
    rulings = [ruling(f"s.txt:{n}", f"Source {n}.", "en") for n in range(1, 6)]
    rulings += [ruling(f"t.txt:{n}", f"Traducción {n}.", "es") for n in range(1, 6)]
    scores = {1: 0.95, 2: 0.4, 3: 0.9, 4: 0.99, 5: 0.3}
    alignment = [
        Alignment(f"s.txt:{n}", f"t.txt:{n}", "es", score, "embedding")
        for n, score in scores.items()
    ]
    severities = {1: "warning", 2: "error", 3: "warning", 4: "info", 5: "error"}
    findings = [
        finding(
            f"CODE{n}",
            "terminology",
            severity,
            line=n,
            ruling_id=f"t.txt:{n}",
            source_id=f"s.txt:{n}",
        )
        for n, severity in severities.items()
    ]
    findings.append(
        finding("UNTR001", "untranslated", "error", line=6, ruling_id="t.txt:5", source_id=None)
    )
    data = page_data(RunTables(rulings, alignment, findings))
    assert sorted(data["ranks"]) == list(range(len(data["findings"])))
    by_rank = [row for _, row in sorted(zip(data["ranks"], data["findings"], strict=True))]
    assert [row["code"] for row in by_rank] == [
        "UNTR001",  # an error about the text alone: nothing makes it less sure
        "CODE2",  # error on a pair aligned at 0.4
        "CODE5",  # error on a pair aligned at 0.3
        "CODE1",
        "CODE3",
        "CODE4",
    ]
    assert [row["code"] for row in data["findings"]] == [f"CODE{n}" for n in range(1, 6)] + [
        "UNTR001"
    ]  # the document order stays one click away
    assert {row["code"]: row["confidence"] for row in data["findings"]}["CODE5"] == 0.3


def test_certainty_is_the_findings_confidence_else_the_pairs_alignment_score() -> None:
    pair = finding("TERM002", "terminology", "warning", source_id="s.txt:1")
    alone = finding("UNTR001", "untranslated", "error", source_id=None)
    scores = {("s.txt:1", "t.txt:3"): 0.42}
    assert certainty(pair, scores) == 0.42
    assert certainty(alone, scores) == 1.0
    assert certainty(pair, {}) == 1.0
    pair.confidence = 0.61
    assert certainty(pair, scores) == 0.61
    assert review_priority(pair, 0.42) < review_priority(pair, 0.2)
    assert review_priority(alone, 0.1) < review_priority(pair, 1.0)


def test_the_data_block_is_the_page_data_written_row_by_row(tmp_path: Path) -> None:
    """The page's findings are written a row at a time (``kept_rows``): the block is still
    ``json_for_script(page_data(run))``, every finding's rank in the review order beside
    the rows, and the suppressed findings' rows among them."""
    run = hostile_run()
    run.suppressed = [run.findings.pop()]
    WRITERS["html"].target(run, tmp_path)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    data = page_data(run)
    assert json_for_script(data) in page
    assert len(data["findings"]) == len(data["ranks"]) == len(run.findings) + 1
    assert [row["baseline"] for row in data["findings"]].count(True) == 1


def test_the_rulings_the_rows_show_are_rows_copied_when_unchanged(tmp_path: Path, monkeypatch):
    """The block's ``rulings`` object is written an entry a row: after one ruling's text
    changed, only its entry is rendered again (the other is copied from the previous page),
    and the page is the one written without a previous page."""
    cache = Cache(open_store(tmp_path / "cache"), ["salt"])
    before = tmp_path / "before"
    before.mkdir()
    run = hostile_run()
    run.previous = PreviousReports(before, cache)
    WRITERS["html"].target(run, before)

    rendered: list[str] = []
    ruling_row = html_writer._ruling_row

    def counting(ruling: Ruling) -> dict:
        rendered.append(ruling.id)
        return ruling_row(ruling)

    monkeypatch.setattr(html_writer, "_ruling_row", counting)
    edited = hostile_run()
    edited.rulings[1] = replace(edited.rulings[1], text=edited.rulings[1].text + " Otra frase.")
    edited.previous = PreviousReports(before, cache)
    now = tmp_path / "now"
    now.mkdir()
    written = WRITERS["html"].target(edited, now).read_bytes()
    assert rendered == ["t.txt:3"]
    edited.previous = None
    assert written == WRITERS["html"].target(edited, tmp_path).read_bytes()
    assert "Otra frase." in written.decode("utf-8")
