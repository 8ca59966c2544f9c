"""Report files carried over from the previous run into the same folder, when what each is
written from did not change.

Each writer declares the run tables it reads (``writer(reads=...)``). A run digests, for
each writer, the run's key (code, options, option files: ``manifest.run_key``) and the bytes
of the stage files of the tables it reads, and records the digest with the digest of the
file written (``run-manifest.json``, ``reports``). The next run into the same folder links
the previous file into its own outputs instead of writing it again when the writer's digest
is the same and the previous file still holds what was written (a file changed by hand is
written again); ``--force`` writes every file. The files are byte-identical to those the
writer would write: a writer is deterministic on the same tables (``report/__init__.py``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..files import file_digest, wrote
from ..memo import digest
from ..tables import ALIGNMENT, CORPUS, FINDINGS, INPUTS, SUPPRESSED
from . import WRITERS

TABLE_FILES = {
    "rulings": CORPUS,
    "alignment": ALIGNMENT,
    "findings": FINDINGS,
    "suppressed": SUPPRESSED,
    "inputs": INPUTS,
}
"""The stage file each table a writer may read (``writer(reads=...)``) is written to."""


def input_digests(tables: Path, names: Iterable[str], run_key: dict[str, Any]) -> dict[str, str]:
    """Each writer's inputs in one digest: the run's key but its input files (the code, the
    options, the termbase and option files) and the bytes of the stage files (in
    ``tables``) of the tables it reads (what it takes of the inputs)."""
    salt = settings_salt(run_key)
    tables_digest: dict[str, str] = {}

    def of(table: str) -> str:
        if table not in tables_digest:
            try:
                tables_digest[table] = file_digest(tables / TABLE_FILES[table])
            except OSError as error:
                tables_digest[table] = f"unreadable: {error.strerror or error}"
        return tables_digest[table]

    return {
        name: digest([salt, name, *(f"{t}:{of(t)}" for t in WRITERS[name].meta["reads"])])
        for name in names
    }


def settings_salt(run_key: dict[str, Any]) -> str:
    """The run's key but its input files, in one digest: the code, the options, the termbase
    and option files."""
    return digest([repr({name: part for name, part in run_key.items() if name != "inputs"})])


def carry(previous: Path, out: Path, inputs: dict[str, str], recorded: dict[str, Any]) -> list[str]:
    """Link (else copy) into ``out`` the files of ``previous`` (the folder the run replaces)
    whose writer's inputs are those it recorded, and whose bytes are what it wrote; the
    writers whose files were carried."""
    carried = []
    for name, inputs_digest in inputs.items():
        entry = recorded.get(name)
        filename = WRITERS[name].meta["filename"]
        source = previous / filename
        same_inputs = isinstance(entry, list) and len(entry) == 2 and entry[0] == inputs_digest
        if not same_inputs or not source.is_file():
            continue
        try:
            if file_digest(source) != entry[1]:
                continue
            _link(source, out / filename)
            wrote(out / filename, entry[1])
        except OSError:
            continue
        carried.append(name)
    return carried


def record(out: Path, inputs: dict[str, str]) -> dict[str, list[str]]:
    """What the manifest records of each report file written as one file: the digest of
    its writer's inputs and of its bytes."""
    recorded = {}
    for name, inputs_digest in inputs.items():
        path = out / WRITERS[name].meta["filename"]
        if path.is_file():
            with contextlib.suppress(OSError):
                recorded[name] = [inputs_digest, file_digest(path)]
    return recorded


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
