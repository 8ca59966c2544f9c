"""The ``rulings`` command: parses and checks options, calls the pipeline, prints summaries.

Every option is declared once below and shared by the commands that take it; every option
value and option file is checked before any work starts, and every user error ends as one
line on stderr with exit status 2.
"""

# ruff: noqa: E402  (the libraries are imported after the start-up guard below)

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import re
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _stop_while_starting(_signal: int, _frame: Any) -> None:
    """Nothing is written yet while the libraries load: stop at once. (An exception raised
    here could land in an import's clean-up callback, be printed and be swallowed.)"""
    sys.stderr.write("rulings: interrupted\n")
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def _started_as_command() -> bool:
    """Whether this process is the ``rulings`` command (not a program importing the CLI)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    module = getattr(spec, "name", None)
    return module == "pipelines.__main__" or Path(sys.argv[0]).name == "rulings"


if _started_as_command():
    # Loading the libraries takes a second or more: Ctrl-C or SIGTERM then is one line and
    # exit status 130 too, not a traceback from inside an import.
    for _number in STOP_SIGNALS:
        signal.signal(_number, _stop_while_starting)

import click

from . import (
    __version__,
    console,
    last_run,
    masters,
    outputs,
    pipeline,
    stages,
    store,
    tables,
    work,
)
from . import project as project_file
from .align.embed import EmbedderError, build_embedder, known_specs
from .cachedir import cache_root
from .cards import INDEXES_KEPT, NameListError, drop_indexes, kept_indexes, read_name_list
from .catalogue import CHECK, TABLE, explanation, quality
from .check.baseline import BaselineError
from .engine import ENGINES, EngineError, build_engine
from .files import DIGESTS_FILE, read_checked
from .ingest import InputError, identified, kept_cuts
from .ingest.langid import IDENTIFIERS, supported_languages
from .ingest.source import input_exists
from .model import Finding
from .report import WRITERS
from .settings import (
    Settings,
    SettingsError,
    validate_codes,
    validate_engine,
    validate_languages,
)
from .tables import TableError
from .termbase import TermbaseError
from .termbase.model import languages_related
from .vocabulary import (
    DEFAULT_EMBEDDER,
    DEFAULT_LANG_ID,
    DEFAULT_LANGUAGES,
    DEFAULT_SOURCE_LANG,
    severity_rank,
)
from .work import Reuse

DEFAULT_INPUT = Path("corpus")
DEFAULT_OUT = Path("reports")
USER_ERRORS = (
    EngineError,
    InputError,
    TableError,
    TermbaseError,
    BaselineError,
    EmbedderError,
    SettingsError,
    masters.FetchError,
    OSError,
)


class Interrupted(Exception):
    """Ctrl-C or SIGTERM; the message, if any, says what the interrupted command left."""


class RulingsGroup(click.Group):
    """Turns every usage or input error into one line on stderr and exit status 2, and an
    interruption (Ctrl-C, SIGTERM) into one line and exit status 130."""

    def main(self, args: list[str] | None = None, **extra: Any) -> Any:
        previous = {number: signal.getsignal(number) for number in STOP_SIGNALS}
        previous_hook = sys.unraisablehook
        for number in STOP_SIGNALS:
            signal.signal(number, _stop)
        sys.unraisablehook = _quiet_stop(previous_hook)
        _stops.clear()
        console.set_verbosity()
        try:
            code = super().main(args, standalone_mode=False, **extra)
            if _stops:  # the stop was raised where it could not propagate: the run went on
                raise Interrupted
        except click.exceptions.Exit as done:
            code = done.exit_code
        except BrokenPipeError:  # click's own output (help, version) into a closed pipe
            console.silence_stdout()
            code = EXIT_OK
        except (click.Abort, KeyboardInterrupt, Interrupted) as stopped:
            console.interrupted(str(stopped) if isinstance(stopped, Interrupted) else "")
            code = EXIT_INTERRUPTED
        except click.ClickException as problem:
            console.error(problem.format_message())
            code = EXIT_USAGE
        except USER_ERRORS as problem:
            for line in getattr(problem, "lines", None) or [_user_message(problem)]:
                console.error(line)
            code = EXIT_USAGE
        finally:
            for number, handler in previous.items():
                # As the command ends, a late Ctrl-C is ignored: the interpreter's shutdown
                # would otherwise die of it, without a word and with the run's work done.
                signal.signal(number, signal.SIG_IGN if _started_as_command() else handler)
            sys.unraisablehook = previous_hook
        if (problem := console.stdout_problem()) and code != EXIT_INTERRUPTED:
            console.error(problem)  # the outputs are written; what was printed is not
            code = EXIT_USAGE
        if _started_as_command():
            _exit_without_teardown(code or EXIT_OK)
        sys.exit(code or EXIT_OK)


def _exit_without_teardown(code: int) -> None:
    """End the command as ``sys.exit`` ends it, but for the interpreter's teardown, which
    frees every object left one at a time (0.9 s of an edited 100k run's 13 s; mypy's
    ``hard_exit`` skips it too): the exit handlers run (``atexit``: logging's, a cluster's,
    temporary folders'), the standard streams are flushed, and the process ends with
    ``os._exit``. While another thread that is not a daemon still runs, the command ends
    as usual: the interpreter waits for it."""
    if any(
        t.is_alive() and not t.daemon
        for t in threading.enumerate()
        if t is not threading.main_thread()
    ):
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


_stops: list[int] = []
"""The stop signals received: the exception a stop raises can land where it cannot propagate
(a clean-up callback), so the command also looks here."""


def _stop(number: int, _frame: Any) -> None:
    """The first Ctrl-C or SIGTERM stops the command; more of them while it cleans up
    (removes its staging folder) are ignored, so the clean-up is not cut short."""
    for stop_signal in STOP_SIGNALS:
        signal.signal(stop_signal, signal.SIG_IGN)
    _stops.append(number)
    raise Interrupted


def _unless_stopped(function: Callable) -> Callable:
    """A stage callback that also stops the run when a stop was swallowed on the way."""

    def checked(*args: Any) -> Any:
        if _stops:
            raise Interrupted
        return function(*args)

    return checked


def _quiet_stop(hook: Callable) -> Callable:
    """An unraisable-exception hook that drops the stop when it was raised in a clean-up
    callback (the command notices the stop afterwards) and passes on everything else."""

    def quiet(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, Interrupted):
            hook(unraisable)

    return quiet


def _user_message(problem: Exception) -> str:
    if isinstance(problem, OSError) and problem.strerror and problem.filename:
        name = Path(str(problem.filename)).name
        if name.startswith("."):  # a staging or temporary file: name its folder instead
            return f"cannot write to {Path(str(problem.filename)).parent}: {problem.strerror}"
        return f"{problem.filename}: {problem.strerror}"
    return str(problem)


def _split(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def _with(*options: Callable) -> Callable:
    def decorate(function: Callable) -> Callable:
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


# --- every option, declared once ---------------------------------------------------------

SOURCE_LANG = click.option(
    "--source-lang",
    default=DEFAULT_SOURCE_LANG,
    show_default=True,
    help="Language of the master rulings (the sources).",
)
LANGUAGES = click.option(
    "--languages",
    multiple=True,
    callback=_split,
    help="Candidate languages for language identification "
    f"(default: {','.join(DEFAULT_LANGUAGES)}).",
)
LANG_ID = click.option(
    "--lang-id",
    type=click.Choice(IDENTIFIERS.names()),
    default=DEFAULT_LANG_ID,
    show_default=True,
    help="Language identifier backend.",
)
ENGINE = click.option(
    "--engine",
    type=click.Choice(ENGINES.names()),
    default="local",
    show_default=True,
    help="Where partitioned work runs: this process, or a Dask cluster.",
)
SCHEDULER = click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Dask scheduler address (with --engine dask); none starts a LocalCluster.",
)
WORKERS = click.option(
    "--workers",
    type=int,
    help="Worker processes of the LocalCluster (with --engine dask; default: one per core).",
)
WORKER_MEMORY = click.option(
    "--worker-memory",
    metavar="SIZE",
    help="Memory limit of each LocalCluster worker, e.g. 2GB (with --engine dask).",
)
EMBEDDER = click.option(
    "--embedder",
    default=DEFAULT_EMBEDDER,
    show_default=True,
    help=f"Sentence embedder: {' or '.join(known_specs())}.",
)
CACHE_DIR = click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Cache folder for embeddings, indexes and fetched masters "
    "(default: $RULINGS_CACHE_DIR, else the user cache folder).",
)
TERMBASE = click.option(
    "--termbase",
    "termbases",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Extra termbase (TSV or TBX), added to the shipped one. Repeatable.",
)
SELECT = click.option(
    "--select",
    multiple=True,
    callback=_split,
    help="Only these finding codes, code prefixes or categories (comma-separated, any case).",
)
IGNORE = click.option(
    "--ignore",
    multiple=True,
    callback=_split,
    help="Leave out these finding codes, code prefixes or categories.",
)
BASELINE = click.option(
    "--baseline",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Accepted findings (fingerprints) not to report again.",
)
FAIL_ON = click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "never"]),
    default="error",
    show_default=True,
    help="Exit 1 when a finding at or above this severity is reported.",
)
MIN_CONFIDENCE = click.option(
    "--min-confidence",
    type=click.FloatRange(0.0, 1.0),
    default=0.0,
    show_default=True,
    help="Report only findings at least this sure (their confidence, 0..1: the code's judged "
    "precision times the sureness of the pair); the others go to suppressed.jsonl.",
)
FORMATS = click.option(
    "--format",
    "formats",
    multiple=True,
    callback=_split,
    help="Report formats to write (comma-separated; default all): "
    + ", ".join(WRITERS.names())
    + ".",
)
XLIFF_STATE = click.option(
    "--xliff-state",
    type=click.Choice(["keep", "needs-review-translation"]),
    default="keep",
    show_default=True,
    help="In the annotated inputs (findings-xliff/): keep every unit's state, or mark the "
    "units with an error needs-review-translation (XLIFF 2: state translated with subState "
    "rulings:needs-review-translation; PO: the fuzzy flag).",
)
CARD_NAMES = click.option(
    "--card-names",
    "card_names",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Card-name list (TSV with the columns card, lang, name) to use instead of the "
    "shipped card index; the inputs' card data is added to it. Repeatable.",
)
MASTERS = click.option(
    "--masters",
    multiple=True,
    metavar="SPEC",
    help="English masters added to the inputs: fetched ones (mtgjson:TSP,PLC, scryfall, cr; "
    "see `rulings fetch`) or a file or folder. Repeatable.",
)
QUIET = click.option(
    "-q", "--quiet", is_flag=True, help="Print only errors: no progress, summaries or notes."
)
VERBOSE = click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also print when each stage ends and how long it took, and the cache folder.",
)


def verbosity_options(function: Callable) -> Callable:
    """--quiet and --verbose on a command: they set what the console prints, and the command
    itself never sees them."""

    @functools.wraps(function)
    def command(*args: Any, quiet: bool = False, verbose: bool = False, **kwargs: Any) -> Any:
        if quiet and verbose:
            raise click.UsageError("--quiet and --verbose cannot be given together")
        console.set_verbosity(quiet, verbose)
        return function(*args, **kwargs)

    return QUIET(VERBOSE(command))


FORCE = click.option(
    "--force", is_flag=True, help="Recompute even when nothing changed since the last run."
)
INPUTS = click.argument("inputs", nargs=-1, type=click.Path(path_type=Path))


CONFIG = click.Option(
    ["--config", "config_file"],
    type=click.Path(dir_okay=False, path_type=Path),
    help="The project file (default: the nearest rulings.toml, or pyproject.toml with "
    "[tool.rulings], in the first input's folder or above; else the current folder's).",
)
PROFILE = click.Option(["--profile"], help="A profile of the project file ([profile.NAME]).")


class ConfiguredCommand(click.Command):
    """A command whose options may come from the project file (``project.py``): what the
    command line gives overrides it. The file is read and checked before the command does
    anything; the command gets what only the file says as ``project``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params += [CONFIG, PROFILE]
        self.required = [param for param in self.params if param.required]
        for param in self.required:  # the project file may give them: checked in invoke
            param.required = False

    def invoke(self, ctx: click.Context) -> Any:
        config_file = ctx.params.pop("config_file", None)
        profile = ctx.params.pop("profile", None)
        project = project_file.load(
            config_file or project_file.find(_start_folder(ctx)),
            profile,
            _configurable(ctx),
            ctx,
        )
        for name, value in project.options.items():
            if name in ctx.params and _from_command_line(ctx, name) is False:
                ctx.params[name] = value
        for param in self.required:
            if ctx.params.get(param.name) in (None, ()):
                raise click.UsageError(
                    f"Missing option '{param.opts[0]}' (give it here or in the project file)."
                )
        ctx.params["project"] = project
        try:
            return super().invoke(ctx)
        except SettingsError as problem:
            raise _named_in_file(problem, project, ctx) from None


def _start_folder(ctx: click.Context) -> Path:
    """Where the project file is looked for: the first input given, else here."""
    inputs = ctx.params.get("inputs") or ()
    return Path(inputs[0]) if inputs else Path.cwd()


def _from_command_line(ctx: click.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source not in (None, click.core.ParameterSource.DEFAULT)


def _configurable(ctx: click.Context) -> dict[str, click.Parameter]:
    """Every option a project file may set (key -> parameter): those of the command, then
    those of the other configured commands (a key checked, but left, where it does not
    apply)."""
    commands = [ctx.command, *ctx.find_root().command.commands.values()]
    found: dict[str, click.Parameter] = {}
    for command in commands:
        if isinstance(command, ConfiguredCommand):
            for param in command.params:
                key = project_file.option_key(param)
                if param.name not in ("config_file", "profile") and key not in found:
                    found[key] = param
    return found


def _named_in_file(
    problem: SettingsError, project: project_file.Project, ctx: click.Context
) -> SettingsError:
    """A problem with an option's value (``--key: what is wrong``) names the project file and
    the key when the value came from the file."""
    text = str(problem)
    named = re.match(r"--([\w-]+)(: )?", text)
    key = named.group(1) if named else ""
    origin = project.origins.get(key)
    param = _configurable(ctx).get(key)
    if origin is None or (param is not None and _from_command_line(ctx, param.name)):
        return problem
    return SettingsError(f"{origin}: {key}: {text[named.end() :] if named.group(2) else text}")


def out_option(required: bool) -> Callable:
    kind = click.Path(file_okay=False, path_type=Path)
    help_text = "Output folder for the stage files and reports."
    if required:
        return click.option("--out", "out", type=kind, required=True, help=help_text)
    return click.option(
        "--out", "out", type=kind, default=DEFAULT_OUT, show_default=True, help=help_text
    )


INGEST_OPTIONS = _with(SOURCE_LANG, LANGUAGES, LANG_ID)
ALIGN_OPTIONS = _with(EMBEDDER, CACHE_DIR)
CHECK_OPTIONS = _with(TERMBASE, SELECT, IGNORE, BASELINE, MIN_CONFIDENCE, FAIL_ON)
ENGINE_OPTIONS = _with(ENGINE, SCHEDULER, WORKERS, WORKER_MEMORY)


def build_settings(
    *,
    source_lang: str = DEFAULT_SOURCE_LANG,
    languages: tuple[str, ...] = (),
    lang_id: str = DEFAULT_LANG_ID,
    embedder: str = DEFAULT_EMBEDDER,
    cache_dir: Path | None = None,
    termbases: tuple[Path, ...] = (),
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    baseline: Path | None = None,
    fail_on: str = "error",
    engine: str = "local",
    scheduler: str | None = None,
    workers: int | None = None,
    worker_memory: str | None = None,
    formats: tuple[str, ...] = (),
    masters: tuple[str, ...] = (),
    card_names: tuple[Path, ...] = (),
    min_confidence: float = 0.0,
    xliff_state: str = "keep",
    project: project_file.Project | None = None,
) -> Settings:
    """The settings of the options given, every value checked (SettingsError otherwise);
    ``project``: what the project file says beyond the options (checked as it was read)."""
    project = project or project_file.Project()
    team = tuple(project.checklist.codes())
    source_lang = source_lang.strip().lower()
    unknown = sorted(set(formats) - set(WRITERS.names()))
    if unknown:
        raise SettingsError(
            f"--format: unknown format {', '.join(unknown)} (known: {', '.join(WRITERS.names())})"
        )
    validate_engine(engine, scheduler, workers, worker_memory)
    return Settings(
        source_lang=source_lang,
        languages=validate_languages(
            languages or DEFAULT_LANGUAGES, source_lang, lang_id, supported_languages(lang_id)
        ),
        lang_id=lang_id,
        embedder=validate_embedder(embedder),
        cache_dir=cache_dir,
        termbases=tuple(termbases),
        select=validate_codes("--select", select, team),
        ignore=validate_codes("--ignore", ignore, team),
        baseline=baseline,
        fail_on=fail_on,
        engine=engine,
        scheduler=scheduler,
        workers=workers,
        worker_memory=worker_memory,
        formats=tuple(formats),
        masters=tuple(spec.strip() for spec in masters),
        card_names=validate_name_lists(card_names),
        min_confidence=min_confidence,
        xliff_state=xliff_state,
        **project.settings_fields(),
    )


def validate_name_lists(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    """Card-name lists that can be read (the first problem of one that cannot is the
    error)."""
    for path in paths:
        try:
            read_name_list(path)
        except NameListError as problem:
            raise SettingsError(f"--card-names: {problem}") from None
    return tuple(paths)


def validate_embedder(spec: str) -> str:
    """An embedder spec that names a backend that can be built here (no model is loaded)."""
    try:
        build_embedder(spec)
    except EmbedderError as problem:
        raise SettingsError(f"--embedder: {problem}") from None
    return spec.strip()


def load_resources(settings: Settings) -> stages.Resources:
    """The termbase and baseline, read before any work (a bad file stops the command); says
    which --languages the termbase has no terms for (their terminology goes unchecked)."""
    resources = stages.Resources.load(settings)
    known = resources.termbase.languages
    bare = [
        lang
        for lang in settings.languages
        if lang != settings.source_lang and not any(languages_related(t, lang) for t in known)
    ]
    if bare:
        console.note(
            f"the termbase has no terms in {', '.join(bare)}: terminology is not checked there "
            "(add them with --termbase)"
        )
    return resources


def master_files(settings: Settings) -> list[Path]:
    """The files the --masters values name, from the cache or the file system (never
    downloaded here: ``rulings fetch`` does that)."""
    cache = cache_root(settings.cache_dir)
    return [path for spec in settings.masters for path in masters.resolve_masters(spec, cache)]


def existing_inputs(inputs: tuple[Path, ...]) -> list[Path]:
    paths = list(inputs) or [DEFAULT_INPUT]
    for path in paths:
        if not input_exists(path):
            raise InputError(f"no such file or folder: {path}")
    return paths


def exit_status(findings: list[Finding], fail_on: str) -> int:
    if fail_on == "never":
        return EXIT_OK
    limit = severity_rank(fail_on)
    return EXIT_FINDINGS if any(severity_rank(f.severity) <= limit for f in findings) else EXIT_OK


@click.group(cls=RulingsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rulings")
def main() -> None:
    """Check translated Magic: The Gathering rulings and rules against their English source."""


@main.command(cls=ConfiguredCommand)
@INPUTS
@out_option(required=False)
@INGEST_OPTIONS
@ALIGN_OPTIONS
@CHECK_OPTIONS
@ENGINE_OPTIONS
@MASTERS
@CARD_NAMES
@XLIFF_STATE
@FORCE
@verbosity_options
def run(inputs: tuple[Path, ...], out: Path, force: bool, **options: Any) -> int:
    """Run every stage on INPUT files or folders (default: corpus/).

    OUT always holds the outputs of one complete run: a run that fails or is interrupted
    leaves the previous one. When the inputs, options and version are those of the last
    run into OUT, its outputs are reused (see OUT/run-manifest.json); --force recomputes.
    """
    settings = build_settings(**options)
    resources = load_resources(settings)
    sources = existing_inputs(inputs) + master_files(settings)
    outputs.check_writable(out)
    console.detail(f"cache folder: {cache_root(settings.cache_dir)}")
    try:
        with console.Reporter() as reporter:
            result = pipeline.run(
                sources,
                out,
                settings,
                force=force,
                resources=resources,
                on_progress=reporter.update,
                on_ingested=_unless_stopped(console.ingest_summary),
                on_stage=reporter.stage,
            )
        if _stops:
            raise Interrupted
    except (KeyboardInterrupt, Interrupted):
        left = f"{out} holds the last complete run" if out.is_dir() else f"{out} was not made"
        raise Interrupted(left) from None
    if result.reused:
        console.reused(out)
    else:
        console.work_reused(result.work)
        console.foreign_entries(result.work)
    console.findings_summary(result.findings, result.suppressed)
    console.not_checked(
        result.ingested.findings if result.ingested is not None else result.findings
    )
    console.reports_written(result.written)
    return exit_status(result.findings, settings.fail_on)


@main.command(cls=ConfiguredCommand)
@INPUTS
@out_option(required=True)
@INGEST_OPTIONS
@CACHE_DIR
@CARD_NAMES
@ENGINE_OPTIONS
@verbosity_options
def ingest(inputs: tuple[Path, ...], out: Path, **options: Any) -> int:
    """Read INPUT files or folders into OUT/corpus.jsonl."""
    settings = build_settings(**options)
    outputs.check_writable(out)
    engine = build_engine(
        settings.engine,
        settings.scheduler,
        workers=settings.workers,
        memory_limit=settings.worker_memory,
    )
    reuse = Reuse()
    try:
        with console.Reporter() as reporter, reporter.stage("ingest"):
            result = stages.ingest_stage(
                existing_inputs(inputs), out, settings, engine, reuse=reuse
            )
    finally:
        engine.close()
    console.ingest_summary(result)
    console.foreign_entries(reuse)
    return EXIT_OK


@main.command(cls=ConfiguredCommand)
@out_option(required=True)
@SOURCE_LANG
@ALIGN_OPTIONS
@ENGINE_OPTIONS
@verbosity_options
def align(out: Path, **options: Any) -> int:
    """Pair every translated ruling in OUT/corpus.jsonl with its source: OUT/alignment.jsonl."""
    settings = build_settings(**options)
    outputs.check_writable(out, inside=True)
    engine = build_engine(
        settings.engine,
        settings.scheduler,
        workers=settings.workers,
        memory_limit=settings.worker_memory,
    )
    reuse = Reuse()
    try:
        with console.Reporter() as reporter, reporter.stage("align"):
            rows = stages.align_stage(out, settings, reporter.update, engine, reuse=reuse)
    finally:
        engine.close()
    console.alignment_summary(rows)
    console.foreign_entries(reuse)
    return EXIT_OK


@main.command(cls=ConfiguredCommand)
@out_option(required=True)
@SOURCE_LANG
@CACHE_DIR
@CHECK_OPTIONS
@CARD_NAMES
@ENGINE_OPTIONS
@verbosity_options
def check(out: Path, **options: Any) -> int:
    """Run the checks on OUT's corpus and alignment: OUT/findings.jsonl."""
    settings = build_settings(**options)
    outputs.check_writable(out, inside=True)
    resources = load_resources(settings)
    engine = build_engine(
        settings.engine,
        settings.scheduler,
        workers=settings.workers,
        memory_limit=settings.worker_memory,
    )
    reuse = Reuse()
    try:
        with console.Reporter() as reporter, reporter.stage("check"):
            checked = stages.check_stage(out, settings, resources, engine, reuse=reuse)
    finally:
        engine.close()
    console.findings_summary(checked.findings, checked.suppressed)
    console.not_checked([*checked.findings, *checked.suppressed])
    console.foreign_entries(reuse)
    return exit_status(checked.findings, settings.fail_on)


@main.command(cls=ConfiguredCommand)
@out_option(required=True)
@SOURCE_LANG
@CACHE_DIR
@FORMATS
@TERMBASE
@FAIL_ON
@XLIFF_STATE
@verbosity_options
def report(out: Path, **options: Any) -> int:
    """Write OUT/report.html and the other report files from OUT's tables."""
    settings = build_settings(**options)
    outputs.check_writable(out, inside=True)
    resources = stages.Resources.load(settings)
    with console.Reporter() as reporter, reporter.stage("report"):
        written = stages.report_stage(out, settings, resources)
    console.reports_written(written)
    findings = tables.read_records(out / tables.FINDINGS, Finding)
    return exit_status(findings, settings.fail_on)


@main.command()
@INPUTS
@click.option(
    "--run",
    "run_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Use the card names of an earlier run's output folder (its cards.jsonl).",
)
@click.option("--lookup", "lookups", multiple=True, help="A card name, in any language.")
@CACHE_DIR
@CARD_NAMES
@verbosity_options
def cards(
    inputs: tuple[Path, ...],
    run_dir: Path | None,
    lookups: tuple[str, ...],
    cache_dir: Path | None,
    card_names: tuple[Path, ...],
) -> int:
    """What the card-name index knows: names per language, and the card behind a name.

    The index holds the names the package ships plus those in card data given as INPUT
    (MTGJSON or Scryfall files) or read by an earlier run (--run).
    """
    index = stages.card_index(list(inputs), run_dir, cache_dir, validate_name_lists(card_names))
    console.card_index_summary(index)
    missing = 0
    for name in lookups:
        missing += not console.card_lookup(index, name)
    return EXIT_FINDINGS if missing else EXIT_OK


@main.command()
@click.argument("kind", type=click.Choice(sorted(masters.KINDS)), metavar="KIND")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@CACHE_DIR
@verbosity_options
def fetch(kind: str, names: tuple[str, ...], cache_dir: Path | None) -> int:
    """Download English masters into the cache, for `rulings run --masters`.

    KIND is mtgjson (NAMEs: set codes such as TSP PLC FUT, or AllPrintings; checked against
    MTGJSON's published SHA-256), scryfall (NAMEs: bulk types, default rulings and
    oracle_cards) or cr (the Comprehensive Rules text; no NAME). A file already complete and
    current is not downloaded again; an interrupted download resumes.
    """
    try:
        with console.download_progress() as progress:
            paths = masters.fetch(kind, names, cache_root(cache_dir), progress=progress)
    except (KeyboardInterrupt, Interrupted):
        raise Interrupted("what was downloaded is kept; the next fetch resumes it") from None
    console.fetched(kind, paths)
    return EXIT_OK


@main.group("cache")
def cache_group() -> None:
    """Show, prune or clear the work cache: what each file's reading, document's alignment
    and document's or group's checks gave, kept for the next run (CACHE/work.db). Its size
    is held to $RULINGS_CACHE_LIMIT (default 20GB), least recently used first out."""


def _store(cache_dir: Path | None) -> store.Store:
    return store.Store(cache_root(cache_dir))


def _current_versions(rows: list[store.KindInfo]) -> dict[str, str]:
    """Each kind's version digest today, and that of the last-run entries among the store's
    ``rows`` (``last_run``)."""
    current = work.current_versions()
    return current | last_run.current_versions({row.kind for row in rows}, current)


def _label(kind: str) -> str:
    kinds = last_run.named(kind)
    return f"the last run's {' and '.join(kinds)} results kept together" if kinds else kind


@cache_group.command("info")
@CACHE_DIR
def cache_info(cache_dir: Path | None) -> int:
    """Entries per kind of unit and version (current or not), their size, and the limit."""
    kept = _store(cache_dir)
    click.echo(f"Work cache: {kept.path} ({kept.file_size() / 2**20:,.1f} MB on disk)")
    total = count = 0
    rows = kept.info()
    current = _current_versions(rows)
    width = max([len("all"), *(len(row.kind) for row in rows)])
    for row in rows:
        state = "current" if current.get(row.kind) == row.version else "outdated"
        label = work.KINDS[row.kind].label if row.kind in work.KINDS else _label(row.kind)
        click.echo(
            f"  {row.kind:<{width}} {row.entries:>10,} entries {row.size / 2**20:>10,.1f} MB  "
            f"version {row.version[:12]} ({state}; {label})"
        )
        total, count = total + row.size, count + row.entries
    click.echo(
        f"  {'all':<{width}} {count:>10,} entries {total / 2**20:>10,.1f} MB  "
        f"limit {kept.limit / 2**30:,.1f} GB"
    )
    digests = read_checked(cache_root(cache_dir) / DIGESTS_FILE)
    click.echo(f"Input file digests kept for the next run: {len(digests or []):,}")
    cuts = kept_cuts.kept_count(cache_root(cache_dir))
    click.echo(f"Files of sets whose cuts are kept for the next run: {cuts:,}")
    from .align.embed import usem3_kept

    models = usem3_kept.size(cache_root(cache_dir))
    click.echo(f"Embedding model kept ready to read: {models / 2**20:,.1f} MB")
    indexes = kept_indexes(cache_root(cache_dir))
    size = sum(path.stat().st_size for path in indexes if path.is_file())
    click.echo(
        f"Card-name indexes kept: {len(indexes):,} ({size / 2**20:,.1f} MB; "
        f"the {INDEXES_KEPT} most recently used are kept)"
    )
    return EXIT_OK


@cache_group.command("prune")
@CACHE_DIR
@click.option(
    "--limit",
    "limit",
    help="Keep at most this much (e.g. 5GB, 500MB); default: $RULINGS_CACHE_LIMIT or 20GB.",
)
def cache_prune(cache_dir: Path | None, limit: str | None) -> int:
    """Remove entries written by other versions of the code, then the least recently used
    until the cache is within its limit."""
    try:
        size = store.parse_size(limit) if limit else None
    except ValueError as problem:
        raise click.BadParameter(str(problem), param_hint="--limit") from None
    kept = _store(cache_dir)
    removed = kept.prune(size, current=_current_versions(kept.info()))
    click.echo(f"Removed {removed:,} entries; {kept.size() / 2**20:,.1f} MB kept in {kept.path}")
    dropped = drop_indexes(cache_root(cache_dir), keep=INDEXES_KEPT)
    if dropped:
        click.echo(f"Removed {dropped:,} card-name indexes of older layouts or least used")
    if identified.drop_old_files(cache_root(cache_dir)):
        click.echo("Removed the language identifications kept as files by older versions")
    return EXIT_OK


@cache_group.command("clear")
@CACHE_DIR
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(sorted(work.KINDS)),
    help="Only the entries of this kind of unit. Repeatable.",
)
def cache_clear(cache_dir: Path | None, kinds: tuple[str, ...]) -> int:
    """Remove every entry of the work cache (or of the given kinds); without kinds, also the
    input files' digests and the files of sets' cuts kept for the next run (the next run
    reads every input again), the embedding model kept ready to read (the next run reads it
    from its package), the card-name indexes and the report writers' last times."""
    kept = _store(cache_dir)
    if kinds:
        kinds += tuple(last_run.naming({row.kind for row in kept.info()}, kinds))
    removed = kept.clear(kinds)
    click.echo(f"Removed {removed:,} entries from {kept.path}")
    if not kinds:
        from .align.embed import usem3_kept
        from .report.balance import SECONDS_FILE

        (cache_root(cache_dir) / DIGESTS_FILE).unlink(missing_ok=True)
        (cache_root(cache_dir) / SECONDS_FILE).unlink(missing_ok=True)
        kept_cuts.clear(cache_root(cache_dir))
        usem3_kept.clear(cache_root(cache_dir))
        drop_indexes(cache_root(cache_dir))
        identified.drop_old_files(cache_root(cache_dir))
    return EXIT_OK


@main.command(cls=ConfiguredCommand)
@click.argument("code", required=False)
def rules(code: str | None, project: project_file.Project) -> int:
    """List every finding code: code, category, severity, stage and what it means (codes
    off by default are marked "off"), then the team's checklist rules; with CODE, that
    code's full documentation with a bad and a good example from its tests."""
    from .check.examples import render_rule

    team = project.checklist
    if code is not None:
        click.echo(render_rule(code, team), nl=False)
        return EXIT_OK
    from .check.registry import CHECKS

    for row in TABLE:
        function = CHECKS[row.code].target if row.code in CHECKS else None
        state = "" if row.default else "\toff"
        console.echo(
            f"{row.code}\t{row.category}\t{row.severity}\t{row.stage}\t"
            f"{_quality(row.code, str(row.category))}\t{explanation(row.code, function)}{state}"
        )
    for rule in team.rules:
        click.echo(
            f"{rule.code}\t{rule.category}\t{rule.severity}\t{CHECK}\t"
            f"{_quality(rule.code, str(rule.category))}\t{rule.explanation()}"
        )
    return EXIT_OK


def _quality(code: str, category: str) -> str:
    """ "its:TYPE<TAB>mqm:Category/severity" of a code, as ``rulings rules`` lists it."""
    its_type, mqm = quality(code, category)
    return f"its:{its_type}\tmqm:{mqm['category']}/{mqm['severity']}"


@main.command(cls=ConfiguredCommand)
@INPUTS
@out_option(required=False)
@INGEST_OPTIONS
@ALIGN_OPTIONS
@CHECK_OPTIONS
@ENGINE_OPTIONS
@MASTERS
@FORMATS
@XLIFF_STATE
def config(project: project_file.Project, **options: Any) -> int:
    """Show the effective settings of a run with these options (every option, named
    threshold, per-path ignore, severity override, checklist rule and allow list) and
    where each comes from: the command line, the project file (and its profile) or the
    default. Exit 2 when the project file has a mistake."""
    ctx = click.get_current_context()
    build_settings(
        **{k: v for k, v in options.items() if k not in ("inputs", "out")}, project=project
    )
    origins = {}
    for param in ctx.command.params:
        key = project_file.option_key(param)
        if param.name in options:
            if _from_command_line(ctx, param.name):
                origins[key] = project_file.COMMAND_LINE
            else:
                origins[key] = project.origins.get(key, project_file.DEFAULT)
    click.echo(project_file.render(ctx.command.params, options, origins, project), nl=False)
    return EXIT_OK
