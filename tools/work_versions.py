"""The code each kind of unit of work is computed by, digested, against the version it declares.

A work-cache key carries its kind's ``version`` (``pipelines/work.py``), not a digest of the
package: a docstring fix keeps every user's cache. The price is a version to bump when a
change alters what a unit computes. This tool digests the code of each kind (the modules
below, as Python reads them: docstrings, comments and formatting left out) and compares the
digest with the one recorded in ``tests/work_versions.json`` for the kind's version;
``tests/test_work_versions.py`` fails when the code changed and the version did not.

    python tools/work_versions.py            # show each kind: version, code digest, recorded
    python tools/work_versions.py --update   # record today's digests (after bumping a
                                             # version, or after a change that keeps results)
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pipelines"
LOCK = ROOT / "tests" / "work_versions.json"
COMMON = ["model.py", "vocabulary.py", "cards.py", "catalogue.py", "text"]
CODE = {
    "ingest": ["ingest", *COMMON],
    "align": ["align", "thresholds.py", *COMMON],
    "check": ["check", "termbase", "thresholds.py", "checklists.py", "allowlists.py", *COMMON],
}
CODE["check-group"] = CODE["check-pair-keys"] = CODE["check-fact"] = CODE["check"]
CODE["ingest-set"] = CODE["ingest-set-ruled"] = CODE["ingest-passes"] = CODE["ingest"]
CODE["ingest-names-joined"] = CODE["ingest"]
CODE["align-scan"] = CODE["align-versions"] = CODE["align"]
CODE["report-rows"] = CODE["workbook-segments"] = ["report", "tables.py", *COMMON]
CODE["report-diffs"] = ["report/updates.py", "text/diff.py"]
CODE["langid"] = ["ingest/langid.py", "ingest/languages.py", "ingest/identified.py", "text"]
CODE["foreign-language"] = ["ingest/foreign.py", "ingest/langid.py"]
"""The modules (files, or folders with everything in them) under ``pipelines/`` whose code
computes each kind of unit."""


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
        # a string alone as a statement (an attribute's docstring) says nothing either
        if isinstance(body, list):
            node.body = [
                statement
                for statement in node.body
                if not (
                    isinstance(statement, ast.Expr)
                    and isinstance(statement.value, ast.Constant)
                    and isinstance(statement.value.value, str)
                )
            ] or [ast.Pass()]
    return tree


def code_digest(kind: str) -> str:
    """The digest of the code of a kind: each module's syntax tree without docstrings."""
    digest = hashlib.blake2b(digest_size=12)
    files: set[Path] = set()
    for name in CODE[kind]:
        path = PACKAGE / name
        files.update(path.rglob("*.py") if path.is_dir() else [path])
    for path in sorted(files):
        tree = _without_docstrings(ast.parse(path.read_text(encoding="utf-8")))
        digest.update(path.relative_to(PACKAGE).as_posix().encode())
        digest.update(ast.dump(tree, annotate_fields=False).encode())
    return digest.hexdigest()


def declared_versions() -> dict[str, str]:
    sys.path.insert(0, str(ROOT))
    from pipelines import pipeline, stages  # noqa: F401  (declare the kinds)
    from pipelines.work import KINDS

    return {name: kind.version for name, kind in KINDS.items() if name in CODE}


def current() -> dict[str, dict[str, str]]:
    versions = declared_versions()
    return {kind: {"version": versions[kind], "code": code_digest(kind)} for kind in sorted(CODE)}


def recorded() -> dict[str, dict[str, str]]:
    return json.loads(LOCK.read_text(encoding="utf-8")) if LOCK.is_file() else {}


def main(argv: list[str] | None = None) -> int:
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--update", action="store_true", help="record today's digests")
    args = cli.parse_args(argv)
    now, then = current(), recorded()
    for kind, found in now.items():
        was = then.get(kind, {})
        state = "recorded" if found == was else "changed"
        print(f"{kind:<12} version {found['version']:<4} code {found['code']}  {state}")
    if args.update:
        LOCK.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {LOCK}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
