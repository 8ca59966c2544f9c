"""The finding catalogue: every code any stage can emit, in one table.

Each code has a category, a default severity, the stage that emits it and a one-sentence
summary; ingest codes also carry their explanation here, while a check's explanation is its
function's docstring (``@check`` attaches the function to its row). ``covers`` names the
codes that a finding of this code makes redundant on the same unit: a ruling cut off with
"…" has also lost its numbers and closing parenthesis, which says nothing new.

A new code is one row here; its stage emits it with ``make_finding`` (ingest) or by yielding
a ``Problem`` from the check registered for it. ``rulings rules`` prints this table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from .model import Finding, Mark, fingerprint
from .resources import read_tsv
from .vocabulary import Category, Severity

INGEST, ALIGN, CHECK = "ingest", "align", "check"
C = Category


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    category: Category
    severity: Severity
    stage: str
    summary: str
    details: str = ""
    """More explanation (ingest codes; a check's is its docstring)."""
    covers: tuple[str, ...] = ()
    """Codes whose findings on the same unit follow from this one's and are folded under it."""
    default: bool = True
    """Off-by-default codes run only when --select names them."""
    note: str = ""
    """What was measured about the code's findings (why it is off by default, or info)."""


def _code(code: str, category: Category, severity: str, stage: str, text: str, **more) -> Code:
    summary, _, details = " ".join(text.split()).partition(". ")
    return Code(
        code,
        category,
        Severity(severity),
        stage,
        summary.rstrip(".") + ".",
        details.strip(),
        **more,
    )


MISPLACED_COVERS = (
    "MEAN001",
    "EXTRA001",
    "TERM001",
    "TERM002",
    "NUM001",
    "PH001",
    "PH002",
    "TRUNC002",
    "CARD004",
    "DATE001",
    "DATE006",
)
"""What a translation of another unit (MEAN002, MEAN003) makes redundant on its unit: the
terms, numbers and symbols of the wrong source are missing as a matter of course."""


TABLE: tuple[Code, ...] = (
    # --- ingest: files, formats, lines ---------------------------------------------------
    _code(
        "PARSE001",
        C.PARSE,
        "error",
        INGEST,
        """The file is not text (more than 5% of its
        first 64 KiB are control bytes: an image, an archive, compressed or other binary
        data) and was skipped. Every other file of the batch is still read; a text file with
        a few NUL bytes is read, and its lines that hold them are PARSE013.""",
    ),
    _code(
        "PARSE002",
        C.PARSE,
        "warning",
        INGEST,
        """The file is not UTF-8. It was decoded with
        the encoding its byte-order mark names, or as Windows-1252/Latin-1; accented letters
        may be wrong if that guess is wrong. Save the file as UTF-8.""",
    ),
    _code(
        "PARSE003",
        C.PARSE,
        "warning",
        INGEST,
        """The file is empty or holds only blank
        lines, so it contributes no rulings.""",
    ),
    _code(
        "PARSE004",
        C.PARSE,
        "warning",
        INGEST,
        """A line that no reader understands (for
        example a date with no ruling after it). It is kept in this finding so that nothing is
        lost; fix the line or the layout around it.""",
    ),
    _code(
        "PARSE005",
        C.PARSE,
        "warning",
        INGEST,
        """A heading with no content under it (a
        section title at the end of a file, or followed directly by another heading). A part
        of the document is missing or was cut off.""",
    ),
    _code(
        "PARSE006",
        C.PARSE,
        "error",
        INGEST,
        """A line is longer than 20,000 characters, far
        longer than any ruling, so it was not read as ruling text. Its start is shown in the
        evidence.""",
    ),
    _code(
        "PARSE007",
        C.PARSE,
        "error",
        INGEST,
        """A reader failed on the file (a bug or an
        input it does not handle). The error is in the evidence; the rest of the batch was
        read.""",
    ),
    _code(
        "PARSE008",
        C.PARSE,
        "error",
        INGEST,
        """The file is not valid JSON: it is cut off or
        has a syntax error. The byte offset and the JSON pointer of the place where reading
        stopped are in the evidence; everything before that place was read, everything after
        it is missing.""",
    ),
    _code(
        "PARSE009",
        C.PARSE,
        "error",
        INGEST,
        """A part of a JSON file does not have the
        shape its format prescribes (a card without a name, a ruling without text, a list
        where an object belongs). That part was skipped, or kept without the broken field;
        its JSON pointer is in the message and the evidence.""",
    ),
    _code(
        "PARSE010",
        C.PARSE,
        "error",
        INGEST,
        """The file cannot be read (a link that leads
        nowhere or into a loop, no permission, a device error), or is not a regular file (a
        named pipe, a socket, a device: it is never opened, since a pipe without a writer
        would wait forever), and was skipped. Every other file of the batch is still read. A
        pipe is read when it is given as INPUT itself: ``-`` (the standard input) or a
        process substitution such as ``<(zcat rulings.txt.gz)``.""",
    ),
    _code(
        "PARSE011",
        C.PARSE,
        "error",
        INGEST,
        """A bilingual file (XLIFF, TMX, PO) cannot be
        parsed: it is not well-formed XML, is cut off, nests too deep, holds a text too large
        to read safely, or has a PO syntax error. The line and column where reading stopped
        are in the evidence; the file was skipped, the rest of the batch was read.""",
    ),
    _code(
        "PARSE012",
        C.PARSE,
        "warning",
        INGEST,
        """A part of a bilingual file that was not read
        as written: a unit id used twice (the repeat gets a suffix), a unit with no text, a
        file with no units, or XML entities (declared or used), which are never expanded and
        stay in the text as written.""",
    ),
    _code(
        "PARSE013",
        C.PARSE,
        "warning",
        INGEST,
        """A line holds NUL bytes (a file damaged on
        disk or written by a tool that pads with zeros). The line was read without them and
        the rest of the file was read as usual; the columns where they were are in the
        evidence. A file is taken for binary (PARSE001) only when more than 5% of its first
        64 KiB are control bytes.""",
    ),
    _code(
        "PARSE014",
        C.PARSE,
        "info",
        INGEST,
        """A hidden file (its name starts with a dot)
        inside an input folder was not read: editors, file managers and version control
        keep their own files under such names. Rename the file, or give it as INPUT
        itself, to have it read.""",
    ),
    _code(
        "PARSE015",
        C.PARSE,
        "info",
        INGEST,
        """Folders inside the inputs that were not
        entered: hidden folders (.git, .svn, an editor's settings) and the output folders of
        rulings runs. One finding per run lists them; give such a folder as INPUT itself to
        have it read.""",
    ),
    _code(
        "DOC001",
        C.PARSE,
        "info",
        INGEST,
        """A document is a glossary or term list, not a
        translation of a source. It is not aligned or checked; its term pairs are written to
        glossary-terms.tsv in the termbase format, ready for --termbase after review.""",
        default=False,
        note=(
            "Off by default: a notice, not a translation error (both reviewers of the "
            "2022 and 2023 rules runs judged it false); the run's summary line counts the "
            "glossaries read. Select it to list them as findings."
        ),
    ),
    _code(
        "DOC002",
        C.PARSE,
        "warning",
        INGEST,
        """A document is in none of the candidate languages
        (--languages), or in no language at all. It is not checked; add its language to
        --languages to check it. A warning, so that a gate with --fail-on warning does not
        pass on a run that checked nothing; the run's summary counts the documents not
        checked.""",
    ),
    # --- ingest: dates and cards -----------------------------------------------------------
    _code(
        "DATE003",
        C.DATE,
        "warning",
        INGEST,
        """A document's numeric dates are all ambiguous
        (like 07/06/2013, which reads as 7 June or 6 July) and none of them proves whether it
        writes the day or the month first. The dates were read in the order most of the
        corpus uses; check them, or write one unambiguous or ISO date (2013-06-07).""",
    ),
    _code(
        "DATE004",
        C.DATE,
        "error",
        INGEST,
        """A document writes some dates day-first
        (19/03/2021) and others month-first (03/19/2021). The dates were read in the majority
        order; the others are wrong.""",
    ),
    _code(
        "DATE005",
        C.DATE,
        "error",
        INGEST,
        """A date that does not exist (such as 31/02/2024)
        or that cannot be read.""",
    ),
    _code(
        "CARD001",
        C.CARD_NAME,
        "warning",
        INGEST,
        """A card document's title is not the
        card's name in the document's language according to the card data (for example a
        Chinese document titled 古辉石 while the card data names Epochrasite 时代寄生虫). Use
        the official localized name.""",
    ),
    _code(
        "CARD002",
        C.CARD_NAME,
        "info",
        INGEST,
        """Once per run: translated documents are
        about cards the card index does not know (a new set is in no shipped list). Their
        titles are in the evidence. Each is paired with its English document by place (the
        same file in a parallel folder) or by content (symbols, numbers, the meaning of its
        lines) instead of by card, and the
        card-name checks do not know its names. Add the set's card data (`rulings fetch
        mtgjson SET`, or an MTGJSON or Scryfall file among the inputs). English documents
        are never counted: their title is their card's name.""",
    ),
    # --- checks ------------------------------------------------------------------------------
    _code(
        "TERM001",
        C.TERMINOLOGY,
        "error",
        CHECK,
        """The source uses a game term and the
        translation uses a term the termbase forbids for it.""",
        covers=("INCON001",),
    ),
    _code(
        "TERM002",
        C.TERMINOLOGY,
        "warning",
        CHECK,
        """The source uses a core game term and
        the translation has none of its approved forms.""",
    ),
    _code(
        "TERM003",
        C.TERMINOLOGY,
        "warning",
        CHECK,
        """The translation uses old official
        wording the termbase marks obsolete.""",
        covers=("INCON001",),
    ),
    _code(
        "TERM004",
        C.TERMINOLOGY,
        "warning",
        CHECK,
        """The translation uses a word the
        termbase forbids and approves for no concept.""",
    ),
    _code(
        "TERM005",
        C.TERMINOLOGY,
        "error",
        CHECK,
        """The translation names another compound
        game term than the source (legendary permanent card for legendary creature card).""",
    ),
    _code(
        "UNTR001",
        C.UNTRANSLATED,
        "error",
        CHECK,
        """A unit of a translated document is
        still in the source language.""",
    ),
    _code(
        "UNTR002",
        C.UNTRANSLATED,
        "error",
        CHECK,
        """A unit of a translated document is its English source unchanged, or only English
        game terms.""",
        covers=("TERM002", "MIX001", "CARD003", "CARD004", "STYLE003"),
    ),
    _code(
        "MIX001",
        C.MIXED_LANGUAGE,
        "error",
        CHECK,
        """Part of a translated unit is still in
        another language.""",
    ),
    _code(
        "PH001",
        C.PLACEHOLDER,
        "error",
        CHECK,
        """A symbol, power/toughness or rule
        reference of the source is missing from the translation, or one is added.""",
    ),
    _code(
        "SRC001",
        C.PLACEHOLDER,
        "warning",
        CHECK,
        """The English source cites a rule by the wrong number, and the translation cites
        the right one.""",
    ),
    _code(
        "SRC002",
        C.MEANING,
        "info",
        CHECK,
        """A translator's note about the source:
        shown for the English team, not checked as translation.""",
    ),
    _code(
        "PH002",
        C.PLACEHOLDER,
        "warning",
        CHECK,
        """The translation drops a parenthesised or
        quoted passage of the source.""",
        default=False,
        note=(
            "Off by default: judged on the Chinese Comprehensive Rules, 2 of 10 findings were "
            "true (precision round 1); with template variables ([cost]), cross references and "
            "quoted terms of up to three words left out, about 8 of the 12 left are true "
            "(round 2): Chinese often makes a parenthesis part of the sentence (“（除非…）” as "
            "除非…否则), which a count of brackets cannot tell from a dropped one. Select it to "
            "review dropped reminders and examples."
        ),
    ),
    _code(
        "PH003",
        C.PLACEHOLDER,
        "warning",
        CHECK,
        """Brackets or quotation marks that open and
        never close, or close without opening.""",
    ),
    _code(
        "PH004",
        C.PLACEHOLDER,
        "error",
        CHECK,
        """An inline code or placeholder of the source
        (a CAT tag such as <g1>…</g1> or <x2/>, a %s or {name} placeholder) is missing from
        the translation, added, or out of order.""",
    ),
    _code(
        "OMIT001",
        C.PLACEHOLDER,
        "warning",
        CHECK,
        """A template's bracketed variable, or a
        whole quoted template, of the source is missing from the translation.""",
    ),
    _code(
        "OMIT003",
        C.PLACEHOLDER,
        "warning",
        CHECK,
        """The translation has fewer bracketed template
        variables than the source, though it has each different one.""",
        default=False,
        note=(
            "Off by default: a translation often says a repeated variable once (两个…同为"
            "[特性]生物 for “a [quality] creature … and another [quality] creature”) or in "
            "words (其返照费用 for the second [cost]), which a count cannot tell from a dropped "
            "one. Judged on the 2022 and 2023 Chinese rules, the count alone was true 6 times "
            "in 14 (2 debatable, 6 false); OMIT001 reports what is left when a variable or a "
            "template is missing outright. Select it to review every count that differs."
        ),
    ),
    _code(
        "OMIT005",
        C.PLACEHOLDER,
        "warning",
        CHECK,
        """A template of the source lost a passage in
        the translation, seen by the gap it left: a keyword defined without its variable, a
        definition listing fewer quoted templates, a slot of a variable left empty (支付而…,
        ：。), a short template quoted without its variable.""",
    ),
    _code(
        "OMIT002",
        C.MEANING,
        "warning",
        CHECK,
        """The source states a condition the translation
        does not, and a term, symbol or number of the condition went with it.""",
    ),
    _code(
        "OMIT004",
        C.MEANING,
        "warning",
        CHECK,
        """The source states more conditions than the
        translation, whatever the translation says of them.""",
        default=False,
        note=(
            "Off by default: a translation often folds a condition into the sentence "
            "(由咒语创造的延迟触发式异能 for “If a spell creates a delayed triggered ability”), "
            "keeping every term of it. Judged on the 2022 and 2023 Chinese rules, a condition "
            "word missing alone was true 2 times in 7; OMIT002 reports it when the "
            "condition's terms, symbols or numbers went too. Select it to review every "
            "condition the translation does not state with a condition word."
        ),
    ),
    _code(
        "NUM001",
        C.NUMBER,
        "error",
        CHECK,
        """A number of the source is missing from the
        translation or replaced by another.""",
    ),
    _code(
        "CARD003",
        C.CARD_NAME,
        "warning",
        CHECK,
        """A translated unit names a card by its
        English name.""",
    ),
    _code(
        "CARD004",
        C.CARD_NAME,
        "warning",
        CHECK,
        """The source names a card and the
        translation lacks its official localized name.""",
    ),
    _code(
        "TRUNC001",
        C.TRUNCATION,
        "error",
        CHECK,
        """The text stops mid-sentence with an ellipsis: it was cut off.""",
        covers=("NUM001", "PH001", "PH002", "PH003", "TERM002", "TRUNC002", "CARD004"),
    ),
    _code(
        "TRUNC002",
        C.TRUNCATION,
        "warning",
        CHECK,
        """The translation is far shorter than
        translations into its language usually are.""",
    ),
    _code(
        "DATE001",
        C.DATE,
        "warning",
        CHECK,
        """The translation carries a different date than
        the English it translates.""",
    ),
    _code(
        "DATE006",
        C.DATE,
        "info",
        CHECK,
        """The translation is dated later than its English source in the input: the masters
        may be older than the English translated.""",
        covers=("TERM002", "PH002", "NUM001", "MEAN001", "TRUNC002", "CARD004"),
    ),
    _code(
        "DATE002",
        C.DATE,
        "warning",
        CHECK,
        """The translations of one ruling carry
        different dates and no dated English source settles it.""",
    ),
    _code(
        "MISS001",
        C.MISSING_TRANSLATION,
        "warning",
        CHECK,
        """An English unit the translated
        document should have and does not.""",
    ),
    _code(
        "MISS002",
        C.MISSING_TRANSLATION,
        "warning",
        CHECK,
        """A line of a card's English text that
        nothing in the translated card text matches.""",
        default=False,
        note=(
            "Off by default: printed cards run lines together in ways the pairing does not "
            "always see (“Arrolla, antimaleficio.” for Trample and Hexproof; a sliver's two "
            "granted abilities in one sentence), and the line is then there, inside another. "
            "Every such finding a reviewer judged (as MISS001, before it was split off) was "
            "not a missing line: on the card text of the evaluation sets 0 true, 1 debatable, "
            "22 false in six rounds; on the tuning sets 0 true, 3 debatable, 16 false "
            "(benchmarks/results/precision.md). Select it to review the card lines the "
            "pairing left without a translation."
        ),
    ),
    _code(
        "EXTRA001",
        C.EXTRA_TRANSLATION,
        "warning",
        CHECK,
        """A translated unit that matches
        no English unit of its source.""",
    ),
    _code(
        "EXTRA003",
        C.EXTRA_TRANSLATION,
        "warning",
        CHECK,
        """A line of a card's translated text that
        matches no line of its English text.""",
        default=False,
        note=(
            "Off by default: printed cards split a line in two, run lines together or keep a "
            "sentence Oracle text no longer has, in ways the pairing does not always see. "
            "Every such finding a reviewer judged on the card text of the evaluation sets "
            "(as EXTRA001, before it was split off) was false: 14 of 14 in three rounds; on "
            "the tuning sets 0 true, 3 debatable, 2 false (benchmarks/results/precision.md). "
            "Select it to review the printed lines the pairing left without an English line."
        ),
    ),
    _code(
        "EXTRA002",
        C.EXTRA_TRANSLATION,
        "info",
        CHECK,
        """A translated document whose own
        English source is not in the input.""",
    ),
    _code(
        "INCON001",
        C.INCONSISTENT_TRANSLATION,
        "warning",
        CHECK,
        """One English ruling is
        translated in more than one way into the same language.""",
        note=(
            "On the printed card text of the evaluation sets (M10, RTR, BFZ, WAR, THB, IKO), "
            "all 23 findings of one round's documents runs, judged by a reviewer: 11 true, "
            "12 debatable, 0 false "
            "(an older printing that names its card where the current text says “this "
            "spell” is the usual debatable one; benchmarks/results/"
            "precision_eval-r28-incon001.md). In the three rounds before, 2 true, 4 "
            "debatable, 3 false of 9: the false ones were keyword lines printed a keyword a "
            "line and compared with another card's line, which the pairing now reads as "
            "parts of their own card's line."
        ),
    ),
    _code(
        "INCON002",
        C.INCONSISTENT_TRANSLATION,
        "warning",
        CHECK,
        """One translation is used for English
        texts that say different things (a translation copied from another unit).""",
        default=False,
        note=(
            "Off by default: on the card text of the evaluation sets, every finding a "
            "reviewer judged was false, 8 of 8 in seven rounds (three findings: a unit the "
            "pairing gave part of a printed paragraph, Serra Angel's vigilance reminder, "
            "Gorgon Flail's equip reminder against an older English; "
            "benchmarks/results/precision.md). On the tuning data (card documents of 9 "
            "MTGJSON sets, the 2023 Chinese rules; benchmarks/results/incon002.md) its 2 "
            "findings in 11,701 translated units were both real (a Spanish card carrying "
            "another card's text, a Chinese Aura's reminder text saying creature). Select it "
            "to review translations shared by English texts that differ."
        ),
    ),
    _code(
        "MEAN001",
        C.MEANING,
        "warning",
        CHECK,
        """The translation is much further in meaning
        from its source than aligned pairs usually are.""",
    ),
    _code(
        "MEAN002",
        C.MEANING,
        "error",
        CHECK,
        """The translation matches another English unit clearly better than its own: a
        swapped, pasted or misaligned translation.""",
        covers=MISPLACED_COVERS,
    ),
    _code(
        "MEAN003",
        C.MEANING,
        "error",
        CHECK,
        """A card's text line reads more like another
        card's line than like its own: a line pasted from another card, or swapped with
        another line of its card.""",
        covers=MISPLACED_COVERS,
        default=False,
        note=(
            "Off by default: on the printed card text of sets it was not tuned on, the "
            "likeness alone was misled by an old printing's wording or by another card's "
            "keyword line (Serra Angel's vigilance read as Wall of Bone's defender, Druid's "
            "Deliverance's first sentence as Fog) in every case a reviewer judged: 0 true, "
            "1 debatable, 12 false in eight rounds (as MEAN002, before it was split off; "
            "benchmarks/results/precision.md). A line injected from another card is found "
            "24 and 25 times in 25 (benchmarks/results/inject_cards.md). Select it to "
            "review the card lines that read like other cards' lines."
        ),
    ),
    _code(
        "OUT001",
        C.OUTDATED,
        "warning",
        CHECK,
        """The translation follows an older version
        of its English source.""",
    ),
    _code(
        "OUT002",
        C.OUTDATED,
        "info",
        CHECK,
        """A translated rules document translates an older release than the current
        English in the input: the release it translates and the counts of units to update,
        new, removed and unchanged.""",
    ),
    _code(
        "OUT003",
        C.OUTDATED,
        "warning",
        CHECK,
        """The translation follows an English unit that the current release of the rules
        no longer has.""",
        covers=("MEAN001", "TERM002", "NUM001", "PH001", "PH002"),
    ),
    _code(
        "OUT004",
        C.OUTDATED,
        "warning",
        CHECK,
        """A translation of an older release disagrees with the newer English, the only
        one in the input: probably an English change to carry over.""",
        covers=("NUM001", "PH001", "PH002", "MEAN001", "TERM002"),
    ),
    _code(
        "STYLE001",
        C.STYLE,
        "warning",
        CHECK,
        """A usted form in a document that addresses
        the reader as tú.""",
    ),
    _code(
        "STYLE002",
        C.STYLE,
        "warning",
        CHECK,
        """One document mixes regional variants of the
        same word.""",
    ),
    _code("STYLE003", C.STYLE, "warning", CHECK, """A capital letter after a semicolon."""),
    _code(
        "STYLE004",
        C.STYLE,
        "warning",
        CHECK,
        """One document mixes styles of quotation
        marks.""",
    ),
    _code(
        "STYLE005",
        C.STYLE,
        "warning",
        CHECK,
        """Half-width punctuation next to Chinese
        characters.""",
    ),
    _code(
        "STYLE006",
        C.STYLE,
        "info",
        CHECK,
        """A game term capitalised mid-sentence in some
        units of a document and not in others.""",
    ),
    _code(
        "STYLE007",
        C.STYLE,
        "warning",
        CHECK,
        """A symbol written in the document's usual
        notation elsewhere and in another one here.""",
    ),
)

CATALOGUE: dict[str, Code] = {row.code: row for row in TABLE}
if len(CATALOGUE) != len(TABLE):
    raise ValueError("a finding code is listed twice in the catalogue")


def lookup(code: str) -> Code:
    try:
        return CATALOGUE[code]
    except KeyError:
        raise KeyError(f"finding code {code} is not in the catalogue") from None


def make_finding(
    code: str,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    lang: str | None = None,
    ruling_id: str | None = None,
    source_id: str | None = None,
    card: str | None = None,
    section: str | None = None,
    evidence: dict[str, Any] | None = None,
    marks: list[Mark] | None = None,
    severity: str | None = None,
    anchor: str = "",
    row: Code | None = None,
) -> Finding:
    """A finding of a catalogued code, with the code's category and default severity
    (``row``: a code of the run's own, a team's checklist rule, instead of the catalogue's).

    ``anchor`` is what the finding is about (normally its unit's text): it enters the
    fingerprint, line numbers do not.
    """
    row = row or lookup(code)
    finding = Finding(
        code=code,
        category=str(row.category),
        severity=str(Severity(severity) if severity else row.severity),
        lang=lang,
        file=file,
        line=line,
        ruling_id=ruling_id,
        source_id=source_id,
        card=card,
        section=section,
        message=message,
        evidence=evidence or {},
        fingerprint="-",
        marks=[mark.as_dict() for mark in marks or ()],
    )
    finding.its_type, finding.mqm = quality(code, str(row.category))
    finding.fingerprint = fingerprint(finding, anchor)
    return finding


ITS_TYPES = frozenset(
    {
        *("terminology", "mistranslation", "omission", "untranslated", "addition"),
        *("duplication", "inconsistency", "grammar", "legal", "register"),
        *("locale-specific-content", "locale-violation", "style", "characters"),
        *("misspelling", "typographical", "formatting", "inconsistent-entities"),
        *("numbers", "markup", "pattern-problem", "whitespace", "internationalization"),
        *("length", "non-conformance", "uncategorized", "other"),
    }
)
"""The 27 values of ITS 2.0 ``locQualityIssueType``."""
MQM_CATEGORIES = frozenset(
    {
        "Terminology",
        "Accuracy",
        "Linguistic conventions",
        "Style",
        "Locale conventions",
        "Audience appropriateness",
        "Design and markup",
        "Other",
    }
)
MQM_SEVERITIES = ("minor", "major", "critical")
BY_CATEGORY: dict[str, tuple[str, str]] = {
    "terminology": ("terminology", "Terminology"),
    "untranslated": ("untranslated", "Accuracy"),
    "mixed-language": ("untranslated", "Accuracy"),
    "placeholder": ("markup", "Design and markup"),
    "number": ("numbers", "Accuracy"),
    "card-name": ("terminology", "Terminology"),
    "truncation": ("omission", "Accuracy"),
    "date": ("locale-violation", "Locale conventions"),
    "missing-translation": ("omission", "Accuracy"),
    "extra-translation": ("addition", "Accuracy"),
    "inconsistent-translation": ("inconsistency", "Style"),
    "meaning": ("mistranslation", "Accuracy"),
    "outdated": ("non-conformance", "Accuracy"),
    "style": ("style", "Style"),
    "parse": ("other", "Other"),
}
"""A code the table does not list (a team's checklist rule) takes its category's types."""


@cache
def quality_table() -> dict[str, tuple[str, dict[str, str]]]:
    """Code -> (ITS type, MQM category and severity), from ``resources/its_mqm.tsv``."""
    return {
        row["code"]: (row["its_type"], {"category": row["mqm"], "severity": row["mqm_severity"]})
        for row in read_tsv("its_mqm.tsv")
    }


def quality(code: str, category: str) -> tuple[str, dict[str, str]]:
    """The ITS 2.0 issue type and the MQM category and severity of a code."""
    found = quality_table().get(code)
    if found is not None:
        return found[0], dict(found[1])
    its_type, mqm = BY_CATEGORY.get(category, ("other", "Other"))
    return its_type, {"category": mqm, "severity": "minor"}


def explanation(code: str, function: Callable[..., Any] | None = None) -> str:
    """The full explanation of a catalogued code, the one text ``rulings rules``, the docs
    and every writer show: a check's docstring (``function``, the check registered for the
    code: ``pipelines.check.registry.explanations`` gives them all), else the catalogue's
    summary and details."""
    doc = " ".join((getattr(function, "__doc__", None) or "").split())
    if doc:
        return doc
    row = lookup(code)
    return f"{row.summary} {row.details}".strip()


def describe(row: Code, explanations: dict[str, str] | None = None) -> str:
    """The explanation of a row: the one ``explanations`` holds for its code (a run's: every
    catalogued code's ``explanation``), else its summary and details (a code of the run's
    own, a team's checklist rule, has its whole explanation there)."""
    found = (explanations or {}).get(row.code)
    return found if found else f"{row.summary} {row.details}".strip()
