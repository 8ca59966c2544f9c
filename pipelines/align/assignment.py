"""The optimal 1-1 assignment of a cost matrix: SciPy's ``linear_sum_assignment``.

``from scipy.optimize import linear_sum_assignment`` imports all of ``scipy.optimize``
(``scipy.linalg``, ``scipy.sparse`` and more): 0.54 s on the benchmark machine, paid by every
rerun that aligns one edited card document again, for a matrix of a few rows. The function
is the one of SciPy's compiled module ``scipy.optimize._lsap``, which is loaded here from its
file without the package around it (0.02 s with ``scipy`` itself). Where that module is not
found or does not load (another SciPy layout), the function comes from ``scipy.optimize``
as usual: the same function either way.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
from collections.abc import Callable
from pathlib import Path

import numpy as np

MODULE = "scipy.optimize._lsap"


def linear_sum_assignment(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows and columns of a least-cost complete assignment (SciPy's)."""
    return _solver()(cost)


@functools.cache
def _solver() -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    return _compiled() or _from_package()


def _compiled() -> Callable | None:
    """SciPy's compiled solver, loaded from its file; None where that cannot be done."""
    try:
        import scipy

        folder = Path(scipy.__file__).parent / "optimize"
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = folder / f"_lsap{suffix}"
            if path.is_file():
                loader = importlib.machinery.ExtensionFileLoader(MODULE, str(path))
                spec = importlib.util.spec_from_loader(MODULE, loader)
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
                return module.linear_sum_assignment
    except (ImportError, OSError, AttributeError):
        return None
    return None


def _from_package() -> Callable:
    from scipy.optimize import linear_sum_assignment as solve

    return solve
