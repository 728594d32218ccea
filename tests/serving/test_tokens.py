"""Personal API tokens: hashed at rest like tenant keys, shown once, revocable, audited; the admin
lists them without any secret."""

from __future__ import annotations

import hashlib
from io import StringIO

import pytest
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from api.models import UserToken
from api.services import user_token_issue, user_token_revoke

pytestmark = pytest.mark.django_db


def _api(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _everything_stored() -> str:
    """Every text column of every table, as one string: where a stored secret would show."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' "
            "AND data_type IN ('text', 'character varying', 'jsonb')"
        )
        columns = cursor.fetchall()
        chunks = []
        for table, column in columns:
            cursor.execute(f'SELECT "{column}"::text FROM "{table}" WHERE "{column}" IS NOT NULL')  # noqa: S608
            chunks.extend(value for (value,) in cursor.fetchall())
    return "\n".join(chunks)


def test_it_stores_only_a_hash_and_the_token_works(owner):
    issued = user_token_issue(user=owner)

    assert issued.key.startswith(issued.token.prefix + "_")
    assert issued.key not in _everything_stored()
    assert issued.key.split("_", 2)[2] not in _everything_stored()
    assert UserToken.objects.get().secret_hash == hashlib.sha256(issued.key.encode()).hexdigest()
    assert _api(issued.key).get("/api/v1/memories/").status_code == 200


def test_a_forged_secret_with_a_real_prefix_fails(owner):
    issued = user_token_issue(user=owner)

    response = _api(issued.token.prefix + "_" + "x" * 43).get("/api/v1/memories/")

    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid token."


def test_issuing_again_revokes_the_previous_token(owner):
    first = user_token_issue(user=owner)
    second = user_token_issue(user=owner)

    assert _api(first.key).get("/api/v1/memories/").status_code == 401
    assert _api(second.key).get("/api/v1/memories/").status_code == 200
    assert UserToken.objects.filter(user=owner, revoked_at__isnull=True).count() == 1


def test_a_revoked_token_stops_working_and_both_steps_are_audited(owner, operator):
    issued = user_token_issue(user=owner)
    user_token_revoke(prefix=issued.token.prefix, actor=operator)

    response = _api(issued.key).get("/api/v1/memories/")

    assert response.status_code == 401
    assert response.json()["detail"] == "This token has been revoked."
    trail = list(LogEntry.objects.filter(object_id=str(issued.token.pk)).order_by("action_time", "pk"))
    assert [(e.user_id, e.action_flag) for e in trail] == [(owner.pk, ADDITION), (operator.pk, CHANGE)]
    assert "Revoked" in trail[1].change_message


def test_it_records_when_a_token_was_last_used(owner):
    issued = user_token_issue(user=owner)
    assert issued.token.last_used_at is None

    _api(issued.key).get("/api/v1/memories/")

    issued.token.refresh_from_db()
    assert issued.token.last_used_at is not None


def test_the_commands_issue_once_and_revoke(owner, operator):
    out, err = StringIO(), StringIO()
    call_command("issue_user_token", owner.username, stdout=out, stderr=err)
    key = out.getvalue().strip()
    prefix = UserToken.objects.get(user=owner).prefix
    assert key.startswith(prefix) and "shown once" in err.getvalue()

    call_command("revoke_user_token", prefix, "--by", operator.username, stdout=out)

    assert _api(key).get("/api/v1/memories/").status_code == 401
    with pytest.raises(CommandError, match="No personal token"):
        call_command("revoke_user_token", "pt_00000000", "--by", operator.username)


@pytest.fixture
def superuser(make_user):
    return make_user("root", is_staff=True, is_superuser=True)


def test_the_admin_lists_prefixes_and_no_secret(owner, superuser):
    issued = user_token_issue(user=owner)
    client = Client()
    client.force_login(superuser)

    listing = client.get("/admin/api/usertoken/")
    detail = client.get(f"/admin/api/usertoken/{issued.token.pk}/change/")

    for page in (listing, detail):
        assert page.status_code == 200
        html = page.content.decode()
        assert issued.token.prefix in html
        assert issued.key not in html and issued.token.secret_hash not in html


def test_the_admin_revokes_with_an_audit_entry(owner, superuser):
    issued = user_token_issue(user=owner)
    client = Client()
    client.force_login(superuser)

    response = client.post(
        "/admin/api/usertoken/", {"action": "revoke_tokens", "_selected_action": [issued.token.pk]}
    )

    assert response.status_code == 302
    assert _api(issued.key).get("/api/v1/memories/").status_code == 401
    assert LogEntry.objects.filter(
        user=superuser, object_id=str(issued.token.pk), action_flag=CHANGE
    ).exists()


def test_the_admin_cannot_create_a_token(superuser):
    client = Client()
    client.force_login(superuser)

    assert client.get("/admin/api/usertoken/add/").status_code == 403


def test_the_upgrade_hashes_clear_text_tokens_which_keep_working(owner):
    import importlib

    from django.apps import apps

    upgrade = importlib.import_module("api.migrations.0002_user_token_hashed").hash_drf_tokens
    legacy = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, user_id integer, created timestamptz)"
        )
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, %s, now())", [legacy, owner.pk])

    with connection.schema_editor() as editor:
        upgrade(apps, editor)

    assert "authtoken_token" not in connection.introspection.table_names()
    assert legacy not in _everything_stored()
    assert UserToken.objects.get(user=owner).prefix == "pt_01234567"
    assert _api(legacy).get("/api/v1/memories/").status_code == 200
