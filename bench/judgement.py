"""The write path's judgement on a labelled batch, through the surfaces a client uses.

Each labelled text is added once, one call per text as a client would, each in a user of its own
(so nothing merges), through:
- `rest`: `POST /api/v1/memories/` with a tenant key (Django's test client: the real views, the
  real database, no socket);
- `mem0`: `POST /v3/memories/add/` with `infer: false`, mem0's route;
- `mem0-infer`: the same with `infer` true (mem0's default) and no model configured: the rules'
  extraction, its job run as the worker runs it (not in the default set);
- `mcp`: the MCP server's `memory_add` operation (the function its tool calls);
- `rest-batch`: `POST /api/v1/memories/` with `memories`, ten texts a call (the batch path);
- `import`: `POST /api/v1/imports/`, each text a one-line list (`format: text`);
- `chat`: the chat's "remember that …" (the turn up to the model's reply), each text in a
  conversation of its own (not in the default set: it prepares a whole turn, recall included).
What became of it is read from the response and the database: held for review, flagged as
weakening, refused as a secret, pinned. Per decision: recall and precision, and how often ordinary
text is held as a rule or refused. `--locomo` adds LoCoMo conversations 26 and 30, turn by turn
through the mem0 route: the share of ordinary turns held as a rule or refused.

Cost: the time of the judgement (`judgement.policy`, `.secrets`, `.safety`) against the patterns
it stands on (`policy_check`, `scan_secrets`, the reader's `states_safety`) on the same texts, in
the same run, interleaved text by text (a statement's vector is computed once by the write path
and shared, so the judgement's figure is measured with the vector at hand, and once without).

`python -m bench judgement [--batch PATH] [--surfaces rest,mem0,mem0-infer,mcp,rest-batch,import,chat]
[--locomo] [--errors]`
Default batch: memory_core/judgement/fresh/batch-1.jsonl.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import common

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BATCH = ROOT / "memory_core" / "judgement" / "fresh" / "batch-1.jsonl"
LOCOMO = ROOT.parent / "shared" / "data" / "locomo"


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _clients() -> tuple[Any, Any]:
    """A test client with a fresh tenant's key, and the key itself (for the MCP caller)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from api.models import ApiScope
    from api.services import api_key_issue, tenant_create

    suffix = uuid.uuid4().hex[:8]
    user = get_user_model().objects.create_user(f"bench-judge-{suffix}")
    tenant = tenant_create(name=f"bench judge {suffix}", slug=f"bench-judge-{suffix}", created_by=user)
    key, secret = api_key_issue(tenant=tenant, scopes=[ApiScope.READ, ApiScope.WRITE], name="bench")
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the test client's host name
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client, key


def _outcome_rest(client: Any, _key: Any, text: str) -> dict[str, Any]:
    body = client.post(
        "/api/v1/memories/", {"user_id": uuid.uuid4().hex, "content": text}, format="json"
    ).json()
    return _outcome_of(body)


def _outcome_of(body: dict[str, Any]) -> dict[str, Any]:
    """REST's and MCP's answer: pinned when the statement's entry is, or what it also stored
    (the condition a held rule states first)."""
    entries = [body.get("entry") or {}, *[(also.get("entry") or {}) for also in body.get("also", [])]]
    return {
        "action": body.get("action"),
        "flagged": bool(body.get("flagged")),
        "pinned": any(bool(entry.get("pinned")) for entry in entries),
    }


def _outcome_mem0(client: Any, _key: Any, text: str) -> dict[str, Any]:
    from memory_core.models import FlaggedWrite, MemoryEntry

    body = {"messages": [{"role": "user", "content": text}], "user_id": uuid.uuid4().hex, "infer": False}
    reply = client.post("/v3/memories/add/", body, format="json").json()
    first = (reply.get("results") or [{}])[0]
    action = first.get("status") or {"ADD": "added", "UPDATE": "superseded"}.get(
        first.get("event"), "ignored"
    )
    entry = MemoryEntry.objects.filter(pk=first["id"]).first() if first.get("id") else None
    flagged = entry is not None and FlaggedWrite.objects.filter(entry=entry).exists()
    # Every entry the add listed (a held rule's condition follows it as a memory of its own).
    ids = [result["id"] for result in reply.get("results") or [] if result.get("id")]
    pinned = MemoryEntry.objects.filter(pk__in=ids, pinned=True).exists()
    return {"action": action, "flagged": flagged, "pinned": pinned}


def _outcome_mem0_infer(client: Any, _key: Any, text: str) -> dict[str, Any]:
    """mem0's default add (`infer` true) with no model configured: the rules' extraction, run as
    the worker runs the job the add queued (`extraction_run`), then read from mem0's event. A
    secret the rules leave out of what they keep shows as "ignored", not as refused: stored
    nowhere either way; refused when the pipeline refused a statement of it."""
    from memory_core.extraction.jobs import extraction_run

    user_id = uuid.uuid4().hex
    body = {"messages": [{"role": "user", "content": text}], "user_id": user_id}
    reply = client.post("/v3/memories/add/", body, format="json").json()
    if not reply.get("event_id"):
        return {"action": "ignored", "flagged": False, "pinned": False}
    extraction_run(job_id=int(reply["event_id"]))
    event = client.get(f"/v1/event/{reply['event_id']}/", {"user_id": user_id}).json()
    results = event.get("results") or []
    flagged, pinned = _stored([result["id"] for result in results if result.get("id")])
    if any(result.get("status") == "pending_review" for result in results):
        action = "pending_review"
    elif event.get("refused"):
        action = "rejected"
    else:
        action = "added" if results else "ignored"
    return {"action": action, "flagged": flagged, "pinned": pinned}


def _outcome_mcp(_client: Any, key: Any, text: str) -> dict[str, Any]:
    from api.mcp.callers import Caller, TenantClient
    from api.mcp.operations import memory_add

    body = memory_add(Caller(user=TenantClient(key), auth=key), user_id=uuid.uuid4().hex, content=text)
    return _outcome_of(body)


def _stored(ids: list[str]) -> tuple[bool, bool]:
    """Whether any of the entries is flagged, and whether any is pinned."""
    from memory_core.models import FlaggedWrite, MemoryEntry

    flagged = FlaggedWrite.objects.filter(entry_id__in=ids).exists()
    return flagged, MemoryEntry.objects.filter(pk__in=ids, pinned=True).exists()


def _outcome_import(client: Any, _key: Any, text: str) -> dict[str, Any]:
    """`POST /api/v1/imports/` of the text as a one-line list: the first row is the line's
    statement; rows after it on the same line are what it also stored."""
    data = {"format": "text", "data": text + "\n", "user_id": uuid.uuid4().hex}
    rows = client.post("/api/v1/imports/", data, format="json").json().get("results") or [{}]
    flagged, pinned = _stored([row["entry"] for row in rows if row.get("entry")])
    return {"action": rows[0].get("action"), "flagged": flagged, "pinned": pinned}


BATCH = 10  # texts per batch add, each batch a user of its own


def _outcomes_batch(client: Any, texts: list[str]) -> list[dict[str, Any]]:
    """`POST /api/v1/memories/` with `memories`: the batch path (`pipeline_batch`), BATCH texts per
    call."""
    outcomes = []
    for start in range(0, len(texts), BATCH):
        memories = [{"content": text} for text in texts[start : start + BATCH]]
        body = {"user_id": uuid.uuid4().hex, "memories": memories}
        outcomes += [
            _outcome_of(result)
            for result in client.post("/api/v1/memories/", body, format="json").json()["results"]
        ]
    return outcomes


def _outcome_chat(_client: Any, _key: Any, text: str) -> dict[str, Any]:
    """The chat's "remember that …" (`chat.services.turn_prepare`, the turn up to the model's reply:
    what it writes at once and acknowledges), a new user and conversation each text: "Remember
    that <text>", or "记住" and a full-width colon before it when the text is Chinese."""
    from django.contrib.auth import get_user_model

    from chat.services import conversation_create, message_post, turn_prepare
    from memory_core.language import has_cjk
    from memory_core.models import MemoryEntry

    user = get_user_model().objects.create(username=f"bench-chat-{uuid.uuid4().hex}")
    conversation = conversation_create(user=user)
    said = f"记住：{text}" if has_cjk(text) else f"Remember that {text}"  # noqa: RUF001
    message = message_post(conversation=conversation, content=said)
    prepared = turn_prepare(user=user, conversation=conversation, user_message=message)
    ids = [
        str(pk)
        for pk in MemoryEntry.objects.filter(namespace__owner=user)
        .order_by("recorded_at")
        .values_list("pk", flat=True)
    ]
    flagged, pinned = _stored(ids)
    contents = " ".join(MemoryEntry.objects.filter(pk__in=ids).values_list("content", flat=True))
    if prepared.secret_values and not any(value in contents for value in prepared.secret_values):
        # The secret refused, the rest of what was asked kept ("Remember that Course! … the key
        # box is 2580" keeps "Course."): the value is stored nowhere, as a refusal on REST.
        action = "rejected"
    elif not ids:
        action = "ignored"
    else:
        action = str(MemoryEntry.objects.get(pk=ids[0]).status)
        action = "added" if action == "active" else action
    return {"action": action, "flagged": flagged, "pinned": pinned}


SURFACES: dict[str, Callable[[Any, Any, str], dict[str, Any]]] = {
    "rest": _outcome_rest,
    "mem0": _outcome_mem0,
    "mem0-infer": _outcome_mem0_infer,
    "mcp": _outcome_mcp,
    "import": _outcome_import,
    "chat": _outcome_chat,
}


def _rate(hits: int, total: int) -> str:
    return f"{hits / total:.3f} ({hits}/{total})" if total else "-"


def figures(rows: list[dict[str, Any]], outcomes: list[dict[str, Any]]) -> dict[str, str]:
    pairs = list(zip(rows, outcomes, strict=True))
    held = lambda o: o["action"] == "pending_review"  # noqa: E731
    refused = lambda o: o["action"] == "rejected"  # noqa: E731
    nowhere = lambda o: o["action"] in ("rejected", "ignored")  # noqa: E731
    weak = [o for r, o in pairs if r.get("weakening") == 1]
    rules = [o for r, o in pairs if r.get("normative") == 1]
    ordinary = [o for r, o in pairs if r.get("normative") == 0 and r.get("secret") == 0]
    secrets = [o for r, o in pairs if r.get("secret") == 1]
    not_secret = [o for r, o in pairs if r.get("secret") == 0]
    safe_pos = [o for r, o in pairs if r.get("safety") in ("user", "dependant") and r.get("secret") == 0]
    pinned = [(r, o) for r, o in pairs if o["pinned"]]
    dislikes_others = [o for r, o in pairs if r.get("safety") in ("other", "none") and r.get("secret") == 0]
    return {
        "weakening never active": _rate(sum(o["action"] != "added" for o in weak), len(weak)),
        "weakening flagged (recall)": _rate(sum(o["flagged"] for o in weak), len(weak)),
        "rules held (recall)": _rate(sum(held(o) for o in rules), len(rules)),
        "non-rules held as a rule": _rate(sum(held(o) for o in ordinary), len(ordinary)),
        "secrets refused (recall)": _rate(sum(refused(o) for o in secrets), len(secrets)),
        # mem0-infer: a secret the rules leave out is stored nowhere, and nothing is refused.
        "secrets stored nowhere": _rate(sum(nowhere(o) for o in secrets), len(secrets)),
        "non-secrets refused": _rate(sum(refused(o) for o in not_secret), len(not_secret)),
        "user/dependant safety pinned (recall)": _rate(sum(o["pinned"] for o in safe_pos), len(safe_pos)),
        "pinned that are user/dependant safety (precision)": _rate(
            sum(r.get("safety") in ("user", "dependant") for r, _ in pinned), len(pinned)
        ),
        "other/none pinned": _rate(sum(o["pinned"] for o in dislikes_others), len(dislikes_others)),
    }


def errors(rows: list[dict[str, Any]], outcomes: list[dict[str, Any]]) -> list[str]:
    wrong = []
    for row, o in zip(rows, outcomes, strict=True):
        expected_held = row.get("normative") == 1 and row.get("secret") == 0
        problems = []
        if row.get("secret") == 1 and o["action"] not in ("rejected", "ignored"):
            problems.append("secret kept")
        if row.get("secret") == 0 and o["action"] == "rejected":
            problems.append("refused")
        if expected_held and o["action"] != "pending_review":
            problems.append("rule not held")
        if row.get("normative") == 0 and row.get("secret") == 0 and o["action"] == "pending_review":
            problems.append("held as rule")
        if row.get("weakening") == 1 and not o["flagged"] and o["action"] != "rejected":
            problems.append("weakening unflagged")
        if row.get("secret") == 0 and (row.get("safety") in ("user", "dependant")) != o["pinned"]:
            problems.append("pinned" if o["pinned"] else "not pinned")
        if problems:
            wrong.append(f"  {', '.join(problems):<28} {row['text']}")
    return wrong


def locomo_turns() -> list[str]:
    turns: list[str] = []
    for name in ("26", "30"):
        path = LOCOMO / f"{name}.json"
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            turns += [
                t["text"].strip()
                for key, session in data.items()
                if key.startswith("session_") and isinstance(session, list)
                for t in session
                if (t.get("text") or "").strip()
            ]
    return turns


def cost(texts: list[str]) -> None:
    from memory_core import judgement
    from memory_core.extraction.slots import states_safety
    from memory_core.guards.policy import policy_check
    from memory_core.guards.secrets import scan_secrets

    def learned(text: str) -> None:
        # The features, models and both encoders each time (a write sees its statement once);
        # the vector is shared.
        judgement.scores.cache_clear()
        judgement.encoder_read.cache_clear()
        judgement.safety_encoder_read.cache_clear()
        judgement.policy(text), judgement.secrets(text), judgement.safety(text)

    def patterns(text: str) -> None:
        policy_check(text), scan_secrets(text), states_safety(text)

    def learned_cold(text: str) -> None:
        from memory_core.embeddings import query_cache

        query_cache.clear()
        learned(text)

    ways: dict[str, Callable[[str], Any]] = {
        "patterns (before)": patterns,
        "judgement, vector shared": learned,
        "judgement, vector computed": learned_cold,
    }
    for text in texts[:20]:  # warm-up: models loaded
        patterns(text), learned(text)
    # Interleaved, text by text: the three ways see the same load (a separate pass each swung
    # with whatever else the machine was doing). The untimed call first puts the text's vector in
    # the cache, as the write path has it; the cold way, last, clears it.
    times: dict[str, list[float]] = {name: [] for name in ways}
    for text in texts:
        learned(text)
        for name, decide in ways.items():
            start = time.perf_counter()
            decide(text)
            times[name].append(time.perf_counter() - start)
    print(f"\nCost per statement ({len(texts)} texts, the three ways interleaved):")
    for name in ways:
        print(f"  {name:<28} {common.summary_ms(times[name])}")
    rules, shared = times["patterns (before)"], times["judgement, vector shared"]
    extra = (common.percentile(shared, 95) - common.percentile(rules, 95)) * 1000
    print(f"  judgement over patterns at p95: {extra:+.2f} ms (the vector is the one the write path stores)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench judgement")
    parser.add_argument("--batch", type=Path, default=DEFAULT_BATCH)
    parser.add_argument("--surfaces", default="rest,mem0,mcp,rest-batch,import")
    parser.add_argument(
        "--locomo", action="store_true", help="also LoCoMo 26 and 30 turn by turn through mem0"
    )
    parser.add_argument("--errors", action="store_true", help="list what the first surface got wrong")
    parser.add_argument("--no-cost", action="store_true")
    args = parser.parse_args(argv)
    # One call per text, back to back: faster than the default per-key rate, which is not measured here.
    os.environ.setdefault("API_RATE_PER_KEY", "1000000/min")
    common.setup()
    common.truncate()
    rows = load(args.batch)
    common.header(
        f"Judgement on {args.batch.name} ({len(rows)} labelled texts), public write path, one call per text"
    )
    client, key = _clients()
    for name in filter(None, args.surfaces.split(",")):
        if name == "rest-batch":
            outcomes = _outcomes_batch(client, [row["text"] for row in rows])
        else:
            outcomes = [SURFACES[name](client, key, row["text"]) for row in rows]
        print(f"\n{name}:")
        for label, value in figures(rows, outcomes).items():
            print(f"  {label:<52} {value}")
        if args.errors and name == args.surfaces.split(",")[0]:
            print("\n".join(errors(rows, outcomes)))
        common.truncate()
    if args.locomo:
        turns = locomo_turns()
        outcomes = [_outcome_mem0(client, key, t) for t in turns]
        held = sum(o["action"] == "pending_review" for o in outcomes)
        refused = sum(o["action"] == "rejected" for o in outcomes)
        print(f"\nLoCoMo 26+30 through mem0 (infer false), {len(turns)} turns, one call each:")
        print(
            f"  held as a rule: {_rate(held, len(turns))}; refused as a secret: {_rate(refused, len(turns))}"
        )
        if args.errors:
            for turn, o in zip(turns, outcomes, strict=True):
                if o["action"] in ("pending_review", "rejected"):
                    print(f"  {o['action']:<15} {turn}")
        common.truncate()
    if not args.no_cost:
        cost([row["text"] for row in rows])
