"""Word diff between two versions of an English text: what a translator must update."""

from __future__ import annotations

import difflib
import re

TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


def word_diff(old: str, new: str) -> list[dict[str, str]]:
    """The change from ``old`` to ``new`` as runs of words: ``{"op": "equal" | "delete" |
    "insert" | "replace", "old": ..., "new": ...}``; joining the ``old`` parts gives ``old``
    and joining the ``new`` parts gives ``new``."""
    a, b = TOKEN.findall(old), TOKEN.findall(new)
    runs = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        runs.append({"op": op, "old": "".join(a[i1:i2]), "new": "".join(b[j1:j2])})
    return runs


def diff_text(runs: list[dict[str, str]]) -> str:
    """A one-line rendering of a word diff: [-removed-]{+added+}."""
    parts = []
    for run in runs:
        if run["op"] == "equal":
            parts.append(run["old"])
            continue
        if run["old"]:
            parts.append(f"[-{run['old']}-]")
        if run["new"]:
            parts.append(f"{{+{run['new']}+}}")
    return "".join(parts)
