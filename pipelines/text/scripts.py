"""Letters by script: how much text a string holds, whatever its writing system."""

from __future__ import annotations

import re

HAN_WEIGHT = 3
"""A Han character carries about as much text as three Latin letters (CR en/zh ratio: 3.2)."""

SCRIPTS = {
    "han": re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"),
    "kana": re.compile(r"[\u3040-\u30ff]"),
    "hangul": re.compile(r"[\uac00-\ud7af\u1100-\u11ff]"),
    "latin": re.compile(r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff]"),
}
LETTER = re.compile(r"[^\W\d_]")
CJK_SCRIPTS = ("han", "kana", "hangul")


def script_profile(text: str) -> dict[str, int]:
    """Letters per script (han, kana, hangul, latin, other), counted by regular expressions:
    this runs on every ruling, so no per-character Python loop."""
    counts = {name: len(pattern.findall(text)) for name, pattern in SCRIPTS.items()}
    other = len(LETTER.findall(text)) - sum(counts.values())
    if other > 0:
        counts["other"] = other
    return {name: count for name, count in counts.items() if count}


CJK = re.compile("[" + "".join(SCRIPTS[name].pattern[1:-1] for name in CJK_SCRIPTS) + "]")
"""Any of the CJK scripts' characters (their classes in one)."""
ASCII_LETTER = re.compile(r"[A-Za-z]")


def weighted_letters(text: str) -> int:
    """The letters of a text, a CJK character counting HAN_WEIGHT: the sum of
    ``script_profile`` so weighted, in three passes over the text instead of five (one
    for an ASCII text), since it runs on every unit of every document."""
    if text.isascii():
        return len(ASCII_LETTER.findall(text))
    cjk = len(CJK.findall(text))
    scripts = cjk + len(SCRIPTS["latin"].findall(text))
    return cjk * HAN_WEIGHT + max(scripts, len(LETTER.findall(text))) - cjk
