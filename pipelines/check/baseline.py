"""Baselines and waivers: accepted findings, by fingerprint, that later runs do not report.

A baseline file is JSON: ``{"accepted": [{"fingerprint": "...", "code": "...", "note":
"..."}, ...]}`` (what the HTML review page exports and ``rulings check --write-baseline``
writes), or a plain list of fingerprints or of such objects. A plain-text file with one
fingerprint per line (``#`` comments allowed) is accepted too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import Finding

FINGERPRINT = re.compile(r"^[0-9a-f]{16}$")


class BaselineError(Exception):
    """A malformed baseline: the message names the file and line."""


@dataclass
class Baseline:
    path: Path
    accepted: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Baseline:
        try:
            text = path.read_text(encoding="utf-8-sig")
        except OSError as error:
            raise BaselineError(f"{path}: cannot read the baseline ({error.strerror})") from None
        except UnicodeDecodeError:
            raise BaselineError(f"{path}:1: the baseline is not UTF-8 text") from None
        baseline = cls(path)
        if text.lstrip().startswith(("{", "[")):
            baseline._read_json(text)
        else:
            baseline._read_lines(text)
        return baseline

    def _read_json(self, text: str) -> None:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise BaselineError(
                f"{self.path}:{error.lineno}: not valid JSON ({error.msg})"
            ) from None
        entries = data.get("accepted") if isinstance(data, dict) else data
        if not isinstance(entries, list):
            raise BaselineError(f'{self.path}:1: expected an "accepted" list of findings')
        for entry in entries:
            line = _line_of(text, entry)
            if isinstance(entry, str):
                entry = {"fingerprint": entry}
            if not isinstance(entry, dict):
                raise BaselineError(f"{self.path}:{line}: an entry must be an object or a string")
            self._accept(entry, line)

    def _read_lines(self, text: str) -> None:
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if line:
                self._accept({"fingerprint": line}, number)

    def _accept(self, entry: dict[str, Any], line: int) -> None:
        value = entry.get("fingerprint")
        if not isinstance(value, str) or not FINGERPRINT.match(value):
            raise BaselineError(
                f"{self.path}:{line}: {value!r} is not a finding fingerprint (16 hex digits)"
            )
        self.accepted[value] = entry

    def split(self, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
        """(new findings, findings the baseline accepts)."""
        new = [f for f in findings if f.fingerprint not in self.accepted]
        known = [f for f in findings if f.fingerprint in self.accepted]
        return new, known


def _line_of(text: str, value: Any) -> int:
    """The line where a value first appears in the file's text (1 when it cannot be found)."""
    needle = json.dumps(value, ensure_ascii=False) if not isinstance(value, dict) else None
    if isinstance(value, dict) and "fingerprint" in value:
        needle = json.dumps(value["fingerprint"], ensure_ascii=False)
    index = text.find(needle) if needle else -1
    return text.count("\n", 0, index) + 1 if index >= 0 else 1


def write_baseline(path: Path, findings: list[Finding]) -> Path:
    """Accept these findings: write them as a baseline file."""
    entries = [
        {"fingerprint": f.fingerprint, "code": f.code, "file": f.file, "message": f.message}
        for f in sorted(findings, key=lambda f: f.fingerprint)
    ]
    path.write_text(
        json.dumps({"accepted": entries}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    return path
