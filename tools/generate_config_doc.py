"""Write docs/configuration.md from the project file's schema: every key (the commands'
options, the keys only a file has), every named threshold, the checklist rules' keys and the
allow lists' columns.

Usage (from the repository root): python tools/generate_config_doc.py
tests/test_docs.py fails when the file is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pipelines import cli
from pipelines.checklists import COMMON_KEYS, OPTIONAL_KEYS, RULE_KINDS, TSV_COLUMNS
from pipelines.project import KEYS, option_key
from pipelines.thresholds import THRESHOLDS

TARGET = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"
KIND_HELP = {
    "pattern": "wherever the source matches `source`, the translation must match `target`; "
    "`\\1`, `\\2` or `\\g<name>` in `target` stand for what the source's groups matched "
    "(taken literally)",
    "forbidden": "the translation must not match `target-not` (with `source`: only where the "
    "source matches it, back-references as above)",
    "requires": "when the source holds one of the `if-source` words or phrases, the "
    "translation must hold one of the `then-target` ones (whole words, any case)",
    "words": 'the translation must not use a word of `words` (a table `wrong = "right"`), '
    "or of `words-file` (a TSV of wrong<TAB>right lines, relative to the checklist)",
}
COMMON_HELP = {
    "code": "the rule's code: `X-` then capitals, digits, `-` or `_` (`X-CARDS`)",
    "category": "one of the finding categories (`rulings rules` lists them)",
    "severity": "`error`, `warning` (the default) or `info`",
    "message": "what the translator reads; `{match}` (the source's match), `{expected}` and "
    "`{found}` are filled in",
    "languages": "the translations' languages it is for (a list; none: every language)",
    "case-sensitive": "`true` to match patterns in their case (default: any case)",
    "description": "more explanation, for `rulings rules CODE`",
}


def _options() -> list[click.Parameter]:
    """Every option of the configured commands, once, in the order `rulings run` has them."""
    seen: dict[str, click.Parameter] = {}
    commands = [cli.main.commands[name] for name in ("run", "ingest", "align", "check")]
    commands += [cli.main.commands[name] for name in ("report", "config")]
    for command in commands:
        for param in command.params:
            key = option_key(param)
            if param.name not in ("config_file", "profile") and key not in seen:
                seen[key] = param
    return list(seen.values())


def _takes(key: str) -> str:
    names = [
        name
        for name, command in sorted(cli.main.commands.items())
        if isinstance(command, cli.ConfiguredCommand)
        and name not in ("config", "rules")
        and any(option_key(p) == key for p in command.params)
    ]
    return ", ".join(names)


def _value(param: click.Parameter) -> str:
    if param.multiple or param.nargs == -1:
        kind = "list of paths" if isinstance(param.type, click.Path) else "list of strings"
        return kind
    if isinstance(param.type, click.Choice):
        return " \\| ".join(f"`{c}`" for c in param.type.choices)
    if isinstance(param, click.Option) and param.is_flag:
        return "true or false"
    if isinstance(param.type, click.types.IntParamType):
        return "whole number"
    return "path" if isinstance(param.type, click.Path) else "string"


def _default(param: click.Parameter) -> str:
    default = param.default
    unset = type(default).__name__ == "Sentinel"  # click's "no default" marker
    if unset or default in (None, (), [], False) or callable(default):
        return "–"
    return f"`{default}`"


def _help(param: click.Parameter) -> str:
    text = getattr(param, "help", None) or ""
    if param.name == "inputs":
        text = "Input files or folders (default: corpus/)."
    return " ".join(text.split()).replace("|", "\\|")


def render() -> str:
    from pipelines.project import declared_thresholds

    declared_thresholds()
    lines = [
        "# Configuration",
        "",
        "Generated from the project file's schema by `tools/generate_config_doc.py` (the "
        "commands' options, `pipelines/project.py`, the named thresholds the checks and the "
        "aligner declare, `pipelines/checklists.py`). A guide with a worked example: "
        "[project-guide.md](project-guide.md).",
        "",
        "A project file is `rulings.toml`, or the `[tool.rulings]` table of a "
        "`pyproject.toml`. `rulings` uses the nearest one in the first input's folder or "
        "above (the current folder's when no input is given), or the one `--config FILE` "
        "names; `--profile NAME` picks one of its profiles. Paths in it are relative to "
        "it. An option given on the command line overrides the file. Every mistake in the "
        "file (or in a checklist or allow list it names) is one line naming the file, the key "
        "and what is wrong, before any work, and the command exits 2. `rulings config` "
        "prints the effective settings and where each comes from.",
        "",
        "## Options",
        "",
        "Every option of the command line, under its own name (without the dashes).",
        "",
        "| key | value | default | commands | what it does |",
        "| --- | --- | --- | --- | --- |",
    ]
    for param in _options():
        key = option_key(param)
        lines.append(
            f"| `{key}` | {_value(param)} | {_default(param)} | {_takes(key) or 'config'} "
            f"| {_help(param)} |"
        )
    lines += [
        "",
        "## Keys only a file has",
        "",
        "| key | value | what it does | example |",
        "| --- | --- | --- | --- |",
    ]
    for key in KEYS:
        example = key.example.replace("\\n", "<br>").replace("|", "\\|")
        kind, text = (value.replace("|", "\\|") for value in (key.kind, key.help))
        lines.append(f"| `{key.name}` | {kind} | {text} | `{example}` |")
    lines += [
        "",
        "## Thresholds",
        "",
        "The numbers the checks and the aligner decide by, under `[thresholds]`. A changed "
        "value is part of the cache keys of the stage that reads it.",
        "",
        "| name | default | range | stage | what it decides |",
        "| --- | --- | --- | --- | --- |",
    ]
    for entry in sorted(THRESHOLDS, key=lambda e: e.name):
        named = entry.target
        low = "" if named.minimum is None else f"{named.minimum:g}"
        high = "" if named.maximum is None else f"{named.maximum:g}"
        span = (
            f"{low} … {high}"
            if low and high
            else f"≥ {low}"
            if low
            else f"≤ {high}"
            if high
            else "any"
        )
        if named.integer:
            span += ", whole"
        lines.append(
            f"| `{named.name}` | {named.default!r} | {span} | {named.stage} | {named.doc} |"
        )
    lines += [
        "",
        "## Checklists",
        "",
        "A team's own rules, in a checklist file the project file names (`checklists`) or in "
        "the project file itself (`[[rule]]`). A checklist file is TOML with `[[rule]]` "
        "tables, `extends` (a path or a list: checklists whose rules come first; a rule of "
        "the same code replaces an inherited one) and `disable` (inherited codes to drop), "
        "or an Xbench-like TSV with the columns "
        + ", ".join(f"`{c}`" for c in TSV_COLUMNS)
        + " (a `target` starting with `-` is one the translation must not have). The rules "
        "run with the built-in checks, under their own codes: `--select`, `--ignore`, "
        "`severity`, `per-path-ignores` and baselines treat them like any code, every report "
        "carries them, `rulings rules` lists them, and a document's findings are kept in the "
        "cache under the rules' content.",
        "",
        "| key | what it is |",
        "| --- | --- |",
    ]
    for key in (*COMMON_KEYS, *OPTIONAL_KEYS):
        lines.append(f"| `{key}` | {COMMON_HELP[key]} |")
    lines += ["", "Each rule has one test:", ""]
    for entry in RULE_KINDS:
        keys = " + ".join(f"`{k}`" for k in entry.meta["keys"])
        optional = "".join(f" (optional `{k}`)" for k in entry.meta["optional"])
        lines.append(f"- **{entry.name}**, {keys}{optional}: {KIND_HELP[entry.name]}.")
    lines += [
        "",
        "Patterns are Python regular expressions. A rule that reads the source is checked on "
        "each translation aligned with its English; one that does not, on every translated "
        "unit.",
        "",
        "## Allow lists",
        "",
        "TSV files the project file names (`allow`), with the header `lang<TAB>text` (a "
        "`note` column may follow): `lang` is the language of the translations an entry is "
        "for, or `*` for every language (a word never to flag); `text` is a word or phrase "
        "matched as whole words in any case. The untranslated (UNTR001, UNTR002), "
        "mixed-language (MIX001) and card-name (CARD003) checks do not report what the "
        "entries cover. Lines starting with `#` are comments.",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    TARGET.parent.mkdir(exist_ok=True)
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
