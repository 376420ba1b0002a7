"""What MM2's service check and custom commands need to know around Kafka's tools: the names of MM2's internal
topics, the client settings of a cluster alias, MM2's topic and group filters, which records to read.

Pure stdlib, Python 2.7 and 3. The tools' command lines and the parsers of what they print are the Kafka
boundary's, mm2_core.kafkatools (commands, output, records).
"""
import re
import shlex
import warnings

from mm2_core.config import config_values
from mm2_core.kafka import versions


def tail_reads(end_offsets, records):
    """[(partition, from offset, count)]: the last `records` records of every non-empty partition.
    Reading count records from there ends even while writers keep appending (a compacted topic
    with gaps ends as soon as new records fill them, or when it goes idle)."""
    reads = []
    for partition in sorted(end_offsets):
        end = end_offsets[partition]
        if end > 0:
            start = max(0, end - records)
            reads.append((partition, start, end - start))
    return reads


# ---------------------------------------------------------------- what the tools need to know

_FILE_REF = re.compile(r"\$\{file:([^}:]+):([^}]+)\}")
_CLIENT_SECURITY = ("security.protocol", "sasl.", "ssl.")


def tool_system_properties(jvm_opts):
    """The -D system properties of kafka-mm2-env/mm2_jvm_opts, for the Kafka tools the service
    check and custom commands run: they must log in the way MM2 does (e.g.
    -Djava.security.krb5.conf for a realm outside /etc/krb5.conf); heap and GC options stay MM2's."""
    try:
        tokens = shlex.split(jvm_opts or "")
    except ValueError:
        return []
    return [t for t in tokens if t.startswith("-D")]


def client_properties(properties, alias, secrets=None):
    """[(key, value)] of a client config for cluster alias, from the rendered MM2 properties
    ([(key, value)] of connect-mirror-maker.properties): its security settings, with
    ${file:...:key} references resolved from secrets ({key: value} of the secrets file)."""
    secrets = secrets or {}
    prefix = alias + "."
    out = []
    for key, value in properties:
        if key is None or not key.startswith(prefix):
            continue
        name = key[len(prefix):]
        if name == "security.protocol" or name.startswith(_CLIENT_SECURITY[1:]):
            value = _FILE_REF.sub(lambda m: secrets.get(m.group(2), m.group(0)), value or "")
            out.append((name, value))
    return out


def is_internal_topic(topic):
    """Topics DefaultReplicationPolicy never replicates (ReplicationPolicy.isInternalTopic)."""
    return topic.startswith("__") or topic.startswith(".") or topic.endswith(".internal") \
        or topic.endswith("-internal")


# Pattern syntax Python's re may read differently from java.util.regex (or Python 2 takes literally): an escaped
# letter or digit other than \d \D \s \S \w \W, (?...) constructs, possessive quantifiers, class intersections
# and nested classes.
_JAVA_ONLY = re.compile(r"\\[A-Za-z0-9](?<![\\][dDsSwW])|\(\?|[*+?}]\+|&&|\[[^\]]*\[")
_ASCII = getattr(re, "ASCII", 0)


class PatternFilter(object):
    """An include and an exclude list of Java regexes (whole-name matches): MM2's DefaultTopicFilter and
    DefaultGroupFilter without their own rules. Python's re agrees with Java on the usual patterns; a pattern
    re cannot compile makes the filter 'unsure' (None) rather than wrong."""
    INCLUDE, EXCLUDE = "include", "exclude"

    def __init__(self, include, exclude):
        self.include = config_values.parse_list(include)
        self.exclude = config_values.parse_list(exclude)
        self.unsure = False
        self._inc = self._compile(self.include)
        self._exc = self._compile(self.exclude)

    def _compile(self, patterns):
        if not patterns:
            return None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # "possible nested set": Java syntax (class intersections)
                return re.compile("(?:%s)\\Z" % "|".join("(?:%s)" % p for p in patterns))
        except re.error:
            self.unsure = True
            return None

    def _matches(self, name):
        if self._inc is None or not self._inc.match(name):
            return False
        return not (self._exc is not None and self._exc.match(name))

    def excluded_by(self, name):
        """None when the filter takes `name`, or may take it: a pattern re cannot compile or may read differently
        from Java (_JAVA_ONLY; \\w and \\d are ASCII as in Java); else (INCLUDE, None): no include pattern matches
        it, or (EXCLUDE, the first exclude pattern that matches it). For refusals: never wrong, sometimes silent."""
        if self.unsure or any(_JAVA_ONLY.search(p) for p in self.include + self.exclude):
            return None
        if not any(re.match("(?:%s)\\Z" % p, name, _ASCII) for p in self.include):
            return self.INCLUDE, None
        for pattern in self.exclude:
            if re.match("(?:%s)\\Z" % pattern, name, _ASCII):
                return self.EXCLUDE, pattern
        return None


class TopicFilter(PatternFilter):
    """MM2's DefaultTopicFilter: included by one pattern, excluded by none, never an internal topic."""

    def matches(self, topic):
        """True/False, or None when a pattern is Java-only syntax."""
        if self.unsure:
            return None
        if is_internal_topic(topic):
            return False
        return self._matches(topic)

    def describe(self):
        return "topics=%s, topics.exclude=%s" % (", ".join(self.include) or "(none)",
                                                 ", ".join(self.exclude) or "(none)")


class GroupFilter(PatternFilter):
    """MM2's DefaultGroupFilter: a group is checkpointed when one `groups` pattern matches it and no
    `groups.exclude` pattern does (no internal-name rule, unlike topics)."""

    def matches(self, group):
        """True/False, or None when a pattern is Java-only syntax."""
        if self.unsure:
            return None
        return self._matches(group)


def internal_separator_enabled(properties):
    """replication.policy.internal.topic.separator.enabled of the rendered properties ([(key, value)]): true unless
    set false."""
    for key, value in properties:
        if key == "replication.policy.internal.topic.separator.enabled":
            return config_values.parse_bool(value) is not False
    return True


def internal_separator(separator, version_tuple, internal_separator_enabled=True):
    """Separator inside MM2's internal topic names: the policy separator from 3.1 (KIP-690)
    unless replication.policy.internal.topic.separator.enabled=false (KIP-949), else '.'."""
    if internal_separator_enabled and versions.supports(version_tuple, versions.INTERNAL_TOPICS_USE_SEPARATOR):
        return separator or "."
    return "."


def checkpoints_topic(source, separator, version_tuple, internal_separator_enabled=True):
    sep = internal_separator(separator, version_tuple, internal_separator_enabled)
    return "%s%scheckpoints%sinternal" % (source, sep, sep)


def heartbeats_topic(source, separator):
    """The source's heartbeats as mirrored on the target (prefixed under every policy)."""
    return "%s%sheartbeats" % (source, separator or ".")


def status_topic(source):
    """Connect status topic of the herder source->target, on the target (MM2 worker default)."""
    return "mm2-status.%s.internal" % source
