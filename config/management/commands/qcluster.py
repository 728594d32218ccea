"""`manage.py qcluster`: django-q2's cluster, whose processes die with it and whose claims it renews.

Replaces django-q2's command (the `config` app comes first in INSTALLED_APPS). Two additions:
- every process of the cluster (sentinel, pusher, monitor, workers) asks the kernel to kill it when
  its parent dies (Linux `PR_SET_PDEATHSIG`): a `kill -9` of this process, or of the sentinel,
  leaves no orphan worker behind, so a restart never runs two clusters;
- this process renews the cluster's task leases (config.brokers) until the cluster has stopped,
  graceful shutdown included; once it is gone, other clusters take its tasks over within
  Q_LEASE_SECONDS;
- SIGTERM / SIGINT only ask for the graceful stop, which runs beside the main thread: django-q2's own
  handler stops inside the signal handler and hangs for good when the sentinel was killed by the
  same signal (a SIGTERM to the whole process group, as `timeout` or a service manager send it).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
import uuid
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connections
from django_q.brokers import get_broker
from django_q.cluster import Cluster
from django_q.management.commands.qcluster import Command as DjangoQCommand
from redis.exceptions import RedisError

from config.brokers import OWNER_ENV, lease_seconds

_PR_SET_PDEATHSIG = 1
_forking_pid = 0


def _remember_parent() -> None:
    global _forking_pid
    _forking_pid = os.getpid()


def _die_with_parent() -> None:
    """In a freshly forked child: be killed when the process that forked us dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != _forking_pid:
        os._exit(1)  # the parent died between the fork and the prctl: nobody would reap us


def _renew_leases(owner: str, stopped: threading.Event) -> None:
    broker = get_broker()
    while not stopped.wait(lease_seconds() / 3):
        try:
            close_old_connections()
            broker.heartbeat(owner)  # type: ignore[attr-defined]  # config.brokers' leased brokers
        except (DatabaseError, RedisError, OSError) as exc:
            # Briefly unreachable: the claims may lapse and run elsewhere, which is their purpose.
            print(f"qcluster: could not renew task leases: {exc}", file=sys.stderr)
    connections.close_all()


class Command(DjangoQCommand):
    help = "Starts a django-q2 cluster whose workers die with it and whose tasks move on if it dies."

    def handle(self, *args: Any, **options: Any) -> None:
        settings.SECRET_KEY  # noqa: B018  # django-q2 signs tasks with it: fail before forking
        if options.get("cluster_name"):
            os.environ["Q_CLUSTER_NAME"] = options["cluster_name"]
        owner = os.environ[OWNER_ENV] = uuid.uuid4().hex[:12]
        if sys.platform.startswith("linux"):
            os.register_at_fork(before=_remember_parent, after_in_child=_die_with_parent)
        connections.close_all()  # nothing of ours crosses the fork

        cluster = Cluster()
        stop_requested = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):  # replaces the handlers Cluster() installed
            signal.signal(signum, lambda *_: stop_requested.set())
        cluster.start()
        stopped = threading.Event()
        renewer = threading.Thread(target=_renew_leases, args=(owner, stopped), daemon=True)
        renewer.start()
        if options.get("run_once", False):
            stop_requested.set()
        stopper: threading.Thread | None = None
        try:
            # Leases are renewed until the sentinel has finished its last task and exited.
            while cluster.sentinel is not None and cluster.sentinel.is_alive():
                if stop_requested.is_set() and stopper is None:
                    # Graceful stop, on a daemon thread: if the sentinel died meanwhile, waking it
                    # blocks forever, and this loop still sees it gone and exits.
                    stopper = threading.Thread(target=cluster.stop, daemon=True)
                    stopper.start()
                time.sleep(0.2)
        finally:
            stopped.set()
            renewer.join(timeout=5)
