"""Signal sources phronesis pulls from (agents can also push signals over the API)."""
