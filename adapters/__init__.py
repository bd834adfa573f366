"""Forum adapters: one module per forum, each behind the `Forum` protocol in base.py."""
