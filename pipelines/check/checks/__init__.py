"""One module per family of checks; each registers its checks with ``@check``."""
