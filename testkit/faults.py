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
"""

from __future__ import annotations

import contextlib
import os
import random
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
        return process.returncode, err

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
