"""`stats`, and the per-machine counts it reads (cache/usage.py): the memories by layer,
source and contributor; the recalls, searches and writes each front end made here; the
memories recalled most, those agents were given most, and those never given to one.

The front ends count through `count` (a command line's recall and search, a hook's
answer, a write) and `count_all` (the MCP server's answers, in one write once it is
idle); counting never raises.
"""

from __future__ import annotations

import time

from git_aide.cache import usage as u

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from git_aide.cache.folder import Cache
    from git_aide.read.record import Entry

#: How many memories the "most" lists name.
TOP = 5
#: A memory older than this many days and never given in any answer is listed.
UNUSED_DAYS = 30


def count(cache: Cache, kind: str, channel: str, uuids: list[str],
          when: float | None = None) -> None:
    """Count one answer (`kind`: usage.KINDS; `channel`: cli, mcp or hook) that gave
    these memories (a write: the memories written)."""
    u.record(u.folder_of(cache.root), [u.line(kind, channel, uuids, when or time.time())])


def count_all(cache: Cache, channel: str, answers: list[tuple[str, list[str], float]]
              ) -> None:
    """Count answers, each (kind, the memories it gave, when), in one write."""
    u.record(u.folder_of(cache.root), [u.line(kind, channel, uuids, when)
                                       for kind, uuids, when in answers])


def usage_of(cache: Cache) -> u.Usage:
    """Read this machine's counts (their warnings: what could not be read)."""
    return u.read(u.folder_of(cache.root))


def _stamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(seconds))


def stats_doc(entries: list[Entry], usage: u.Usage, now: float) -> dict[str, Any]:
    """Return the stats document: counts by layer, source and contributor, this machine's
    answers by kind and channel, the most recalled, the most given to agents, the
    memories never given to an agent, and the old ones never given in any answer."""
    from collections import Counter

    by_layer: Counter[str] = Counter()
    by_source: Counter[str] = Counter()
    by_contributor: Counter[str] = Counter()
    for e in entries:
        by_layer[e.layer] += 1
        by_source[e.read_record()["source"]] += 1
        by_contributor[e.contributor] += 1
    live = {e.uuid: e for e in entries}
    used = {uuid: m for uuid, m in usage.memories.items() if uuid in live}

    def most(of: str) -> list[tuple[str, u.Used]]:
        ranked = sorted(((uuid, m) for uuid, m in used.items() if getattr(m, of)),
                        key=lambda t: (-getattr(t[1], of), t[0]))
        return ranked[:TOP]

    cutoff = _stamp(now - UNUSED_DAYS * 86400)
    unused = sorted((e for e in entries if e.uuid not in used and e.created_at < cutoff),
                    key=lambda e: (e.created_at, e.uuid))
    unseen = sorted(never_seen(entries, usage), key=lambda e: (e.created_at, e.uuid))
    return {
        "total": len(entries),
        "by_layer": dict(sorted(by_layer.items())),
        "by_source": dict(sorted(by_source.items())),
        "by_contributor": dict(sorted(by_contributor.items(), key=lambda kv: (-kv[1], kv[0]))),
        "calls": {kind: {c: usage.calls.get(kind, {}).get(c, 0) for c in u.CHANNELS}
                  for kind in u.KINDS},
        "most_recalled": [{"uuid": uuid, "what": live[uuid].read_record()["what"],
                           "recalls": m.recalls, "last_used_at": _stamp(m.last)}
                          for uuid, m in most("recalls")],
        "used_by_agents": [{"uuid": uuid, "what": live[uuid].read_record()["what"],
                            "uses": m.agents, "last_used_at": _stamp(m.last)}
                           for uuid, m in most("agents")],
        "never_seen": [{"uuid": e.uuid, "what": e.read_record()["what"], "created_at": e.created_at}
                       for e in unseen],
        "never_recalled_older_than_30_days": [
            {"uuid": e.uuid, "what": e.read_record()["what"], "created_at": e.created_at}
            for e in unused],
    }


def never_seen(entries: list[Entry], usage: u.Usage) -> list[Entry]:
    """Return the memories no agent was given on this machine (`list --never-seen`)."""
    return [e for e in entries
            if not (e.uuid in usage.memories and usage.memories[e.uuid].agents)]
