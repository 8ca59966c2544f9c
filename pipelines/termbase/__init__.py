"""The termbase, a ground-floor package every stage may read: model, TSV and TBX files,
the matcher and the ``Termbase`` itself. Load it once per run (``Termbase.load``) and pass it
to the stages."""

from .model import STATUSES, USABLE, Term, TermbaseError, TermHit, concept_id, normalize_lang
from .termbase import SHIPPED_FILES, Termbase, read_file, read_terms
from .tsv import write_tsv

__all__ = [
    "SHIPPED_FILES",
    "STATUSES",
    "USABLE",
    "Term",
    "TermHit",
    "Termbase",
    "TermbaseError",
    "concept_id",
    "normalize_lang",
    "read_file",
    "read_terms",
    "write_tsv",
]
