"""Each rule module's part of the archive page (registry.py)."""
