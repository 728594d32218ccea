"""Signed webhooks: tenants and operators register endpoints for memory and extraction events.

- `events`: the event types and the payload of each (no content in erasure events);
- `models`: endpoints, events (the outbox), deliveries and their attempts;
- `addresses`: which URLs an endpoint may have (HTTPS; HTTP only on the loopback);
- `signing`: HMAC-SHA256 over "timestamp.body", and its verification with a tolerance window;
- `dispatch`: `webhook_emit`, called by the engine's services inside their transaction;
- `delivery`: the django-q2 task body: one attempt, logged; backoff; disabling a failing endpoint;
- `services`: endpoints managed (create, update, delete, rotate the secret, replay, ping).

Nothing here imports the apps: who an event is for (a tenant's endpoints) is answered by the
function named in settings.WEBHOOK_AUDIENCE_RESOLVER.
"""
