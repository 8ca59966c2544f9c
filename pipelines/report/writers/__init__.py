"""One module per report format; each registers its writer with ``@writer``."""
