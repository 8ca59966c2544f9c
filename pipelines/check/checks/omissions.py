"""Dropped passages, found by what is dropped: a template's variable, a condition."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import cache

from ...model import Mark
from ...resources import read_tsv
from ...text.tokens import token_counts
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..lexicon import without_translator_notes
from ..registry import Problem, check, quoted
from .terminology import PARAPHRASED


@cache
def _patterns(kind: str, lang: str) -> tuple[re.Pattern[str], ...]:
    return tuple(
        re.compile(row["pattern"], re.IGNORECASE if kind == "condition" else 0)
        for row in read_tsv("dropped_passages.tsv")
        if row["kind"] == kind and row["lang"] in ("*", lang.split("-")[0])
    )


def _found(text: str, kind: str, lang: str) -> list[re.Match[str]]:
    return [m for pattern in _patterns(kind, lang) for m in pattern.finditer(text)]


@check("OMIT001", scope=Scope.PAIR)
def dropped_variable(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A template's bracketed variable ([cost], [quality], [P/T]) or a whole quoted template
    that holds one ("[This permanent] enters the battlefield as …", one of four) is missing
    from the translation: the translation has fewer variables than the source has different
    ones ([A] and [B] but one variable), or the source quotes more templates with a variable
    than the translation quotes passages at all.
    Translations write their own words in the brackets ([费用], [特性]), may say a
    repeated variable once (两个…同为[特性]生物 for "a [quality] creature … and another
    [quality] creature") and may say one in words (支付其返照费用 for "paying [cost]"), so
    fewer variables alone are not reported. A variable the translation keeps as the source
    writes it but without its brackets ("P/T" for [P/T]) is no omission: it is reported as
    such, at info severity. Rules text only: a card's text writes loyalty costs in brackets
    ([+2]:) that printed translations write without."""
    if not pair.source.section:
        return
    target_text = without_translator_notes(pair.target.text, pair.lang)
    ours = _found(pair.source_text, "variable", ctx.source_lang)
    theirs = _found(target_text, "variable", pair.lang)
    if not ours:
        return
    our_templates = _templates(pair.source_text, ctx.source_lang)
    their_templates = len(_quoted(target_text))
    distinct = {m.group().casefold() for m in ours}
    if len(theirs) >= len(distinct) and our_templates <= their_templates:
        return
    evidence = {
        "expected": [m.group() for m in ours],
        "found": [m.group() for m in theirs],
        "templates": {"expected": our_templates, "found": their_templates},
    }
    unbracketed = _unbracketed(distinct, target_text)
    if our_templates <= their_templates and len(theirs) + len(unbracketed) >= len(distinct):
        yield Problem(
            pair.target,
            f"The translation writes the source's variable {quoted(unbracketed)} "
            "without its brackets: nothing is left out, but the rules write a variable in "
            "brackets.",
            evidence | {"unbracketed": unbracketed, "_class": "unbracketed"},
            source=pair.source,
            marks=[
                Mark.target(m.start(), m.end())
                for inner in unbracketed
                for m in re.finditer(re.escape(inner), pair.target.text)
            ],
            severity="info",
        )
        return
    what = (
        f"{our_templates} quoted templates with a variable and the translation "
        f"{their_templates} quoted passages: a template was left out"
        if len(theirs) >= len(distinct)
        else f"{len(distinct)} different bracketed variables ({_listed(ours)}) and the "
        f"translation {len(theirs) or 'none'}: a variable or the template that holds it was "
        "left out"
    )
    yield Problem(
        pair.target,
        f"The source has {what}.",
        evidence,
        source=pair.source,
        marks=[Mark.source(m.start(), m.end(), Role.MISSING) for m in ours],
    )


UNBRACKETED_VARIABLE = re.compile(r"[A-Za-z0-9/+\-]+")
"""A variable a translation may keep as the source writes it ([P/T], [N]): letters, digits."""


def _unbracketed(variables: set[str], target: str) -> list[str]:
    """The source's variables (casefolded, in brackets) whose words the translation writes
    as they are but without brackets ("P/T" for [P/T]), outside any bracket of its own."""
    bare = re.sub(r"\[[^\]]*\]", " ", target)
    found = []
    for variable in sorted(variables):
        inner = variable.strip("[]")
        if not UNBRACKETED_VARIABLE.fullmatch(inner):
            continue
        match = re.search(rf"(?<![A-Za-z0-9/]){re.escape(inner)}(?![A-Za-z0-9/])", bare, re.I)
        if match:
            found.append(match.group())
    return found


SHORT_TEMPLATE = 8
"""Words (but its variables) of a quoted template short enough that its variable is its
point ("Equip [quality]", "sets [an object] aside"): a translation keeps it in brackets.
Longer ones may say a variable in words (支付其返照费用 for "paying [cost]")."""


@check("OMIT005", scope=Scope.PAIR)
def template_gap(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A template of the source lost a passage, seen by the gap it left in the translation
    (one finding per pair, the first gap found):
    a keyword defined with its variable ("Echo [cost]" means) defined without one (“返响”
    意指, 超载指：); a definition whose quoted templates the translation lists fewer of
    (“…” and “…” after means; one after 意指, or a list left opening with a conjunction:
    意指及“…”); a slot the source fills with a variable left empty (pay [cost]: 支付而…,
    支付来…, 支付一次。; [Cost]: [Effect]: [费用]：。); a short quoted template with a
    variable ("Equip [quality]", "sets [an object] aside") quoted without any (“佩带”,
    “将放在一边”) when both texts quote as many passages. Each gap is data
    (resources/dropped_passages.tsv); none is reported where OMIT001 reports the pair.
    Rules text only; a translation with no definition, slot or template in it is left
    alone, and a long template may say its variable in words (支付其返照费用)."""
    if not pair.source.section or not _patterns("defined-bare", pair.lang):
        return
    source = pair.source_text
    if not _found(source, "variable", ctx.source_lang):
        return
    target = without_translator_notes(pair.target.text, pair.lang)
    for gap in GAPS:
        found = gap(source, target, ctx.source_lang, pair.lang)
        if found:
            if not any(True for _ in dropped_variable(pair, ctx)):
                what, marks = found
                yield Problem(
                    pair.target,
                    f"{what}: a passage of the template was left out.",
                    {"gap": gap.__name__.strip("_").replace("_", " "), "expected": marks},
                    source=pair.source,
                )
            return


def _bare_keyword(source: str, target: str, ours: str, theirs: str):
    """A keyword the source defines with its variable, the translation without one."""
    defined = _found(source, "defined-variable", ours)
    if len(defined) > len(_found(target, "defined-variable", theirs)):
        bare = _found(target, "defined-bare", theirs)
        if bare:
            keyword = re.sub(r"[”\"]?\s+means$", "", defined[0].group()).lstrip(" .“")
            return (
                f"The source defines “{keyword}” with its variable, the translation "
                f"{bare[0].group().lstrip('，。；')} without one",
                [m.group() for m in defined],
            )
    return None


def _definition_list(source: str, target: str, ours: str, theirs: str):
    """A definition whose quoted templates the translation lists fewer of (as many
    definitions in both)."""
    expected, found = _definitions(source, ours), _definitions(target, theirs)
    if len(expected) != len(found):
        return None
    for (count, opening), (their_count, _) in zip(expected, found, strict=True):
        if 0 < their_count < count:
            return (
                f"The source defines a template as {count} quoted passages, the translation "
                f"as {their_count}",
                [opening.strip()[:60]],
            )
    return None


def _definitions(text: str, lang: str) -> list[tuple[int, str]]:
    """(how many quoted passages, the definition) of each definition of a text: the words
    that open one, then its quoted passages and what joins them."""
    quoted = "|".join(p.pattern for p in _patterns("quoted", lang))
    joiner = "|".join(p.pattern for p in _patterns("joiner", lang))
    found = []
    for opening in _patterns("definition", lang):
        listed = re.compile(rf"(?:{opening.pattern})((?:{quoted})(?:(?:{joiner})(?:{quoted}))*)?")
        for match in listed.finditer(text):
            passages = re.findall(quoted, match.group(1) or "")
            found.append((len(passages), match.group()))
    return found


def _empty_slot(source: str, target: str, ours: str, theirs: str):
    """A construction the source fills with a variable (pay [cost]) whose slot the
    translation leaves empty (支付而…)."""
    for kind in SLOTS:
        filled = _found(source, kind, ours)
        empty = _found(target, kind, theirs) if filled else []
        if empty:
            at, end = empty[0].start(), source.find("]", filled[0].end()) + 1
            return (
                f"The source has “{source[filled[0].start() : end]}”, the translation "
                f"“…{target[max(0, at - 6) : empty[0].end() + 4]}…” with nothing in its slot",
                [m.group() for m in filled],
            )
    return None


def _short_template(source: str, target: str, ours: str, theirs: str):
    """A short quoted template with a variable quoted without any (as many quoted passages
    in both texts, taken in order)."""
    expected, found = _quoted(source), _quoted(target)
    if len(expected) != len(found):
        return None
    for english, translated in zip(expected, found, strict=True):
        variables = _found(english, "variable", ours)
        words = re.findall(r"[^\W\d_][\w’']*", _patterns("variable", ours)[0].sub(" ", english))
        if (
            variables
            and len(words) <= SHORT_TEMPLATE
            and not _found(translated, "variable", theirs)
        ):
            return (
                f"The source quotes the template “{english.strip(' ,.')}”, the translation "
                f"“{translated}” without its variable",
                [m.group() for m in variables],
            )
    return None


GAPS = (_bare_keyword, _definition_list, _empty_slot, _short_template)
"""The gaps OMIT005 looks for, in order."""
SLOTS = tuple(
    sorted(
        {row["kind"] for row in read_tsv("dropped_passages.tsv") if row["kind"].startswith("slot-")}
    )
)
"""The slots of dropped_passages.tsv (slot-pay, slot-effect…)."""


QUOTES = re.compile('[“”「」«»"]')


def _quoted(text: str) -> list[str]:
    """The quoted passages of a text, whichever way its quotation marks are typed (“…“ is
    common in Chinese): every other stretch between two quotation marks."""
    return QUOTES.split(text)[1::2]


def _templates(text: str, lang: str) -> int:
    """How many quoted passages of a text hold a bracketed variable."""
    return sum(1 for passage in _quoted(text) if _found(passage, "variable", lang))


@check("OMIT003", scope=Scope.PAIR)
def fewer_variables(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The translation has fewer bracketed template variables than the source, though it
    has as many as the source has different ones and every template (OMIT001 reports the
    rest): a repeated variable ([cost] twice) said once. Often right (two placeholders for
    three of one variable, 其返照费用 for the second [cost]), sometimes a dropped one; off
    by default. Rules text only."""
    if not pair.source.section:
        return
    ours = _found(pair.source_text, "variable", ctx.source_lang)
    theirs = _found(without_translator_notes(pair.target.text, pair.lang), "variable", pair.lang)
    if len(theirs) >= len(ours) or any(True for _ in dropped_variable(pair, ctx)):
        return
    yield Problem(
        pair.target,
        f"The source has {len(ours)} bracketed variables ({_listed(ours)}) and the "
        f"translation {len(theirs)}: a repeated variable is said fewer times, or one was "
        "left out.",
        {"expected": [m.group() for m in ours], "found": [m.group() for m in theirs]},
        source=pair.source,
        marks=[Mark.source(m.start(), m.end(), Role.MISSING) for m in ours],
    )


@check("OMIT002", scope=Scope.PAIR)
def dropped_condition(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A condition of the source is missing from the translation: a sentence of the source
    opens with If or Unless and the sentence that translates it (the same place, when both
    texts have as many sentences; else the translation as a whole) states no condition with
    the words its language states one with (如果, 若, 除非, 当…时; si, a menos que), and
    what the condition says went with it, or left a gap behind: a game term it names, a
    symbol or a number it has is nowhere in the translation; or (when the sentences match)
    the sentence that translates it opens with what joined it to the clause before (或…,
    则…, 及…: "If X, or if Y, …" left as "或Y，则…"), or refers back (该牌手, 该效应) to a
    thing nothing before it names, the thing the condition introduced ("If a player leaves
    the game, … that player" left as "所有由该牌手操控的…"). A translation often folds a
    condition into the sentence, "由咒语创造的延迟触发式异能的来源为该咒语" for "If a
    spell creates a delayed triggered ability, the source of that delayed triggered ability
    is that spell", keeping every term of it and what it introduced (OMIT004, off by
    default, reports those too). The words are data (resources/dropped_passages.tsv). Rules text
    only (measured there); card text is templated otherwise."""
    target_text = without_translator_notes(pair.target.text, pair.lang)
    missing = [
        (a, s)
        for a, s, translated in _unstated_conditions(pair, ctx)
        if _clause_lost(s, target_text, pair.lang, ctx)
        or (translated is not None and _gap_left(translated, target_text, pair.lang, ctx))
    ]
    if missing:
        yield _condition_problem(pair, missing)


@check("OMIT004", scope=Scope.PAIR)
def unstated_condition(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The source states a condition (a sentence opening with If or Unless) that the
    translation does not state with a condition word, whatever it says of it: often folded
    into the sentence with its meaning kept, sometimes left out (OMIT002 reports those whose
    terms went too); off by default. Rules text only."""
    if any(True for _ in dropped_condition(pair, ctx)):
        return
    missing = [(a, s) for a, s, _ in _unstated_conditions(pair, ctx)]
    if missing:
        yield _condition_problem(pair, missing)


def _unstated_conditions(
    pair: AlignedPair, ctx: CheckContext
) -> list[tuple[int, str, tuple[int, str] | None]]:
    """(start, sentence, translation) of the source's conditions the translation states with
    no condition word (sentence by sentence when both have as many: the translation is then
    (start, sentence) of the sentence that translates it; else None)."""
    if not pair.source.section or not _patterns("condition", pair.lang):
        return []
    ours = _sentences(pair.source_text, ENGLISH_SENTENCE_END)
    theirs = _sentences(without_translator_notes(pair.target.text, pair.lang), SENTENCE_END)
    if len(ours) == len(theirs):
        return [
            (start, sentence, translated)
            for (start, sentence), translated in zip(ours, theirs, strict=True)
            if _found(sentence, "condition", ctx.source_lang)
            and not _found(translated[1], "condition", pair.lang)
        ]
    stated = _found(" ".join(s for _, s in theirs), "condition", pair.lang)
    conditions = [(a, s, None) for a, s in ours if _found(s, "condition", ctx.source_lang)]
    return conditions if len(conditions) > len(stated) else []


def _condition_problem(pair: AlignedPair, missing: list[tuple[int, str]]) -> Problem:
    return Problem(
        pair.target,
        f"{len(missing)} condition{'s' if len(missing) > 1 else ''} of the source "
        f"(\u201c{_opening(missing[0][1])}…\u201d) "
        f"{'are' if len(missing) > 1 else 'is'} not stated in the translation: probably left "
        "out with the clause it governs.",
        {"expected": [_opening(s) for _, s in missing], "found": None},
        source=pair.source,
        marks=[Mark.source(a, a + len(_opening(s)), Role.MISSING) for a, s in missing],
    )


def _clause_lost(sentence: str, target: str, lang: str, ctx: CheckContext) -> bool:
    """Whether the condition clause of a sentence (after its If, up to the next comma)
    names a game term, or has a symbol or number, that the translation has nowhere.
    (Counting mentions instead would not tell a dropped clause from a folded one that says
    its noun once: "由咒语创造的延迟触发式异能的来源" for "If a spell creates a delayed
    triggered ability, the source of that delayed triggered ability".)"""
    clause = _condition_clause(sentence, ctx)
    if _clause_terms(clause, lang, ctx) - set(ctx.concept_counts(target, lang)):
        return True
    clause_tokens, target_tokens = token_counts(clause), token_counts(target)
    if any(found - target_tokens.get(kind, Counter()) for kind, found in clause_tokens.items()):
        return True
    return bool(set(re.findall(r"\d+", clause)) - set(re.findall(r"\d+", target)))


def _gap_left(translated: tuple[int, str], target: str, lang: str, ctx: CheckContext) -> bool:
    """Whether the sentence that translates a condition's sentence shows the condition went:
    it opens with the conjunction that joined it to the clause before (clause-remnant), or
    it refers back to a thing (该X) that nothing before it names (reference)."""
    start, text = translated
    if _found(text, "clause-remnant", lang):
        return True
    references = _patterns("reference", lang)
    hits = [h for h in ctx.term_hits(target, lang) if h.status != "forbidden"]
    for index, hit in enumerate(hits):
        inside = start <= hit.start < start + len(text)
        before = target[max(0, hit.start - 4) : hit.start]
        if (
            inside
            and any(p.search(before) for p in references)
            and not any(h.concept == hit.concept for h in hits[:index])
        ):
            return True
    return False


def _condition_clause(sentence: str, ctx: CheckContext) -> str:
    """The condition clause of a source sentence: after its If, up to the next comma."""
    opening = _found(sentence, "condition", ctx.source_lang)
    start = opening[0].end() if opening else 0
    return sentence[start:].split(",", 1)[0]


def _clause_terms(clause: str, lang: str, ctx: CheckContext) -> set[str]:
    """The game terms a condition clause names that the translation's language has an
    approved term for."""
    return {
        c
        for c in ctx.named_concepts(clause, ctx.source_lang) - PARAPHRASED
        if ctx.termbase.terms(c, lang, "approved")
    }


ENGLISH_SENTENCE_END = re.compile(r"[.!?;][”\"’)]*\s+(?=[A-Z“\"(])")
SENTENCE_END = re.compile(r"[。！？；][”」’）)]*|[.!?;][”\"’)]*(?=\s|$)")


def _sentences(text: str, end: re.Pattern[str]) -> list[tuple[int, str]]:
    """(start, sentence) of a text's sentences, empty ones left out."""
    found, start = [], 0
    for match in end.finditer(text):
        if match.end() > start and text[start : match.end()].strip():
            found.append((start, text[start : match.end()]))
        start = match.end()
    if text[start:].strip():
        found.append((start, text[start:]))
    return found


def _opening(sentence: str) -> str:
    return " ".join(sentence.split()[:6])


def _listed(found: list[re.Match[str]]) -> str:
    return ", ".join(m.group() for m in found)
