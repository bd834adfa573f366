"""The outbox: what the bot writes, within the forum's limits and budget, posted once."""
