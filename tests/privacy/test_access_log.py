"""No search term reaches a log line: the real `manage.py runserver` (what `make run` serves with)
answers searches of the privacy page and the API, and its whole log output is read back."""

from __future__ import annotations

import io
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction

from api.services import user_token_issue
from chat.models import Message
from config.log_filters import StripQueryStrings, install
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user
from tests.erasure_helpers import canary

pytestmark = pytest.mark.django_db(transaction=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture
def runserver(tmp_path: Path):
    """`manage.py runserver` on the test database, its stdout and stderr in one file."""
    port = _free_port()
    log = tmp_path / "server.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "EMBEDDED_DB_NAME": connection.settings_dict["NAME"],
        "EMBEDDED_PGDATA": str(settings.DATABASES["default"]["PGDATA"]),
        "PYTHONUNBUFFERED": "1",
    }
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", "--skip-checks", f"127.0.0.1:{port}"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, log.read_text()
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}", log
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_search_terms_never_reach_the_server_log(runserver, owner):
    url, log = runserver
    secret = canary("Peppercorn")
    memory_add(namespace=namespace_for_user(user=owner), content=f"The user's locker code word is {secret}.")
    token = {"Authorization": f"Token {user_token_issue(user=owner).key}"}

    assert _get(f"{url}/api/v1/memories/?q={secret}", token) == 200  # found: a real search ran
    assert _get(f"{url}/api/v1/memories/?q={secret}&limit=5") == 401
    # The page's search link, signed out: redirected to the login page, whose `next` quotes it too.
    assert _get(f"{url}/me/?q={secret}") == 200
    assert _get(f"{url}/no-such-page/?q={secret}") == 404
    time.sleep(0.5)  # the server writes the last lines after answering

    text = log.read_text()
    assert "GET /api/v1/memories/?… HTTP/1.1" in text and "GET /me/?… HTTP/1.1" in text
    assert "GET /accounts/login/?… HTTP/1.1" in text
    assert secret.casefold() not in text.casefold()


def test_the_filter_strips_every_servers_request_lines():
    record = logging.LogRecord("gunicorn.access", 20, __file__, 1, "%(r)s %(q)s %(f)s", None, None)
    record.args = {"r": "GET /me/?q=secret HTTP/1.1", "q": "q=secret", "f": "http://h/me/?q=secret"}
    uvicorn = logging.LogRecord("uvicorn.access", 20, __file__, 1, "%s %s %s", None, None)
    uvicorn.args = ("127.0.0.1:5000", "GET", "/api/v1/memories/?q=secret")

    for item in (record, uvicorn):
        assert StripQueryStrings().filter(item)
        assert "secret" not in item.getMessage()


def test_database_errors_quote_no_row_data_in_the_logs():
    """A failed write whose DETAIL would quote the row: neither the app's log nor the server's."""
    secret = canary("Peppercorn")
    logger = logging.getLogger("tests.erasure")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logging.getLogger().addHandler(handler)
    try:
        install()  # what the app does at start, for the handlers it has
        with pytest.raises(IntegrityError) as failed, transaction.atomic():
            Message.objects.create(conversation_id=None, role="robot", content=f"my code is {secret}")
        assert secret in str(failed.value)  # the driver's message does quote the row
        try:
            raise failed.value
        except IntegrityError:
            logger.exception("saving a message failed")
    finally:
        logging.getLogger().removeHandler(handler)

    assert "saving a message failed" in stream.getvalue() and "IntegrityError" in stream.getvalue()
    assert secret not in stream.getvalue()
    server_log = Path(settings.DATABASES["default"]["PGDATA"]) / "log"
    assert "violates" in server_log.read_text(errors="replace")  # the server did log the error
    assert secret not in server_log.read_text(errors="replace")
