"""The cycle: read the forum, route and apply the commands, keep the deadlines."""
