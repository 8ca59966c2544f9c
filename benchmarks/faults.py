"""Fault injection: runs killed at random moments, interrupted, run two at a time, caches
damaged, an output folder that is read-only or on a full disk. After every fault the output
folder must hold exactly one complete run (every file byte for byte that of a clean run, the
run manifest included) and the next run must give a clean run's bytes.

    python benchmarks/faults.py [--faults 300] [--seed 16]

The faults, the clean references and the checks after each fault are ``testkit.faults`` (its
docstring says how they are made); this script runs ``--faults`` of them and records the
figures. Then the hostile battery (``testkit.faults.HOSTILE``, docs/inputs.md): same-named
inputs, cache entries copied across keys, FIFOs and streams, a closed stdout, NUL bytes,
hidden files and the one-line messages, each case checked for lines lost; its totals are
recorded beside the faults'. tests/test_faults.py runs a modest number of these faults, and
the whole battery, in CI.
"""

from __future__ import annotations

import signal
import sys

from common import md_table, page, parser, record

from testkit import faults

ROWS = [
    ("faults injected", "faults"),
    ("runs killed (SIGKILL at a random moment)", "runs_killed"),
    ("  killed before the exchange: OUT kept the previous run", "kills_before_the_exchange"),
    ("  killed after the exchange: OUT holds the new run", "kills_after_the_exchange"),
    ("runs interrupted (SIGINT/SIGTERM; exit 130, one line)", "runs_interrupted_130"),
    ("  signalled before Python ran the command (ended by the signal, nothing written)",
     "interrupted_before_python_started"),
    ("caches damaged (cut or bit flipped), then a run", "caches_damaged"),
    ("two runs at once into one folder", "concurrent_pairs"),
    ("read-only output folder", "read_only"),
    ("full disk while writing", "full_disk"),
    ("follow-up runs (must give a clean run's bytes)", "follow_up_runs"),
    ("outputs checked (every file against a clean run)", "outputs_checked"),
    ("**mixes found**", "mixes_found"),
    ("other problems", "problems"),
]  # fmt: skip


BATTERY_ROWS = [
    ("hostile cases tried", "cases_tried"),
    ("cases survived (the command ended as expected, every line accounted for)", "cases_survived"),
    ("**input lines or ids lost, output files not a clean run's**", "data_lost"),
]


def battery_part(b: dict | None) -> str | None:
    if not b:
        return None
    totals = md_table(["what", "count"], [[what, b[key]] for what, key in BATTERY_ROWS])
    cases = md_table(
        ["case", "what", "survived", "lost", "problems"],
        [
            [c["kind"], c["detail"], "yes" if c["survived"] else "**no**", c["lost"],
             "; ".join(c["problems"]) or "-"]
            for c in b["cases"]
        ],
    )  # fmt: skip
    return (
        f"The hostile battery (`testkit.faults.HOSTILE`, docs/inputs.md), in "
        f"{b['hostile_seconds']} s:\n\n{totals}\n\n{cases}"
    )


def markdown(f: dict) -> str:
    counts = f | {"faults": sum(f["faults"].values()), "problems": len(f["problems"])}
    rows = [[what, counts[key]] for what, key in ROWS]
    rows[-2][1] = f"**{rows[-2][1]}**"
    return page(
        "Fault injection: one complete run in the output folder, whatever happens",
        f"Produced by `python benchmarks/faults.py --faults {counts['faults']} --seed {f['seed']}` "
        f"in {f['seconds']} s (numbers in `faults.json`; CI runs a few of these faults in "
        "`tests/test_faults.py`). Each fault is followed by a check that the output folder holds "
        "exactly the files of one clean run, byte for byte (run manifest included); after kills, "
        "interrupts and concurrent runs a follow-up run must give a clean run's bytes and leave "
        f"no staging folder. Read-only and full disk: {f['full_disk_and_read_only_by']}.",
        f["machine"],
        md_table(["what", "count"], rows),
        "Problems:\n\n" + "\n".join(f"- {p}" for p in f["problems"]) if f["problems"] else None,
        battery_part(f.get("battery")),
    )


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"faults": markdown})
    cli.add_argument("--faults", type=int, default=300)
    cli.add_argument("--seed", type=int, default=16)
    args = cli.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unmount and clean up on the way
    figures = faults.run(args.faults, args.seed)
    figures["battery"] = faults.battery()
    record("faults", figures, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
