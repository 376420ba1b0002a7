"""A naive single-process comparator with the same semantics as the Spark job.

It reads JSON Lines dumps (the layout Spark's JSON writer produces from the Kafka schema:
binary columns base64, null columns omitted) record by record into Python dicts.  It exists
to cross-check the Spark job on small data and as the baseline of benchmarks/verify_bench.py;
it needs memory proportional to the data, which is exactly what the Spark job avoids.
"""
import base64
import glob
import hashlib
import json
import os

from mm2_verify_job.job import COUNT_FIELDS, parse_time_ms, upstream_topic


def read_json_dump(path):
    """Yield (topic, partition, offset, ts_ms, key, value, headers) from a JSON Lines dump."""
    files = sorted(glob.glob(os.path.join(path, "*.json"))) if os.path.isdir(path) else [path]
    for name in files:
        with open(name) as handle:
            for line in handle:
                row = json.loads(line)
                key = base64.b64decode(row["key"]) if row.get("key") is not None else None
                value = base64.b64decode(row["value"]) if row.get("value") is not None else None
                headers = tuple((h.get("key"), base64.b64decode(h["value"]) if h.get("value") is not None else None)
                                for h in (row.get("headers") or ()))
                yield (row["topic"], row["partition"], row["offset"], parse_time_ms(row["timestamp"], 0),
                       key, value, headers)


def _digest(key, value, headers, ts_ms):
    """128-bit content digest (keeps the dicts smaller than the records themselves)."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (key, value):
        digest.update(b"\x00" if part is None else b"\x01" + len(part).to_bytes(4, "big") + part)
    for hkey, hvalue in headers:
        raw_key = hkey.encode("utf-8")
        digest.update(b"\x02" + len(raw_key).to_bytes(4, "big") + raw_key)
        digest.update(b"\x00" if hvalue is None else b"\x01" + len(hvalue).to_bytes(4, "big") + hvalue)
    digest.update(b"\x03" + ts_ms.to_bytes(8, "big", signed=True))
    return digest.digest()


def compare(source, target, source_alias, policy="prefixed", separator=".", pending_window_ms=0):
    """{(topic, partition): counts} for record iterables as read_json_dump yields them.

    Like the Spark job in "everything" mode: the pending window ends at the newest source
    timestamp + 1 ms and each target partition is clipped to its source partition's timestamps.
    """
    # per (topic, partition): digest -> [source copies, target copies, first source offset,
    # first target offset, ts, key]
    groups = {}
    span = {}
    for topic, partition, offset, ts, key, value, headers in source:
        tp = (topic, partition)
        group = groups.setdefault(tp, {}).setdefault(_digest(key, value, headers, ts), [0, 0, None, None, ts, key])
        group[0] += 1
        group[2] = offset if group[2] is None else min(group[2], offset)
        lo, hi = span.get(tp, (ts, ts))
        span[tp] = (min(lo, ts), max(hi, ts))
    outside = {}
    for topic, partition, offset, ts, key, value, headers in target:
        tp = (upstream_topic(source_alias, topic, policy, separator), partition)
        lo, hi = span.get(tp, (None, None))
        if lo is None or not lo <= ts <= hi:
            outside[tp] = outside.get(tp, 0) + 1
            continue
        group = groups.setdefault(tp, {}).setdefault(_digest(key, value, headers, ts), [0, 0, None, None, ts, key])
        group[1] += 1
        group[3] = offset if group[3] is None else min(group[3], offset)
    tail_from = max(hi for _, hi in span.values()) + 1 - pending_window_ms if span else None
    results = {}
    for tp, contents in groups.items():
        counts = dict((k, 0) for k in COUNT_FIELDS)
        by_key = {}
        for s, t, s_first, t_first, ts, key in contents.values():
            counts["source_records"] += s
            counts["target_records"] += t
            counts["matched"] += min(s, t)
            deficit = max(s - t, 0)
            pending = deficit if pending_window_ms and ts >= tail_from else 0
            counts["pending"] += pending
            counts["missing"] += deficit - pending
            counts["duplicates"] += max(t - s, 0) if s else 0
            counts["extra"] += t if not s else 0
            if s and t:
                by_key.setdefault(key, []).append((s_first, t_first))
        for key, firsts in by_key.items():
            latest = None
            overtaken = 0
            for _, t_first in sorted(firsts):
                if latest is not None and t_first < latest:
                    overtaken += 1
                latest = t_first if latest is None else max(latest, t_first)
            counts["order_violations"] += overtaken
            counts["keys_out_of_order"] += 1 if overtaken else 0
        results[tp] = counts
    for tp, n in outside.items():
        results.setdefault(tp, dict((k, 0) for k in COUNT_FIELDS))
    return results, outside


def totals(results):
    return dict((k, sum(r[k] for r in results.values())) for k in COUNT_FIELDS)
