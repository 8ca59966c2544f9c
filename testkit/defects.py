"""Defects injected into the Chinese Comprehensive Rules, with their gold list; the defective
pair as translation units. ``benchmarks/inject_defects.py`` measures what the checks (and
pofilter) catch of them.

Among the rules whose English and Chinese lines carry the same number (``candidates``),
``inject(en_lines, zh_lines, termbase, seed, per_type)`` gives a seeded choice of
``per_type`` rules per kind (``KINDS``, in ``data/defects.json``) one defect each: a term
swapped for a form the termbase forbids, English left in (whole or half), a dropped symbol,
power/toughness modifier or rule reference, a changed number (digits or a Chinese number
word), a cut text, a deleted rule. The ``Injection`` holds the defective Chinese file, where
each of its lines came from, and the gold list (``Defect``: line, kind, change, before,
after). The injector reads the texts with its own patterns and number words
(``data/number_words.json``), not the checks', so that tuning the checks cannot move it.

``cat_units`` turns the defective pair into one unit per line pair (the rule number as its
id), ``add_code_defects`` gives some units outside the gold list a ``drop-code`` defect (an
inline code at the source's end that the target lacks) and ``write_xliff`` writes the units
as XLIFF 1.2. The same seed, data and termbase give the same defects.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from testkit.paths import data

DATA = data("defects")
KINDS = {kind: (family, tuple(caught)) for kind, (family, caught) in DATA["kinds"].items()}
"""Defect kinds in injection order: (family, the finding categories that catch it)."""
CODE_KIND, CODE_EXPECTED = "drop-code", ("placeholder",)
"""The defect of the XLIFF form (``add_code_defects``) and the finding categories that catch it."""
RULE_LINE = re.compile(r"^(\d{3}\.\d+[a-z]?)(\.?)(\s+)(.*)$")
SYMBOL = re.compile(r"\{[^{}\s]{1,8}\}")
PT_MODIFIER = re.compile(r"[+\-−]\d+/[+\-−]\d+")
RULE_REFERENCE = re.compile(r"(?<![\d.])\d{3}\.\d+[a-z]?(?:[-–][a-z])?(?![\d])")
PT_VALUE = re.compile(r"(?<![\d/+\-−.])\d+/\d+(?![\d/])")
NOT_NUMBERS = (SYMBOL, PT_MODIFIER, PT_VALUE, RULE_REFERENCE)
DIGITS = re.compile(r"(?<![\d.,/{}+\-−])\d+(?![\d.,/{}])")
VARIABLE = re.compile(r"\[[^\[\]\n]{1,40}\]")
EN_TEMPLATE = re.compile(r"“[^”]*\[[^\[\]]+\][^”]*”")
ZH_TEMPLATE = re.compile(r"[、，或和及以]*[“「][^”」]*\[[^\[\]]+\][^”」]*[”」]")
EN_CONDITION = re.compile(r"(?:^|[.;:]\s+)(?:If|Unless)\b")
ZH_CONDITION = re.compile(r"(?:^|[。；：])((?:如果|若|除非)[^，。；]{2,60}，)")
ZH_CROSS_REFERENCE = re.compile(r"[（(]参见规则[^）)]{1,40}[）)]|参见规则[^。；（）]{1,40}。")
NUMBERS = data("number_words")
ZH_NUMERAL, EN_NUMBER_WORDS = NUMBERS["zh"], NUMBERS["en_rules"]
ZH_NUMERAL_OF = {value: word for word, value in ZH_NUMERAL.items()} | {10: NUMBERS["zh_ten"]}
ZH_NUMBER_WORD = re.compile(
    rf"(?<![第零一二两三四五六七八九十百千万\d])([{''.join(ZH_NUMERAL)}])"
    rf"(?=[{NUMBERS['zh_classifiers']}])"
)


# --- injection ----------------------------------------------------------------------------


@dataclass
class Candidate:
    """A numbered rule whose two lines (``line``, 1-based, the same in both files) carry the
    same rule number; ``prefix``: that number with its dot and space as on the Chinese line;
    ``standalone``: a blank line (or the file's end) before and after (no example lines)."""

    line: int
    section: str
    prefix: str
    en_body: str
    zh_body: str
    standalone: bool


@dataclass
class Defect:
    line: int
    section: str
    kind: str
    change: dict
    before: str
    after: str | None

    @property
    def expected(self) -> tuple[str, ...]:
        return KINDS[self.kind][1]


@dataclass
class Injection:
    lines: list[str]
    """The defective Chinese file, as lines."""
    original_line: dict[int, int]
    """Line of the defective file -> line of the original file."""
    defects: list[Defect] = field(default_factory=list)


def candidates(en_lines: list[str], zh_lines: list[str]) -> list[Candidate]:
    found = []
    for index, (en, zh) in enumerate(zip(en_lines, zh_lines, strict=False)):
        en_match, zh_match = RULE_LINE.match(en), RULE_LINE.match(zh)
        if not en_match or not zh_match or en_match.group(1) != zh_match.group(1):
            continue
        before = index == 0 or not zh_lines[index - 1].strip()
        after = index + 1 >= len(zh_lines) or not zh_lines[index + 1].strip()
        prefix = zh_match.group(1) + zh_match.group(2) + zh_match.group(3)
        found.append(
            Candidate(index + 1, zh_match[1], prefix, en_match[4], zh_match[4], before and after)
        )
    return found


def mask(text: str, patterns=NOT_NUMBERS) -> str:
    """The text with the matches of the patterns blanked (same length)."""
    for pattern in patterns:
        text = pattern.sub(lambda m: "#" * len(m.group()), text)
    return text


def stated_numbers(english: str) -> set[int]:
    """Numbers an English text states in digits or words (not in a symbol, a power/toughness
    or a rule reference)."""
    masked = mask(english)
    found = {int(m.group()) for m in re.finditer(r"(?<![\w.])\d+(?![\w])", masked)}
    words = re.findall(r"[a-z]+", masked.lower())
    return found | {EN_NUMBER_WORDS[w] for w in words if w in EN_NUMBER_WORDS}


def cut_near_middle(text: str, commas: str, words: bool = False) -> int:
    """Offset just after the comma nearest the middle (within the middle half), else the
    middle itself (at a word start when ``words``)."""
    middle, best = len(text) // 2, None
    for index, char in enumerate(text):
        inside = len(text) // 4 <= index <= 3 * len(text) // 4
        if char in commas and inside and (best is None or abs(index - middle) < abs(best - middle)):
            best = index
    if best is not None:
        return best + 1
    space = text.find(" ", middle) if words else -1
    return space + 1 if space > 0 else middle


def replaced(body: str, match: re.Match, new: str, group: int = 0) -> str:
    return body[: match.start(group)] + new + body[match.end(group) :]


class Injector:
    """One method per kind: (new Chinese body, change record), or None when the rule cannot
    take the defect. ``swaps``: concept -> the forbidden Chinese forms that are its
    confusables; ``english``: each swappable concept's English forms, found by a plain search
    (not the checks' term finder, so that tuning the checks does not move the gold list)."""

    def __init__(self, termbase, rng: random.Random) -> None:
        self.termbase, self.rng, self.swaps, self.english = termbase, rng, {}, {}
        for concept in termbase.concepts:
            forbidden = [f for t in termbase.terms(concept, "zh", "forbidden") for f in t.forms]
            if forbidden and termbase.terms(concept, "zh", "approved"):
                self.swaps[concept] = forbidden
        for concept in self.swaps:
            terms = termbase.terms(concept, "en")
            terms = [t for t in terms if t.status in ("approved", "admitted")]
            forms = [form for t in terms for form in sorted(t.forms, key=len, reverse=True)]
            alternatives = "|".join(map(re.escape, forms))
            self.english[concept] = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.I)

    def swap_hits(self, c: Candidate):
        named = {concept for concept, found in self.english.items() if found.search(c.en_body)}
        hits = [h for h in self.termbase.find(c.zh_body, "zh") if h.status == "approved"]
        # A one-character form (抓) is part of a longer word: left alone.
        return [
            h for h in hits if h.concept in self.swaps and h.concept in named and len(h.form) > 1
        ]

    def term_swap(self, c: Candidate, concept: str):
        options = [(hit, wrong) for hit in self.swap_hits(c) for wrong in self.swaps[hit.concept]]
        hit, wrong = self.rng.choice([o for o in options if o[0].concept == concept])
        body = c.zh_body[: hit.start] + wrong + c.zh_body[hit.end :]
        return body, {"concept": hit.concept, "from": hit.form, "to": wrong, "at": hit.start}

    def english_full(self, c: Candidate):
        if len(c.en_body.split()) >= 4:
            return c.en_body, {"from": c.zh_body, "to": c.en_body, "prefix": "english"}
        return None

    def english_half(self, c: Candidate):
        if len(c.en_body.split()) < 12 or len(c.zh_body) < 16:
            return None
        head = c.zh_body[: cut_near_middle(c.zh_body, "，；")]
        tail = c.en_body[cut_near_middle(c.en_body, ",;", words=True) :].lstrip()
        return head + tail, {"kept": head, "english": tail}

    def drop(self, c: Candidate, pattern: re.Pattern[str], kind: str):
        en_tokens = Counter(m.group() for m in pattern.finditer(c.en_body))
        matches = [m for m in pattern.finditer(c.zh_body) if en_tokens[m.group()] and m.group()]
        if not matches:
            return None
        match = self.rng.choice(matches)
        return replaced(c.zh_body, match, ""), {
            "removed": match[0],
            "kind": kind,
            "at": match.start(),
        }

    def drop_symbol(self, c: Candidate):
        return self.drop(c, SYMBOL, "symbol")

    def drop_pt(self, c: Candidate):
        return self.drop(c, PT_MODIFIER, "pt-modifier")

    def drop_ref(self, c: Candidate):
        return self.drop(c, RULE_REFERENCE, "rule-reference")

    def number_digit(self, c: Candidate):
        stated = stated_numbers(c.en_body)
        options = [m for m in DIGITS.finditer(mask(c.zh_body)) if 100 > int(m.group()) in stated]
        if not options:
            return None
        match = self.rng.choice(options)
        new = str(int(match.group()) + 1)
        return replaced(c.zh_body, match, new), {"from": match[0], "to": new, "at": match.start()}

    def number_word(self, c: Candidate):
        stated = stated_numbers(c.en_body)
        options = [m for m in ZH_NUMBER_WORD.finditer(c.zh_body) if ZH_NUMERAL[m[1]] in stated]
        if not options:
            return None
        match = self.rng.choice(options)
        new = ZH_NUMERAL_OF[ZH_NUMERAL[match[1]] + 1]
        change = {"from": match[1], "to": new, "at": match.start()}
        return replaced(c.zh_body, match, new, 1), change

    def truncate(self, c: Candidate):
        if len(c.zh_body) < 20:
            return None
        cut = len(c.zh_body) // 2
        while cut > 1 and not c.zh_body[cut - 1].isalnum():
            cut -= 1
        return c.zh_body[:cut] + "…", {"kept_chars": cut, "of_chars": len(c.zh_body)}

    def delete(self, c: Candidate):
        return (None, {"removed": c.zh_body}) if c.standalone else None

    def template_dropped(self, c: Candidate):
        """One of two or more quoted templates with a bracketed variable, with what joins it
        to the others (、 或 以及 和 及)."""
        if len(EN_TEMPLATE.findall(c.en_body)) < 2:
            return None
        quoted = list(ZH_TEMPLATE.finditer(c.zh_body))
        if len(quoted) < 2:
            return None
        match = self.rng.choice(quoted[1:])
        return replaced(c.zh_body, match, ""), {"removed": match.group(), "at": match.start()}

    def condition_dropped(self, c: Candidate):
        """A condition clause that opens a Chinese sentence (如果…，, 若…，) where the English
        opens one with If, and the 则 that answers it."""
        if not EN_CONDITION.search(c.en_body):
            return None
        options = list(ZH_CONDITION.finditer(c.zh_body))
        if not options:
            return None
        match = self.rng.choice(options)
        body = c.zh_body[: match.start(1)] + c.zh_body[match.end(1) :]
        body = body[: match.start(1)] + re.sub(r"^则", "", body[match.start(1) :])
        return body, {"removed": match.group(1), "at": match.start(1)}

    def variable_dropped(self, c: Candidate):
        """A bracketed variable ([特性], [费用]) where the English has one (the Chinese writes
        its own words in the brackets)."""
        options = list(VARIABLE.finditer(c.zh_body)) if VARIABLE.search(c.en_body) else []
        if not options:
            return None
        match = self.rng.choice(options)
        return replaced(c.zh_body, match, ""), {"removed": match.group(), "at": match.start()}

    def cross_reference_dropped(self, c: Candidate):
        """A cross-reference in parentheses (（参见规则702.19）) or as a sentence (参见规则
        704。)."""
        options = list(ZH_CROSS_REFERENCE.finditer(c.zh_body))
        if not options or not re.search(r"\b(?:see|See) rules?\b", c.en_body):
            return None
        match = self.rng.choice(options)
        return replaced(c.zh_body, match, ""), {"removed": match.group(), "at": match.start()}


def round_robin(order: list[Candidate], injector: Injector, count: int, rng: random.Random):
    """Rules for term swaps, taking the concepts in turn (in a seeded order), so that the
    frequent 牌手 (player) does not take them all."""
    by_concept: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in order:
        for concept in sorted({hit.concept for hit in injector.swap_hits(candidate)}):
            by_concept[concept].append(candidate)
    concepts = sorted(by_concept)
    rng.shuffle(concepts)
    taken: set[int] = set()
    chosen = []
    while len(chosen) < count and any(by_concept.values()):
        for concept in concepts:
            queue = by_concept[concept]
            while queue and queue[0].line in taken:
                queue.pop(0)
            if queue and len(chosen) < count:
                candidate = queue.pop(0)
                taken.add(candidate.line)
                chosen.append((candidate, concept))
    return chosen


def inject(en_lines: list[str], zh_lines: list[str], termbase, seed: int, per_type: int):
    """The defective Chinese file and its gold list (``Injection``)."""
    rng = random.Random(seed)
    injector = Injector(termbase, rng)
    pool = candidates(en_lines, zh_lines)
    changes: dict[int, tuple[str, str | None, dict]] = {}
    for kind in KINDS:
        order = list(pool)
        rng.shuffle(order)
        if kind == "term-swap":
            for candidate, concept in round_robin(order, injector, per_type, rng):
                changes[candidate.line] = (kind, *injector.term_swap(candidate, concept))
            continue
        method, taken = getattr(injector, kind.replace("-", "_")), 0
        for candidate in order:
            if taken >= per_type:
                break
            result = None if candidate.line in changes else method(candidate)
            if result is not None:
                changes[candidate.line] = (kind, *result)
                taken += 1
    by_line = {c.line: c for c in pool}
    injection, skip_blank = Injection([], {}), False
    for number, line in enumerate(zh_lines, start=1):
        if skip_blank:
            skip_blank = False
            if not line.strip():
                continue
        if number in changes:
            kind, body, change = changes[number]
            candidate = by_line[number]
            after = None if kind == "delete" else candidate.prefix + body
            after = en_lines[number - 1] if kind == "english-full" else after
            skip_blank = kind == "delete"
            injection.defects.append(Defect(number, candidate.section, kind, change, line, after))
            if after is None:
                continue
            line = after
        injection.lines.append(line)
        injection.original_line[len(injection.lines)] = number
    return injection


# --- the defective pair as translation units ----------------------------------------------


def cat_units(en_lines: list[str], zh_lines: list[str], injection: Injection) -> list[dict]:
    """One unit per line that has text in both files: id (the rule number, else L<line>),
    original line, source and (defective) target without the rule number."""
    defective = {orig: injection.lines[line - 1] for line, orig in injection.original_line.items()}
    seen: Counter[str] = Counter()
    found = []
    for number, (en, zh) in enumerate(zip(en_lines, zh_lines, strict=False), 1):
        if not en.strip() or not zh.strip():
            continue
        match = RULE_LINE.match(en.strip())
        key = match.group(1) if match else f"L{number}"
        seen[key] += 1
        target = defective.get(number, "")
        if match and (target_match := RULE_LINE.match(target.strip())):
            target = target_match.group(4)
        source = match.group(4) if match else en.strip()
        unit_id = key if seen[key] == 1 else f"L{number}"
        found.append({"id": unit_id, "line": number, "source": source, "target": target.strip()})
    return found


def add_code_defects(units: list[dict], gold: set[int], count: int, seed: int) -> list[dict]:
    """``count`` units outside the gold list whose source ends with a footnote code the
    target lacks (the XLIFF form only)."""
    rng = random.Random(seed + 1)
    pool = [u for u in units if u["line"] not in gold and RULE_LINE.match(u["id"] + " x")]
    chosen = sorted(rng.sample(pool, min(count, len(pool))), key=lambda u: u["line"])
    for unit in chosen:
        unit["code"] = True
    return [{"line": unit["line"], "kind": CODE_KIND} for unit in chosen]


def write_xliff(units: list[dict], path: Path) -> None:
    from lxml import etree

    ns = "urn:oasis:names:tc:xliff:document:1.2"
    root = etree.Element(f"{{{ns}}}xliff", nsmap={None: ns}, version="1.2")
    original = "MagicCompRules_20231013.docx"
    file = etree.SubElement(root, f"{{{ns}}}file", original=original, datatype="plaintext")
    file.set("source-language", "en-US")
    file.set("target-language", "zh-CN")
    body = etree.SubElement(file, f"{{{ns}}}body")
    for unit in units:
        element = etree.SubElement(body, f"{{{ns}}}trans-unit", id=unit["id"])
        source = etree.SubElement(element, f"{{{ns}}}source")
        source.text = unit["source"]
        if unit.get("code"):
            etree.SubElement(source, f"{{{ns}}}x", id="fn1")
        if unit["target"]:
            etree.SubElement(element, f"{{{ns}}}target", state="translated").text = unit["target"]
    etree.indent(root, space=" ")
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))


def write_xliff2(units: list[dict], path: Path) -> None:
    """The units as XLIFF 2.0: a ``<unit>`` of one reviewed ``<segment>`` each (the footnote
    code a ``<ph id="fn1"/>``), a deleted rule a segment without target."""
    from lxml import etree

    ns = "urn:oasis:names:tc:xliff:document:2.0"
    root = etree.Element(f"{{{ns}}}xliff", nsmap={None: ns}, version="2.0")
    root.set("srcLang", "en-US")
    root.set("trgLang", "zh-CN")
    file = etree.SubElement(root, f"{{{ns}}}file", id="f1", original="MagicCompRules_20231013.docx")
    for unit in units:
        element = etree.SubElement(file, f"{{{ns}}}unit", id=unit["id"])
        segment = etree.SubElement(element, f"{{{ns}}}segment", id="s1")
        source = etree.SubElement(segment, f"{{{ns}}}source")
        source.text = unit["source"]
        if unit.get("code"):
            etree.SubElement(source, f"{{{ns}}}ph", id="fn1")
        if unit["target"]:
            segment.set("state", "reviewed")
            etree.SubElement(segment, f"{{{ns}}}target").text = unit["target"]
    etree.indent(root, space=" ")
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
