"""A finished game's record: the archive page and the export JSON."""
