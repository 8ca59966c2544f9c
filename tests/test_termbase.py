"""The termbase: shipped data, the finder, TSV and TBX reading, errors, extension, round trip."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, examples, shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.resources import resource_path
from pipelines.termbase import (
    STATUSES,
    Termbase,
    TermbaseError,
    TermHit,
    read_terms,
)

TEAM_TSV = FIXTURES / "termbase" / "team.tsv"
TEAM_TBX = FIXTURES / "termbase" / "team.tbx"
HEADER = "concept\tlang\tterm\tstatus\tenforce\tnote\n"


@pytest.fixture(scope="module")
def curated() -> set[str]:
    return {term.concept for term in read_terms(resource_path("termbase.tsv"))}


def found(termbase: Termbase, text: str, lang: str) -> set[tuple[str, str, str]]:
    return {(hit.concept, hit.status, hit.form) for hit in termbase.find(text, lang)}


def write(tmp_path: Path, text: str, name: str = "extra.tsv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- shipped data ----------------------------------------------------------------------


def test_shipped_termbase_has_the_curated_and_the_glossary_concepts(termbase, curated):
    glossary = {term.concept for term in read_terms(resource_path("termbase_cr_glossary.tsv"))}
    assert 60 <= len(curated) <= 90
    assert len(glossary) > 550
    assert not curated & glossary
    assert len(termbase) == len(curated) + len(glossary)
    assert set(termbase.concepts) == curated | glossary


def test_every_curated_concept_has_approved_en_es_zh_terms(termbase, curated):
    for concept in curated:
        for lang in ("en", "es", "zh"):
            assert termbase.terms(concept, lang, "approved"), (concept, lang)


def test_curated_concepts_are_enforced_and_glossary_ones_are_reference_only(termbase, curated):
    reference_only = {c for c in curated if not termbase.is_enforced(c)}
    assert reference_only == {"cost"}
    assert not any(termbase.is_enforced(c) for c in set(termbase.concepts) - curated)


def test_shipped_concept_ids_are_kebab_case_and_languages_known(termbase):
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", c) for c in termbase.concepts)
    assert termbase.languages == ("en", "es", "zh")
    assert {term.status for term in termbase} == set(STATUSES)


def test_every_listed_form_is_found_as_itself(termbase):
    for term in termbase:
        for form in term.forms:
            hits = termbase.find(form, term.lang)
            assert any(
                (hit.concept, hit.status, hit.start, hit.end)
                == (term.concept, term.status, 0, len(form))
                for hit in hits
            ), (term.origin, form)


def test_confusables_point_at_the_concept_they_belong_to(termbase):
    assert termbase.terms("triggered-ability", "es", "forbidden")[0].forms[:2] == (
        "habilidad activada",
        "habilidades activadas",
    )
    assert "habilidad disparada" in termbase.terms("activated-ability", "es", "forbidden")[0].forms
    assert "se activa" in termbase.terms("trigger-verb", "es", "forbidden")[0].forms
    assert termbase.terms("spell", "zh", "forbidden")[0].forms == ("法术",)
    assert termbase.terms("player", "es", "forbidden")[0].forms == ("duelista", "duelistas")
    assert "poner en juego" in termbase.terms("battlefield", "es", "obsolete")[0].forms


def test_labels_and_lookups(termbase):
    assert termbase.concept_label("triggered-ability", "es") == "habilidad disparada"
    assert termbase.concept_label("triggered-ability", "zh") == "触发式异能"
    assert termbase.concept_label("retrace", "zh") == "追溯"
    assert termbase.concept_label("suspend", "en") == "suspend"
    assert termbase.concept_label("abandon", "es") is None
    assert termbase.terms("mana-value", "zh", "obsolete")[0].forms == ("总法术力费用",)
    assert "triggered-ability" in termbase
    with pytest.raises(KeyError, match="no-such-concept"):
        termbase.terms("no-such-concept")


# --- find() on real text -----------------------------------------------------------------


def test_find_english_ruling(termbase):
    text = (
        "If the first triggered ability of suspend (the one that removes time counters) is "
        "countered, no time counter is removed."
    )
    hits = found(termbase, text, "en")
    assert {
        ("triggered-ability", "approved", "triggered ability"),
        ("suspend", "approved", "suspend"),
        ("time-counter", "approved", "time counters"),
        ("time-counter", "approved", "time counter"),
        ("counter-verb", "approved", "countered"),
    } <= hits
    assert not {h for h in hits if h[0] == "counter-noun"}


def test_find_spanish_confusable_reports_both_concepts_on_one_span(termbase):
    text = "Si se contrarresta la primera habilidad activada de Suspender (la que elimina…"
    hits = termbase.find(text, "es")
    on_span = [hit for hit in hits if hit.form == "habilidad activada"]
    assert {(hit.concept, hit.status) for hit in on_span} == {
        ("activated-ability", "approved"),
        ("triggered-ability", "forbidden"),
    }
    assert len({(hit.start, hit.end) for hit in on_span}) == 1
    assert {("counter-verb", "approved", "contrarresta"), ("suspend", "approved", "Suspender")} <= (
        found(termbase, text, "es")
    )


def test_find_spanish_trigger_said_as_activate(termbase):
    text = "La habilidad se activará nuevamente al comienzo del próximo mantenimiento."
    hits = found(termbase, text, "es")
    assert ("trigger-verb", "forbidden", "se activará") in hits
    assert ("activate-verb", "approved", "se activará") in hits
    assert ("upkeep", "approved", "mantenimiento") in hits


def test_find_spanish_obsolete_wording(termbase):
    text = "Jugar un hechizo usando su habilidad de desandar; la criatura entra en juego."
    hits = found(termbase, text, "es")
    assert ("cast", "obsolete", "Jugar un hechizo") in hits
    assert ("battlefield", "obsolete", "entra en juego") in hits
    assert ("retrace", "approved", "desandar") in hits


def test_find_chinese_ruling(termbase):
    text = "如果延缓的第一个触发式异能（移去计时指示物的那个）被反击，则不会移去计时指示物。"
    hits = found(termbase, text, "zh")
    assert {
        ("suspend", "approved", "延缓"),
        ("triggered-ability", "approved", "触发式异能"),
        ("activated-ability", "forbidden", "触发式异能"),
        ("time-counter", "approved", "计时指示物"),
        ("counter-verb", "approved", "反击"),
    } <= hits


def test_chinese_longest_form_hides_shorter_confusable(termbase):
    hits = found(termbase, "该咒语的法术力值等于其法术力费用。", "zh")
    assert ("mana-value", "approved", "法术力值") in hits
    assert ("mana-cost", "approved", "法术力费用") in hits
    assert not any(form == "法术" for _, _, form in hits)
    assert ("spell", "forbidden", "法术") in found(termbase, "你施放的法术", "zh")


def test_chinese_obsolete_in_play_is_not_found_inside_battlefield(termbase):
    assert ("battlefield", "obsolete", "场上") not in found(termbase, "在战场上", "zh")
    assert ("battlefield", "obsolete", "场上") in found(termbase, "从场上移开", "zh")


def test_whole_words_only_and_listed_inflections(termbase):
    assert found(termbase, "Exiled cards", "en") >= {("exile-verb", "approved", "Exiled")}
    assert not found(termbase, "cardboard tokenism", "en")
    assert found(termbase, "nontoken", "en") == set()
    assert ("token", "approved", "token") in found(termbase, "non-token", "en")
    assert not any(h[0] == "hand" for h in found(termbase, "manó", "es"))


def test_case_spacing_and_apostrophes_are_ignored(termbase):
    text = "A TRIGGERED\n  Ability. It attacks and isn't blocked."
    hits = termbase.find(text, "en")
    triggered = next(hit for hit in hits if hit.concept == "triggered-ability")
    assert triggered.form == "TRIGGERED\n  Ability"
    assert text[triggered.start : triggered.end] == triggered.form
    assert any(hit.concept == "attacks-and-isnt-blocked" for hit in hits)


def test_reference_phrase_does_not_hide_a_core_term(termbase):
    hits = termbase.find("A delayed triggered ability triggers once.", "en")
    concepts = {hit.concept for hit in hits}
    assert {"delayed-triggered-ability", "triggered-ability", "trigger-verb"} <= concepts
    assert [hit.start for hit in hits] == sorted(hit.start for hit in hits)


def test_language_tags(termbase):
    text = "Roba una carta."
    assert found(termbase, text, "es-MX") == found(termbase, text, "es")
    assert found(termbase, text, "ES") == found(termbase, text, "es")
    assert termbase.find(text, "fr") == []


@settings(max_examples=examples(200), deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab cdeilnrtu'’\n触发式异能法术力值牌"), max_size=60))
def test_hits_are_sorted_spans_of_the_text(termbase, text):
    for lang in ("en", "zh"):
        hits = termbase.find(text, lang)
        assert hits == sorted(hits, key=lambda hit: (hit.start, hit.end, hit.concept, hit.status))
        for hit in hits:
            assert isinstance(hit, TermHit)
            assert 0 <= hit.start < hit.end <= len(text)
            assert text[hit.start : hit.end] == hit.form


# --- extra files -------------------------------------------------------------------------


def test_extra_tsv_extends_and_reclassifies(termbase):
    extended = Termbase.load([TEAM_TSV])
    assert len(extended) == len(termbase) + 1
    assert ("mana-value", "admitted", "VM") in found(extended, "Su VM es 3.", "es")
    assert ("player", "obsolete", "duelista") in found(extended, "El duelista", "es")
    assert ("player", "forbidden", "duelista") not in found(extended, "El duelista", "es")
    assert extended.terms("player", "es", "forbidden") == []
    assert ("suspend-cost", "forbidden", "coste de suspensión") in found(
        extended, "paga su coste de suspensión", "es"
    )
    assert extended.is_enforced("mana-value") and not extended.is_enforced("suspend-cost")
    assert extended.terms("mana-value", "es", "admitted")[0].origin == f"{TEAM_TSV}:3"


def test_extra_tbx_extends_a_concept_and_adds_one(termbase):
    extended = Termbase.load([TEAM_TBX])
    assert len(extended) == len(termbase) + 1
    assert extended.is_enforced("triggered-ability")  # no enforce note: inherited
    assert not extended.is_enforced("c-0042")
    hits = found(extended, "Una habilidad de disparo; presagia y no predecir.", "es")
    assert ("triggered-ability", "forbidden", "habilidad de disparo") in hits
    assert ("c-0042", "approved", "presagia") in hits
    assert ("c-0042", "forbidden", "predecir") in hits
    related = extended.terms("triggered-ability", "es-ES", "forbidden")
    assert [term.lang for term in related] == ["es", "es", "es-es"]
    forbidden = related[-1]
    assert forbidden.note == "Calque; use habilidad disparada."
    assert forbidden.origin == f"{TEAM_TBX}:11"
    assert extended.terms("c-0042", "es", "approved")[0].forms == ("presagiar", "presagia")


def test_format_is_found_from_content_not_name(tmp_path):
    tbx_named_txt = write(tmp_path, TEAM_TBX.read_text(encoding="utf-8"), "glossary.txt")
    tsv_named_tbx = write(tmp_path, TEAM_TSV.read_text(encoding="utf-8"), "glossary.tbx")
    assert "c-0042" in Termbase.load([tbx_named_txt], shipped=True)
    assert "suspend-cost" in Termbase.load([tsv_named_tbx], shipped=True)


def test_tbx_round_trip_preserves_concepts_forms_statuses(tmp_path, termbase):
    exported = termbase.to_tbx(tmp_path / "termbase.tbx")
    again = Termbase.load([exported], shipped=False)

    def content(base: Termbase) -> list[tuple]:
        return sorted((t.concept, t.lang, t.status, t.forms, t.enforce, t.note) for t in base)

    assert content(again) == content(termbase)
    assert again.to_tbx(tmp_path / "again.tbx").read_bytes() == exported.read_bytes()
    text = exported.read_text(encoding="utf-8")
    assert '<termEntry id="triggered-ability">' in text
    assert '<termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote>' in text
    assert "supersededTerm-admn-sts" in text and "admittedTerm-admn-sts" in text


def test_tsv_round_trip(tmp_path, termbase):
    written = termbase.to_tsv(tmp_path / "all.tsv", comments=["everything"])
    again = Termbase.load([written], shipped=False)
    assert [(t.concept, t.lang, t.status, t.forms) for t in again] == [
        (t.concept, t.lang, t.status, t.forms)
        for concept in termbase.concepts
        for t in sorted(
            termbase.terms(concept),
            key=lambda t: (t.lang != "en", t.lang, STATUSES.index(t.status)),
        )
    ]


def test_loading_is_deterministic(termbase):
    again = Termbase.load()
    assert list(again) == list(termbase)
    text = "Whenever a player casts a spell, exile the top card of their library."
    assert again.find(text, "en") == termbase.find(text, "en")


# --- malformed files ---------------------------------------------------------------------

ROW = "triggered-ability\tes\thabilidad disparada\tapproved\tyes\tnote"


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        (f"{ROW}\textra", 3, "expected 6 tab-separated columns, found 7"),
        ("x\tes\tx\tapproved", 3, "expected 6 tab-separated columns, found 4"),
        (ROW.replace("approved", "preferred"), 3, "unknown status 'preferred'"),
        (ROW.replace("\tyes\t", "\tmaybe\t"), 3, "enforce must be 'yes' or 'no'"),
        (ROW.replace("habilidad disparada", " "), 3, "empty term"),
        (ROW.replace("habilidad disparada", "a||b"), 3, "empty form in 'a||b'"),
        (ROW.replace("triggered-ability", "Triggered Ability"), 3, "is not kebab-case"),
        (ROW.replace("\tes\t", "\tspanish!\t"), 3, "is not a BCP-47 tag"),
        (f"{ROW}\n{ROW.replace('yes', 'no')}", 4, "has enforce=no"),
        (f"{ROW}\n# comment\n\n{ROW}", 6, "is already listed at"),
        (ROW, 3, "has no 'en' row"),
    ],
)
def test_malformed_tsv_names_file_and_line(tmp_path, body, line, problem):
    path = write(tmp_path, "# comment\n" + HEADER + body + "\n")
    with pytest.raises(TermbaseError) as error:
        Termbase.load([path], shipped=False)
    assert str(error.value).startswith(f"{path}:{line}: ")
    assert problem in str(error.value)


def test_tsv_needs_its_header(tmp_path):
    path = write(tmp_path, "\n# only comments\nconcept\tlang\tterm\n")
    with pytest.raises(TermbaseError, match=re.escape(f"{path}:3: expected the header line")):
        Termbase.load([path], shipped=False)
    empty = write(tmp_path, "", "empty.tsv")
    with pytest.raises(TermbaseError, match=re.escape(f"{empty}:1: empty termbase")):
        Termbase.load([empty], shipped=False)


def test_missing_english_row_is_checked_after_merging(tmp_path):
    extension = write(tmp_path, HEADER + "haste\tfr\tcélérité\tapproved\tyes\t\n")
    assert Termbase.load([extension]).concept_label("haste", "fr") == "célérité"
    with pytest.raises(TermbaseError, match=re.escape(f"{extension}:2: concept 'haste' has no")):
        Termbase.load([extension], shipped=False)


def test_a_note_column_dropped_by_an_editor_is_tolerated(tmp_path):
    path = write(tmp_path, HEADER + "haste\ten\thaste\tapproved\tyes\n")
    assert Termbase.load([path], shipped=False).terms("haste")[0].note == ""


def test_later_file_may_change_enforce(tmp_path):
    path = write(tmp_path, HEADER + "cost\tes\tcoste\tapproved\tyes\t\n")
    assert Termbase.load([path]).is_enforced("cost")


MARTIF = '<?xml version="1.0"?>\n<martif type="TBX"><text><body>\n{}\n</body></text></martif>\n'


@pytest.mark.parametrize(
    ("content", "line", "problem"),
    [
        ("<martif>\n<text>\n<body>\n</bdy>\n", 4, "not well-formed XML"),
        ('<?xml version="1.0"?>\n<xliff version="1.2">\n</xliff>\n', 2, "not TBX: the root"),
        ('<?xml version="1.0"?>\n\n<tbx type="TBX-Basic"/>\n', 3, "TBX 3 (<tbx>) is not"),
        (
            MARTIF.format(
                '<termEntry id="x">\n<langSet>\n<tig><term>x</term></tig>\n</langSet></termEntry>'
            ),
            4,
            "langSet without a valid xml:lang",
        ),
        (
            MARTIF.format(
                '<termEntry id="x">\n<langSet xml:lang="en">\n<tig><term> </term></tig>\n'
                "</langSet></termEntry>"
            ),
            5,
            "empty term",
        ),
        (
            MARTIF.format(
                '<termEntry id="x"><langSet xml:lang="en"><tig><term>x</term>\n'
                '<termNote type="administrativeStatus">maybeTerm</termNote></tig>'
                "</langSet></termEntry>"
            ),
            4,
            "unknown administrativeStatus 'maybeTerm'",
        ),
    ],
)
def test_malformed_tbx_names_file_and_line(tmp_path, content, line, problem):
    path = write(tmp_path, content, "team.tbx")
    with pytest.raises(TermbaseError) as error:
        Termbase.load([path], shipped=False)
    assert str(error.value).startswith(f"{path}:{line}: ")
    assert problem in str(error.value)


def test_unreadable_and_non_utf8_files(tmp_path):
    with pytest.raises(TermbaseError, match="cannot read the file"):
        Termbase.load([tmp_path / "missing.tsv"], shipped=False)
    latin1 = tmp_path / "latin1.tsv"
    latin1.write_bytes((HEADER + "x\tes\tcañón\tapproved\tno\t\n").encode("latin-1"))
    with pytest.raises(TermbaseError, match=re.escape(f"{latin1}:2: not UTF-8 text")):
        Termbase.load([latin1], shipped=False)


# --- the glossary importer -----------------------------------------------------------------


@pytest.mark.shared
def test_glossary_import_reproduces_the_shipped_file(tmp_path):
    glossary = shared_path("data", "cr", "glossary_en_zh.md")
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import import_cr_glossary
    finally:
        sys.path.remove(str(ROOT / "tools"))
    out = tmp_path / "glossary.tsv"
    assert import_cr_glossary.main([str(glossary), "--out", str(out)]) == 0
    shipped = resource_path("termbase_cr_glossary.tsv").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == shipped
    rows = {(t.concept, t.lang): t for t in read_terms(out)}
    assert rows[("keyword-counter", "zh")].forms == ("关键字指示物",)  # glossary erratum
    assert rows[("plainscycling", "zh")].forms == ("循环平原",)
    assert rows[("draft", "zh")].forms == ("轮抽", "抽选")
    assert rows[("mana-burn", "zh")].status == "obsolete"
    assert ("during", "en") not in rows  # obsolete, but still an ordinary word
    assert ("triggered-ability", "en") not in rows  # curated in termbase.tsv
