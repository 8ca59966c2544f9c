"""The ``rulings`` command: parses options and calls the stages, nothing else."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from . import __version__, console, manifest, stages, tables
from .align.embed import EmbedderError, known_specs
from .check.baseline import BaselineError
from .check.termbase import TermbaseError
from .engine import ENGINES, Engine, build_engine
from .ingest import InputError
from .ingest.langid import IDENTIFIERS
from .model import SEVERITY_RANK, Finding
from .report import WRITERS
from .settings import Settings
from .tables import TableError

DEFAULT_INPUT = Path("corpus")
WRITER_FILES = [entry.meta["filename"] for entry in WRITERS]
DEFAULT_OUT = Path("reports")

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
USER_ERRORS = (
    InputError,
    TableError,
    TermbaseError,
    BaselineError,
    EmbedderError,
    OSError,
)


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
        except USER_ERRORS as problem:
            console.error(str(problem))
            code = EXIT_USAGE
        sys.exit(code or EXIT_OK)


def _split(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def _options(*options: Callable) -> Callable:
    def decorate(function: Callable) -> Callable:
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


ingest_options = _options(
    click.option(
        "--source-lang", default="en", show_default=True, help="Language of the master rulings."
    ),
    click.option(
        "--languages",
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
)
engine_options = _options(
    click.option(
        "--engine",
        type=click.Choice(ENGINES.names()),
        default="local",
        show_default=True,
        help="Where partitioned work runs: this process, or a Dask cluster.",
    ),
    click.option(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address (with --engine dask); none starts a LocalCluster.",
    ),
)
align_options = _options(
    click.option(
        "--embedder",
        default="usem3",
        show_default=True,
        help=f"Sentence embedder: {' or '.join(known_specs())}.",
    ),
    click.option(
        "--cache-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="Cache folder for embeddings and card-name indexes "
        "(default: $RULINGS_CACHE_DIR, else the user cache folder).",
    ),
)
check_options = _options(
    click.option(
        "--termbase",
        "termbases",
        multiple=True,
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="Extra termbase (TSV or TBX), added to the shipped one. Repeatable.",
    ),
    click.option(
        "--select",
        multiple=True,
        callback=_split,
        help="Only these finding codes, code prefixes or categories (comma-separated).",
    ),
    click.option(
        "--ignore",
        multiple=True,
        callback=_split,
        help="Leave out these finding codes, code prefixes or categories.",
    ),
    click.option(
        "--baseline",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="Accepted findings (fingerprints) not to report again.",
    ),
    click.option(
        "--fail-on",
        type=click.Choice(["error", "warning", "never"]),
        default="error",
        show_default=True,
        help="Exit 1 when a finding at or above this severity remains.",
    ),
)


def out_option(required: bool) -> Callable:
    help_text = "Output folder for the stage files and reports."
    kind = click.Path(file_okay=False, path_type=Path)
    if required:
        return click.option("--out", "out", type=kind, required=True, help=help_text)
    return click.option(
        "--out", "out", type=kind, default=DEFAULT_OUT, show_default=True, help=help_text
    )


inputs_argument = click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path))


def settings_from(options: dict[str, Any]) -> Settings:
    defaults = Settings()
    languages = tuple(options.get("languages") or ()) or defaults.languages
    source = options.get("source_lang") or defaults.source_lang
    if source not in languages:
        languages = (source, *languages)
    return Settings(
        source_lang=source,
        languages=languages,
        lang_id=options.get("lang_id") or defaults.lang_id,
        embedder=options.get("embedder") or defaults.embedder,
        cache_dir=options.get("cache_dir"),
        termbases=tuple(options.get("termbases") or ()),
        select=tuple(options.get("select") or ()),
        ignore=tuple(options.get("ignore") or ()),
        baseline=options.get("baseline"),
        fail_on=options.get("fail_on") or defaults.fail_on,
        engine=options.get("engine") or defaults.engine,
        scheduler=options.get("scheduler"),
    )


@contextmanager
def running_engine(settings: Settings) -> Iterator[Engine]:
    try:
        engine = build_engine(settings.engine, settings.scheduler)
    except ValueError as problem:
        raise click.UsageError(str(problem)) from None
    try:
        yield engine
    finally:
        engine.close()


def exit_status(findings: list[Finding], fail_on: str) -> int:
    if fail_on == "never":
        return EXIT_OK
    limit = SEVERITY_RANK[fail_on]
    return EXIT_FINDINGS if any(SEVERITY_RANK[f.severity] <= limit for f in findings) else EXIT_OK


@click.group(cls=RulingsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rulings")
def main() -> None:
    """Check translated Magic: The Gathering rulings and rules against their English source."""


@main.command()
@inputs_argument
@out_option(required=False)
@ingest_options
@align_options
@check_options
@engine_options
@click.option(
    "--force", is_flag=True, help="Recompute even when nothing changed since the last run."
)
def run(inputs: tuple[Path, ...], out: Path, force: bool, **options: Any) -> int:
    """Run every stage on INPUT files or folders (default: corpus/).

    When the inputs, options and version are those of the last run into OUT and its outputs
    are all there, they are reused (see OUT/run-manifest.json); --force recomputes.
    """
    settings = settings_from(options)
    stages.read_option_files(settings)
    sources = list(inputs) or [DEFAULT_INPUT]
    key = manifest.run_key(sources, settings)
    outputs = [tables.CORPUS, tables.ALIGNMENT, tables.FINDINGS, *WRITER_FILES]
    if not force and manifest.unchanged(out, key, outputs):
        console.reused(out)
        findings = tables.read_records(out / tables.FINDINGS, Finding)
        suppressed = tables.read_records(out / tables.SUPPRESSED, Finding)
        console.findings_summary(findings, suppressed)
        return exit_status(findings, settings.fail_on)
    manifest.forget(out)
    with console.progress() as progress, running_engine(settings) as engine:
        console.ingest_summary(stages.ingest_stage(sources, out, settings, engine))
        stages.align_stage(out, settings, progress.update, engine)
        checked = stages.check_stage(out, settings, progress.update, engine)
        written = stages.report_stage(out, settings)
    manifest.record(out, key)
    console.findings_summary(checked.findings, checked.suppressed)
    console.reports_written(written)
    return exit_status(checked.findings, settings.fail_on)


@main.command()
@inputs_argument
@out_option(required=True)
@ingest_options
@engine_options
def ingest(inputs: tuple[Path, ...], out: Path, **options: Any) -> int:
    """Read INPUT files or folders into OUT/corpus.jsonl."""
    settings = settings_from(options)
    with running_engine(settings) as engine:
        result = stages.ingest_stage(list(inputs) or [DEFAULT_INPUT], out, settings, engine)
    console.ingest_summary(result)
    return EXIT_OK


@main.command()
@out_option(required=True)
@click.option("--source-lang", default="en", show_default=True, help="Language of the masters.")
@align_options
@engine_options
def align(out: Path, **options: Any) -> int:
    """Pair every translated ruling in OUT/corpus.jsonl with its source: OUT/alignment.jsonl."""
    settings = settings_from(options)
    with console.progress() as progress, running_engine(settings) as engine:
        rows = stages.align_stage(out, settings, progress.update, engine)
    console.alignment_summary(rows)
    return EXIT_OK


@main.command()
@out_option(required=True)
@click.option("--source-lang", default="en", show_default=True, help="Language of the masters.")
@check_options
@engine_options
def check(out: Path, **options: Any) -> int:
    """Run the checks on OUT's corpus and alignment: OUT/findings.jsonl."""
    settings = settings_from(options)
    with running_engine(settings) as engine:
        checked = stages.check_stage(out, settings, engine=engine)
    console.findings_summary(checked.findings, checked.suppressed)
    return exit_status(checked.findings, settings.fail_on)


@main.command()
@out_option(required=True)
@click.option(
    "--format",
    "formats",
    multiple=True,
    callback=_split,
    help="Report formats to write (comma-separated; default all): "
    + ", ".join(WRITERS.names())
    + ".",
)
@click.option(
    "--termbase",
    "termbases",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Extra termbase (TSV or TBX) for the TBX export. Repeatable.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "never"]),
    default="error",
    show_default=True,
    help="Exit 1 when a finding at or above this severity is in the report.",
)
def report(out: Path, formats: tuple[str, ...], **options: Any) -> int:
    """Write OUT/report.html and the other report files from OUT's tables."""
    unknown = sorted(set(formats) - set(WRITERS.names()))
    if unknown:
        raise click.BadParameter(
            f"unknown format {', '.join(unknown)} (known: {', '.join(WRITERS.names())})",
            param_hint="--format",
        )
    settings = dataclasses.replace(settings_from(options), formats=formats)
    written = stages.report_stage(out, settings)
    console.reports_written(written)
    findings = tables.read_records(out / tables.FINDINGS, Finding)
    return exit_status(findings, settings.fail_on)


@main.command()
@inputs_argument
@click.option(
    "--run",
    "run_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Use the card names of an earlier run's output folder (its cards.jsonl).",
)
@click.option("--lookup", "lookups", multiple=True, help="A card name, in any language.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Cache folder (default: $RULINGS_CACHE_DIR, else the user cache folder).",
)
def cards(
    inputs: tuple[Path, ...], run_dir: Path | None, lookups: tuple[str, ...], cache_dir: Path | None
) -> int:
    """What the card-name index knows: names per language, and the card behind a name.

    The index holds the names the package ships plus those in card data given as INPUT
    (MTGJSON or Scryfall files) or read by an earlier run (--run).
    """
    index = stages.card_index(list(inputs), run_dir, cache_dir)
    console.card_index_summary(index)
    missing = 0
    for name in lookups:
        missing += not console.card_lookup(index, name)
    return EXIT_FINDINGS if missing else EXIT_OK


@main.command()
def rules() -> int:
    """List every check: code, category, severity and what it means."""
    from .rules import all_rules

    for rule in all_rules():
        click.echo(f"{rule.code}\t{rule.category}\t{rule.severity}\t{rule.explanation}")
    return EXIT_OK
