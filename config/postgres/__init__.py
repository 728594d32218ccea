"""Django's PostgreSQL backend, failing fast while the server is unreachable (see `base`)."""
