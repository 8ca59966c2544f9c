"""The ``rulings`` command: parses options and calls the stages, nothing else."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import __version__, console, stages
from .ingest import InputError
from .ingest.langid import IDENTIFIERS
from .settings import Settings
from .tables import TableError

DEFAULT_INPUT = Path("corpus")
DEFAULT_OUT = Path("reports")

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class RulingsGroup(click.Group):
    """Turns every usage or input error into one line on stderr and exit status 2."""

    def main(self, args: list[str] | None = None, **extra: Any) -> Any:
        try:
            code = super().main(args, standalone_mode=False, **extra)
        except click.exceptions.Exit as done:
            code = done.exit_code
        except click.Abort:
            console.error("aborted")
            code = EXIT_USAGE
        except click.ClickException as problem:
            console.error(problem.format_message())
            code = EXIT_USAGE
        except (InputError, TableError, OSError) as problem:
            console.error(str(problem))
            code = EXIT_USAGE
        sys.exit(code or EXIT_OK)


def _split(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def common_options(function: Callable) -> Callable:
    options = [
        click.option(
            "--source-lang",
            default="en",
            show_default=True,
            help="Language of the source (master) rulings.",
        ),
        click.option(
            "--languages",
            "languages",
            multiple=True,
            callback=_split,
            help="Candidate languages for language identification (default: en,es,zh).",
        ),
        click.option(
            "--lang-id",
            type=click.Choice(IDENTIFIERS.names()),
            default="lingua",
            show_default=True,
            help="Language identifier backend.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def out_option(required: bool) -> Callable:
    help_text = "Output folder for the stage files and reports."
    kind = click.Path(file_okay=False, path_type=Path)
    if required:
        return click.option("--out", "out", type=kind, required=True, help=help_text)
    return click.option(
        "--out", "out", type=kind, default=DEFAULT_OUT, show_default=True, help=help_text
    )


def inputs_argument(function: Callable) -> Callable:
    return click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path))(
        function
    )


def settings_from(options: dict[str, Any]) -> Settings:
    languages = tuple(options.get("languages") or ()) or Settings.languages
    source = options.get("source_lang") or "en"
    if source not in languages:
        languages = (source, *languages)
    return Settings(source_lang=source, languages=languages, lang_id=options["lang_id"])


@click.group(cls=RulingsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rulings")
def main() -> None:
    """Check translated Magic: The Gathering rulings and rules against their English source."""


@main.command()
@inputs_argument
@out_option(required=False)
@common_options
def run(inputs: tuple[Path, ...], out: Path, **options: Any) -> int:
    """Run every stage on INPUT files or folders (default: corpus/)."""
    settings = settings_from(options)
    result = stages.ingest_stage(list(inputs) or [DEFAULT_INPUT], out, settings)
    console.ingest_summary(result)
    return EXIT_OK


@main.command()
@inputs_argument
@out_option(required=True)
@common_options
def ingest(inputs: tuple[Path, ...], out: Path, **options: Any) -> int:
    """Read INPUT files or folders into OUT/corpus.jsonl."""
    settings = settings_from(options)
    result = stages.ingest_stage(list(inputs) or [DEFAULT_INPUT], out, settings)
    console.ingest_summary(result)
    return EXIT_OK


@main.command()
def rules() -> int:
    """List every check: code, category, severity and what it means."""
    from .rules import all_rules

    for rule in all_rules():
        click.echo(f"{rule.code}\t{rule.category}\t{rule.severity}\t{rule.explanation}")
    return EXIT_OK
