"""The surrogate explorer: a spike's step forwards, its surrogate slope and the true gradient."""
