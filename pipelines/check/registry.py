"""The check registry: each check is a function with a stable code and its metadata."""

from __future__ import annotations

from collections.abc import Callable

from ..registry import Registry
from ..rules import define

CHECKS: Registry[Callable] = Registry("check", package="pipelines.check.checks")


SCOPES = ("pair", "ruling", "document", "corpus")


def check(code: str, *, category: str, severity: str, scope: str = "pair") -> Callable:
    """Register a check; its docstring is the explanation ``rulings rules`` prints.

    ``scope`` says what the check is called with: an aligned ``pair``, one ``ruling`` of a
    translated document, a ``document`` (its rulings) or the whole ``corpus`` (the context).
    """
    if scope not in SCOPES:
        raise ValueError(f"{code}: unknown scope {scope!r}")

    def decorate(function: Callable) -> Callable:
        define(code, category, severity, function.__doc__ or "", stage="check", function=function)
        return CHECKS.register(code, category=category, severity=severity, scope=scope)(function)

    return decorate
