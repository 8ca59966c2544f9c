"""Bilingual CAT files: XLIFF 1.2 and 2.0, TMX, PO in; findings back in XLIFF (findings.xlf).

The fixtures under fixtures/cat are written by hand in the shape the tools export: a Trados
SDLXLIFF (XLIFF 1.2, segmented in ``<seg-source>``), a memoQ XLIFF 2.0, an Okapi TMX in three
languages and a gettext PO with plurals; fixtures/cat/hostile holds entity bombs, external
entities and broken files.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES
from lxml import etree
from translate.storage import xliff as tt_xliff

from pipelines.catalogue import CATALOGUE
from pipelines.check.checks.inline_codes import inline_code_changed, placeholders
from pipelines.check.context import AlignedPair
from pipelines.cli import main
from pipelines.ingest import accounted_lines, ingest, ingest_sources
from pipelines.ingest.readers import choose
from pipelines.ingest.source import SourceFile
from pipelines.model import Alignment, Finding, Ruling
from pipelines.report.writers.xliff import _fill
from pipelines.tables import read_records
from pipelines.text.inline import inline_codes

CAT = FIXTURES / "cat"
HOSTILE = CAT / "hostile"
SCHEMA = CAT / "xliff-core-1.2-subset.xsd"
TRADOS = "trados_hypergenesis.sdlxliff.xlf"
MEMOQ = "memoq_dichotomancy.xlf"
TMX = "suspend_rulings.tmx"
PO = "hypergenesis.es.po"
EXPORTS = (TRADOS, MEMOQ, TMX, PO)


def read(*names: str, folder: Path = CAT):
    result = ingest([folder / name for name in names])
    return {r.id: r for r in result.rulings}, result.findings


def copy_inputs(tmp_path: Path, *names: str, folder: Path = CAT) -> Path:
    inputs = tmp_path / "in"
    inputs.mkdir(exist_ok=True)
    for name in names:
        shutil.copyfile(folder / name, inputs / name)
    return inputs


# --- readers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt"), [(TRADOS, "xliff"), (MEMOQ, "xliff"), (TMX, "tmx"), (PO, "po")]
)
def test_format_is_chosen_by_content_not_name(name: str, fmt: str):
    text = (CAT / name).read_text(encoding="utf-8")
    assert choose(SourceFile.from_text("export.txt", text)) == fmt


def test_trados_xliff_gives_a_source_and_a_target_row_per_segment():
    rows, findings = read(TRADOS)
    prefix = f"{TRADOS}#a0b1c2d3-0002::"
    source, target = rows[f"{prefix}3/source"], rows[f"{prefix}3"]
    assert source.text.startswith("It doesn’t end the first time")
    assert target.text.startswith("No termina la primera vez")
    assert target.counterpart == source.id
    assert (source.doc, target.doc) == (f"{TRADOS}#source", f"{TRADOS}#es-ES")
    assert (source.lang, target.doc_lang, target.doc_kind) == ("en", "es", "translation")
    assert source.doc_kind == "source" and source.kind == target.kind == "unit"
    assert (target.card, target.date) == ("Hypergenesis", "2021-03-19")
    coded = rows[f"{TRADOS}#a0b1c2d3-0003::4"]
    assert coded.text.startswith("Si la carta tiene <gpt1>{X}</gpt1> en su coste")
    assert rows[f"{TRADOS}#a0b1c2d3-0003::4/source"].text.endswith("mana cost.<xpt2/>")
    commented = rows[f"{TRADOS}#a0b1c2d3-0005::6"]
    assert "se activa la segunda" in commented.text  # a comment marker is transparent
    assert f"{TRADOS}#a0b1c2d3-0006::7/source" in rows  # empty target: source row only
    assert f"{TRADOS}#a0b1c2d3-0006::7" not in rows
    assert not any("0007" in key for key in rows)  # translate="no"
    assert rows[f"{TRADOS}#a0b1c2d3-0004::5"].lang == "en"  # the copied source
    assert not findings


def test_memoq_xliff_2_segments_codes_and_state():
    rows, findings = read(MEMOQ)
    coded = rows[f"{MEMOQ}#u2::s2"]
    assert coded.text == (
        "Si lanzas una carta <pc1>sin pagar su coste de maná</pc1>, no puedes elegir "
        "lanzarla por ningún coste alternativo.<ph2/>"
    )
    assert rows[f"{MEMOQ}#u3::s4"].context == "Dichotomancy | state: initial"
    assert rows[f"{MEMOQ}#u1::s1"].date == "2021-06-18"
    assert f"{MEMOQ}#u4::s5" not in rows and f"{MEMOQ}#u4::s5/source" in rows
    assert {r.card for r in rows.values()} == {"Dichotomancy"}
    assert not findings


def test_tmx_gives_a_document_per_language_and_positions_for_units_without_id():
    rows, _ = read(TMX)
    assert rows[f"{TMX}#suspend-1/zh-CN"].doc == f"{TMX}#zh-CN"
    assert rows[f"{TMX}#suspend-1/es-ES"].counterpart == f"{TMX}#suspend-1/source"
    assert f"{TMX}#3/es-ES" in rows and f"{TMX}#3/zh-CN" not in rows
    assert "remueve <bpt1/>contadores<ept1/> de tiempo" in rows[f"{TMX}#suspend-2/es-ES"].text
    assert {r.card for r in rows.values()} == {"Epochrasite"}


def test_po_entries_contexts_plurals_fuzzy_and_obsolete():
    rows, _ = read(PO)
    first = rows[f"{PO}#Hypergenesis|2021-03-19|1"]
    assert first.text.startswith("Si un duelista elige") and first.line == 20
    assert rows[f"{PO}#Hypergenesis|2021-03-19|1/source"].line == 16
    assert rows[f"{PO}#Hypergenesis|2021-06-18|2"].context.endswith("| fuzzy")
    plural = rows[f"{PO}#Hypergenesis|ui|3[1]"]
    assert plural.text == "%(count)d aclaraciones para"
    assert plural.counterpart == f"{PO}#Hypergenesis|ui|3/source[1]"
    assert rows[plural.counterpart].text == "%(count)d rulings for %(card)s"
    assert f"{PO}#Hypergenesis|2021-06-18|4" not in rows  # empty msgstr
    assert not any("color indicator" in r.text for r in rows.values())  # obsolete


@pytest.mark.parametrize("name", EXPORTS)
def test_every_line_of_a_cat_file_is_accounted_for(name: str):
    text = (CAT / name).read_text(encoding="utf-8")
    source = SourceFile.from_text(name, text)
    result = ingest_sources([source])
    assert not [f for f in result.findings if f.code.startswith("PARSE")]
    covered = accounted_lines(result.rulings, result.findings)
    lines = text.split("\n")
    assert [n for n, line in enumerate(lines, 1) if line.strip() and n not in covered] == []


def test_inline_tokens_read_back():
    codes = inline_codes("a <g1>b <x2/></g1> c </gpt3> <ph_4/>")
    assert [(c.kind, c.ident, c.role) for c in codes] == [
        ("g", "1", "open"),
        ("x", "2", "standalone"),
        ("g", "1", "close"),
        ("g", "pt3", "close"),
        ("ph", "_4", "standalone"),
    ]
    assert inline_codes("<b>bold</b> 3 < 4 > 2 {X} %s") == []


# --- hostile input -------------------------------------------------------------------------


def codes_of(findings) -> list[str]:
    return sorted(f.code for f in findings)


def test_billion_laughs_is_a_parse_finding():
    rows, findings = read("billion_laughs.xlf", folder=HOSTILE)
    assert not rows
    assert codes_of(findings) == ["PARSE011"]
    assert "entity" in findings[0].message.lower()


@pytest.mark.slow
def test_external_entities_are_never_resolved(tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE", encoding="utf-8")
    text = (HOSTILE / "external_entity.xlf").read_text(encoding="utf-8")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "xxe.xlf").write_text(
        text.replace("file:///etc/passwd", secret.as_uri()), encoding="utf-8"
    )
    rows, findings = read("xxe.xlf", folder=tmp_path / "in")
    texts = " ".join(r.text for r in rows.values())
    assert "TOP-SECRET-VALUE" not in texts and "root:" not in texts
    assert "&secret;" in texts and "&remote;" in texts
    assert codes_of(findings) == ["PARSE012"]


@pytest.mark.parametrize(
    ("name", "line"), [("truncated.xlf", 10), ("broken.po", 6)], ids=["xliff", "po"]
)
def test_broken_files_are_parse_findings_that_account_for_every_line(name: str, line: int):
    rows, findings = read(name, folder=HOSTILE)
    assert not rows
    assert codes_of(findings) == ["PARSE011"]
    assert findings[0].line == line
    text = (HOSTILE / name).read_text(encoding="utf-8").split("\n")
    assert set(findings[0].evidence["lines"]) == {n for n, s in enumerate(text, 1) if s.strip()}


def big_xliff(units: int, text: str = "Cards exiled with suspend are exiled face up.") -> str:
    body = "\n".join(
        f'<trans-unit id="{n}"><source>{text} {n}</source><target>Cartas {n}.</target></trans-unit>'
        for n in range(1, units + 1)
    )
    return (
        '<?xml version="1.0"?>\n<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:'
        '1.2"><file original="big" source-language="en" target-language="es" datatype="plaintext">'
        f"<body>\n{body}\n</body></file></xliff>\n"
    )


@pytest.mark.slow
def test_a_large_xliff_is_read_whole(tmp_path: Path):
    (tmp_path / "big.xlf").write_text(big_xliff(20_000), encoding="utf-8")
    result = ingest([tmp_path / "big.xlf"], identifier="langdetect", languages=("en", "es"))
    assert len(result.rulings) == 40_000
    assert result.rulings[-1].line == 20_002
    assert not result.findings


def test_a_text_node_too_large_to_parse_safely_is_a_parse_finding(tmp_path: Path):
    huge = ("time counter " * 1500 + "\n") * 600
    (tmp_path / "huge.xlf").write_text(big_xliff(1, huge), encoding="utf-8")
    rows, findings = read("huge.xlf", folder=tmp_path)
    assert not rows and codes_of(findings) == ["PARSE011"]


@pytest.mark.slow
def test_hostile_files_do_not_stop_the_batch(tmp_path: Path):
    inputs = copy_inputs(tmp_path, *(p.name for p in HOSTILE.iterdir()), folder=HOSTILE)
    shutil.copyfile(CAT / TMX, inputs / TMX)
    (inputs / "garbage.xlf").write_bytes(b"<xliff \x00\x01\x02\xff" * 100)
    (inputs / "no-file.xlf").write_text(
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"/>\n', encoding="utf-8"
    )
    (inputs / "empty.xlf").write_text(big_xliff(0), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["ingest", str(inputs), "--out", str(out)])
    assert result.exit_code == 0, result.output
    findings = read_records(out / "parse-findings.jsonl", Finding)
    by_file = {f.file: f.code for f in findings}
    assert by_file["billion_laughs.xlf"] == "PARSE011"
    assert by_file["garbage.xlf"] == "PARSE001"
    assert by_file["no-file.xlf"] == "PARSE011"
    assert by_file["empty.xlf"] == "PARSE012"
    rulings = read_records(out / "corpus.jsonl", Ruling)
    assert {r.file for r in rulings} >= {TMX, "external_entity.xlf"}
    assert not [f for f in findings if f.code in ("PARSE004", "PARSE007")]


# --- the inline-code check -----------------------------------------------------------------


def pair(source: str, target: str) -> AlignedPair:
    def unit(ident: str, text: str, lang: str) -> Ruling:
        return Ruling(ident, "f.xlf", 1, "xliff", None, None, None, lang, lang, [], None, None,
                      text, doc=f"f.xlf#{lang}", kind="unit")  # fmt: skip

    row = Alignment("f.xlf#1/source", "f.xlf#1", "es", 0.99, "given", 0.9, "f.xlf")
    return AlignedPair(unit("f.xlf#1/source", source, "en"), unit("f.xlf#1", target, "es"), row)


def check(source: str, target: str) -> list:
    return list(inline_code_changed(pair(source, target), None))


def test_inline_codes_missing_extra_and_order():
    [missing] = check("Put a <g1>time counter</g1> on it<x2/>.", "Pon un <g1>contador</g1>.")
    assert missing.evidence["missing"] == ["<x2/>"] and missing.severity is None
    assert missing.marks[0].side == "source"
    [extra] = check("Pay %s.", "Paga %s y %d.")
    assert extra.evidence["extra"] == ["%d"]
    [moved] = check("<g1>red</g1> <g2>card</g2>", "<g2>carta</g2> <g1>roja</g1>")
    assert moved.severity == "info"
    [broken] = check("<g1>red</g1> card", "</g1>carta<g1> roja")
    assert broken.severity == "error" and "nest" in broken.message
    [swapped] = check("%s deals %d damage.", "%d daño inflige %s.")
    assert swapped.severity == "error"
    assert check("%1$s deals %2$d damage.", "%2$d daño inflige %1$s.") == []
    assert check("{card_name} deals 2 damage.", "{card_name} inflige 2 daño.") == []
    assert check("Pay {X}.", "Paga.") == []  # a symbol: PH001's
    assert [p.token for p in placeholders("50 % of %(count)d and 100%")] == ["%(count)d"]


def test_catalogue_rows():
    assert CATALOGUE["PH004"].category == "placeholder"
    assert CATALOGUE["PARSE011"].category == CATALOGUE["PARSE012"].category == "parse"


# --- the writer without the pipeline -------------------------------------------------------


def test_tokens_become_xliff_elements_and_broken_pairs_isolated_codes():
    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    ns = "urn:oasis:names:tc:xliff:document:1.2"
    root = etree.fromstring(
        f'<xliff xmlns="{ns}" version="1.2"><file original="f" source-language="en" '
        'datatype="plaintext"><body><trans-unit id="1"><source/><target/></trans-unit></body>'
        "</file></xliff>"
    )
    source, target = root.iter(f"{{{ns}}}source"), root.iter(f"{{{ns}}}target")
    _fill(next(source), "Put <g1>a <mrk2>time</mrk2> counter</g1><x3/> <sc4/>x<ec4/>.")
    _fill(next(target), "Pon </g1>un<g1> contador\x00<it5/>")
    assert schema.validate(root.getroottree()), schema.error_log
    text = etree.tostring(root, encoding="unicode")
    assert '<g id="1">a <mrk mtype="protected" mid="2">time</mrk> counter</g><x id="3"/>' in text
    assert '<bx id="4"/>x<ex id="4"/>' in text
    assert 'Pon <ex id="1"/>un<bx id="1"/> contador\ufffd<x id="5"/>' in text


def test_the_schema_rejects_what_xliff_1_2_forbids():
    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    ns = "urn:oasis:names:tc:xliff:document:1.2"
    bad = etree.fromstring(
        f'<xliff xmlns="{ns}" version="1.2"><file original="f" source-language="en" '
        'datatype="plaintext"><body><trans-unit id="1"><source>a</source>'
        '<target state="broken">b</target></trans-unit></body></file></xliff>'
    )
    assert not schema.validate(bad.getroottree())


# --- the whole pipeline --------------------------------------------------------------------


@pytest.fixture(scope="module")
def cat_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("cat-run")
    inputs = copy_inputs(tmp, *EXPORTS)
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in inputs.iterdir()}
    out = tmp / "out"
    result = CliRunner().invoke(main, ["run", str(inputs), "--out", str(out)])
    assert result.exit_code == 1, result.output
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in inputs.iterdir()}
    assert after == digests  # the CAT files are never modified
    return out


@pytest.mark.model
def test_given_pairs_are_kept_and_scored(cat_run: Path):
    rows = read_records(cat_run / "alignment.jsonl", Alignment)
    by_target = {r.target_id: r for r in rows if r.target_id}
    given = by_target[f"{TRADOS}#a0b1c2d3-0001::1"]
    assert given.source_id == f"{TRADOS}#a0b1c2d3-0001::1/source"
    assert (given.method, given.group) == ("given", TRADOS)
    assert given.similarity > 0.5 and given.score > 0.5
    assert by_target[f"{TRADOS}#a0b1c2d3-0004::5"].method == "untranslated"
    missing = {r.source_id for r in rows if r.method == "no-translation"}
    assert missing == {
        f"{TRADOS}#a0b1c2d3-0006::7/source",
        f"{MEMOQ}#u4::s5/source",
        f"{TMX}#3/source",
        f"{PO}#Hypergenesis|2021-06-18|4/source",
    }
    assert all(r.similarity is not None for r in rows if r.method == "given")


@pytest.mark.model
def test_findings_on_cat_units(cat_run: Path):
    findings = read_records(cat_run / "findings.jsonl", Finding)
    found = {(f.code, f.ruling_id) for f in findings}
    assert ("PH004", f"{TRADOS}#a0b1c2d3-0003::4") in found  # <x/> dropped
    assert ("PH004", f"{MEMOQ}#u2::s3") in found  # <ph/> added
    assert ("PH004", f"{TMX}#suspend-2/es-ES") in found  # <bpt/><ept/> added
    assert ("PH004", f"{PO}#Hypergenesis|ui|3[1]") in found  # %(card)s lost
    assert ("UNTR001", f"{TRADOS}#a0b1c2d3-0004::5") in found
    assert ("TERM001", f"{TRADOS}#a0b1c2d3-0005::6") in found
    assert ("TERM001", f"{MEMOQ}#u3::s4") in found
    assert ("MISS001", f"{TMX}#3/source") in found


@pytest.mark.model
def test_findings_xlf_holds_every_finding_on_its_unit(cat_run: Path):
    path = cat_run / "findings.xlf"
    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    assert schema.validate(etree.parse(str(path))), schema.error_log
    store = tt_xliff.xlifffile.parsestring(path.read_bytes())
    assert len(store.units) == 23
    ns = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
    document = etree.parse(str(path))
    notes: dict[tuple[str, str], list[str]] = {}
    for unit in document.xpath("//x:trans-unit", namespaces=ns):
        original = unit.getparent().getparent().get("original")
        notes.setdefault((original.partition("#")[0], unit.get("id")), []).extend(
            unit.xpath("x:note/text()", namespaces=ns)
        )
    findings = read_records(cat_run / "findings.jsonl", Finding)
    rulings = {r.id: r for r in read_records(cat_run / "corpus.jsonl", Ruling)}
    for finding in findings:
        ruling = rulings[finding.ruling_id]
        unit = ruling.id[len(ruling.file) + 1 :].replace("/source", "")
        unit = unit.rsplit("/", 1)[0] if ruling.file == TMX else unit
        expected = f"{finding.code} {finding.severity}: {finding.message}"
        assert any(note.startswith(expected) for note in notes[(ruling.file, unit)]), unit
    state = document.xpath(
        "//x:file[@original=$f]//x:trans-unit[@id='a0b1c2d3-0003::4']/x:target/@state",
        namespaces=ns,
        f=TRADOS,
    )
    assert state == ["needs-review-translation"]
    assert len(document.xpath("//x:file", namespaces=ns)) == 5  # TMX: one per language
    note = document.xpath("//x:trans-unit[@id='a0b1c2d3-0003::4']/x:note", namespaces=ns)[0]
    assert note.get("from") == "rulings" and note.get("priority") == "1"


@pytest.mark.model
def test_findings_xlf_is_the_same_bytes_from_the_same_tables(cat_run: Path, tmp_path: Path):
    for name in ("corpus.jsonl", "alignment.jsonl", "findings.jsonl"):
        shutil.copyfile(cat_run / name, tmp_path / name)
    result = CliRunner().invoke(main, ["report", "--out", str(tmp_path), "--format", "xliff"])
    assert result.exit_code == 1, result.output
    assert (tmp_path / "findings.xlf").read_bytes() == (cat_run / "findings.xlf").read_bytes()


@pytest.mark.model
def test_findings_xlf_for_plain_documents(seed_run: Path):
    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    assert schema.validate(etree.parse(str(seed_run / "findings.xlf"))), schema.error_log
    store = tt_xliff.xlifffile.parsestring((seed_run / "findings.xlf").read_bytes())
    text = "\n".join(unit.getnotes() for unit in store.units)
    findings = read_records(seed_run / "findings.jsonl", Finding)
    on_units = [f for f in findings if f.ruling_id and f.code != "MISS001"]
    assert all(f"{f.code} {f.severity}: {f.message}" in text for f in on_units)


# --- the same pairs as plain files and as XLIFF --------------------------------------------

PAIRS = [
    (
        "2021-06-18",
        "Cards exiled with suspend are exiled face up.",
        "Las cartas exiliadas con suspender están exiliadas boca arriba.",
    ),
    (
        "2021-06-18",
        "If the card has {X} in its mana cost, you must choose 0 as the value of X when casting "
        "it without paying its mana cost.",
        "Si la carta tiene en su coste de maná, debes elegir 0 como valor de X al lanzarla sin "
        "pagar su coste de maná.",
    ),
    (
        "2021-06-18",
        "When the last time counter is removed, the second triggered ability of suspend (the "
        "one that lets you cast the card) triggers.",
        "Cuando se remueve el último contador de tiempo, se activa la segunda habilidad "
        "activada de suspender (la que te permite lanzar la carta).",
    ),
    (
        "2021-06-18",
        "If you exile it with suspend, it’s exiled with three time counters on it.",
        "Si la exilias con suspender, se exilia con cuatro contadores de tiempo sobre ella.",
    ),
    (
        "2021-06-18",
        "Exiling a card with suspend isn’t casting that card. This action doesn’t use the "
        "stack and can’t be responded to.",
        "Exiliar una carta con suspender no es lanzar esa carta. Esta acción no usa la pila y…",
    ),
    (
        "2021-06-18",
        "If the spell requires any targets, those targets are chosen when the spell is finally "
        "cast, not when it’s exiled.",
        "If the spell requires any targets, those targets are chosen when the spell is finally "
        "cast, not when it’s exiled.",
    ),
    (
        "2021-06-18",
        "The mana value of a spell cast without paying its mana cost is determined by its mana "
        "cost, even though that cost wasn’t paid.",
        "",
    ),
]


def plain_files(folder: Path) -> None:
    english = ["Hypergenesis", ""] + [f"{d} {en}" for d, en, _ in PAIRS]
    spanish = ["Hipergénesis", ""] + [f"{d} {es}" for d, _, es in PAIRS if es]
    (folder / "hypergenesis.en.txt").write_text("\n\n".join(english) + "\n", encoding="utf-8")
    (folder / "hypergenesis.es.txt").write_text("\n\n".join(spanish) + "\n", encoding="utf-8")


def xliff_file(folder: Path) -> None:
    units = []
    for number, (date, en, es) in enumerate(PAIRS, 1):
        target = f"<target>{es}</target>" if es else ""
        units.append(
            f'<trans-unit id="{number}"><source>{en}</source>{target}'
            f"<note>Hypergenesis {date}</note></trans-unit>"
        )
    (folder / "hypergenesis.xlf").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<xliff version="1.2" xmlns="urn:oasis:names:'
        'tc:xliff:document:1.2">\n<file original="Hypergenesis.docx" source-language="en-US" '
        'target-language="es-ES" datatype="plaintext"><body>\n'
        + "\n".join(units)
        + "\n</body></file></xliff>\n",
        encoding="utf-8",
    )


def findings_by_text(out: Path) -> set[tuple[str, str, str, str]]:
    """(code, category, severity, the unit's text) of every finding on a unit."""
    rulings = {r.id: r for r in read_records(out / "corpus.jsonl", Ruling)}
    found = set()
    for f in read_records(out / "findings.jsonl", Finding):
        if f.ruling_id:
            found.add((f.code, f.category, f.severity, rulings[f.ruling_id].text))
    return found


@pytest.mark.model
def test_xliff_gives_the_same_findings_as_the_same_pairs_in_plain_files(tmp_path: Path):
    runs = {}
    for name, make in (("plain", plain_files), ("xliff", xliff_file)):
        inputs = tmp_path / name
        inputs.mkdir()
        make(inputs)
        out = tmp_path / f"{name}-out"
        result = CliRunner().invoke(main, ["run", str(inputs), "--out", str(out)])
        assert result.exit_code == 1, result.output
        runs[name] = findings_by_text(out)
        methods = [json.loads(line)["method"] for line in (out / "alignment.jsonl").open()]
        assert methods.count("no-translation") == 1 and methods.count("untranslated") == 1
    assert runs["xliff"] == runs["plain"]
    assert {code for code, *_ in runs["plain"]} >= {
        "PH001", "TERM001", "NUM001", "TRUNC001", "UNTR001", "MISS001"
    }  # fmt: skip


@pytest.mark.model
def test_a_swapped_pair_scores_low(tmp_path: Path):
    xliff_file(tmp_path)
    text = (tmp_path / "hypergenesis.xlf").read_text(encoding="utf-8")
    first, third = PAIRS[0][2], PAIRS[2][2]
    swapped = text.replace(first, "\x00").replace(third, first).replace("\x00", third)
    (tmp_path / "hypergenesis.xlf").write_text(swapped, encoding="utf-8")
    out, source = tmp_path / "out", tmp_path / "hypergenesis.xlf"
    result = CliRunner().invoke(main, ["run", str(source), "--out", str(out)])
    assert result.exit_code == 1, result.output
    rows = {r.target_id: r for r in read_records(out / "alignment.jsonl", Alignment)}
    assert rows["hypergenesis.xlf#1"].score < 0.5 and rows["hypergenesis.xlf#3"].score < 0.5
    assert rows["hypergenesis.xlf#4"].score > 0.9
