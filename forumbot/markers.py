"""The database's secret, and the marker tokens it keys: what only this database's bot can
put in a post's invisible marker, so that the bot knows its own posts on the forum (the
look-up after an uncertain failure, and shell/outbox/reconcile.py after a restored backup)."""
from __future__ import annotations

import hashlib
import hmac

from .store import Outbox, secret, secret_and_start


def item_token(item: "Outbox") -> str:
    """The marker token an outbox item goes out with: keyed and checked (marker_token); "" for
    an item made before the database had its secret (an upgrade from a version without one),
    which keeps the unkeyed marker it may already have gone out with, so that the look-up after
    an uncertain failure still finds it; and the plain keyed token for one made before markers
    carried their check."""
    _, keyed_from, checked_from = secret_and_start()
    if item.id <= keyed_from:
        return ""
    return keyed(item.key)[:16] if item.id <= checked_from else marker_token(item.key)


def keyed(text: str) -> str:
    """HMAC-SHA256 of `text` under the database's secret, in hex."""
    return hmac.new(secret().encode(), text.encode("utf-8"), hashlib.sha256).hexdigest()


def marker_token(key: str, length: int = 16) -> str:
    """An outbox key's mark under the database's secret, as `length` hex digits (16 to 64):
    what only this database's bot can put in a post's invisible marker. HMAC-SHA256 of the key,
    whose last CHECK digits are a check that only this database can make (our_token): the bot
    knows its markers even for items its database lacks (a restored backup)."""
    if not 16 <= length <= 64:
        raise ValueError("marker_token length must be 16 to 64")
    body = keyed(key)[:length - CHECK]
    return body + keyed("check:" + body)[:CHECK]


CHECK = 4  # hex digits of a marker token that check it: another database's pass once in 65,536


def our_token(token: str) -> bool:
    """Whether a marker token seen on the forum was made by this database (its check holds)."""
    if not 16 <= len(token) <= 64 or token.strip("0123456789abcdef"):
        return False
    body = token[:-CHECK]
    return hmac.compare_digest(token[-CHECK:], keyed("check:" + body)[:CHECK])
