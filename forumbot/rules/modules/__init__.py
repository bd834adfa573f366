"""The rule modules beyond the core: each plugs into the engine's hooks (rules/hooks.py)."""
