"""django-q2 brokers whose claims are leases, so that a dead cluster's tasks run again within seconds.

django-q2's own brokers hand a task out again only after `Q_RETRY` (minutes, since it must exceed
the longest task), and its Redis broker not at all: a task popped by a cluster that then dies is
lost. Here a claim belongs to one cluster (its *owner* id, set by `manage.py qcluster`) and holds
only while that cluster renews it (`heartbeat`, every Q_LEASE_SECONDS / 3). Any cluster's pusher
returns the claims of an owner that stopped renewing to the head of the queue (`reap`), where the
next free worker takes them once. A task that finishes is acknowledged (deleted) as before; so is
one that fails or exceeds Q_TIMEOUT (django-q2 records it as failed, `ack_failures` being on). A
failure enqueued with `ack_failure=False` (extraction) is released instead: back to the queue after
Q_RETRY seconds, as django-q2's own brokers do, until Q_MAX_ATTEMPTS. `tasks_held` lists what
the broker holds, so that the job reaper knows a job whose task was lost (memory_core.leases).

`leased_broker` is the `broker_class` of settings.Q_CLUSTER: the Redis flavour when django-q2 is
configured with Redis, the database (ORM) flavour otherwise.
"""

from __future__ import annotations

import logging
import os
import pickle
import time
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.signing import BadSignature
from django.db.models import Q
from django.utils import timezone
from django_q.brokers import Broker, get_broker
from django_q.brokers.orm import ORM
from django_q.brokers.redis_broker import Redis
from django_q.conf import Conf
from django_q.signals import post_execute_in_worker, pre_execute
from django_q.signing import SignedPackage

logger = logging.getLogger(__name__)

OWNER_ENV = "Q_LEASE_OWNER"


def lease_owner() -> str:
    """This cluster's owner id: inherited from `manage.py qcluster` by its forked processes; a
    process started some other way gets its own (and renews its claims from its pusher)."""
    owner = os.environ.get(OWNER_ENV)
    if not owner:
        owner = os.environ[OWNER_ENV] = uuid.uuid4().hex[:12]
    return owner


def lease_seconds() -> float:
    return max(1.0, float(settings.Q_LEASE_SECONDS))


class _Leases:
    """Heartbeat and reaping paced for a pusher loop that calls `dequeue` several times a second."""

    _last_beat = 0.0
    _last_reap = 0.0

    def heartbeat(self, owner: str | None = None) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def reap(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def release(self, task_id: Any, delay: float) -> None:  # pragma: no cover - overridden
        """Give up a claim: the task goes back to the queue, to be taken again after `delay` seconds."""
        raise NotImplementedError

    def claim_held(self, task_id: Any, owner: str) -> bool:  # pragma: no cover - overridden
        """Whether cluster `owner` still holds task `task_id` (claimed and renewing its lease)."""
        raise NotImplementedError

    def payloads(self) -> list[Any]:  # pragma: no cover - overridden
        """Every task this broker holds, in one snapshot: waiting, claimed, or released for a retry."""
        raise NotImplementedError

    def _paced_upkeep(self) -> None:
        now = time.monotonic()
        if now - self._last_beat >= lease_seconds() / 3:
            self.heartbeat()
            self._last_beat = now
        if now - self._last_reap >= min(2.0, lease_seconds() / 3):
            returned = self.reap()
            self._last_reap = now
            if returned:
                logger.warning("returned %d task(s) of a stopped cluster to the queue", returned)


class LeasedORM(_Leases, ORM):
    """Database broker. A claimed row's key becomes `<queue>@<owner>` and its `lock` the lease's end."""

    def _claimed_key(self, owner: str | None = None) -> str:
        return f"{self.list_key}@{owner or lease_owner()}"

    def heartbeat(self, owner: str | None = None) -> None:
        until = timezone.now() + timedelta(seconds=lease_seconds())
        self.get_connection().filter(key=self._claimed_key(owner)).update(lock=until)

    def reap(self) -> int:
        return (
            self.get_connection()
            .filter(key__startswith=f"{self.list_key}@", lock__lt=timezone.now())
            .update(key=self.list_key, lock=timezone.now() - timedelta(seconds=1))
        )

    def release(self, task_id: Any, delay: float) -> None:
        # A queued row is taken once its lock is in the past: the delay is a lock in the future.
        self.get_connection().filter(pk=task_id, key__startswith=f"{self.list_key}@").update(
            key=self.list_key, lock=timezone.now() + timedelta(seconds=delay)
        )

    def claim_held(self, task_id: Any, owner: str) -> bool:
        return (
            self.get_connection()
            .filter(pk=task_id, key=self._claimed_key(owner), lock__gte=timezone.now())
            .exists()
        )

    def payloads(self) -> list[Any]:
        held = Q(key=self.list_key) | Q(key__startswith=f"{self.list_key}@")
        return list(self.get_connection().filter(held).values_list("payload", flat=True))

    def dequeue(self) -> list[tuple[Any, Any]] | None:
        self._paced_upkeep()
        now = timezone.now()
        claimed_key = self._claimed_key()
        claimed: list[tuple[Any, Any]] = []
        for task in (
            self.get_connection().filter(key=self.list_key, lock__lt=now).order_by("lock", "id")[: Conf.BULK]
        ):
            # Compare-and-set on (key, lock): of two clusters racing for a row, one update wins.
            won = (
                self.get_connection()
                .filter(id=task.id, key=self.list_key, lock=task.lock)
                .update(key=claimed_key, lock=now + timedelta(seconds=lease_seconds()))
            )
            if won:
                claimed.append((task.pk, task.payload))
        if claimed:
            return claimed
        time.sleep(Conf.POLL)  # an empty queue: spare the database
        return None

    def queue_size(self) -> int:
        return self.get_connection().filter(key=self.list_key, lock__lte=timezone.now()).count()

    def lock_size(self) -> int:
        return self.get_connection().filter(key__startswith=f"{self.list_key}@").count()

    def purge_queue(self) -> Any:
        self.get_connection().filter(key__startswith=f"{self.list_key}@").delete()
        return super().purge_queue()


# Pops up to ARGV[2] payloads and records each under a new id with its owner ARGV[1].
_CLAIM = """
local out = {}
for _ = 1, tonumber(ARGV[2]) do
  local payload = redis.call('LPOP', KEYS[1])
  if not payload then break end
  local id = redis.call('INCR', KEYS[4])
  redis.call('HSET', KEYS[2], id, payload)
  redis.call('HSET', KEYS[3], id, ARGV[1])
  table.insert(out, id)
  table.insert(out, payload)
end
return out
"""

# Puts the claims of every owner whose alive key (ARGV[1] .. owner) has expired back at the head,
# and the released tasks whose delay (score in KEYS[4]) is over (ARGV[2], ms) at the tail.
_REAP = """
local returned = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ARGV[2])) do
  local payload = redis.call('HGET', KEYS[2], id)
  if payload then redis.call('RPUSH', KEYS[1], payload) end
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[4], id)
end
local claims = redis.call('HGETALL', KEYS[3])
for i = 1, #claims, 2 do
  local id, owner = claims[i], claims[i + 1]
  if redis.call('EXISTS', ARGV[1] .. owner) == 0 then
    local payload = redis.call('HGET', KEYS[2], id)
    if payload then
      redis.call('LPUSH', KEYS[1], payload)
      returned = returned + 1
    end
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id)
  end
end
return returned
"""

# Releases claim ARGV[1]: no longer owned, due again at ARGV[2] (ms); its payload stays in KEYS[1].
_RELEASE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
end
"""


class LeasedRedis(_Leases, Redis):
    """Redis broker. The queue stays django-q2's list; claims live in two hashes (id → payload,
    id → owner), and an owner is alive while its key `…:alive:<owner>` has not expired."""

    @property
    def _keys(self) -> tuple[str, str, str, str]:
        return (self.list_key, f"{self.list_key}:claimed", f"{self.list_key}:owner", f"{self.list_key}:seq")

    def heartbeat(self, owner: str | None = None) -> None:
        alive = f"{self.list_key}:alive:{owner or lease_owner()}"
        self.connection.set(alive, "1", px=int(lease_seconds() * 1000))

    @property
    def _delayed(self) -> str:
        return f"{self.list_key}:delayed"

    def reap(self) -> int:
        queue, claimed, owners, _ = self._keys
        now_ms = int(time.time() * 1000)
        alive = f"{self.list_key}:alive:"
        return int(self.connection.eval(_REAP, 4, queue, claimed, owners, self._delayed, alive, now_ms))

    def release(self, task_id: Any, delay: float) -> None:
        _, claimed, owners, _ = self._keys
        due_ms = int((time.time() + delay) * 1000)
        self.connection.eval(_RELEASE, 3, claimed, owners, self._delayed, task_id, due_ms)

    def claim_held(self, task_id: Any, owner: str) -> bool:
        _, _, owners, _ = self._keys
        held = self.connection.hget(owners, task_id)
        if held is None or (held.decode() if isinstance(held, bytes) else str(held)) != owner:
            return False
        return bool(self.connection.exists(f"{self.list_key}:alive:{owner}"))

    def payloads(self) -> list[Any]:
        queue, claimed, _, _ = self._keys
        # One MULTI: a claim returned to the queue between two reads would be missed by both.
        pipe = self.connection.pipeline(transaction=True)
        pipe.lrange(queue, 0, -1)
        pipe.hvals(claimed)  # claimed ones, and released ones waiting out their delay
        waiting, held = pipe.execute()
        return [*waiting, *held]

    def dequeue(self) -> list[tuple[Any, Any]] | None:
        self._paced_upkeep()
        flat = self.connection.eval(_CLAIM, 4, *self._keys, lease_owner(), Conf.BULK)
        if flat:
            return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
        time.sleep(Conf.POLL)
        return None

    def acknowledge(self, task_id: Any) -> None:
        _, claimed, owners, _ = self._keys
        pipe = self.connection.pipeline()
        pipe.hdel(claimed, task_id)
        pipe.hdel(owners, task_id)
        pipe.zrem(self._delayed, task_id)
        pipe.execute()

    def fail(self, task_id: Any) -> None:
        self.acknowledge(task_id)

    def lock_size(self) -> int:
        return int(self.connection.hlen(self._keys[1]))

    def delete_queue(self) -> Any:
        return self.connection.delete(*self._keys, self._delayed)


def leased_broker(list_key: str | None = None) -> Broker:
    """`Q_CLUSTER["broker_class"]`: Redis when django-q2 has a Redis configuration, else the database."""
    if Conf.REDIS and not Conf.ORM:
        return LeasedRedis(list_key=list_key)
    return LeasedORM(list_key=list_key)


# The task this worker process is running (set around each run by the signals below): a job's
# claim names it, so that the task handed out again after its cluster died knows the job is its own.
_running: dict[str, str] = {}


def running_task() -> dict[str, str]:
    """{"task": django-q2 task id, "ack": broker claim id, "owner": cluster} of the task this
    process runs; empty outside a cluster's worker (a request, a synchronous test run)."""
    return dict(_running)


def claim_held(ack_id: str, owner: str) -> bool:
    """Whether cluster `owner` is alive and still holds the broker claim `ack_id`."""
    broker = get_broker()
    return isinstance(broker, _Leases) and broker.claim_held(ack_id, owner)


def tasks_held(func: str) -> set[str] | None:
    """The first argument, as text, of every `func` task (a dotted path) the broker holds, whether
    waiting, claimed or waiting out a retry; None when it cannot tell (not a leased broker, or
    tasks run synchronously). A job whose id is missing here has no task that will ever run it."""
    broker = get_broker()
    if Conf.SYNC or not isinstance(broker, _Leases):
        return None
    held: set[str] = set()
    for payload in broker.payloads():
        try:
            task = SignedPackage.loads(payload)
        except (BadSignature, pickle.UnpicklingError, ValueError, TypeError, EOFError):
            continue  # not ours to read (another key): django-q2 drops it as well
        if task.get("func") == func and task.get("args"):
            held.add(str(task["args"][0]))
    return held


def _note_running_task(sender: Any, func: Any, task: dict[str, Any], **kwargs: Any) -> None:
    _running.clear()
    if task.get("ack_id") and not task.get("sync"):
        _running.update(task=str(task.get("id", "")), ack=str(task["ack_id"]), owner=lease_owner())


pre_execute.connect(_note_running_task, dispatch_uid="config.brokers.running")


def _release_unacknowledged_failure(sender: Any, func: Any, task: dict[str, Any], **kwargs: Any) -> None:
    """In the worker, after a run: a failure that django-q2 will not acknowledge (`ack_failure` off)
    would otherwise stay claimed while its cluster lives; hand it back for a retry after Q_RETRY.
    (At Q_MAX_ATTEMPTS the monitor then acknowledges, that is deletes, it.)"""
    _running.clear()
    ack_id = task.get("ack_id")
    if not ack_id or task.get("success") or task.get("ack_failure") or task.get("sync"):
        return
    broker = get_broker()
    if isinstance(broker, _Leases):
        broker.release(ack_id, delay=float(Conf.RETRY))


post_execute_in_worker.connect(_release_unacknowledged_failure, dispatch_uid="config.brokers.release")
