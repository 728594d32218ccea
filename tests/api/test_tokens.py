"""Personal tokens a person makes for themself through REST (`/api/v1/tokens/`) and the /me/tokens/
page: several at once, named, with scopes and an expiry; the secret shown once; a revoked or
expired token refused at once (REST and MCP); a token cannot make a wider one; bad input refused
with nothing made; someone else's token not found."""

from __future__ import annotations

from datetime import timedelta

import anyio
import httpx
import pytest
from django.utils import timezone

from api.models import UserToken
from tests.api import mcp_helpers as m
from tests.api.conftest import client_with

# The MCP server answers in worker threads: their connections are closed after each call.
pytestmark = pytest.mark.usefixtures("closed_connections")

TOKENS = "/api/v1/tokens/"


def make(client, **body) -> dict:
    response = client.post(TOKENS, {"name": "script", "scopes": ["read", "write"], **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def session(client, owner):
    client.force_login(owner)
    return client


def test_a_person_makes_several_tokens_and_sees_each_secret_once(owner_client, owner):
    laptop = make(owner_client, name="Claude on my laptop")
    phone = make(
        owner_client,
        name="Phone app",
        scopes=["read"],
        expires_at=(timezone.now() + timedelta(days=30)).isoformat(),
    )

    assert laptop["token"].startswith(laptop["prefix"] + "_") and laptop["active"] is True
    assert phone["scopes"] == ["read"] and phone["expires_at"]
    listed = owner_client.get(TOKENS).json()["results"]
    assert [t["name"] for t in listed][:2] == ["Phone app", "Claude on my laptop"]
    assert all("token" not in t for t in listed)
    assert laptop["token"] not in str(listed)
    # Both work, side by side; only a hash of each is stored.
    for made in (laptop, phone):
        assert client_with(made["token"]).get("/api/v1/memories/").status_code == 200
        assert not UserToken.objects.filter(secret_hash__contains=made["token"]).exists()
    assert UserToken.objects.filter(user=owner, revoked_at=None).count() == 3  # with owner_client's own


@pytest.mark.django_db(transaction=True)  # the MCP server reads in its own threads
def test_a_revoked_token_stops_working_at_once_over_rest_and_mcp(owner_client, mcp_url):
    made = make(owner_client, name="MCP client")
    token = made["token"]

    async def listed():
        async with m.http_client(mcp_url, token) as client:
            return await m.call(client, "memory_list")

    assert anyio.run(listed)[0] is False
    kept = client_with(token)
    assert kept.get("/api/v1/memories/").status_code == 200

    assert owner_client.delete(f"{TOKENS}{made['id']}/").status_code == 204
    refused = kept.get("/api/v1/memories/")
    assert refused.status_code == 401 and refused.json()["detail"] == "This token has been revoked."
    # The MCP endpoint refuses it before any session opens, as the SDK's bearer check answers.
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    assert httpx.post(mcp_url, json=initialize, headers=headers).status_code == 401
    assert owner_client.delete(f"{TOKENS}{made['id']}/").status_code == 204  # again: nothing changes
    row = [t for t in owner_client.get(TOKENS).json()["results"] if t["id"] == made["id"]]
    assert row[0]["active"] is False and row[0]["revoked_at"]


def test_an_expired_token_is_refused(owner_client):
    made = make(owner_client, expires_at=(timezone.now() + timedelta(hours=1)).isoformat())
    past = timezone.now() - timedelta(seconds=1)
    UserToken.objects.filter(pk=made["id"]).update(created_at=past - timedelta(hours=1), expires_at=past)
    refused = client_with(made["token"]).get("/api/v1/memories/")
    assert refused.status_code == 401 and refused.json()["detail"] == "This token has expired."


def test_a_token_does_only_what_its_scopes_say_and_cannot_make_a_wider_one(owner_client):
    reader = client_with(make(owner_client, name="reader", scopes=["read"])["token"])
    assert reader.get("/api/v1/memories/").status_code == 200
    refused = reader.post("/api/v1/memories/", {"content": "The user likes tea."}, format="json")
    assert refused.status_code == 403 and refused.json()["detail"] == "This token lacks the 'write' scope."

    wider = reader.post(TOKENS, {"name": "escalate", "scopes": ["read", "erase"]}, format="json")
    assert wider.status_code == 400 and "scopes" in wider.json()["errors"]
    soon = make(owner_client, name="short", expires_at=(timezone.now() + timedelta(days=1)).isoformat())
    longer = client_with(soon["token"]).post(TOKENS, {"name": "longer", "scopes": ["read"]}, format="json")
    assert longer.status_code == 400 and "expires_at" in longer.json()["errors"]
    assert not UserToken.objects.filter(name__in=["escalate", "longer"]).exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "   ", "scopes": ["read"]}, "name"),
        ({"name": "x", "scopes": []}, "scopes"),
        ({"name": "x", "scopes": ["moderate"]}, "scopes"),
        ({"name": "x", "scopes": ["read"], "expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
        ({"name": "x", "scopes": "read"}, "scopes"),
        ({"name": 42, "scopes": ["read"]}, "name"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_made(owner_client, body, field):
    before = UserToken.objects.count()
    response = owner_client.post(TOKENS, body, format="json")
    assert response.status_code == 400 and field in response.json()["errors"], response.content
    assert UserToken.objects.count() == before


def test_someone_elses_token_is_not_found_and_keeps_working(owner_client, other_client):
    theirs = make(other_client, name="bob's")
    missing = owner_client.delete(f"{TOKENS}{theirs['id']}/")
    assert missing.status_code == 404 and owner_client.delete(f"{TOKENS}999999/").json() == missing.json()
    assert client_with(theirs["token"]).get("/api/v1/memories/").status_code == 200
    assert theirs["id"] not in [t["id"] for t in owner_client.get(TOKENS).json()["results"]]


def test_a_tenant_key_has_no_tokens_to_make(key_client):
    response = key_client.post(TOKENS, {"name": "x", "scopes": ["read"]}, format="json")
    assert response.status_code == 403 and response.json()["detail"]
    assert not UserToken.objects.exists()


def test_there_is_a_ceiling_on_active_tokens(owner_client):
    from api.services import MAX_ACTIVE_TOKENS

    for n in range(MAX_ACTIVE_TOKENS - 1):  # owner_client holds one already
        make(owner_client, name=f"t{n}")
    full = owner_client.post(TOKENS, {"name": "one more", "scopes": ["read"]}, format="json")
    assert full.status_code == 409 and "revoke one" in full.json()["detail"]


# --- The page --------------------------------------------------------------------------------------


def test_the_page_makes_a_token_shows_it_once_with_snippets_and_revokes_it(session, owner):
    made = session.post("/me/tokens/", {"name": "Cursor", "scopes": ["read", "write"], "expires": "30"})
    assert made.status_code == 201 and made["Cache-Control"] == "no-store"
    token = UserToken.objects.get(user=owner, name="Cursor")
    html = made.content.decode()
    secret = html.split('id="new-token" class="secret" type="text" readonly value="')[1].split('"')[0]
    assert secret.startswith(token.prefix + "_")
    assert "claude mcp add --transport http memory http://testserver/mcp/" in html
    assert html.count(secret) >= 4  # in the field and in each snippet
    assert token.scopes == ["read", "write"] and token.expires_at > timezone.now() + timedelta(days=29)
    assert client_with(secret).get("/api/v1/memories/").status_code == 200

    again = session.get("/me/tokens/").content.decode()
    assert secret not in again and token.prefix in again

    revoked = session.post(f"/me/tokens/{token.pk}/revoke/", follow=True)
    assert "no longer works" in revoked.content.decode()
    assert client_with(secret).get("/api/v1/memories/").status_code == 401


def test_the_page_refuses_bad_input_and_someone_elses_token(session, owner, other_user):
    bad = session.post("/me/tokens/", {"name": "", "scopes": ["read"], "expires": "30"})
    assert bad.status_code == 400 and "name" in bad.content.decode().lower()
    odd = session.post("/me/tokens/", {"name": "x", "scopes": ["read"], "expires": "7"})
    assert odd.status_code == 400
    none = session.post("/me/tokens/", {"name": "x", "expires": "30"})
    assert none.status_code == 400
    assert not UserToken.objects.filter(user=owner).exists()

    from api.services import user_token_issue

    theirs = user_token_issue(user=other_user)
    assert session.post(f"/me/tokens/{theirs.token.pk}/revoke/").status_code == 404
    assert client_with(theirs.key).get("/api/v1/memories/").status_code == 200


def test_the_page_asks_to_sign_in(client, db):
    response = client.get("/me/tokens/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_an_operator_reissuing_a_token_leaves_the_persons_own_tokens(owner_client, owner):
    """`manage.py issue_user_token` rotates the token an operator handed out, and only that one:
    the clients a person set up with their own named tokens keep working."""
    from io import StringIO

    from django.core.management import call_command

    laptop = make(owner_client, name="Cursor at work")

    def issue() -> str:
        out, err = StringIO(), StringIO()
        call_command("issue_user_token", owner.get_username(), stdout=out, stderr=err)
        assert "the previous one an operator issued no longer works" in err.getvalue()
        return out.getvalue().strip()

    first = issue()
    assert client_with(first).get("/api/v1/memories/").status_code == 200
    second = issue()

    assert client_with(first).get("/api/v1/memories/").status_code == 401
    assert client_with(second).get("/api/v1/memories/").status_code == 200
    assert client_with(laptop["token"]).get("/api/v1/memories/").status_code == 200
    # owner_client's own token was an operator's too: rotated away with the first.
    assert owner_client.get(TOKENS).status_code == 401
    listed = client_with(laptop["token"]).get(TOKENS).json()["results"]
    assert sorted(t["name"] for t in listed if t["active"]) == ["", "Cursor at work"]
