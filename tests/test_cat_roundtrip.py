"""The bilingual inputs come back annotated (findings-xliff/), and nothing else changes.

The fixtures under fixtures/cat/roundtrip are hand-written in the shape of real exports, each
with planted translation errors in real Magic rules and rulings text: Trados (SDLXLIFF,
segmented in ``<seg-source>``, groups, ``sdl:`` extensions), memoQ (``mq:`` attributes,
context groups, ``<alt-trans>``, ``xml:space``, ``<bpt>``/``<ept>``), Phrase (XLIFF 1.2 with
``m:`` attributes, CDATA, ``<bx/>``/``<ex/>``, ``<ph>``; and XLIFF 2.0 with ``<pc>``,
``<originalData>``, groups, two files, reviewed and final segments, ids like
``cr-664::s1``), Crowdin (an internal DTD entity, character references, a header note),
OmegaT (two ``<file>``s, groups, ``<alt-trans>``, a comment), XLIFF 2.1 with ITS markup of
its own, a Crowdin PO and an Okapi TMX.

For each: the annotated copy minus the tool's additions is the input (canonical XML, C14N;
PO byte for byte); translate-toolkit and lxml read it; every finding of the run is on its
unit with its ITS type, severity and comment; and the copy validates against the official
OASIS schemas wherever the input does.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES
from lxml import etree
from translate.storage import factory, po, tmx, xliff, xliff2

from pipelines.cli import main
from pipelines.model import Finding, Ruling
from pipelines.report.splice import Edits, Text, run_text, scan_xml
from pipelines.report.writers.annotated import ITS_SEVERITY, summary
from pipelines.report.writers.xliff import note_text
from pipelines.tables import read_records

ROUNDTRIP = FIXTURES / "cat" / "roundtrip"
ITS = "http://www.w3.org/2005/11/its"
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
X1 = "urn:oasis:names:tc:xliff:document:1.2"
X2 = "urn:oasis:names:tc:xliff:document:2.0"
XLIFF_1 = [
    "trados_suspend.sdlxliff",
    "memoq_suspend.mqxliff",
    "phrase_rulings.xlf",
    "crowdin_rules.xliff",
    "omegat_rulings.xlf",
]
XLIFF_2 = ["phrase_cr.xlf", "xliff21_its_suspend.xlf"]
XML_FILES = [*XLIFF_1, *XLIFF_2, "okapi_suspend.tmx"]
PO_FILE = "crowdin_suspend.es.po"
ALL = [*XML_FILES, PO_FILE]
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
pytestmark = pytest.mark.model


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


@pytest.fixture(scope="module")
def roundtrip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run over every fixture: ``tmp/in`` the inputs, ``tmp/out`` the outputs."""
    tmp = tmp_path_factory.mktemp("roundtrip")
    shutil.copytree(ROUNDTRIP, tmp / "in")
    before = digests(tmp / "in")
    result = CliRunner().invoke(main, ["run", str(tmp / "in"), "--out", str(tmp / "out")])
    assert result.exit_code == 1, result.output
    assert digests(tmp / "in") == before  # the inputs are never touched
    return tmp


def findings_of(run: Path, name: str) -> list[tuple[Finding, Ruling | None]]:
    rulings = {r.id: r for r in read_records(run / "out" / "corpus.jsonl", Ruling)}
    found = []
    for finding in read_records(run / "out" / "findings.jsonl", Finding):
        ruling = rulings.get(finding.ruling_id or "")
        if (ruling.file if ruling else finding.file) == name:
            found.append((finding, ruling))
    return found


def annotated(run: Path, name: str) -> Path:
    return run / "out" / "findings-xliff" / name


# --- what the tool adds, removed again ------------------------------------------------------


def strip(tree: etree._ElementTree) -> etree._ElementTree:
    """The document without what rulings marks as its own: notes from="rulings" (1.2),
    category="rulings" (2.x) and the ``<notes>`` they alone fill, TMX properties of type
    x-rulings-finding, the ``<mrk>``s mtype="x-its" (1.2) or id="rulings-N" (2.x) (their
    content kept), the standoff ``<its:locQualityIssues xml:id="rulings-lqi-N">`` and the
    references to them; then the root's ``its:version`` and the ITS namespace declaration
    when no other ITS markup is left. Whitespace the tool put before an element goes with it."""
    root = tree.getroot()
    doomed = root.xpath(
        "//*[local-name()='note'][@from='rulings' or @category='rulings']"
        " | //*[local-name()='prop'][@type='x-rulings-finding']"
        " | //its:locQualityIssues[starts-with(@xml:id, 'rulings-lqi-')]",
        namespaces={"its": ITS},
    )
    for element in doomed:
        parent = element.getparent()
        remove(element)
        if etree.QName(parent).localname == "notes" and not len(parent):
            remove(parent)
    for marker in root.xpath(
        "//*[local-name()='mrk'][@mtype='x-its' or starts-with(@id, 'rulings-')]"
    ):
        unwrap(marker)
    for element in root.iter():
        reference = element.get(f"{{{ITS}}}locQualityIssuesRef") or ""
        if re.match(r"#(its=)?rulings-lqi-", reference):
            del element.attrib[f"{{{ITS}}}locQualityIssuesRef"]
    others = [
        e
        for e in root.iter()
        if isinstance(e.tag, str)
        and (etree.QName(e).namespace == ITS or any(a.startswith(f"{{{ITS}}}") for a in e.attrib))
        and e is not root
    ]
    if not others and not [
        a for a in root.attrib if a.startswith(f"{{{ITS}}}") and "version" not in a
    ]:
        root.attrib.pop(f"{{{ITS}}}version", None)
        keep = [p for p, uri in root.nsmap.items() if p and uri != ITS]
        etree.cleanup_namespaces(tree, keep_ns_prefixes=keep)
    return tree


def remove(element: etree._Element) -> None:
    """Remove an element, and the whitespace-only text just before it."""
    parent, previous, tail = element.getparent(), element.getprevious(), element.tail or ""
    if previous is not None:
        before = previous.tail or ""
        previous.tail = tail if not before.strip() else before + tail
    else:
        before = parent.text or ""
        parent.text = tail if not before.strip() else before + tail
    parent.remove(element)


def unwrap(element: etree._Element) -> None:
    """Replace an element by its content."""
    parent = element.getparent()
    index = parent.index(element)
    previous = element.getprevious()
    text, tail = element.text or "", element.tail or ""
    if previous is None:
        parent.text = (parent.text or "") + text
    else:
        previous.tail = (previous.tail or "") + text
    children = list(element)
    element.tail = None
    parent.remove(element)
    for offset, child in enumerate(children):
        parent.insert(index + offset, child)
    last = children[-1] if children else parent[index - 1] if index > 0 else None
    if last is None:
        parent.text = (parent.text or "") + tail
    else:
        last.tail = (last.tail or "") + tail


def c14n(tree: etree._ElementTree) -> bytes:
    return etree.tostring(tree, method="c14n2")


EXPANDING = etree.XMLParser(resolve_entities=True, no_network=True, load_dtd=False)


def parsed(path: Path, expanded: bool = False) -> etree._ElementTree:
    """A file's tree; ``expanded``: its internal entities expanded (C14N has no entity
    references: the other tests see that the copy keeps them as written)."""
    return etree.parse(str(path), EXPANDING if expanded else PARSER)


@pytest.mark.parametrize("name", XML_FILES)
def test_without_the_tools_additions_the_annotated_file_is_the_input(roundtrip: Path, name: str):
    copy = annotated(roundtrip, name)
    assert copy.read_bytes() != (roundtrip / "in" / name).read_bytes()  # it has findings
    assert c14n(strip(parsed(copy, expanded=True))) == c14n(
        parsed(roundtrip / "in" / name, expanded=True)
    )


@pytest.mark.parametrize("name", XML_FILES)
def test_the_annotated_file_keeps_the_inputs_bytes_outside_the_additions(
    roundtrip: Path, name: str
):
    """Stronger than C14N: every byte of the input is in the copy, in order (the copy only
    inserts, with no --xliff-state)."""
    original = (roundtrip / "in" / name).read_bytes()
    copy = annotated(roundtrip, name).read_bytes()
    position = 0
    for byte in original:
        position = copy.index(byte, position) + 1
    declaration = original.split(b"?>", 1)[0]
    assert copy.startswith(declaration)  # the same XML declaration, quotes and encoding


def test_without_the_comments_the_annotated_po_is_the_input_byte_for_byte(roundtrip: Path):
    copy = annotated(roundtrip, PO_FILE).read_bytes()
    kept = b"".join(
        line for line in copy.splitlines(keepends=True) if not line.startswith(b"# rulings: ")
    )
    assert kept == (roundtrip / "in" / PO_FILE).read_bytes()
    assert copy.count(b"# rulings: ") == len(findings_of(roundtrip, PO_FILE))


@pytest.mark.parametrize("name", ALL)
def test_translate_toolkit_reads_the_annotated_file(roundtrip: Path, name: str):
    copy, original = annotated(roundtrip, name), roundtrip / "in" / name
    kind = (
        xliff2.Xliff2File
        if name in XLIFF_2
        else xliff.xlifffile
        if name in XLIFF_1
        else tmx.tmxfile
        if name.endswith(".tmx")
        else po.pofile
    )
    store, before = kind.parsestring(copy.read_bytes()), kind.parsestring(original.read_bytes())
    assert [u.getid() for u in store.units] == [u.getid() for u in before.units]
    assert [str(u.source) for u in store.units] == [str(u.source) for u in before.units]
    if name.endswith(".po"):
        assert factory.getobject(str(copy)).units


# --- each finding on its unit ----------------------------------------------------------------


def unit_key(finding: Finding, ruling: Ruling) -> str:
    """The unit's id in the file: the row id without file, part, segment, language, form."""
    key = ruling.id[len(ruling.file) + 1 :].removesuffix("/source")
    key = re.sub(r"/source\[\d+\]$|\[\d+\]$", "", key)
    return key


def its_issues(unit: etree._Element) -> list[dict[str, str]]:
    """Every ITS quality issue on a unit (1.2 ``<trans-unit>``, 2.x ``<unit>``): inline on a
    marker, or standoff (referenced, or in the unit)."""
    found = []
    for element in unit.iter():
        if not isinstance(element.tag, str):
            continue
        if element.get(f"{{{ITS}}}locQualityIssueType"):
            found.append({k.split("}")[1]: v for k, v in element.attrib.items() if ITS in k})
    for standoff in unit.iter(f"{{{ITS}}}locQualityIssues"):
        found += [dict(issue.attrib) for issue in standoff]
    return found


def check_issue(issues: list[dict], finding: Finding) -> None:
    comment = " ".join(note_text(finding).split())
    assert {
        "locQualityIssueType": finding.its_type,
        "locQualityIssueComment": comment,
        "locQualityIssueSeverity": str(ITS_SEVERITY[finding.severity]),
    } in [{k: v for k, v in i.items() if k != "version"} for i in issues], comment


@pytest.mark.parametrize("name", XLIFF_1)
def test_every_finding_is_on_its_xliff_1_2_unit(roundtrip: Path, name: str):
    root = parsed(annotated(roundtrip, name)).getroot()
    ns = {"x": X1}
    findings = findings_of(roundtrip, name)
    assert findings
    for finding, ruling in findings:
        if ruling is None:  # about the file: a note in the first file's header
            notes = root.xpath("x:file[1]/x:header/x:note[@from='rulings']/text()", namespaces=ns)
            assert note_text(finding) in notes
            continue
        part, _, key = unit_key(finding, ruling).rpartition("/")
        key = key.split("::")[0]
        [unit] = root.xpath(
            f"x:file[{int(part or 1)}]//x:trans-unit[@id=$key]", namespaces=ns, key=key
        )
        notes = unit.xpath("x:note[@from='rulings']", namespaces=ns)
        assert note_text(finding) in [n.text for n in notes]
        note = next(n for n in notes if n.text == note_text(finding))
        assert note.get("priority") == {"error": "1", "warning": "5", "info": "9"}[finding.severity]
        check_issue(its_issues(unit), finding)
        reference = unit.get(f"{{{ITS}}}locQualityIssuesRef")
        if reference:
            assert root.xpath("//*[@xml:id=$id]", id=reference[1:])


@pytest.mark.parametrize("name", XLIFF_2)
def test_every_finding_is_on_its_xliff_2_unit(roundtrip: Path, name: str):
    root = parsed(annotated(roundtrip, name)).getroot()
    ns = {"x": X2}
    findings = findings_of(roundtrip, name)
    assert findings
    for finding, ruling in findings:
        assert ruling is not None
        key = unit_key(finding, ruling).split("/")[-1]
        unit_id, _, segment_id = key.partition("::")
        [unit] = root.xpath("//x:unit[@id=$id]", namespaces=ns, id=unit_id)
        notes = unit.xpath("x:notes/x:note[@category='rulings']/text()", namespaces=ns)
        assert note_text(finding) in notes
        check_issue(its_issues(unit), finding)
        for marker in unit.xpath(".//x:mrk[starts-with(@id, 'rulings-')]", namespaces=ns):
            assert marker.get("type") == "its:generic"
            assert etree.QName(marker.getparent()).localname in ("target", "pc", "mrk")
            reference = marker.get(f"{{{ITS}}}locQualityIssuesRef")
            if reference:
                assert unit.xpath(
                    "its:locQualityIssues[@xml:id=$id]", namespaces={"its": ITS}, id=reference[5:]
                )
        assert segment_id and unit.xpath("x:segment[@id=$s]", namespaces=ns, s=segment_id)
        children = [etree.QName(c).localname for c in unit]
        assert children.index("notes") < children.index("segment")


def test_every_finding_is_on_its_po_entry(roundtrip: Path):
    store = po.pofile.parsestring(annotated(roundtrip, PO_FILE).read_bytes())
    by_context = {u.getcontext(): u for u in store.units if not u.isheader()}
    for finding, ruling in findings_of(roundtrip, PO_FILE):
        entry = by_context[unit_key(finding, ruling)]
        comments = entry.getnotes("translator").splitlines()
        assert f"rulings: {summary(finding)}" in comments
        assert f"its:{finding.its_type} severity:{ITS_SEVERITY[finding.severity]}" in summary(
            finding
        )


def test_every_finding_is_on_its_tmx_unit(roundtrip: Path):
    root = parsed(annotated(roundtrip, "okapi_suspend.tmx")).getroot()
    for finding, ruling in findings_of(roundtrip, "okapi_suspend.tmx"):
        tuid = unit_key(finding, ruling).split("/")[0]
        [unit] = root.xpath("//tu[@tuid=$id]", id=tuid)
        props = unit.xpath("prop[@type='x-rulings-finding']/text()")
        assert summary(finding) in props
        children = [c.tag for c in unit]
        assert max(i for i, t in enumerate(children) if t == "prop") < children.index("tuv")


def test_the_planted_errors_are_found(roundtrip: Path):
    found = {(f.code, r.id if r else None) for name in ALL for f, r in findings_of(roundtrip, name)}
    for code, ruling_id in [
        ("PH001", "trados_suspend.sdlxliff#5f0e8a1c-0001::2"),  # {X} dropped
        ("TERM001", "trados_suspend.sdlxliff#5f0e8a1c-0002::3"),  # habilidad activada
        ("UNTR001", "trados_suspend.sdlxliff#5f0e8a1c-0003::4"),  # English left
        ("NUM001", "memoq_suspend.mqxliff#2"),
        ("TERM001", "memoq_suspend.mqxliff#3"),
        ("UNTR001", "phrase_rulings.xlf#Kd91xQpLr2mT0vB8_dc1:1"),  # in CDATA
        ("TRUNC001", "phrase_rulings.xlf#Kd91xQpLr2mT0vB8_dc1:2"),
        ("TERM001", "crowdin_rules.xliff#1870524"),
        ("PH001", "crowdin_rules.xliff#1870526"),
        ("UNTR001", "omegat_rulings.xlf#1/tu2"),
        ("NUM001", "omegat_rulings.xlf#2/tu1"),
        ("TERM001", "phrase_cr.xlf#f1/cr-664::s1"),
        ("UNTR001", "phrase_cr.xlf#f1/cr-664::s2"),
        ("NUM001", "xliff21_its_suspend.xlf#u1::s1"),
        ("TERM001", "crowdin_suspend.es.po#Rift Bolt|2021-06-18|2"),
        ("PH001", "crowdin_suspend.es.po#Rift Bolt|2021-06-18|3"),
        ("PH004", "okapi_suspend.tmx#epochrasite-2/es-ES"),
        ("TERM001", "okapi_suspend.tmx#epochrasite-3/es-ES"),
    ]:
        assert (code, ruling_id) in found


def test_a_span_is_marked_where_the_finding_points(roundtrip: Path):
    """A term in plain target text gets an inline marker around it; one in CDATA or across
    another marker cannot, and is standoff."""
    trados = annotated(roundtrip, "trados_suspend.sdlxliff").read_text(encoding="utf-8")
    assert re.search(r'<mrk mtype="x-its" its:locQualityIssueType="terminology"[^>]*>habilidad '
                     r"activada</mrk>", trados)  # fmt: skip
    phrase = annotated(roundtrip, "phrase_rulings.xlf").read_text(encoding="utf-8")
    assert "<target><![CDATA[Anything that triggers" in phrase  # CDATA kept, not wrapped
    assert 'its:locQualityIssuesRef="#rulings-lqi-' in phrase
    cr = annotated(roundtrip, "phrase_cr.xlf").read_text(encoding="utf-8")
    marked = r'<mrk id="rulings-1" type="its:generic"[^>]*>habilidad activada</mrk> retrasada</pc>'
    assert re.search(r'<pc id="1" dataRefStart="d1" dataRefEnd="d2">' + marked, cr)


def test_the_its_namespace_is_declared_once(roundtrip: Path):
    for name in [*XLIFF_1, *XLIFF_2]:
        text = annotated(roundtrip, name).read_text(encoding="utf-8")
        assert text.count(f'xmlns:its="{ITS}"') == 1, name
        assert text.count('its:version="2.0"') == 1, name


# --- states, determinism, a changed input --------------------------------------------------


def report(run: Path, tmp_path: Path, *options: str) -> Path:
    """``rulings report`` on a copy of the run's tables."""
    out = tmp_path / "again"
    shutil.copytree(run / "out", out)
    shutil.rmtree(out / "findings-xliff")
    result = CliRunner().invoke(main, ["report", "--out", str(out), *options])
    assert result.exit_code == 1, result.output
    return out


def test_the_same_tables_give_the_same_bytes(roundtrip: Path, tmp_path: Path):
    out = report(roundtrip, tmp_path, "--format", "annotated")
    for name in ALL:
        assert (out / "findings-xliff" / name).read_bytes() == annotated(
            roundtrip, name
        ).read_bytes()


def test_states_change_only_on_request(roundtrip: Path, tmp_path: Path):
    for name in XLIFF_1 + XLIFF_2:
        original = parsed(roundtrip / "in" / name).getroot()
        copy = parsed(annotated(roundtrip, name)).getroot()
        states = "//@state | //@subState"
        assert copy.xpath(states) == original.xpath(states)
    out = report(
        roundtrip, tmp_path, "--format", "annotated", "--xliff-state", "needs-review-translation"
    )
    memoq = parsed(out / "findings-xliff" / "memoq_suspend.mqxliff").getroot()
    ns = {"x": X1}
    assert memoq.xpath("//x:trans-unit[@id='2']/x:target/@state", namespaces=ns) == [
        "needs-review-translation"
    ]
    assert memoq.xpath("//x:trans-unit[@id='1']/x:target/@state", namespaces=ns) == ["translated"]
    cr = parsed(out / "findings-xliff" / "phrase_cr.xlf").getroot()
    [segment] = cr.xpath("//x:unit[@id='cr-664']/x:segment[@id='s1']", namespaces={"x": X2})
    assert (segment.get("state"), segment.get("subState")) == (
        "translated",
        "rulings:needs-review-translation",
    )
    [untouched] = cr.xpath("//x:unit[@id='cr-603.2']/x:segment", namespaces={"x": X2})
    assert (untouched.get("state"), untouched.get("subState")) == ("reviewed", None)
    entries = po.pofile.parsestring((out / "findings-xliff" / PO_FILE).read_bytes()).units
    fuzzy = {u.getcontext() for u in entries if u.isfuzzy()}
    assert fuzzy == {"Rift Bolt|2021-06-18|2", "Rift Bolt|2021-06-18|3", "Rift Bolt|ui|4"}


def test_an_input_changed_since_the_run_is_not_annotated(roundtrip: Path, tmp_path: Path):
    inputs = json.loads((roundtrip / "out" / "inputs.jsonl").read_text().splitlines()[0])
    changed = tmp_path / "changed"
    shutil.copytree(roundtrip / "in", changed)
    out = tmp_path / "again"
    shutil.copytree(roundtrip / "out", out)
    rows = [json.loads(line) for line in (out / "inputs.jsonl").read_text().splitlines()]
    for row in rows:
        row["path"] = str(changed / Path(row["path"]).name)
    (out / "inputs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (changed / inputs["file"]).write_bytes(b"<xliff/>\n")
    result = CliRunner().invoke(main, ["report", "--out", str(out), "--format", "annotated"])
    assert result.exit_code == 1, result.output
    written = sorted(p.name for p in (out / "findings-xliff").iterdir())
    assert inputs["file"] not in written and len(written) == len(ALL) - 1


def test_nested_input_folders_are_kept(tmp_path: Path):
    (tmp_path / "in" / "es" / "rulings").mkdir(parents=True)
    shutil.copyfile(ROUNDTRIP / PO_FILE, tmp_path / "in" / "es" / "rulings" / PO_FILE)
    result = CliRunner().invoke(main, ["run", str(tmp_path / "in"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output
    assert (tmp_path / "out" / "findings-xliff" / "es" / "rulings" / PO_FILE).is_file()


# --- the official schemas --------------------------------------------------------------------

SCHEMA_HOME = os.environ.get("RULINGS_XLIFF_SCHEMAS", "")
"""A folder holding the OASIS schemas as Debian's php-symfony-translation ships them
(``xliff-core-1.2-strict.xsd``, ``xliff-core-2.0.xsd``, ``xml.xsd``): ``.ci/run`` puts them
there (``tools/xliff_schemas.sh``, which by default fills ``.cache/xliff-schemas``, also
looked at)."""
SYMFONY = Path("/usr/share/php/Symfony/Component/Translation/Resources/schemas")
ITS_LQI = FIXTURES / "cat" / "its20-lqi.xsd"


def schema_folder() -> Path | None:
    here = Path(__file__).resolve().parents[1] / ".cache" / "xliff-schemas"
    for folder in (Path(SCHEMA_HOME) if SCHEMA_HOME else None, here, SYMFONY):
        if folder and (folder / "xliff-core-1.2-strict.xsd").is_file():
            return folder
    return None


@pytest.fixture(scope="module")
def schemas(tmp_path_factory: pytest.TempPathFactory) -> dict[str, etree.XMLSchema]:
    """The OASIS XLIFF 1.2 strict and 2.0 core schemas, each with the ITS 2.0 Localization
    Quality Issue markup declared (``its20-lqi.xsd``, written after the ITS 2.0
    specification: no official ITS schema is to be had from a package registry)."""
    folder = schema_folder()
    if folder is None:
        if os.environ.get("RULINGS_REQUIRE_XLIFF_SCHEMAS"):
            pytest.fail("RULINGS_XLIFF_SCHEMAS holds no OASIS XLIFF schemas")
        pytest.skip("no OASIS XLIFF schemas here (run tools/xliff_schemas.sh)")
    work = tmp_path_factory.mktemp("schemas")
    xml_xsd = work / "informativeCopiesOf3rdPartySchemas" / "w3c" / "xml.xsd"
    xml_xsd.parent.mkdir(parents=True)
    shutil.copyfile(folder / "xml.xsd", xml_xsd)
    strict = (folder / "xliff-core-1.2-strict.xsd").read_text(encoding="utf-8")
    strict = strict.replace("http://www.w3.org/2001/xml.xsd", xml_xsd.as_uri())
    (work / "xliff-core-1.2-strict.xsd").write_text(strict, encoding="utf-8")
    shutil.copyfile(folder / "xliff-core-2.0.xsd", work / "xliff-core-2.0.xsd")
    its = ITS_LQI.read_text(encoding="utf-8").replace("XML_XSD", xml_xsd.as_uri())
    (work / "its20-lqi.xsd").write_text(its, encoding="utf-8")
    found = {}
    for version, core, namespace in (
        ("1.2", "xliff-core-1.2-strict.xsd", X1),
        ("2.0", "xliff-core-2.0.xsd", X2),
    ):
        wrapper = work / f"xliff-{version}-its.xsd"
        wrapper.write_text(
            '<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">'
            f'<xsd:import namespace="{namespace}" schemaLocation="{(work / core).as_uri()}"/>'
            f'<xsd:import namespace="{ITS}" schemaLocation="{(work / "its20-lqi.xsd").as_uri()}"/>'
            "</xsd:schema>",
            encoding="utf-8",
        )
        found[version] = etree.XMLSchema(etree.parse(str(wrapper)))
    return found


def valid(schema: etree.XMLSchema, path: Path) -> bool:
    document = etree.parse(str(path), etree.XMLParser(resolve_entities=True, no_network=True))
    return schema.validate(document)


VALIDATING = [
    ("1.2", "crowdin_rules.xliff"),
    ("1.2", "omegat_rulings.xlf"),
    ("2.0", "phrase_cr.xlf"),
    ("2.0", "xliff21_its_suspend.xlf"),
]
NOT_VALIDATING = [
    ("1.2", "trados_suspend.sdlxliff"),  # sdl: extensions the strict schema cannot check
    ("1.2", "memoq_suspend.mqxliff"),  # mq: extensions
    ("1.2", "phrase_rulings.xlf"),  # m: extensions
]


@pytest.mark.parametrize(("version", "name"), VALIDATING)
def test_the_annotated_file_validates_where_the_input_does(
    roundtrip: Path, schemas: dict, version: str, name: str
):
    schema = schemas[version]
    assert valid(schema, roundtrip / "in" / name), schema.error_log
    assert valid(schema, annotated(roundtrip, name)), schema.error_log


@pytest.mark.parametrize(("version", "name"), NOT_VALIDATING)
def test_inputs_with_extensions_the_schema_cannot_check(schemas: dict, version: str, name: str):
    assert not valid(schemas[version], ROUNDTRIP / name)


def test_the_schemas_reject_misplaced_additions(schemas: dict, tmp_path: Path):
    """A note after an extension element, or an ITS issue type ITS does not have, fails."""
    text = (ROUNDTRIP / "omegat_rulings.xlf").read_text(encoding="utf-8")
    wrong = text.replace("<note annotates", '<x:bad xmlns:x="urn:x"/><note annotates', 1)
    (tmp_path / "a.xlf").write_text(wrong, encoding="utf-8")
    assert not valid(schemas["1.2"], tmp_path / "a.xlf")
    bad_type = text.replace(
        '<target xml:lang="es" state="translated">Si lanzas',
        f'<target xml:lang="es" state="translated" xmlns:its="{ITS}" '
        'its:locQualityIssueType="nonsense">Si lanzas',
    )
    (tmp_path / "b.xlf").write_text(bad_type, encoding="utf-8")
    assert not valid(schemas["1.2"], tmp_path / "b.xlf")


# --- the splicing itself ----------------------------------------------------------------------


def test_the_scanner_sees_the_elements_lxml_sees():
    text = (
        "<?xml version='1.0'?>\n<!DOCTYPE a [<!ENTITY e \"<b>x</b>\"> <!-- ] > -->]>\n"
        "<a x='1>2' y=\"&quot;\"><!-- <c/> --><b><![CDATA[<d/>]]></b>&e;<?pi <e/>?>"
        "<f\n  g = 'h'/></a>"
    )
    scan = scan_xml(text)
    assert [e.name for e in scan.elements] == ["a", "b", "f"]
    parsed_tags = [e.tag for e in etree.fromstring(text.encode(), PARSER).iter()]
    assert [tag for tag in parsed_tags if isinstance(tag, str)] == ["a", "b", "f"]
    a, b, f = scan.elements
    assert (a.attribute("x").value, f.empty, f.attribute("g").value) == ("1>2", True, "h")
    assert text[b.start_end : b.end_start] == "<![CDATA[<d/>]]>"
    assert [text[r.start : r.end] for r in scan.runs] == ["&e;"]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "iso-8859-1"])
def test_insertions_keep_the_encoding_and_every_other_byte(encoding: str):
    declaration = f"<?xml version='1.0' encoding='{encoding}'?>\n"
    document = declaration + "<a>Señal &amp; “marca”</a>\n"
    data = document.encode(encoding, errors="xmlcharrefreplace")
    text = Text.of(data, encoding)
    scan = scan_xml(text.text)
    decoded, offsets = run_text(text, scan.runs[0])
    assert decoded == "Señal & “marca”"
    start = offsets[decoded.index("&")]
    edits = Edits(text)
    edits.insert(start, "<m>“€”</m>")
    result = text.to_bytes(edits.apply(text.text))
    assert etree.fromstring(result).xpath("string(m)") == "“€”"
    piece_encoding = "utf-16-le" if encoding == "utf-16" else encoding
    piece = "<m>“€”</m>".encode(piece_encoding, errors="xmlcharrefreplace")
    assert result.replace(piece, b"") == data


def test_hostile_finding_text_is_escaped(tmp_path: Path):
    """Corpus text is untrusted: whatever a finding says goes in as text."""
    from pipelines.report.writers.annotated import annotate

    hostile = 'x</note><evil a="1"/>]]>&amp; "\'\n\x00\x1f end'
    finding = Finding(
        "TERM001", "terminology", "error", "es", "f.xlf", 3, "f.xlf#1", None, None, None,
        hostile, {"expected": hostile}, its_type="terminology",
        mqm={"category": "Terminology", "severity": "major"},
    )  # fmt: skip
    data = (
        b'<?xml version="1.0"?>\n<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" '
        b'version="1.2">\n <file original="f" source-language="en" datatype="plaintext">\n'
        b'  <body>\n   <trans-unit id="1">\n    <source>a</source>\n    <target>b</target>\n'
        b"   </trans-unit>\n  </body>\n </file>\n</xliff>\n"
    )
    entry = {"variant": "xliff1", "anchors": {"f.xlf#1": [3, 5]}}
    out = annotate(entry, data, [finding], {})
    root = etree.fromstring(out)
    [note] = root.iter(f"{{{X1}}}note")
    assert note.text.startswith('TERM001 error: x</note><evil a="1"/>]]>&amp; "\'')
    assert not list(root.iter("evil"))
    issue = next(root.iter(f"{{{ITS}}}locQualityIssue"))
    assert "</note>" in issue.get("locQualityIssueComment")
