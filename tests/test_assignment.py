"""The assignment solver loaded without ``scipy.optimize`` is SciPy's own."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import linear_sum_assignment as scipy_assignment

from pipelines.align import assignment

costs = st.tuples(st.integers(1, 7), st.integers(1, 7)).flatmap(
    lambda shape: arrays(
        np.float64,
        shape,
        # few distinct values: ties, where two solvers could part ways
        elements=st.sampled_from([-1.5, -0.25, 0.0, 0.25, 0.3, 0.9, 2.0]),
    )
)


@settings(max_examples=300, deadline=None)
@given(costs)
def test_the_same_assignment_as_scipy(cost):
    rows, columns = assignment.linear_sum_assignment(cost)
    expected_rows, expected_columns = scipy_assignment(cost)
    assert rows.tolist() == expected_rows.tolist()
    assert columns.tolist() == expected_columns.tolist()


def test_the_compiled_solver_is_found():
    assert assignment._compiled() is not None


def test_without_the_compiled_module_the_package_solves(monkeypatch):
    monkeypatch.setattr(assignment, "_compiled", lambda: None)
    assignment._solver.cache_clear()
    try:
        cost = np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]])
        rows, columns = assignment.linear_sum_assignment(cost)
        assert assignment._solver() is scipy_assignment
        assert (rows.tolist(), columns.tolist()) == ([0, 1, 2], [1, 0, 2])
    finally:
        assignment._solver.cache_clear()


def test_an_infeasible_matrix_is_refused_as_scipy_refuses_it():
    with pytest.raises(ValueError):
        assignment.linear_sum_assignment(np.array([[np.inf, np.inf], [1.0, np.inf]]))


def test_solving_leaves_scipy_optimize_unimported():
    code = (
        "import sys, numpy as np\n"
        "from pipelines.align.assignment import linear_sum_assignment\n"
        "print(linear_sum_assignment(np.array([[1.0, 0.0], [0.0, 1.0]]))[1].tolist())\n"
        "print('scipy.optimize' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["[1,", "0]", "False"]
