"""rulings: a translation-consistency checker for Magic: The Gathering rulings and rules text."""

__version__ = "0.1.0"
