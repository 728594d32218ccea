from django.db import connection


def test_it_runs_on_postgres_with_pgvector(db):
    with connection.cursor() as cur:
        cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        (version,) = cur.fetchone()
    assert version.startswith("0.8")
