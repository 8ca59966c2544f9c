"""Checklists: rules a team writes itself, in its project file or in files of their own (TOML,
or an Xbench-like TSV), that run with the built-in checks.

A rule has a code of the team's (``X-…``), a category, a severity, a message, the
languages it is for (all when none) and one test, of one of the kinds in ``RULE_KINDS``:

- ``source`` + ``target``: wherever the source matches the ``source`` pattern, the
  translation must match the ``target`` pattern, in which ``\\1`` or ``\\g<name>`` stand for
  what the source's groups matched (``(\\d+) cards?`` -> ``\\1 cartas?``);
- ``target-not`` (with or without ``source``): the translation must not match it (when the
  source matches ``source``, if given; back-references as above);
- ``if-source`` + ``then-target``: when the source holds one of the ``if-source`` words or
  phrases, the translation must hold one of the ``then-target`` ones;
- ``words`` (or ``words-file``, a TSV of ``wrong	right``): words the translation must not
  use, each with the word to use instead.

Patterns are Python regular expressions, in any case unless ``case-sensitive = true``;
words and phrases match whole words in any case. A checklist file may ``extends`` others
(paths relative to it): their rules come first, a rule of the same code replaces an
inherited one, and ``disable`` drops inherited codes. Every mistake is found when the
checklists are read, before any work, as one line naming the file, the rule and the key.
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from .catalogue import CHECK, Code
from .memo import digest
from .model import CATEGORIES, SEVERITIES
from .registry import Registry
from .vocabulary import Category, Severity

CODE = re.compile(r"X-[A-Z0-9][A-Z0-9_-]*")
TSV_COLUMNS = ("code", "category", "severity", "languages", "source", "target", "message")
TSV_REQUIRED = ("code", "category", "severity", "target", "message")
COMMON_KEYS = ("code", "category", "severity", "message", "languages", "case-sensitive")
OPTIONAL_KEYS = ("description",)
FILE_KEYS = ("extends", "disable", "rule")
BACK_REFERENCE = re.compile(r"\\(?:(\d{1,2})|g<([^>]*)>|(.))", re.DOTALL)
LANGUAGE_CODE = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]+)*")
PLACEHOLDER = re.compile(r"\{(match|expected|found)\}")
WORD = "A-Za-z0-9_\u00c0-\u024f"


class ChecklistError(ValueError):
    """Mistakes in checklists: one line each, naming the file, the rule and the key."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = lines


@dataclass(frozen=True)
class Rule:
    code: str
    category: str
    severity: str
    message: str
    kind: str
    languages: tuple[str, ...] = ()
    source: str | None = None
    target: str | None = None
    target_not: str | None = None
    if_source: tuple[str, ...] = ()
    then_target: tuple[str, ...] = ()
    words: tuple[tuple[str, str], ...] = ()
    case_sensitive: bool = False
    description: str = ""
    origin: str = field(default="", compare=False)
    """Where the rule was written (file), for messages and ``rulings config``."""

    @property
    def reads_source(self) -> bool:
        """Whether the rule compares the translation with its source (a pair check)."""
        return self.source is not None or bool(self.if_source)

    def applies_to(self, lang: str) -> bool:
        if not self.languages:
            return True
        return lang in self._languages or lang.partition("-")[0] in self._languages

    @cached_property
    def _languages(self) -> frozenset[str]:
        return frozenset(self.languages)

    @cached_property
    def test(self) -> Test:
        """The function of the rule's kind of test (looked up once: a rule is called on
        every translation)."""
        return RULE_KINDS[self.kind].target

    @cached_property
    def wrong_words(self) -> tuple[re.Pattern[str], dict[str, str]] | None:
        """The words of a word-list rule as one pattern, and each word's right one."""
        if not self.words:
            return None
        by_word = {_folded(wrong, self.case_sensitive): right for wrong, right in self.words}
        longest = sorted({wrong for wrong, _ in self.words}, key=lambda w: (-len(w), w))
        body = "|".join(r"\s+".join(map(re.escape, wrong.split())) for wrong in longest)
        return re.compile(rf"(?<![{WORD}])(?:{body})(?![{WORD}])", self.flags), by_word

    @property
    def flags(self) -> int:
        return 0 if self.case_sensitive else re.IGNORECASE

    def catalogue_row(self) -> Code:
        """The rule as a catalogue row: its summary and details make up its ``explanation``
        (what every writer describes the code with)."""
        summary = " ".join(PLACEHOLDER.sub("…", self.message).split())
        return Code(
            self.code,
            Category(self.category),
            Severity(self.severity),
            CHECK,
            summary if summary.endswith(".") else summary + ".",
            details=self._details(),
        )

    def explanation(self) -> str:
        """What ``rulings rules`` says about the rule: its message, description and test."""
        row = self.catalogue_row()
        return f"{row.summary} {row.details}"

    def _details(self) -> str:
        """The rule's description and test, and where it was written."""
        tests = {
            "pattern": f"where the source matches /{self.source}/, the translation must match "
            f"/{self.target}/",
            "forbidden": (f"where the source matches /{self.source}/, " if self.source else "")
            + f"the translation must not match /{self.target_not}/",
            "requires": f"when the source holds {' or '.join(map(repr, self.if_source))}, the "
            f"translation must hold {' or '.join(map(repr, self.then_target))}",
            "words": "the translation must not use "
            + ", ".join(f"{wrong!r} (use {right!r})" for wrong, right in self.words),
        }
        langs = f" ({', '.join(self.languages)})" if self.languages else ""
        parts = [self.description, f"Team rule{langs}: "]
        return " ".join(p for p in parts if p) + tests[self.kind] + f". From {self.origin}."


@dataclass(frozen=True)
class Checklist:
    rules: tuple[Rule, ...] = ()
    sources: tuple[str, ...] = field(default=(), compare=False)

    def __bool__(self) -> bool:
        return bool(self.rules)

    def codes(self) -> dict[str, Code]:
        return {rule.code: rule.catalogue_row() for rule in self.rules}

    def digest(self) -> str:
        """The rules' content, for cache keys ("" when there are none)."""
        if not self.rules:
            return ""
        return digest(
            json.dumps({k: v for k, v in asdict(rule).items() if k != "origin"}, sort_keys=True)
            for rule in self.rules
        )


# --- the kinds of test ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hit:
    """Where a rule's test failed on one translation."""

    fields: dict[str, str]
    """What the message's {match}, {expected} and {found} say."""
    evidence: dict[str, Any]
    source_span: tuple[int, int] | None = None
    target_span: tuple[int, int] | None = None


Test = Callable[[Rule, str | None, str], Iterator[Hit]]
RULE_KINDS: Registry[Test] = Registry("checklist rule kind")


def rule_kind(name: str, *, keys: tuple[str, ...], optional: tuple[str, ...] = ()):
    """Register a kind of test: ``keys`` it requires, ``optional`` keys it also takes."""
    return RULE_KINDS.register(name, keys=keys, optional=optional)


def _substituted(template: str, match: re.Match[str] | None) -> str:
    """``template`` with each back-reference replaced by what the source's group matched
    (escaped: it is matched literally), other escapes kept."""

    def replace(found: re.Match[str]) -> str:
        number, name, other = found.groups()
        if other is not None:
            return found.group()
        value = (match.group(int(number) if number else name) if match else None) or ""
        return re.escape(value)

    return BACK_REFERENCE.sub(replace, template)


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    return re.compile(pattern, flags)


def _expected_patterns(rule: Rule, template: str, source: str | None) -> list[tuple[str, Any]]:
    """The target patterns a source calls for, with the source match each comes from (one
    per distinct pattern): the template alone when the rule has no source pattern."""
    if rule.source is None:
        return [(template, None)]
    found: dict[str, Any] = {}
    for match in _compiled(rule.source, rule.flags).finditer(source or ""):
        found.setdefault(_substituted(template, match), match)
    return list(found.items())


@rule_kind("pattern", keys=("source", "target"))
def pattern_test(rule: Rule, source: str | None, target: str) -> Iterator[Hit]:
    for expected, match in _expected_patterns(rule, rule.target or "", source):
        if _compiled(expected, rule.flags).search(target):
            continue
        yield Hit(
            {"match": match.group(), "expected": _readable(expected), "found": ""},
            {"rule": rule.code, "source_match": match.group(), "expected": expected},
            source_span=match.span(),
        )


@rule_kind("forbidden", keys=("target-not",), optional=("source",))
def forbidden_test(rule: Rule, source: str | None, target: str) -> Iterator[Hit]:
    for pattern, match in _expected_patterns(rule, rule.target_not or "", source):
        for found in _compiled(pattern, rule.flags).finditer(target):
            if found.end() == found.start():
                continue
            evidence = {"rule": rule.code, "forbidden": pattern, "found": found.group()}
            if match is not None:
                evidence["source_match"] = match.group()
            yield Hit(
                {"match": match.group() if match else "", "expected": "", "found": found.group()},
                evidence,
                source_span=match.span() if match else None,
                target_span=found.span(),
            )


@rule_kind("requires", keys=("if-source", "then-target"))
def requires_test(rule: Rule, source: str | None, target: str) -> Iterator[Hit]:
    flags = rule.flags
    cue = next(
        (m for phrase in rule.if_source if (m := _phrase(phrase, flags).search(source or ""))),
        None,
    )
    if cue is None or any(_phrase(phrase, flags).search(target) for phrase in rule.then_target):
        return
    yield Hit(
        {"match": cue.group(), "expected": " / ".join(rule.then_target), "found": ""},
        {"rule": rule.code, "source_match": cue.group(), "expected": list(rule.then_target)},
        source_span=cue.span(),
    )


@rule_kind("words", keys=("words",))
def words_test(rule: Rule, source: str | None, target: str) -> Iterator[Hit]:
    pattern, right_of = rule.wrong_words
    for found in pattern.finditer(target):
        right = right_of.get(_folded(found.group(), rule.case_sensitive)) or next(
            right
            for wrong, right in rule.words
            if _phrase(wrong, rule.flags).fullmatch(found.group())
        )
        yield Hit(
            {"match": "", "expected": right, "found": found.group()},
            {"rule": rule.code, "found": found.group(), "expected": right},
            target_span=found.span(),
        )


def _folded(words: str, case_sensitive: bool) -> str:
    joined = " ".join(words.split())
    return joined if case_sensitive else joined.casefold()


@functools.lru_cache(maxsize=4096)
def _phrase(phrase: str, flags: int) -> re.Pattern[str]:
    """A word or phrase as whole words (next to a Han character is a word's edge: Chinese
    is written without spaces)."""
    body = r"\s+".join(map(re.escape, phrase.split()))
    return re.compile(rf"(?<![{WORD}]){body}(?![{WORD}])", flags)


def _readable(pattern: str) -> str:
    """A substituted pattern as a translator reads it (``3\\ cartas?`` -> ``3 cartas?``)."""
    return re.sub(r"\\(.)", r"\1", pattern)


def hits(rule: Rule, source: str | None, target: str) -> Iterator[Hit]:
    return rule.test(rule, source, target)


def message(rule: Rule, hit: Hit) -> str:
    return PLACEHOLDER.sub(lambda m: hit.fields.get(m.group(1), ""), rule.message)


# --- reading -------------------------------------------------------------------------------


def load_checklists(
    paths: list[Path], inline: list[Any] | None = None, inline_origin: str = ""
) -> Checklist:
    """The rules of the checklist files (in order) and of the project file's own ``rule``
    list; a later rule of the same code replaces an earlier one. ChecklistError lists every
    mistake."""
    problems: list[str] = []
    rules: dict[str, Rule] = {}
    for path in paths:
        for rule in _read_file(Path(path), problems, ()):
            rules[rule.code] = rule
    if inline is not None:
        for rule in _rules_of(inline, inline_origin, "rule", problems, Path(inline_origin).parent):
            rules[rule.code] = rule
    if problems:
        raise ChecklistError(problems)
    return Checklist(tuple(rules.values()), tuple(str(p) for p in paths))


def _read_file(path: Path, problems: list[str], trail: tuple[Path, ...]) -> list[Rule]:
    where = str(path)
    resolved = path.resolve()
    if resolved in trail:
        chain = " -> ".join(str(p) for p in (*trail, resolved))
        problems.append(f"{where}: extends: the checklists extend each other in a loop ({chain})")
        return []
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        problems.append(f"{where}: no such checklist file")
        return []
    except OSError as error:
        problems.append(f"{where}: {error.strerror or error}")
        return []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        problems.append(f"{where}: not UTF-8 text")
        return []
    if path.suffix.lower() in (".tsv", ".txt"):
        return _read_tsv(path, text, problems)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        problems.append(f"{where}: not valid TOML: {error}")
        return []
    for key in document:
        if key not in FILE_KEYS:
            problems.append(f"{where}: {key}: unknown key{_suggest(key, FILE_KEYS)}")
    rules: dict[str, Rule] = {}
    for base in _strings(document.get("extends", []), where, "extends", problems):
        for rule in _read_file(path.parent / base, problems, (*trail, resolved)):
            rules[rule.code] = rule
    for code in _strings(document.get("disable", []), where, "disable", problems):
        if code not in rules:
            problems.append(f"{where}: disable: {code!r} is no rule of the checklists it extends")
        rules.pop(code, None)
    for rule in _rules_of(document.get("rule", []), where, "rule", problems, path.parent):
        rules[rule.code] = rule
    return list(rules.values())


def _rules_of(
    items: Any, where: str, key: str, problems: list[str], folder: Path
) -> Iterator[Rule]:
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        problems.append(f"{where}: {key}: must be a list of tables ([[{key}]])")
        return
    seen: set[str] = set()
    for number, item in enumerate(items, 1):
        rule = _rule(item, where, f"{key} {number}", problems, folder)
        if rule is None:
            continue
        if rule.code in seen:
            problems.append(f"{where}: rule {rule.code}: the code is used by two rules")
            continue
        seen.add(rule.code)
        yield rule


def _rule(item: dict, where: str, label: str, problems: list[str], folder: Path) -> Rule | None:
    count = len(problems)
    code = item.get("code")
    if not isinstance(code, str) or not CODE.fullmatch(code):
        problems.append(
            f"{where}: {label}: code: must be a code of the team's, X- then capitals, digits "
            f"or - (X-CARDS), not {code!r}"
        )
        code = None
    else:
        label = f"rule {code}"
    kind_keys = {
        key
        for entry in RULE_KINDS
        for key in (*entry.meta["keys"], *entry.meta["optional"], "words-file")
    }
    known = (*COMMON_KEYS, *OPTIONAL_KEYS, *sorted(kind_keys))
    for key in item:
        if key not in known:
            problems.append(f"{where}: {label}: {key}: unknown key{_suggest(key, known)}")
    category = item.get("category")
    if category not in CATEGORIES:
        problems.append(
            f"{where}: {label}: category: {category!r} is no category; "
            f"one of {', '.join(CATEGORIES)}"
        )
    severity = item.get("severity", "warning")
    if severity not in SEVERITIES:
        problems.append(
            f"{where}: {label}: severity: {severity!r} is no severity; "
            f"one of {', '.join(SEVERITIES)}"
        )
    text = item.get("message")
    if not isinstance(text, str) or not text.strip():
        problems.append(f"{where}: {label}: message: a rule needs a message for the translator")
    languages = _strings(item.get("languages", []), where, f"{label}: languages", problems)
    for lang in languages:
        if not LANGUAGE_CODE.fullmatch(lang):
            problems.append(f"{where}: {label}: languages: {lang!r} is no language code")
    case_sensitive = item.get("case-sensitive", False)
    if not isinstance(case_sensitive, bool):
        problems.append(f"{where}: {label}: case-sensitive: must be true or false")
        case_sensitive = False
    if "words-file" in item:
        words_file = item["words-file"]
        if "words" in item:
            problems.append(f"{where}: {label}: words-file: give words or words-file, not both")
        elif isinstance(words_file, str):
            item = {**item, "words": _words_file(folder / words_file, where, label, problems)}
        else:
            problems.append(f"{where}: {label}: words-file: must be a path (a string)")
    kind = _kind(item, where, label, problems)
    fields: dict[str, Any] = {}
    if kind is not None:
        fields = _test_fields(item, kind, where, label, problems, case_sensitive)
    if len(problems) > count or code is None or kind is None:
        return None
    return Rule(
        code=code,
        category=category,
        severity=severity,
        message=" ".join(text.split()),
        kind=kind,
        languages=tuple(languages),
        case_sensitive=case_sensitive,
        description=" ".join(str(item.get("description", "")).split()),
        origin=where,
        **fields,
    )


def _kind(item: dict, where: str, label: str, problems: list[str]) -> str | None:
    """The one kind of test whose keys the rule has."""
    present = set(item)
    tests = present & {key for entry in RULE_KINDS for key in entry.meta["keys"]} - {"source"}
    for entry in RULE_KINDS:
        keys, optional = set(entry.meta["keys"]), set(entry.meta["optional"])
        if tests != keys - {"source"}:
            continue
        for key in sorted(keys - present):
            problems.append(f"{where}: {label}: {key}: a {entry.name} rule needs it")
        if "source" in present and "source" not in keys | optional:
            problems.append(f"{where}: {label}: source: a {entry.name} rule reads no source")
        return None if keys - present else entry.name
    kinds = "; ".join(" + ".join(entry.meta["keys"]) for entry in RULE_KINDS)
    found = ", ".join(sorted(tests)) or "none"
    problems.append(f"{where}: {label}: a rule needs one test ({kinds}); it has: {found}")
    return None


def _test_fields(
    item: dict, kind: str, where: str, label: str, problems: list[str], case_sensitive: bool
) -> dict[str, Any]:
    flags = 0 if case_sensitive else re.IGNORECASE
    fields: dict[str, Any] = {}
    source_pattern = None
    if "source" in item:
        source_pattern = _pattern(item["source"], where, f"{label}: source", problems, flags)
        fields["source"] = item["source"] if source_pattern else None
    for key, name in (("target", "target"), ("target-not", "target_not")):
        if key in item:
            value = item[key]
            if _template(value, source_pattern, where, f"{label}: {key}", problems, flags):
                fields[name] = value
    for key, name in (("if-source", "if_source"), ("then-target", "then_target")):
        if key in item:
            phrases = _strings(item[key], where, f"{label}: {key}", problems)
            if not phrases or not all(p.strip() for p in phrases):
                problems.append(f"{where}: {label}: {key}: needs at least one word or phrase")
            fields[name] = tuple(" ".join(p.split()) for p in phrases)
    if kind == "words":
        words = item["words"]
        if isinstance(words, dict) and words and all(isinstance(v, str) for v in words.values()):
            fields["words"] = tuple((" ".join(w.split()), r) for w, r in words.items())
        elif isinstance(words, tuple):  # read from words-file
            fields["words"] = words
        else:
            problems.append(f'{where}: {label}: words: must be a table of wrong = "right" words')
    return fields


def _pattern(
    value: Any, where: str, label: str, problems: list[str], flags: int
) -> re.Pattern[str] | None:
    if not isinstance(value, str) or not value:
        problems.append(f"{where}: {label}: must be a regular expression (a string)")
        return None
    try:
        return re.compile(value, flags)
    except re.error as error:
        problems.append(f"{where}: {label}: not a regular expression: {error} in {value!r}")
        return None


def _template(
    value: Any,
    source: re.Pattern[str] | None,
    where: str,
    label: str,
    problems: list[str],
    flags: int,
) -> bool:
    """Whether a target pattern is usable: its back-references name groups of the source
    pattern, and it compiles with them filled in."""
    if not isinstance(value, str) or not value:
        problems.append(f"{where}: {label}: must be a regular expression (a string)")
        return False
    ok = True
    for found in BACK_REFERENCE.finditer(value):
        number, name, _ = found.groups()
        if number is None and name is None:
            continue
        if source is None:
            problems.append(
                f"{where}: {label}: {found.group()} refers to the source pattern, and the rule "
                "has none (or it is broken)"
            )
            return False
        if number is not None and not 0 < int(number) <= source.groups:
            problems.append(
                f"{where}: {label}: {found.group()} refers to group {number}; the source "
                f"pattern has {source.groups} group(s)"
            )
            ok = False
        if name is not None and name not in source.groupindex:
            problems.append(
                f"{where}: {label}: {found.group()}: the source pattern has no group {name!r}"
            )
            ok = False
    if not ok:
        return False
    filled = BACK_REFERENCE.sub(lambda m: "x" if m.group(3) is None else m.group(), value)
    try:
        re.compile(filled, flags)
    except re.error as error:
        problems.append(f"{where}: {label}: not a regular expression: {error} in {value!r}")
        return False
    return True


def _words_file(path: Path, where: str, label: str, problems: list[str]) -> tuple:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        reason = "no such file" if isinstance(error, FileNotFoundError) else "unreadable"
        problems.append(f"{where}: {label}: words-file: {path}: {reason}")
        return ()
    words = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = [cell.strip() for cell in line.split("\t")]
        if len(cells) < 2 or not cells[0] or not cells[1]:
            problems.append(f"{path}:{number}: a line needs a wrong word, a tab and the right one")
            continue
        words.append((" ".join(cells[0].split()), cells[1]))
    return tuple(words)


def _read_tsv(path: Path, text: str, problems: list[str]) -> list[Rule]:
    """An Xbench-like checklist: one rule per line; a target starting with ``-`` is one the
    translation must not have (Xbench's ``-term``)."""
    where = str(path)
    lines = [
        (number, line)
        for number, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.startswith("#")
    ]
    if not lines:
        problems.append(f"{where}: empty: no header ({chr(9).join(TSV_COLUMNS)})")
        return []
    header = [cell.strip().lower() for cell in lines[0][1].split("\t")]
    unknown = [name for name in header if name not in TSV_COLUMNS]
    missing = [name for name in TSV_REQUIRED if name not in header]
    if unknown or missing:
        for name in unknown:
            problems.append(
                f"{where}:{lines[0][0]}: {name}: unknown column{_suggest(name, TSV_COLUMNS)}"
            )
        for name in missing:
            problems.append(f"{where}:{lines[0][0]}: the header lacks the column {name}")
        return []
    rules: list[Rule] = []
    seen: set[str] = set()
    for number, line in lines[1:]:
        cells = line.split("\t")
        if len(cells) > len(header):
            problems.append(f"{where}:{number}: {len(cells)} cells, the header has {len(header)}")
            continue
        row = dict(zip(header, (cell.strip() for cell in cells), strict=False))
        item: dict[str, Any] = {
            key: row[key] for key in ("code", "category", "severity", "message") if row.get(key)
        }
        if row.get("languages"):
            item["languages"] = [lang.strip() for lang in row["languages"].split(",")]
        if row.get("source"):
            item["source"] = row["source"]
        target = row.get("target", "")
        if target.startswith("-"):
            item["target-not"] = target[1:]
        elif target:
            item["target"] = target
        rule = _rule(item, f"{where}:{number}", "rule", problems, path.parent)
        if rule is not None:
            if rule.code in seen:
                problems.append(
                    f"{where}:{number}: rule {rule.code}: the code is used by two rules"
                )
                continue
            seen.add(rule.code)
            rules.append(rule)
    return rules


def _strings(value: Any, where: str, key: str, problems: list[str]) -> list[str]:
    """A string or a list of strings, as a list."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    problems.append(f"{where}: {key}: must be a string or a list of strings, not {value!r}")
    return []


def _suggest(written: str, known: tuple[str, ...] | list[str]) -> str:
    from difflib import get_close_matches

    close = get_close_matches(written, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(known)})"
