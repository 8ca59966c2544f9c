"""Generated inputs that tests and benchmarks share.

- ``corpus``: a seeded corpus of card rulings in English, Spanish and Chinese, built from the
  real parallel material of ../shared (``python -m testkit.corpus OUT --rulings N``);
- ``defects``: defects injected into the Chinese Comprehensive Rules, with their gold list,
  and the defective pair as translation units (XLIFF);
- ``cards``: card-size documents from the MTGJSON set files, and defects injected into them;
- ``variants``: perturbed copies of the Chinese rules (rules deleted, stray paragraphs
  inserted, numbers stripped);
- ``faults``: runs of ``rulings run`` killed, interrupted, run two at a time, on damaged caches,
  read-only folders and full disks, each checked to leave one complete run;
- ``paths``: where the real material is, and ``data/`` (one JSON file per module).

Not shipped: the wheel holds ``pipelines`` only. Tests import it from the repository root (on
pytest's path); the scripts in ``benchmarks/`` get the root on ``sys.path`` from their
``common.py``. The same seed and data give the same bytes.
"""
