"""Write docs/cli.md, the command and option reference, from the click commands themselves:
each command's usage, help text and options (names, value, default, help), and the exit
statuses.

Usage (from the repository root): python tools/generate_cli_doc.py
tests/test_docs.py fails when the file is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pipelines import cli

TARGET = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def _value(param: click.Parameter, ctx: click.Context) -> str:
    if isinstance(param, click.Option) and param.is_flag:
        return ""
    if isinstance(param.type, click.Choice):
        return "`" + "` \\| `".join(map(str, param.type.choices)) + "`"
    metavar = param.make_metavar(ctx) if _takes_ctx() else param.make_metavar()
    return f"`{metavar}`"


def _takes_ctx() -> bool:
    import inspect

    return "ctx" in inspect.signature(click.Parameter.make_metavar).parameters


def _default(param: click.Parameter) -> str:
    if not isinstance(param, click.Option) or param.is_flag or param.multiple:
        return ""
    if param.default is None or not param.show_default:
        return ""
    return f"`{param.default}`"


def _cell(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\|")


def _command(name: str, command: click.Command) -> list[str]:
    ctx = click.Context(command, info_name=f"rulings {name}", parent=click.Context(cli.main))
    usage = " ".join(command.collect_usage_pieces(ctx))
    help_text = (command.help or "").strip()
    lines = [f"## rulings {name}", "", "```", f"rulings {name} {usage}".rstrip(), "```", ""]
    lines += [_paragraphs(help_text), ""]
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    if arguments:
        names = ", ".join(
            f"`{p.make_metavar(ctx) if _takes_ctx() else p.make_metavar()}`" for p in arguments
        )
        lines += [f"Arguments: {names}.", ""]
    options = [p for p in command.params if isinstance(p, click.Option)]
    if options:
        lines += ["| option | value | default | what it does |", "| --- | --- | --- | --- |"]
        for param in options:
            names = ", ".join(f"`{opt}`" for opt in [*param.opts, *param.secondary_opts])
            repeat = (
                " Repeatable." if param.multiple and "Repeatable" not in (param.help or "") else ""
            )
            lines.append(
                f"| {names} | {_value(param, ctx)} | {_default(param)} "
                f"| {_cell(param.help)}{repeat} |"
            )
        lines.append("")
    return lines


def _paragraphs(text: str) -> str:
    """click's help text (paragraphs of wrapped lines) as Markdown paragraphs."""
    blocks = [" ".join(block.split()) for block in text.split("\n\n")]
    return "\n\n".join(block for block in blocks if block)


def render() -> str:
    commands = cli.main.commands
    lines = [
        "# Command-line reference",
        "",
        "Generated from the click commands by `tools/generate_cli_doc.py`; `rulings COMMAND "
        "--help` prints the same. Every option of a command that takes a project file "
        "(`--config`) may also be set there under its own name: see "
        "[configuration](configuration.md).",
        "",
        _paragraphs(cli.main.help or ""),
        "",
        "```",
        "rulings [--version] [-h] COMMAND [ARGS]...",
        "```",
        "",
        "| command | what it does |",
        "| --- | --- |",
    ]
    for name, command in commands.items():
        first = _paragraphs(command.help or "").split("\n\n")[0]
        short = first.split(". ")[0].rstrip(".") + "."
        lines.append(f"| [`{name}`](#rulings-{name}) | {_cell(short)} |")
    lines += [
        "",
        "## Exit status",
        "",
        f"- `{cli.EXIT_OK}`: the command ran, and no finding at or above `--fail-on` was reported.",
        f"- `{cli.EXIT_FINDINGS}`: findings at or above `--fail-on` (`run`, `check`, `report`); "
        "a name `cards --lookup` does not know.",
        f"- `{cli.EXIT_USAGE}`: bad usage, an option file or input that cannot be read, an "
        "output folder that cannot be written: one line on stderr, `rulings: error: …`, no "
        "traceback.",
        f"- `{cli.EXIT_INTERRUPTED}`: interrupted (Ctrl-C, SIGTERM); the output folder holds the "
        "last complete run.",
        "",
        "## What is printed",
        "",
        "Summaries go to stdout; errors, notes and progress to stderr. On a terminal, each "
        "stage shows a live line (counts, rate, time left); without one (a CI log, a pipe), a "
        "line when each stage starts and ends and a progress line at least every 10 s while "
        "it runs. `--quiet` prints only errors; `--verbose` adds each stage's time and the "
        "cache folder.",
        "",
    ]
    for name, command in commands.items():
        lines += _command(name, command)
    return "\n".join(lines).rstrip("\n") + "\n"


def main() -> int:
    TARGET.parent.mkdir(exist_ok=True)
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
