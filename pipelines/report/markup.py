"""XML written as text, the way lxml (libxml2) writes it: for report files whose tree would
be large (an element per unit), building the tree took most of the writer's time.

libxml2 escapes ``& < >`` and the carriage return in text, and ``& < > "``, tab, line feed
and carriage return in attribute values; it writes an element without content closed in
place (``<seg/>``). The writers that use this compare their bytes with lxml's own
serialization in the tests (``tests/test_report_equivalence.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""A character XML 1.0 cannot hold (lxml refuses it in text and attribute values)."""
NEEDS_ATTRIBUTE_ESCAPE = re.compile('[&<>"\t\n\r]')
NEEDS_TEXT_ESCAPE = re.compile("[&<>\r]")


def text(value: str) -> str:
    """Character data, escaped."""
    if NEEDS_TEXT_ESCAPE.search(value):
        return (
            value.replace("&", "&amp;")
            .replace("<", "&lt;")
            .replace(">", "&gt;")
            .replace("\r", "&#13;")
        )
    return value


def attribute(value: str) -> str:
    """An attribute value, escaped (to go between double quotes)."""
    if NEEDS_ATTRIBUTE_ESCAPE.search(value):
        return (
            value.replace("&", "&amp;")
            .replace("<", "&lt;")
            .replace(">", "&gt;")
            .replace('"', "&quot;")
            .replace("\t", "&#9;")
            .replace("\n", "&#10;")
            .replace("\r", "&#13;")
        )
    return value


def attributes(pairs: Iterable[tuple[str, str]]) -> str:
    """`` name="value"`` for each pair, in order."""
    return "".join(f' {name}="{attribute(value)}"' for name, value in pairs)


def leaf(tag: str, pairs: Iterable[tuple[str, str]], content: str | None) -> str:
    """An element with text only (``content``, not yet escaped): closed in place when it
    has none (``None``), as lxml writes it; an empty text given to lxml (``""``) is written
    ``<tag></tag>``."""
    start = f"<{tag}{attributes(pairs)}"
    if content is None:
        return start + "/>"
    return f"{start}>{text(content)}</{tag}>"


def xml_safe(value: str) -> bool:
    """Whether lxml takes the value as text or as an attribute value."""
    return NOT_XML.search(value) is None
