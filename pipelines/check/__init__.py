"""Stage 3: aligned pairs -> findings, through the check registry."""
