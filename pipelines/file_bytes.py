"""A file's bytes read only where they are asked for: a report file whose rows a run copies
(``report/kept_rows.py``), a file of sets recut a set at a time (``ingest/set_parts.py``)."""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import BinaryIO


class FileBytes:
    """A file's bytes, read where they are sliced (``os.pread``; OSError when the file ends
    before its size said), not mapped: the previous report files' pages a run copies rows
    from would count in its resident memory (290 MB more at a million units), and a file
    truncated while mapped kills the process. A file of sets is recut this way a set at a
    time (``ingest/set_parts.py``): 0.12 s for 400 MB, against 0.3 s read whole first."""

    def __init__(self, handle: BinaryIO) -> None:
        self.descriptor = os.dup(handle.fileno())
        self.size = os.fstat(self.descriptor).st_size
        self._finalizer = weakref.finalize(self, os.close, self.descriptor)

    @classmethod
    def of(cls, path: Path) -> FileBytes:
        with open(path, "rb") as handle:
            return cls(handle)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, span: slice) -> bytes:
        start, end, _ = span.indices(self.size)
        parts = []
        while start < end:
            part = os.pread(self.descriptor, end - start, start)
            if not part:
                raise OSError(f"the file ended at {start} of {self.size} bytes")
            parts.append(part)
            start += len(part)
        return b"".join(parts)
