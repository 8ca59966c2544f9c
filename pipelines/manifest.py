"""The run manifest: what the outputs in a folder were made from.

``rulings run`` records a digest of everything a run depends on (the input files' bytes,
the options, the termbase and baseline files, and the package's own code and data) in
``OUT/run-manifest.json``. A rerun with the same digest and all outputs present reuses them
instead of recomputing (``--force`` recomputes anyway): a nightly run where nothing changed
costs the time to read the inputs once.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from . import __version__, fastjson
from .files import file_digest, write_text_atomic
from .ingest.source import RUN_MANIFEST, SourceFile, discover
from .memo import code_digest
from .settings import Settings

MANIFEST = RUN_MANIFEST
VOLATILE = {"engine", "scheduler", "workers", "worker_memory", "cache_dir", "fail_on"}
"""Options that change how a run is computed or how it exits, never what it writes."""


def run_key(
    inputs: list[Path],
    settings: Settings,
    skip: list[Path] = (),
    sources: list[SourceFile] | None = None,
) -> dict[str, Any]:
    """Digests of all that a run's outputs depend on (``sources``: the inputs' files, when
    the run found them already)."""
    if sources is None:
        sources = list(discover(inputs, skip=skip))
    options = {
        name: str(value)
        for name, value in sorted(dataclasses.asdict(settings).items())
        if name not in VOLATILE
    }
    files = [
        *settings.termbases,
        *settings.card_names,
        *([settings.baseline] if settings.baseline else []),
    ]
    return {
        "version": __version__,
        "code": code_digest(),
        "options": options,
        "option_files": {str(path): _file_digest(path) for path in files},
        "inputs": {doc.rel: doc.manifest_digest() for doc in sources},
    }


REPORTS = "reports"
"""The manifest's record of the report files (``report/carried.py``), beside the key."""


def unchanged(out: Path, key: dict[str, Any], outputs: list[str]) -> bool:
    """Whether the outputs in ``out`` were made from exactly this key, and are all there."""
    path = out / MANIFEST
    if not path.is_file() or not all((out / name).exists() for name in outputs):
        return False
    recorded = _read(path)
    recorded.pop(REPORTS, None)
    return recorded == key


def reports(out: Path) -> dict[str, Any]:
    """What the manifest in ``out`` records of its report files (nothing when there is no
    readable manifest)."""
    found = _read(out / MANIFEST).get(REPORTS)
    return found if isinstance(found, dict) else {}


def _read(path: Path) -> dict[str, Any]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def record(out: Path, key: dict[str, Any], report_files: dict[str, Any] | None = None) -> None:
    recorded = {**key, REPORTS: report_files} if report_files else key
    write_text_atomic(out / MANIFEST, fastjson.indented(recorded) + "\n")


def _file_digest(path: Path) -> str:
    try:
        return file_digest(path)
    except OSError as error:
        return f"unreadable: {error.strerror or error}"
