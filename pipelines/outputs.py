"""An output folder that always holds the outputs of one complete run.

``rulings run`` writes a new run into a staging folder beside OUT and, when every file is
written, exchanges the two folders in one step (``renameat2(RENAME_EXCHANGE)`` on Linux), so
that OUT holds either the previous complete set or the new one: never a mix, whether the
run fails, is interrupted or is killed. Files in OUT that rulings did not write (a README, a
user's notes) are carried into the new folder. A lock (on OUT's parent folder: no lock file
is left behind) serialises the exchange between runs writing to the same folder at once:
each exchange is whole, the last one wins.

Where the exchange is not available, OUT is moved aside and the staging folder renamed in
its place; a run killed between the two renames leaves OUT missing and the previous set
beside it, which the next run puts back before it starts.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import os
import secrets
import shutil
import signal
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from . import files

STAGING = ".rulings-staging-"
ASIDE = ".rulings-previous-"
OLD_LOCK = ".rulings-lock"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


class OutputError(OSError):
    """The output folder cannot be written: the command exits 2 with this message."""


def _sibling(out: Path, marker: str) -> Path:
    return out.parent / f".{out.name}{marker}{os.getpid()}-{secrets.token_hex(3)}"


def check_writable(out: Path, inside: bool = False) -> None:
    """Fail before any work when OUT cannot be written: a run is written into a folder
    beside OUT, so a folder is made and removed in OUT's parent (the nearest one that
    exists), which also catches read-only file systems and a superuser's writes to a
    read-only mount; and a run replaces OUT, which a mount point cannot be. ``inside``: the
    command writes into OUT itself (a stage command), so the probe is made there."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError(f"cannot write to {out}: it is a file, not a folder")
    if not inside and out.is_dir() and os.path.ismount(out):
        raise OutputError(f"cannot write to {out}: {_mount_problem(out)}")
    target = out.absolute() if inside and out.is_dir() else out.absolute().parent
    while not target.exists():
        target = target.parent
    if not target.is_dir():
        raise OutputError(f"cannot write to {out}: {target} is not a folder")
    try:
        probe = tempfile.mkdtemp(prefix=".rulings-probe-", dir=target)
    except OSError as error:
        beside = "" if target in (out.absolute(), out.absolute().parent) else f" (in {target})"
        raise OutputError(f"cannot write to {out}{beside}: {error.strerror or error}") from None
    with contextlib.suppress(OSError):
        os.rmdir(probe)


def _mount_problem(out: Path) -> str:
    """Why a mount point cannot be OUT."""
    with contextlib.suppress(OSError):
        if os.statvfs(out).f_flag & os.ST_RDONLY:
            return os.strerror(errno.EROFS)
    return (
        "it is a mount point, and a run replaces its output folder in one step; "
        f"give a folder inside it (--out {out / 'reports'})"
    )


def write_error(error: OSError, out: Path, staging: Path | None = None) -> OSError:
    """The error to show for a failure while writing a run: about OUT, never about an
    internal staging or temporary file (the user did not name those, and they are gone)."""
    name = str(error.filename or "")
    problem = error.strerror or str(error)
    if not name or (staging is not None and name.startswith(str(staging))):
        return OutputError(f"cannot write to {out}: {problem}")
    if Path(name).name.startswith("."):  # a temporary file on its way elsewhere (a cache)
        return OutputError(f"cannot write to {Path(name).parent}: {problem}")
    return error


def recover(out: Path) -> None:
    """Put back a previous output set left aside by a run killed mid-exchange, and remove
    staging folders of runs that died (under the lock: never while a run exchanges)."""
    parent = out.parent
    if not parent.is_dir():
        return
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(_locked(out))
        except OSError:
            return  # a folder this process cannot write: nothing it could put back either
        aside = sorted(parent.glob(f".{out.name}{ASIDE}*"))
        if aside and not out.exists():
            with contextlib.suppress(OSError):
                os.rename(aside[-1], out)
                aside = aside[:-1]
        for leftover in [*aside, *parent.glob(f".{out.name}{STAGING}*")]:
            if not _owned_by_live_process(leftover):
                shutil.rmtree(leftover, ignore_errors=True)
        with contextlib.suppress(OSError):  # the empty lock file of versions before 0.2
            (parent / f".{out.name}{OLD_LOCK}").unlink()


def _owned_by_live_process(folder: Path) -> bool:
    """Whether the run that made a staging folder (its pid is in the name) still runs."""
    try:
        pid = int(folder.name.rsplit("-", 2)[-2])
    except (ValueError, IndexError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def staged(out: Path, outputs: Iterable[str]) -> Iterator[Path]:
    """A fresh staging folder for a run's outputs, exchanged with OUT when the block ends
    normally and removed when it does not. ``outputs`` are the names rulings writes (the
    other entries of OUT are carried over)."""
    out = Path(out)
    check_writable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    recover(out)
    staging = _sibling(out, STAGING)
    try:
        staging.mkdir()
    except OSError as error:
        raise OutputError(f"cannot write to {out}: {error.strerror}") from None
    try:
        yield staging
        _commit(out, staging, set(outputs))
        files.moved(staging, out)
    except OutputError:
        raise
    except OSError as error:
        raise write_error(error, out, staging) from None
    finally:
        files.forget(staging)
        shutil.rmtree(staging, ignore_errors=True)


def _commit(out: Path, staging: Path, outputs: set[str]) -> None:
    with _signals_held(), _locked(out):
        if not out.exists():
            os.rename(staging, out)
            return
        _carry_over(out, staging, outputs)
        if not _exchange(staging, out):
            aside = _sibling(out, ASIDE)
            os.rename(out, aside)
            os.rename(staging, out)
            staging = aside
        shutil.rmtree(staging, ignore_errors=True)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the exchange and its clean-up are done (SIGKILL cannot
    wait, which is what ``recover`` is for)."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _carry_over(out: Path, staging: Path, outputs: set[str]) -> None:
    """Entries of OUT that rulings does not write go into the new folder too."""
    for entry in out.iterdir():
        if entry.name in outputs or (staging / entry.name).exists():
            continue
        target = staging / entry.name
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, target, symlinks=True)
            continue
        try:
            os.link(entry, target, follow_symlinks=False)
        except OSError:
            shutil.copy2(entry, target, follow_symlinks=False)


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """The lock of OUT's exchanges: a lock on OUT's parent folder itself, so that no lock
    file is left beside OUT (a file removed after use could be locked by two runs at once:
    one holding the removed file, one a new file of the same name). Runs into other folders
    of the same parent wait for each other only while one exchanges."""
    descriptor = os.open(out.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)


def _exchange(left: Path, right: Path) -> bool:
    """Swap two paths in one step; False where the system cannot."""
    function = _renameat2()
    if function is None:
        return False
    result = function(_AT_FDCWD, os.fsencode(left), _AT_FDCWD, os.fsencode(right), _RENAME_EXCHANGE)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(right))


def _renameat2():
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    function.restype = ctypes.c_int
    return function
