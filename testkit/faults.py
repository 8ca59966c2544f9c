"""Fault injection: runs killed at random moments, interrupted, run two at a time, caches
damaged, an output folder that is read-only or on a full disk. After every fault the output
folder must hold exactly one complete run (every file byte for byte that of a clean run, the
run manifest included) and the next run must give a clean run's bytes.

``run(faults, seed)`` injects the faults and returns the figures (``benchmarks/faults.py``
records a run of 300; tests/test_faults.py runs a modest number in CI). ``rulings run`` is
driven as a user drives it (``python -m pipelines run`` in a subprocess) on a copy of corpus/
and on a smaller part of it with other options: two configurations whose every output
differs, so that a mix of two runs cannot pass for either. The code under test is a copy of
``pipelines/`` taken when the run starts (edits made meanwhile do not change the run
manifest's code digest halfway). A full disk and a read-only output folder are real (a small
tmpfs, remounted read-only or shrunk) when running as root; otherwise the read-only case uses
file permissions and the full disk is skipped (and recorded as such).

``battery(kinds)`` is the hostile battery (``HOSTILE``, docs/inputs.md): inputs, caches, pipes
and outputs a hostile user would hand ``rulings run``, each case checked for lines lost.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from testkit.paths import ROOT, SEEDS

PROGRESS = re.compile(rb"^rulings: (?:ingest|align|check|report): .*\n", re.MULTILINE)
"""A stage's progress lines on stderr (start, end, progress: printed where there is no
terminal): not what a case checks, which is what the command said besides them."""


def said(err: bytes) -> bytes:
    """stderr without the progress lines."""
    return PROGRESS.sub(b"", err or b"")


CONFIGS = {"all": ("corpus", ()), "part": ("part", ("--ignore", "STYLE"))}
"""Two runs whose every output file differs: the seeds, and three of them without STYLE."""
PART = ("000_40e512ac1ae253c1.txt", "001_09da9df6e0e3ee52.txt", "002_f829283b2bc10ea3.txt")
KINDS = ("kill", "interrupt", "concurrent", "cache", "read-only", "full-disk")
WEIGHTS = {"kill": 5, "interrupt": 3, "concurrent": 2, "cache": 3, "read-only": 1, "full-disk": 1}
INTERRUPTED = 130
RUN_TIMEOUT = 600


@dataclass
class Outcome:
    kind: str
    detail: str
    state: str
    """What OUT held afterwards: a configuration's name, "absent" or "mix"."""
    allowed: tuple[str, ...]
    problems: list[str] = field(default_factory=list)
    before: str = ""
    """What OUT held before the fault."""
    config: str = ""
    """The configuration of the faulted run."""


def snapshot(folder: Path) -> dict[str, bytes] | None:
    if not folder.is_dir():
        return None
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def staging(out: Path) -> list[str]:
    """Staging folders a run left beside OUT."""
    return [p.name for p in out.parent.glob(f".{out.name}.rulings-*") if p.is_dir()]


class Harness:
    """A work folder with the corpus, a copy of the package, a cache and clean references.
    ``warm_cache``: a cache folder to start from (copied: the faults damage theirs)."""

    def __init__(self, work: Path, seed: int, warm_cache=None):
        self.work, self.warm_cache = work, warm_cache
        self.random = random.Random(seed)
        self.cache, self.out = work / "cache", work / "out"
        self.references: dict[str, dict[str, bytes]] = {}
        self.durations: dict[str, float] = {}
        self.outcomes: list[Outcome] = []
        self.follow_ups = 0
        self.mount: Path | None = None
        self.is_root = os.geteuid() == 0

    # --- set-up and runs ---------------------------------------------------------------

    def set_up(self) -> None:
        skip = shutil.ignore_patterns("__pycache__")
        shutil.copytree(ROOT / "pipelines", self.work / "package" / "pipelines", ignore=skip)
        shutil.copytree(SEEDS, self.work / "corpus")
        if self.warm_cache is not None and self.warm_cache.is_dir():
            shutil.copytree(self.warm_cache, self.cache, ignore=shutil.ignore_patterns(".*"))
        (self.work / "part").mkdir()
        for name in PART:
            shutil.copy(SEEDS / name, self.work / "part" / name)
        # The second run of "all" gives its duration warm, as the faulted runs are.
        for name, reference in [*CONFIGS.items(), ("all", "again")]:
            out, start = self.work / f"reference-{reference}", time.perf_counter()
            code, err = self.finish(self.start(name, out))
            if code not in (0, 1):
                raise SystemExit(f"a clean run failed: {err.decode()[-2000:]}")
            self.durations[name] = time.perf_counter() - start
            self.references.setdefault(name, snapshot(out))
        if snapshot(self.work / "reference-again") != self.references["all"]:
            raise SystemExit("two clean runs differ: the outputs are not deterministic")
        first, second = self.references.values()
        shared = sorted(name for name in first if first[name] == second.get(name))
        if {"findings.jsonl", "report.html", "run-manifest.json"} & set(shared):
            raise SystemExit(f"the two configurations share outputs: {shared}")

    def env(self) -> dict[str, str]:
        package, cache = str(self.work / "package"), str(self.cache)
        environment = {"PYTHONPATH": package, "RULINGS_CACHE_DIR": cache}
        return {**os.environ, **environment, "PYTHONDONTWRITEBYTECODE": ""}

    def command(self, name: str, out: Path, force: bool = True) -> list[str]:
        folder, options = CONFIGS[name]
        command = [sys.executable, "-m", "pipelines", "run", str(self.work / folder)]
        return [*command, "--out", str(out), *options, *(["--force"] if force else [])]

    def start(self, name: str, out: Path, force: bool = True) -> subprocess.Popen:
        pipe, command = subprocess.PIPE, self.command(name, out, force)
        return subprocess.Popen(command, stdout=pipe, stderr=pipe, env=self.env(), cwd=self.work)

    def finish(self, process: subprocess.Popen) -> tuple[int, bytes]:
        _, err = process.communicate(timeout=RUN_TIMEOUT)
        return process.returncode, said(err)

    # --- checks ----------------------------------------------------------------------------

    def state(self, out: Path) -> str:
        files = snapshot(out)
        if files is None:
            return "absent"
        return next((name for name, ref in self.references.items() if files == ref), "mix")

    def describe_mix(self, out: Path) -> str:
        files = snapshot(out) or {}
        owners = {
            file: "/".join(n for n, ref in self.references.items() if ref.get(file) == data)
            for file, data in sorted(files.items())
        }
        parts = [f"{file}={owner or 'neither'}" for file, owner in owners.items()]
        missing = set().union(*self.references.values()) - set(files)
        return ", ".join(parts) + (f"; missing {sorted(missing)}" if missing else "")

    def record(self, kind, detail, out, allowed, *problems, before="", config="") -> Outcome:
        state = self.state(out)
        allowed = tuple(name for name in allowed if name != "mix")  # a mix is never allowed
        outcome = Outcome(kind, detail, state, allowed, [p for p in problems if p], before, config)
        if state not in allowed:
            mix = f": {self.describe_mix(out)}" if state == "mix" else ""
            outcome.problems.append(f"OUT holds {state}, expected one of {allowed}{mix}")
        self.outcomes.append(outcome)
        return outcome

    def follow_up(self, out: Path) -> None:
        """The next run after a fault: it completes, gives a clean run's bytes, and leaves
        no staging folder behind."""
        name = self.random.choice(list(CONFIGS))
        code, err = self.finish(self.start(name, out, force=False))
        self.follow_ups += 1
        failed = (
            f"the next run failed ({code}): {err.decode()[-300:]}" if code not in (0, 1) else None
        )
        left = f"left behind: {staging(out)}" if staging(out) else None
        self.record("follow-up", name, out, (name,), failed, left)

    # --- faults ----------------------------------------------------------------------------

    def kill(self) -> None:
        """SIGKILL at a random moment of a run (often late: the writing and the exchange)."""
        before = self.state(self.out)
        name = self._other(before)
        late = self.random.random() < 0.5
        delay = self.random.uniform(0.7 if late else 0.0, 1.1) * self.durations[name]
        process = self.start(name, self.out)
        time.sleep(delay)
        process.kill()
        code, _ = self.finish(process)
        allowed = (name,) if code in (0, 1) else tuple({before, name})
        self.record(
            "kill", f"{name} after {delay:.2f}s", self.out, allowed, before=before, config=name
        )

    def interrupt(self) -> None:
        """Ctrl-C or SIGTERM at a random moment: exit 130 and one line, or a finished run."""
        before = self.state(self.out)
        name = self._other(before)
        number = self.random.choice([signal.SIGINT, signal.SIGTERM])
        delay = self.random.uniform(0.0, 1.1) * self.durations[name]
        process = self.start(name, self.out)
        time.sleep(delay)
        process.send_signal(number)
        code, err = self.finish(process)
        problems, lines = [], err.decode().splitlines()
        if code == INTERRUPTED:
            allowed = tuple({before, name})
            if len(lines) != 1 or not lines[0].startswith("rulings: interrupted"):
                problems.append(f"stderr is not one line: {err.decode()[-500:]!r}")
        elif code == -number and not lines and not staging(self.out):
            # Before the interpreter runs the command's first line the signal's default
            # action ends the process (the shell shows 128 + the signal): nothing written.
            allowed = (before,)
        elif code in (0, 1):
            allowed = (name,)
            if err.strip():
                problems.append(f"a finished run wrote to stderr: {err.decode()[-300:]!r}")
        else:
            allowed = (before,)
            problems.append(f"exit status {code}: {err.decode()[-300:]!r}")
        detail = f"{signal.Signals(number).name} to {name} after {delay:.2f}s: exit {code}"
        self.record("interrupt", detail, self.out, allowed, *problems, before=before, config=name)

    def concurrent(self) -> None:
        """Two runs of the two configurations into one folder at once."""
        names = list(CONFIGS)
        self.random.shuffle(names)
        stagger = self.random.uniform(0.0, 0.5)
        first = self.start(names[0], self.out)
        time.sleep(stagger)
        second = self.start(names[1], self.out)
        problems = []
        for code, err in map(self.finish, (first, second)):
            if code not in (0, 1):
                problems.append(f"a run failed ({code}): {err.decode()[-300:]}")
        detail = f"{names[0]}, then {names[1]} {stagger:.2f}s later"
        self.record("concurrent", detail, self.out, tuple(names), *problems)

    def damage_cache(self) -> None:
        """Cut short or flip a byte of a random cache file, then run: a clean run's bytes."""
        files = sorted(
            p
            for p in self.cache.rglob("*")
            if p.is_file() and not p.name.startswith(".") and p.suffix != ".txt"
        )
        target = self.random.choice(files)
        data = bytearray(target.read_bytes())
        if self.random.random() < 0.5 and len(data) > 1:
            cut = self.random.randrange(len(data))
            target.write_bytes(bytes(data[:cut]))
            how = f"cut to {cut} of {len(data)} bytes"
        else:
            where = self.random.randrange(len(data))
            data[where] ^= 1 << self.random.randrange(8)
            target.write_bytes(bytes(data))
            how = f"bit flipped at byte {where} of {len(data)}"
        name = self.random.choice(list(CONFIGS))
        code, err = self.finish(self.start(name, self.out))
        problem = f"the run failed ({code}): {err.decode()[-300:]}" if code not in (0, 1) else None
        detail = f"{target.relative_to(self.cache)}: {how}; then {name}"
        self.record("cache", detail, self.out, (name,), problem)

    def read_only(self) -> None:
        """A run into a folder it cannot write: exit 2, one line naming OUT, OUT unchanged."""
        with self._disk() as disk:
            if self.mount is None and os.geteuid() == 0:
                why = "skipped: root without mount ignores permissions"
                self.outcomes.append(Outcome("read-only", why, "-", ()))
                return
            out, before = self._prefilled(disk)
            name = self._other(before)
            if self.mount is not None:
                _remount(disk, "ro")
            else:
                for path in (out, disk):
                    path.chmod(0o555)
            try:
                code, err = self.finish(self.start(name, out))
            finally:
                if self.mount is not None:
                    _remount(disk, "rw")
                else:
                    for path in (disk, out):
                        path.chmod(0o755)
            self._expect_one_error(
                "read-only", name, out, before, code, err, f"cannot write to {out}"
            )

    def full_disk(self) -> None:
        """A run that fills the disk while it writes: exit 2, one line, OUT unchanged."""
        if not self.is_root:
            why = "skipped: mounting a small file system needs root"
            self.outcomes.append(Outcome("full-disk", why, "-", ()))
            return
        with self._disk() as disk:
            out, before = self._prefilled(disk)
            name = self._other(before)
            used = shutil.disk_usage(disk).used
            room = self.random.uniform(0.05, 0.9) * sum(map(len, self.references[name].values()))
            _remount(disk, f"size={int(used + room)}")
            try:
                code, err = self.finish(self.start(name, out))
            finally:
                _remount(disk, "size=64m")
            expected = f"cannot write to {out}: No space left on device"
            detail = f"{name} with {int(room / 1024)} KiB free"
            self._expect_one_error("full-disk", detail, out, before, code, err, expected)

    def _expect_one_error(self, kind, detail, out, before, code, err, expected) -> None:
        lines = err.decode().splitlines()
        problem = None
        if code != 2:
            problem = f"exit status {code}, not 2"
        elif len(lines) != 1 or not lines[0].startswith(f"rulings: error: {expected}"):
            problem = f"stderr: {err.decode()[-500:]!r}"
        left = f"left behind: {staging(out)}" if staging(out) else None
        self.record(kind, detail, out, (before,), problem, left)

    def _prefilled(self, disk: Path) -> tuple[Path, str]:
        for entry in disk.iterdir():
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        out = disk / "out"
        self.finish(self.start(self.random.choice(list(CONFIGS)), out))
        return out, self.state(out)

    def _other(self, before: str) -> str:
        """A configuration whose outputs differ from what OUT holds (so that OUT shows
        whether the faulted run got through)."""
        others = [name for name in CONFIGS if name != before]
        return others[0] if len(others) == 1 else self.random.choice(others)

    @contextlib.contextmanager
    def _disk(self) -> Iterator[Path]:
        """A folder of its own for the read-only and full-disk faults: a tmpfs when root
        can mount one, else a plain folder."""
        if self.mount is None and self.is_root:
            point = self.work / "disk"
            point.mkdir(exist_ok=True)
            mount = ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(point)]
            if subprocess.run(mount, capture_output=True, check=False).returncode == 0:
                self.mount = point
            else:
                self.is_root = False  # no mounting here: permissions, and no full disk
        folder = self.mount or self.work / "disk"
        folder.mkdir(exist_ok=True)
        yield folder

    def tear_down(self) -> None:
        if self.mount is not None:
            subprocess.run(["umount", "-l", str(self.mount)], check=False)
            self.mount = None

    # --- the plan --------------------------------------------------------------------------

    def inject(self, kind: str) -> Outcome:
        method = "damage_cache" if kind == "cache" else kind.replace("-", "_")
        getattr(self, method)()
        return self.outcomes[-1]

    def figures(self) -> dict:
        faults = [o for o in self.outcomes if o.kind != "follow-up"]
        checked = [o for o in self.outcomes if o.state != "-"]
        kills = [o for o in faults if o.kind == "kill"]
        by_tmpfs = self.mount is not None or self.is_root
        return {
            "faults": dict(Counter(o.kind for o in faults)),
            "runs_killed": len(kills),
            "kills_before_the_exchange": sum(o.state == o.before != o.config for o in kills),
            "kills_after_the_exchange": sum(o.state == o.config != o.before for o in kills),
            "runs_interrupted_130": sum(
                o.kind == "interrupt" and "exit 130" in o.detail for o in faults
            ),
            "interrupted_before_python_started": sum(
                o.kind == "interrupt" and "exit -" in o.detail and not o.problems for o in faults
            ),
            "caches_damaged": sum(o.kind == "cache" for o in faults),
            "concurrent_pairs": sum(o.kind == "concurrent" for o in faults),
            "read_only": sum(o.kind == "read-only" for o in faults),
            "full_disk": sum(o.kind == "full-disk" and o.state != "-" for o in faults),
            "follow_up_runs": self.follow_ups,
            "outputs_checked": len(checked),
            "mixes_found": sum(o.state == "mix" for o in checked),
            "problems": [
                f"{o.kind} ({o.detail}): {'; '.join(o.problems)}"
                for o in self.outcomes
                if o.problems
            ],
            "clean_run_seconds": {name: round(s, 2) for name, s in self.durations.items()},
            "full_disk_and_read_only_by": "tmpfs (remounted read-only or shrunk)"
            if by_tmpfs
            else "file permissions; full disk skipped",
        }


def _remount(point: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(point)], check=True)


def plan(faults: int, rng: random.Random) -> list[str]:
    """Every kind at least once, then kills, interrupts and damaged caches most often."""
    kinds = list(KINDS)
    while len(kinds) < faults:
        kinds.append(rng.choices(list(WEIGHTS), list(WEIGHTS.values()))[0])
    rng.shuffle(kinds)
    return kinds[:faults]


def run(faults, seed, *, follow_every=1, work=None, warm_cache=None):
    """Inject ``faults`` faults; a follow-up run after every ``follow_every`` of them (and one
    at the end)."""
    with contextlib.ExitStack() as stack:
        if work is None:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rulings-faults-")))
        harness = Harness(work, seed, warm_cache)
        stack.callback(harness.tear_down)
        harness.set_up()
        started = time.perf_counter()
        for number, kind in enumerate(plan(faults, harness.random), 1):
            outcome = harness.inject(kind)
            mark = "ok" if not outcome.problems else "PROBLEM " + "; ".join(outcome.problems)
            print(f"{number:4} {kind:10} {outcome.detail}: {outcome.state} {mark}", flush=True)
            if number % follow_every == 0 and kind in ("kill", "interrupt", "concurrent"):
                harness.follow_up(harness.out)
        harness.follow_up(harness.out)
        return harness.figures() | {
            "seconds": round(time.perf_counter() - started, 1),
            "seed": seed,
        }


# --- the hostile battery: names, pipes, caches, NUL bytes, hidden files, messages -------------
#
# Each case drives ``rulings run`` as a hostile user would and checks what the run kept: every
# non-blank line of every input is accounted for in the outputs (a ruling, a line a ruling
# carries, or a parse finding; a file skipped as a whole by a finding naming it), under the
# input's own id, no id twice, and the command ends (a timeout is a hang) with the status and
# the one stderr line the case expects. ``lost`` counts the lines not accounted for, the
# duplicate ids and the output files that differ from a clean run's.

HOSTILE = (
    "same-names",
    "cache-keys",
    "special-files",
    "closed-stdout",
    "nul-bytes",
    "hidden-files",
    "messages",
)
HANG_SECONDS = 240
"""A run of a few seed files that has not ended after this long is taken for a hang."""
WHOLE_FILE_CODES = {"PARSE001", "PARSE003", "PARSE010", "PARSE014"}
"""Findings that account for a whole file (skipped or empty, and said so)."""
SEED_NAMES = sorted(p.name for p in SEEDS.glob("*.txt"))
ONE_ENTRY_KINDS = {"check-pair-keys", "align-versions"}
"""Kinds of unit the seeds give one entry of (the pair keys of the one document with aligned
pairs, the rules excerpt's; the newer versions of the one set of English documents): no
other key of the kind to copy it over."""
READ_BEHIND = {
    "ingest": "ingest-passes",
    "langid": "ingest-passes",
    "foreign-language": "ingest-passes",
}
"""Kinds a run reads only for the units the kind in front of them misses (a file's reading,
read back to pass the file again: ``ingest/passes.py``; the identifications of its texts
and its documents' foreign languages, read as it is passed again): their case drops the
entries in front first, so that the run reads every one of its own."""
LAST_RUN_PREFIX = "last-run:"
"""The store's kinds that keep a call's last results together (``pipelines/last_run.py``):
one entry each (no other key to copy it over), in front of the kinds it names: their case
drops it first, so that the run reads every entry of its own."""
UNFORCED_KINDS = {"report-rows", "workbook-segments"}
"""Kinds a forced run (``--force``, what the case runs) does not read: the report files'
row and segment indexes are read only by a run into the folder of an earlier one, and a
swapped one is a miss there (``tests/test_kept_rows.py``)."""


@dataclass
class Case:
    """One hostile run (or a few, for one question) and what it kept."""

    kind: str
    detail: str
    problems: list[str] = field(default_factory=list)
    lost: int = 0

    @property
    def survived(self) -> bool:
        return not self.problems and not self.lost


@dataclass
class Done:
    code: int | None
    stdout: str
    stderr: str
    hung: bool = False


def read_table(path: Path) -> list[dict]:
    import json

    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def unaccounted(out: Path, expected: dict[str, bytes]) -> tuple[int, list[str]]:
    """How many non-blank lines of the inputs (``expected``: each input's id and bytes) the
    outputs in ``out`` do not account for, and which (a few, for the message); duplicate
    ids count too."""
    rows = read_table(out / "corpus.jsonl")
    findings = read_table(out / "findings.jsonl") + read_table(out / "suppressed.jsonl")
    accounted: dict[str, set[int]] = {}
    whole: set[str] = set()
    for row in rows:
        lines = accounted.setdefault(row["file"], set())
        if row.get("line") is not None:
            lines.update(range(row["line"], (row.get("end_line") or row["line"]) + 1))
        lines.update(item["line"] for item in row.get("carried") or ())
    for finding in findings:
        if finding.get("file") is None:
            continue
        lines = accounted.setdefault(finding["file"], set())
        if finding.get("line") is not None:
            lines.add(finding["line"])
        elif finding["code"] in WHOLE_FILE_CODES:
            whole.add(finding["file"])
        lines.update((finding.get("evidence") or {}).get("lines", ()))
    missing = []
    for rel, data in expected.items():
        if rel in whole:
            continue
        text = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
        for number, line in enumerate(text.split("\n"), 1):
            if line.replace("\x00", "").strip() and number not in accounted.get(rel, ()):
                missing.append(f"{rel}:{number}")
    ids = Counter(row["id"] for row in rows)
    duplicates = [f"{rid} x{n}" for rid, n in sorted(ids.items()) if n > 1]
    lost = len(missing) + sum(ids[rid] - 1 for rid in ids if ids[rid] > 1)
    return lost, (missing[:5] + duplicates[:5])


class Battery:
    """A work folder with a copy of the package and a cache of its own; each ``case_*``
    method returns the cases it ran."""

    def __init__(self, work: Path, warm_cache: Path | None = None) -> None:
        self.work = work
        self.cache = work / "cache"
        skip = shutil.ignore_patterns("__pycache__")
        shutil.copytree(ROOT / "pipelines", work / "package" / "pipelines", ignore=skip)
        if warm_cache is not None and (warm_cache / "embeddings").is_dir():
            shutil.copytree(warm_cache / "embeddings", self.cache / "embeddings")

    def env(self, cache: Path | None = None, path: str | None = None) -> dict[str, str]:
        package = str(self.work / "package")
        return {
            **os.environ,
            "PYTHONPATH": f"{path}{os.pathsep}{package}" if path else package,
            "RULINGS_CACHE_DIR": str(cache or self.cache),
        }

    def rulings(self, *args, stdin=None, stdout=None, cache=None, path=None, fds=()) -> Done:
        """``python -m pipelines ARGS`` in the work folder, ended after HANG_SECONDS."""
        command = [sys.executable, "-m", "pipelines", *map(str, args)]
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE if isinstance(stdin, bytes) else stdin or subprocess.DEVNULL,
            stdout=subprocess.PIPE if stdout is None else stdout,
            stderr=subprocess.PIPE,
            env=self.env(cache, path),
            cwd=self.work,
            pass_fds=fds,
        )
        try:
            out, err = process.communicate(
                stdin if isinstance(stdin, bytes) else None, timeout=HANG_SECONDS
            )
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            return Done(None, (out or b"").decode(), said(err).decode(), hung=True)
        return Done(process.returncode, (out or b"").decode(), said(err).decode())

    def folder(self, name: str, files: dict[str, bytes]) -> Path:
        root = self.work / name
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        return root

    @staticmethod
    def seed(index: int) -> bytes:
        return (SEEDS / SEED_NAMES[index % len(SEED_NAMES)]).read_bytes()

    def expect_run(self, case: Case, done: Done, codes=(0, 1)) -> None:
        if done.hung:
            case.problems.append(f"hung: no end after {HANG_SECONDS} s")
        elif done.code not in codes:
            case.problems.append(f"exit {done.code}, not {codes}: {done.stderr[-300:]!r}")
        if "Traceback" in done.stderr:
            case.problems.append(f"a traceback: {done.stderr[-300:]!r}")

    def account(self, case: Case, out: Path, expected: dict[str, bytes]) -> None:
        lost, where = unaccounted(out, expected)
        case.lost += lost
        if lost:
            case.problems.append(f"{lost} lines or ids lost: {', '.join(where)}")

    # --- 1. names that cannot clash ------------------------------------------------------

    def case_same_names(self) -> list[Case]:
        """Same-named files in several roots, given directly and in roots nested inside
        each other or ending in the same folders: every line kept under an id of its own."""
        cases = []
        layouts = {
            "three roots x/es y/es z/es, each with r.txt": (
                ["x/es", "y/es", "z/es"],
                {rel: rel for rel in ("x/es/r.txt", "y/es/r.txt", "z/es/r.txt")},
            ),
            "three files a/r.txt b/r.txt c/r.txt given directly": (
                ["a/r.txt", "b/r.txt", "c/r.txt"],
                {rel: rel for rel in ("a/r.txt", "b/r.txt", "c/r.txt")},
            ),
            "five roots ending in the same folders (es, p/es, q/p/es, ...)": (
                ["es", "p/es", "q/p/es", "s/q/p/es", "t/s/q/p/es"],
                {
                    "es/r.txt": "{base}/es/r.txt",
                    "p/es/r.txt": "{base}/p/es/r.txt",
                    "q/p/es/r.txt": "{base}/q/p/es/r.txt",
                    "s/q/p/es/r.txt": "{base}/s/q/p/es/r.txt",
                    "t/s/q/p/es/r.txt": "t/s/q/p/es/r.txt",
                },
            ),
            "five roots nested inside each other (n/a/b/c/d, n/a/b/c, ..., n)": (
                ["n/a/b/c/d", "n/a/b/c", "n/a/b", "n/a", "n"],
                {
                    "n/a/b/c/d/r.txt": "d/r.txt",
                    "n/a/b/c/r.txt": "c/r.txt",
                    "n/a/b/r.txt": "b/r.txt",
                    "n/a/r.txt": "a/r.txt",
                    "n/r.txt": "n/r.txt",
                },
            ),
        }  # fmt: skip
        for number, (detail, (roots, ids)) in enumerate(layouts.items()):
            case = Case("same-names", detail)
            name = f"names-{number}"
            data = {rel: self.seed(i) for i, rel in enumerate(ids)}
            base = self.folder(name, data)
            out = self.work / f"{name}-out"
            done = self.rulings(
                "run", *(base / r for r in roots), "--out", out, "--fail-on", "never"
            )
            self.expect_run(case, done, (0,))
            expected = {ids[rel].format(base=name): data[rel] for rel in ids}
            found = sorted({row["file"] for row in read_table(out / "corpus.jsonl")})
            if found != sorted(expected):
                case.problems.append(f"ids {found}, expected {sorted(expected)}")
            self.account(case, out, expected)
            cases.append(case)
        return cases

    # --- 2. cache entries tied to their keys -------------------------------------------------

    def case_cache_keys(self) -> list[Case]:
        """Every work-cache entry of every stage moved to another key of its stage (each
        entry copied over the next one), then a run: a clean run's bytes, one note."""
        corpus = self.folder("keys", {name: (SEEDS / name).read_bytes() for name in SEED_NAMES})
        cache, reference, out = (
            self.work / "keys-cache",
            self.work / "keys-ref",
            self.work / "keys-out",
        )
        cases = []
        first = self.rulings("run", corpus, "--out", reference, cache=cache)
        database = cache / "work.db"
        stages = _work_kinds(database)
        for stage in stages:
            case = Case("cache-keys", f"every {stage} entry copied over another key's")
            self.expect_run(case, first)
            count = _rotate_entries(database, stage)
            for behind in _kinds_in_front(stage, stages):
                _drop_entries(database, behind)
            if (
                (count == 1 and stage in ONE_ENTRY_KINDS)
                or stage in UNFORCED_KINDS
                or stage.startswith(LAST_RUN_PREFIX)
            ):
                continue
            if count < 2:
                case.problems.append(f"{count} {stage} entries: nothing to swap")
                cases.append(case)
                continue
            done = self.rulings("run", corpus, "--out", out, "--force", cache=cache)
            self.expect_run(case, done)
            differ = [
                name
                for name, data in (snapshot(reference) or {}).items()
                if (snapshot(out) or {}).get(name) != data
            ]
            case.lost += len(differ)
            if differ:
                case.problems.append(f"outputs differ from a clean run: {differ}")
            notes = [line for line in done.stderr.splitlines() if "cache entr" in line]
            if len(notes) != 1 or f"{stage} {count}" not in notes[0]:
                case.problems.append(f"not one note naming {count} {stage} entries: {notes}")
            cases.append(case)
        if not stages:
            case = Case("cache-keys", "a run keeps work-cache entries")
            case.problems.append(f"no work cache after a run: {first.stderr[-300:]!r}")
            cases.append(case)
        return cases

    # --- 3. only regular files are read; pipes given as INPUT are read once ----------------

    def case_special_files(self) -> list[Case]:
        """A FIFO without a writer, a socket and a link to /dev/zero inside the input: the
        run ends, each is a PARSE010 and never opened; then the standard input as ``-`` and
        a process substitution as INPUT: each read once, its rulings all there."""
        import socket
        import threading

        corpus = self.folder("special", {"ok.txt": self.seed(0)})
        os.mkfifo(corpus / "p.txt")
        os.symlink("/dev/zero", corpus / "zero.txt")
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(corpus / "s.txt"))
        case = Case("special-files", "a FIFO without a writer, a socket, a link to /dev/zero")
        out = self.work / "special-out"
        try:
            done = self.rulings("run", corpus, "--out", out, "--fail-on", "never")
        finally:
            server.close()
        self.expect_run(case, done, (0,))
        findings = read_table(out / "findings.jsonl")
        unread = sorted(f["file"] for f in findings if f["code"] == "PARSE010")
        if unread != ["p.txt", "s.txt", "zero.txt"]:
            case.problems.append(f"PARSE010 on {unread}, expected p.txt, s.txt, zero.txt")
        self.account(case, out, {"ok.txt": self.seed(0)})
        cases = [case]

        case = Case("special-files", "- (a pipe on stdin) and /dev/fd/N (<(cat seed)) as INPUT")
        read, write = os.pipe()

        def feed() -> None:
            with open(write, "wb") as pipe:
                pipe.write(self.seed(1))

        threading.Thread(target=feed, daemon=True).start()
        out = self.work / "streams-out"
        try:
            done = self.rulings(
                "run", "-", f"/dev/fd/{read}", "--out", out, "--fail-on", "never",
                stdin=self.seed(2), fds=(read,),
            )  # fmt: skip
        finally:
            os.close(read)
        self.expect_run(case, done, (0,))
        self.account(case, out, {"stdin": self.seed(2), f"fd-{read}": self.seed(1)})
        cases.append(case)
        return cases

    # --- 4. a closed stdout --------------------------------------------------------------

    def case_closed_stdout(self) -> list[Case]:
        """stdout a pipe whose reader is gone before the run writes a line: the outputs are
        written (a clean run's files), the status is the findings' status."""
        corpus = self.folder("pipe", {name: (SEEDS / name).read_bytes() for name in SEED_NAMES[:3]})
        reference = self.work / "pipe-ref"
        clean = self.rulings("run", corpus, "--out", reference)
        cases = []
        for fail_on, status in (("never", 0), ("error", clean.code)):
            case = Case(
                "closed-stdout", f"--fail-on {fail_on}: stdout closed before the first line"
            )
            out = self.work / f"pipe-out-{fail_on}"
            read, write = os.pipe()
            os.close(read)
            try:
                done = self.rulings("run", corpus, "--out", out, "--fail-on", fail_on, stdout=write)
            finally:
                os.close(write)
            self.expect_run(case, done, (status,))
            if done.stderr.strip():
                case.problems.append(f"stderr: {done.stderr[-300:]!r}")
            written, wanted = snapshot(out) or {}, snapshot(reference) or {}
            differ = sorted(
                n for n in wanted if written.get(n) != wanted[n] and n != "run-manifest.json"
            )
            case.lost += len(differ)
            if differ or not written:
                case.problems.append(f"outputs missing or not a clean run's: {differ or 'none'}")
            cases.append(case)
        return cases

    # --- 5. NUL bytes in a text file -----------------------------------------------------

    def case_nul_bytes(self) -> list[Case]:
        """One NUL byte inside a ruling, and a line of NULs: a PARSE013 on each, every
        other line read; an image and a zip file stay binary (PARSE001)."""
        import io
        import zipfile

        text = self.seed(0).decode().splitlines(keepends=True)
        text[2] = text[2][:30] + "\x00" + text[2][30:]
        text.insert(6, "\x00" * 40 + "\n")
        damaged = "".join(text).encode()
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
            for name in SEED_NAMES:
                zipped.write(SEEDS / name, name)
        image = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 16
        corpus = self.folder(
            "nul", {"damaged.txt": damaged, "seeds.zip": archive.getvalue(), "image.png": image}
        )
        out = self.work / "nul-out"
        case = Case("nul-bytes", "a NUL inside line 3, a line of NULs; a zip, an image")
        done = self.rulings("run", corpus, "--out", out, "--fail-on", "never")
        self.expect_run(case, done, (0,))
        findings = read_table(out / "findings.jsonl")
        on_lines = sorted(f["line"] for f in findings if f["code"] == "PARSE013")
        if on_lines != [3, 7]:
            case.problems.append(f"PARSE013 on lines {on_lines}, expected [3, 7]")
        binary = sorted(f["file"] for f in findings if f["code"] == "PARSE001")
        if binary != ["image.png", "seeds.zip"]:
            case.problems.append(f"PARSE001 on {binary}, expected image.png and seeds.zip")
        expected = {"damaged.txt": damaged, "seeds.zip": b"", "image.png": b""}
        self.account(case, out, expected)
        texts = {row["text"] for row in read_table(out / "corpus.jsonl")}
        if not any(" ".join(text[2].replace("\x00", "").split()[1:]) in t for t in texts):
            case.lost += 1
            case.problems.append("the line with a NUL byte is not read")
        return [case]

    # --- 6. hidden files -------------------------------------------------------------------

    def case_hidden_files(self) -> list[Case]:
        """Dot-files (``.notes.txt``, ``..\\..\\evil.txt``) and a ``.git`` folder inside the
        input: each hidden file a finding naming it, the folders in one finding."""
        corpus = self.folder(
            "hidden",
            {
                "ok.txt": self.seed(0),
                ".notes.txt": self.seed(1),
                "..\\..\\evil.txt": self.seed(2),
                "sub/.draft.txt": self.seed(3),
                ".git/HEAD": b"ref: refs/heads/main\n",
                "sub/.cache/x.txt": self.seed(4),
            },
        )
        out = self.work / "hidden-out"
        case = Case("hidden-files", "dot-files at two depths; .git and sub/.cache folders")
        done = self.rulings("run", corpus, "--out", out, "--fail-on", "never")
        self.expect_run(case, done, (0,))
        findings = read_table(out / "findings.jsonl")
        hidden = {f["file"] for f in findings if f["code"] == "PARSE014"}
        for name in (".notes.txt", "..\\..\\evil.txt", "sub/.draft.txt"):
            if name not in hidden:
                case.lost += 1
                case.problems.append(f"{name}: no finding names it")
        folders = [f for f in findings if f["code"] == "PARSE015"]
        listed = sorted(e["folder"] for f in folders for e in f["evidence"]["folders"])
        if len(folders) != 1 or listed != [".git/", "sub/.cache/"]:
            case.problems.append(f"the folders not read: {listed} in {len(folders)} findings")
        self.account(case, out, {"ok.txt": self.seed(0)})
        return [case]

    # --- 7. the right message, exit 2, before any work ------------------------------------

    def case_messages(self) -> list[Case]:
        corpus = self.folder("messages", {"ok.txt": self.seed(0)})
        cases = []

        no_dask = self.work / "no-dask"
        for name in ("dask", "distributed"):
            (no_dask / name).mkdir(parents=True, exist_ok=True)
            (no_dask / name / "__init__.py").write_text(f"raise ImportError('no {name} here')\n")
        case = Case("messages", "--engine dask --scheduler ADDR without Dask installed")
        done = self.rulings(
            "run", corpus, "--out", self.work / "dask-out", "--engine", "dask",
            "--scheduler", "tcp://127.0.0.1:9", path=str(no_dask),
        )  # fmt: skip
        self.one_line(case, done, "rulings: error: the dask engine needs")
        cases.append(case)

        case = Case("messages", "stdout is /dev/full")
        out = self.work / "full-out"
        with open("/dev/full", "wb") as full:
            done = self.rulings("run", corpus, "--out", out, "--fail-on", "never", stdout=full)
        self.one_line(case, done, "rulings: error: cannot write to the standard output")
        if not (out / "findings.jsonl").is_file():
            case.problems.append("the outputs were not written")
        cases.append(case)

        cases.append(self._read_only_out(corpus))
        return cases

    def _read_only_out(self, corpus: Path) -> Case:
        """A read-only mount as OUT (as root; else a folder without write permission
        around OUT): one line, exit 2, and no work done (the cache stays empty)."""
        mount = self.work / "read-only"
        mount.mkdir()
        mounted = False
        if os.geteuid() == 0:
            command = ["mount", "-t", "tmpfs", "-o", "size=4m,ro", "tmpfs", str(mount)]
            mounted = subprocess.run(command, capture_output=True, check=False).returncode == 0
        out = mount if mounted else mount / "out"
        how = "a read-only mount" if mounted else "a folder without write permission"
        case = Case("messages", f"--out {how}")
        if not mounted:
            if os.geteuid() == 0:
                case.detail += " (skipped: root without mount ignores permissions)"
                return case
            mount.chmod(0o555)
        cache = self.work / "read-only-cache"
        try:
            done = self.rulings("run", corpus, "--out", out, cache=cache)
        finally:
            if mounted:
                subprocess.run(["umount", "-l", str(mount)], check=False)
            else:
                mount.chmod(0o755)
        self.one_line(case, done, f"rulings: error: cannot write to {out}")
        if (cache / "work.db").exists():
            case.problems.append("work was done before the output folder was found unwritable")
        return case

    def one_line(self, case: Case, done: Done, start: str) -> None:
        lines = done.stderr.splitlines()
        if done.hung:
            case.problems.append("hung")
        elif done.code != 2:
            case.problems.append(f"exit {done.code}, not 2: {done.stderr[-300:]!r}")
        if len(lines) != 1 or not lines[0].startswith(start):
            case.problems.append(
                f"stderr is not one line starting {start!r}: {done.stderr[-400:]!r}"
            )


def _work_kinds(database: Path) -> list[str]:
    """The kinds of unit the work store holds entries of."""
    import sqlite3

    if not database.is_file():
        return []
    with contextlib.closing(sqlite3.connect(database)) as db:
        return [kind for (kind,) in db.execute("SELECT DISTINCT kind FROM entries ORDER BY kind")]


def _rotate_entries(database: Path, kind: str) -> int:
    """Every entry of a kind moved to the next key of that kind (what copying each entry
    file over the next one did to a cache of one file per entry); how many there are."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(database)) as db, db:
        rows = db.execute("SELECT key, entry FROM entries WHERE kind = ? ORDER BY key", (kind,))
        rows = rows.fetchall()
        moved = [
            (entry, key) for (key, _), (_, entry) in zip(rows, rows[1:] + rows[:1], strict=True)
        ]
        db.executemany("UPDATE entries SET entry = ? WHERE key = ?", moved)
    return len(rows)


def _kinds_in_front(stage: str, kinds: list[str]) -> list[str]:
    """The kinds a run reads before ``stage``'s entries, reading those only for the units
    they miss (``READ_BEHIND``, and the last-run entries that keep it or the kind in front
    of it)."""
    front = [READ_BEHIND[stage]] if stage in READ_BEHIND else []
    read_first = {stage, *front}
    return front + [
        kind
        for kind in kinds
        if kind.startswith(LAST_RUN_PREFIX)
        and read_first.intersection(kind[len(LAST_RUN_PREFIX) :].split("+"))
    ]


def _drop_entries(database: Path, kind: str) -> None:
    """Every entry of a kind removed."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(database)) as db, db:
        db.execute("DELETE FROM entries WHERE kind = ?", (kind,))


def battery(kinds=HOSTILE, *, work=None, warm_cache=None) -> dict:
    """Run the hostile cases of ``kinds``; the figures: cases tried, survived, lines lost."""
    with contextlib.ExitStack() as stack:
        if work is None:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rulings-hostile-")))
        runner = Battery(work, warm_cache)
        started = time.perf_counter()
        cases: list[Case] = []
        for kind in kinds:
            for case in getattr(runner, f"case_{kind.replace('-', '_')}")():
                mark = "ok" if case.survived else "PROBLEM " + "; ".join(case.problems)
                print(f"  {case.kind:14} {case.detail}: {mark}", flush=True)
                cases.append(case)
        return {
            "cases_tried": len(cases),
            "cases_survived": sum(case.survived for case in cases),
            "data_lost": sum(case.lost for case in cases),
            "cases": [
                {
                    "kind": c.kind,
                    "detail": c.detail,
                    "survived": c.survived,
                    "lost": c.lost,
                    "problems": c.problems,
                }
                for c in cases
            ],
            "hostile_seconds": round(time.perf_counter() - started, 1),
        }
