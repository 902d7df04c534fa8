"""Statistics and balance studies (public as ``fiverow.stats`` and ``fiverow.balance``)."""
