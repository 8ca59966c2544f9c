"""The project file: a team's settings next to its files, ``rulings.toml`` or the
``[tool.rulings]`` table of a ``pyproject.toml``.

It is found by walking up from the first input (else the current folder), or named with
``--config FILE``. It holds every command-line option under the option's own name
(``languages``, ``fail-on``, ``inputs``, …; paths relative to the file), and what only a file
can say: ``per-path-ignores`` (a path pattern -> codes), ``severity`` (a code -> its
severity), ``thresholds`` (a named threshold -> its value), ``checklists`` and ``rule`` (the
team's own rules), ``allow`` (allow-list files) and named ``profile`` tables that change
any of these (``--profile NAME``, or ``default-profile``). Options given on the command line
override the file.

Everything is checked before any work: every mistake is one line naming the file, the key
and what is wrong (an unknown key with the closest known one), and the command exits 2.
The schema (``KEYS`` with the command's options) is what ``docs/configuration.md`` is
generated from.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any

import click
import pathspec

from .allowlists import AllowList, AllowListError
from .catalogue import CATALOGUE
from .checklists import Checklist, ChecklistError, load_checklists
from .model import CATEGORIES, SEVERITIES
from .settings import SettingsError
from .thresholds import THRESHOLDS

CONFIG_FILE = "rulings.toml"
PYPROJECT = "pyproject.toml"
COMMAND_LINE = "command line"
DEFAULT = "default"
META_OPTIONS = ("config", "profile")
"""Options that choose the project file and its profile: never in the file."""


@dataclass(frozen=True)
class Key:
    """A key only a project file has (the options are keys too, under their own names)."""

    name: str
    kind: str
    """What the value is, as the reference page says it."""
    help: str
    example: str
    in_profile: bool = True


KEYS: tuple[Key, ...] = (
    Key(
        "per-path-ignores",
        "table: path pattern -> list of codes",
        "Codes, code prefixes or categories not reported on files matching a pattern "
        "(gitignore-style patterns, matched against the file as findings name it: relative "
        "to its INPUT folder).",
        '"cr/**" = ["STYLE005"]',
    ),
    Key(
        "severity",
        "table: code -> error | warning | info",
        "The severity findings of a code (or code prefix, or category) are reported with; "
        "the most specific entry wins (a code, then the longest prefix, then a category). "
        "--fail-on and the reports follow it.",
        'TRUNC002 = "error"',
    ),
    Key(
        "thresholds",
        "table: threshold name -> number",
        "Values for the named thresholds of the checks and the aligner (listed below); the "
        "others keep their defaults.",
        '"truncation.short-ratio" = 0.4',
    ),
    Key(
        "checklists",
        "list of paths",
        "Checklist files of the team's own rules (TOML, or an Xbench-like TSV), read in "
        "order (see Checklists below).",
        'checklists = ["qa/team.toml", "qa/xbench.tsv"]',
    ),
    Key(
        "rule",
        "array of tables",
        "Team rules written in the project file itself, after those of the checklists (same "
        "keys as a checklist's [[rule]]).",
        '[[rule]]\\ncode = "X-CARDS" …',
    ),
    Key(
        "allow",
        "list of paths",
        "Allow-list files: words that may stay in English per language, and words never "
        "to flag (see Allow lists below).",
        'allow = ["qa/allow.tsv"]',
    ),
    Key(
        "default-profile",
        "string",
        "The profile used when --profile is not given.",
        'default-profile = "cards"',
        in_profile=False,
    ),
    Key(
        "profile",
        "table: name -> table of keys",
        "Named sets of keys (any key above but profile and default-profile) that change the "
        "file's own when the profile is chosen: a value replaces the file's, a table "
        "(per-path-ignores, severity, thresholds) is merged key by key, rules are added.",
        '[profile.rules]\\nselect = ["TERM", "PH"]',
        in_profile=False,
    ),
)
FILE_KEYS = {key.name: key for key in KEYS}
MERGED_TABLES = ("per-path-ignores", "severity", "thresholds")


class ConfigError(SettingsError):
    """Mistakes in the project file: one line each (file, key, what is wrong)."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = lines


@dataclass
class Project:
    """The project file's settings for one command: option values (click's own, ready for
    the command) and what only the file says, each with where it came from."""

    path: Path | None = None
    profile: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    """Parameter name -> value, for the options the file sets."""
    origins: dict[str, str] = field(default_factory=dict)
    """Key (option or file key, ``thresholds.NAME``…) -> the file (and profile) it is from."""
    path_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severities: tuple[tuple[str, str], ...] = ()
    thresholds: tuple[tuple[str, float], ...] = ()
    checklist: Checklist = field(default_factory=Checklist)
    allow: AllowList = field(default_factory=AllowList)

    def settings_fields(self) -> dict[str, Any]:
        """What ``Settings`` takes from the file beyond the options."""
        return {
            "path_ignores": self.path_ignores,
            "severities": self.severities,
            "thresholds": self.thresholds,
            "checklist": self.checklist,
            "allow": self.allow,
        }


def option_key(param: click.Parameter) -> str:
    """The key of a command's parameter in the project file: the option's long name."""
    if isinstance(param, click.Option):
        longest = max((o for o in param.opts if o.startswith("--")), key=len, default=None)
        if longest:
            return longest[2:]
    return param.name or ""


def find(start: Path) -> Path | None:
    """The project file for inputs at ``start``: the nearest ``rulings.toml``, or
    ``pyproject.toml`` with a ``[tool.rulings]`` table, in its folder or above."""
    folder = start.resolve()
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        config = candidate / CONFIG_FILE
        if config.is_file():
            return config
        pyproject = candidate / PYPROJECT
        if pyproject.is_file() and _has_tool_table(pyproject):
            return pyproject
    return None


def _has_tool_table(path: Path) -> bool:
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return False
    except tomllib.TOMLDecodeError:
        return "tool.rulings" in path.read_text(encoding="utf-8", errors="replace")
    return isinstance(document.get("tool"), dict) and "rulings" in document["tool"]


def load(
    path: Path | None,
    profile: str | None,
    params: dict[str, click.Parameter],
    ctx: click.Context,
) -> Project:
    """Read and check the project file at ``path`` (none: no file, only ``--profile`` is
    checked) for a command whose options are ``params`` (key -> parameter of any configured
    command: a key no command has is unknown; one this command lacks is checked and left)."""
    if path is None:
        if profile:
            raise ConfigError([f"--profile {profile}: there is no project file ({CONFIG_FILE})"])
        return Project()
    reader = _Reader(path, params, ctx)
    return reader.read(profile)


class _Reader:
    def __init__(self, path: Path, params: dict[str, click.Parameter], ctx: click.Context):
        self.path = path
        self.where = _relative(path)
        self.folder = Path(_relative(path.parent))
        self.params = params
        self.ctx = ctx
        self.problems: list[str] = []
        self.prefix = ""

    def problem(self, key: str, text: str) -> None:
        self.problems.append(f"{self.where}: {self.prefix}{key}: {text}")

    def read(self, profile: str | None) -> Project:
        document = self._document()
        if document is None:
            raise ConfigError(self.problems)
        base = self._checked_keys(document, top=True)
        profiles = document.get("profile", {})
        if not isinstance(profiles, dict) or not all(
            isinstance(v, dict) for v in profiles.values()
        ):
            self.problem("profile", "must hold tables ([profile.NAME])")
            profiles = {}
        profiles = {
            name: self._checked_keys(table, top=False, label=f"profile.{name}.")
            for name, table in profiles.items()
        }
        wanted = profile or base.get("default-profile")
        if wanted is not None and not isinstance(wanted, str):
            self.problem("default-profile", f"must be a profile name (a string), not {wanted!r}")
            wanted = None
        if wanted is not None and wanted not in profiles:
            close = get_close_matches(wanted, list(profiles), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            known = f" (the file has: {', '.join(profiles)})" if profiles else " (it has none)"
            label = "--profile" if profile else f"{self.prefix}default-profile"
            self.problems.append(f"{self.where}: {label}: no profile {wanted!r}{hint or known}")
            wanted = None
        origin = {key: self.where for key in base}
        merged = dict(base)
        if wanted is not None:
            chosen = profiles[wanted]
            shown = f"{self.where} [profile.{wanted}]"
            for key, value in chosen.items():
                if key in MERGED_TABLES and isinstance(value, dict):
                    table = dict(merged.get(key, {}))
                    for entry, entry_value in value.items():
                        table[entry] = entry_value
                        origin[f"{key}.{entry}"] = shown
                    merged[key] = table
                elif key == "rule" and isinstance(value, list):
                    merged["rule"] = [*merged.get("rule", []), *value]
                    origin["rule"] = shown
                else:
                    merged[key] = value
                    origin[key] = shown
        for key in MERGED_TABLES:
            for entry in merged.get(key, {}) if isinstance(merged.get(key), dict) else ():
                origin.setdefault(f"{key}.{entry}", origin.get(key, self.where))
        project = self._project(merged, origin, wanted)
        if self.problems:
            raise ConfigError(self.problems)
        return project

    def _document(self) -> dict[str, Any] | None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            self.problems.append(f"{self.where}: no such project file")
            return None
        except UnicodeDecodeError:
            self.problems.append(f"{self.where}: not UTF-8 text")
            return None
        except OSError as error:
            self.problems.append(f"{self.where}: {error.strerror or error}")
            return None
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            self.problems.append(f"{self.where}: not valid TOML: {error}")
            return None
        if self.path.name == PYPROJECT:
            tool = document.get("tool", {})
            table = tool.get("rulings") if isinstance(tool, dict) else None
            if not isinstance(table, dict):
                self.problems.append(f"{self.where}: tool.rulings: no [tool.rulings] table")
                return None
            self.prefix = "tool.rulings."
            return table
        return document

    def _checked_keys(self, table: dict, *, top: bool, label: str = "") -> dict[str, Any]:
        """The table's keys that are known, each value of the right type; the others are
        reported."""
        known = [*self.params, *(k.name for k in KEYS if top or k.in_profile)]
        kept = {}
        for key, value in table.items():
            if key in META_OPTIONS and key != "profile":
                self.problem(f"{label}{key}", f"is chosen on the command line (--{key}), not here")
            elif key == "profile" and not top:
                self.problem(f"{label}{key}", "profiles do not nest")
            elif key not in known:
                close = get_close_matches(key, known, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                self.problem(f"{label}{key}", f"unknown key{hint}")
            elif key == "profile":
                continue
            elif self._typed(f"{label}{key}", key, value):
                kept[key] = value
        return kept

    def _typed(self, label: str, key: str, value: Any) -> bool:
        """Whether a value has the type its key takes (reported otherwise)."""
        if key in FILE_KEYS:
            expected = {
                "per-path-ignores": dict,
                "severity": dict,
                "thresholds": dict,
                "checklists": list,
                "allow": list,
                "rule": list,
                "default-profile": str,
            }[key]
            if key in ("checklists", "allow") and isinstance(value, str):
                return True
            if not isinstance(value, expected):
                self.problem(label, f"must be a {FILE_KEYS[key].kind}, not {_typename(value)}")
                return False
            return True
        param = self.params[key]
        wanted = _toml_type(param)
        if wanted is list:
            if isinstance(value, str) or (
                isinstance(value, list) and all(isinstance(v, str) for v in value)
            ):
                return True
            self.problem(label, f"must be a list of strings, not {_typename(value)} {value!r}")
            return False
        if wanted is int and (isinstance(value, bool) or not isinstance(value, int)):
            self.problem(label, f"must be a whole number, not {_typename(value)} {value!r}")
            return False
        if wanted is bool and not isinstance(value, bool):
            self.problem(label, f"must be true or false, not {_typename(value)} {value!r}")
            return False
        if wanted is str and not isinstance(value, str):
            self.problem(label, f"must be a string, not {_typename(value)} {value!r}")
            return False
        return True

    def _project(self, values: dict[str, Any], origin: dict[str, str], profile: str | None):
        options, origins = {}, {}
        for key, value in values.items():
            if key in FILE_KEYS:
                continue
            param = self.params[key]
            converted = self._converted(key, param, value)
            if converted is not _BAD:
                options[param.name] = converted
                origins[key] = origin[key]
        checklist = self._checklist(values, origin)
        team = set(checklist.codes())
        for key in ("select", "ignore"):
            if key in values and key in self.params:
                self._known_codes(key, _listed(values[key]), team)
        severities = self._severities(values.get("severity", {}), team)
        thresholds = self._thresholds(values.get("thresholds", {}))
        path_ignores = self._path_ignores(values.get("per-path-ignores", {}), team)
        allow = self._allow(values)
        for key in ("checklists", "allow", "default-profile", "rule"):
            if key in values:
                origins[key] = origin.get(key, self.where)
        for key, shown in origin.items():
            if "." in key:
                origins[key] = shown
        return Project(
            path=self.path,
            profile=profile,
            options=options,
            origins=origins,
            path_ignores=path_ignores,
            severities=severities,
            thresholds=thresholds,
            checklist=checklist,
            allow=allow,
        )

    def _converted(self, key: str, param: click.Parameter, value: Any) -> Any:
        if _toml_type(param) is list:
            value = [value] if isinstance(value, str) else list(value)
        if _is_path(param):
            value = [self._path(v) for v in value] if isinstance(value, list) else self._path(value)
        try:
            return param.process_value(self.ctx, value)
        except click.BadParameter as error:
            self.problem(key, error.message.rstrip("."))
        except SettingsError as error:
            self.problem(key, str(error).partition(": ")[2] or str(error))
        return _BAD

    def _path(self, value: str) -> str:
        path = Path(value).expanduser()
        return os.path.normpath(path if path.is_absolute() else self.folder / path)

    def _checklist(self, values: dict[str, Any], origin: dict[str, str]) -> Checklist:
        files = [Path(self._path(p)) for p in _listed(values.get("checklists", []))]
        inline = values.get("rule")
        try:
            return load_checklists(files, inline, self.where)
        except ChecklistError as error:
            self.problems.extend(error.lines)
            return Checklist()

    def _known_codes(self, key: str, patterns: list[str], team: set[str]) -> bool:
        ok = True
        codes = sorted({*CATALOGUE, *team})
        for pattern in patterns:
            if not _known_pattern(pattern, codes):
                close = get_close_matches(pattern.upper(), codes, n=1, cutoff=0.5) or (
                    get_close_matches(pattern.lower(), CATEGORIES, n=1, cutoff=0.5)
                )
                hint = f"; did you mean {close[0]}?" if close else ""
                self.problem(
                    key,
                    f"{pattern!r} is no finding code, code prefix or category{hint} "
                    "(`rulings rules` lists them)",
                )
                ok = False
        return ok

    def _severities(self, table: dict, team: set[str]) -> tuple[tuple[str, str], ...]:
        found = []
        codes = sorted({*CATALOGUE, *team})
        for pattern, severity in table.items():
            if not _known_pattern(pattern, codes):
                close = get_close_matches(pattern.upper(), codes, n=1, cutoff=0.5)
                hint = f"; did you mean {close[0]}?" if close else ""
                self.problem(f"severity.{pattern}", f"no finding code, prefix or category{hint}")
            elif severity not in SEVERITIES:
                self.problem(
                    f"severity.{pattern}",
                    f"{severity!r} is no severity; one of {', '.join(SEVERITIES)}",
                )
            else:
                found.append((_normal(pattern), severity))
        return tuple(sorted(found))

    def _thresholds(self, table: dict) -> tuple[tuple[str, float], ...]:
        if not table:
            return ()
        declared_thresholds()
        found = []
        names = THRESHOLDS.names()
        for name, value in table.items():
            if name not in THRESHOLDS:
                close = get_close_matches(name, names, n=1, cutoff=0.5)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                self.problem(
                    f"thresholds.{name}", f"no such threshold{hint} (`rulings config` lists them)"
                )
                continue
            named = THRESHOLDS[name].target
            why = named.problem(value)
            if why:
                self.problem(f"thresholds.{name}", why)
            elif value != named.default:
                found.append((name, int(value) if named.integer else float(value)))
        return tuple(sorted(found))

    def _path_ignores(self, table: dict, team: set[str]) -> tuple:
        found = []
        for pattern, codes in table.items():
            label = f"per-path-ignores.{pattern}"
            if isinstance(codes, str):
                codes = [codes]
            if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                self.problem(label, f"must be a list of codes, not {_typename(codes)} {codes!r}")
                continue
            try:
                pathspec.GitIgnoreSpec.from_lines([pattern])
            except Exception as error:  # pathspec raises its own error types per pattern
                self.problem(label, f"not a path pattern: {error}")
                continue
            if self._known_codes(label, codes, team):
                found.append((pattern, tuple(_normal(c) for c in codes)))
        return tuple(found)

    def _allow(self, values: dict[str, Any]) -> AllowList:
        files = [Path(self._path(p)) for p in _listed(values.get("allow", []))]
        try:
            return AllowList.load(files)
        except AllowListError as error:
            self.problem("allow", str(error))
            return AllowList()


_BAD = object()


def declared_thresholds() -> list[str]:
    """The names of every named threshold: those the checks and the aligner declare (their
    modules imported)."""
    from .align import align  # noqa: F401  (its modules declare the aligner's)
    from .check.registry import CHECKS

    CHECKS.names()
    return THRESHOLDS.names()


def _known_pattern(pattern: str, codes: list[str]) -> bool:
    return pattern.lower() in CATEGORIES or any(code.startswith(pattern.upper()) for code in codes)


def _normal(pattern: str) -> str:
    return pattern.lower() if pattern.lower() in CATEGORIES else pattern.upper()


def _listed(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _toml_type(param: click.Parameter) -> type:
    if param.multiple or param.nargs == -1:
        return list
    if isinstance(param, click.Option) and param.is_flag:
        return bool
    if isinstance(param.type, click.types.IntParamType):
        return int
    if isinstance(param.type, click.types.FloatParamType):
        return float
    return str


def _is_path(param: click.Parameter) -> bool:
    return isinstance(param.type, click.Path)


def _typename(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def _relative(path: Path) -> str:
    """A path relative to the current folder when it is inside it (as the user wrote it)."""
    try:
        shown = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if shown.startswith("..") else shown


# --- showing the effective settings --------------------------------------------------------


def render(
    params: list[click.Parameter],
    values: dict[str, Any],
    origins: dict[str, str],
    project: Project,
) -> str:
    """The effective settings as a project file (TOML), each line saying where its value
    came from; unset options are comments."""
    declared_thresholds()
    where = f"{_relative(project.path)}" if project.path else "none"
    profile = f", profile {project.profile}" if project.profile else ""
    lines = [f"# rulings config: the effective settings (project file: {where}{profile})"]
    body = []
    for param in params:
        if param.name not in values:
            continue
        key = option_key(param)
        value = values[param.name]
        origin = origins.get(key, DEFAULT)
        if value is None or (isinstance(value, tuple | list) and not value and origin == DEFAULT):
            body.append((f"# {key} =", "not set"))
        else:
            body.append((f"{key} = {_toml(value)}", origin))
    for name in ("checklists", "allow"):
        files = project.checklist.sources if name == "checklists" else project.allow.sources
        if files:
            body.append((f"{name} = {_toml(list(files))}", project.origins.get(name, DEFAULT)))
    lines += _aligned(body)
    tables = [
        (
            "per-path-ignores",
            [(pattern, list(codes)) for pattern, codes in project.path_ignores],
        ),
        ("severity", list(project.severities)),
    ]
    for name, entries in tables:
        if entries:
            lines += ["", f"[{name}]"]
            lines += _aligned(
                [
                    (
                        f"{_toml_key(key)} = {_toml(value)}",
                        project.origins.get(f"{name}.{key}", project.origins.get(name, "")),
                    )
                    for key, value in entries
                ]
            )
    set_values = dict(project.thresholds)
    lines += ["", "[thresholds]"]
    rows = []
    for entry in sorted(THRESHOLDS, key=lambda e: e.name):
        named = entry.target
        if named.name in set_values:
            origin = project.origins.get(f"thresholds.{named.name}", DEFAULT)
            rows.append((f"{_toml_key(named.name)} = {set_values[named.name]!r}", origin))
        else:
            rows.append((f"{_toml_key(named.name)} = {named.default!r}", DEFAULT))
    lines += _aligned(rows)
    for rule in project.checklist.rules:
        lines += [
            "",
            f"# {rule.code} ({rule.kind}, {rule.category}, {rule.severity}) from {rule.origin}",
        ]
    return "\n".join(lines) + "\n"


def _aligned(rows: list[tuple[str, str]]) -> list[str]:
    width = max((len(text) for text, _ in rows), default=0)
    return [f"{text:<{width}}  # {origin}" if origin else text for text, origin in rows]


def _toml(value: Any) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def _toml_key(key: str) -> str:
    import re

    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml(key)
