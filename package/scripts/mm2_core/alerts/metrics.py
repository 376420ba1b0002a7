"""MM2 metrics as the mpack's JMX exporter rules expose them, and a fast reader for them.

Pure stdlib, Python 2.7 and 3. The series names are a contract with
package/files/jmx_exporter_mm2.yaml (tests/alerts checks both against each other).

The reader parses the Prometheus text format (version 0.0.4) but only the metric families an
alert asks for. The format requires the samples of a family to be contiguous, and the exporter
writes "# TYPE <family> <type>" in front of them, so the reader jumps to each wanted block with
str.find and splits only that block. Without TYPE lines it falls back to one pass over all
lines, skipping unwanted ones with a prefix test. Label blocks repeat across families (the
same partition has the same labels in every family), so each distinct label text is parsed once.
"""

# --- series written by jmx_exporter_mm2.yaml -------------------------------------------------------
SOURCE_PREFIX = "mm2_source_"
SOURCE_RECORD_COUNT = "mm2_source_record_count"
SOURCE_LATENCY = "mm2_source_replication_latency_ms"
SOURCE_LATENCY_AVG = "mm2_source_replication_latency_ms_avg"
SOURCE_LATENCY_MAX = "mm2_source_replication_latency_ms_max"
CHECKPOINT_LATENCY = "mm2_checkpoint_checkpoint_latency_ms"
CHECKPOINT_LATENCY_AVG = "mm2_checkpoint_checkpoint_latency_ms_avg"
CHECKPOINT_LATENCY_MAX = "mm2_checkpoint_checkpoint_latency_ms_max"
SOURCE_RECORD_AGE_AVG = "mm2_source_record_age_ms_avg"         # recorded when a record is polled
REPLICATION_LAG = "mm2_replication_consumer_records_lag"        # Kafka 3.5+, flow-qualified
CONSUMER_LAG = "mm2_consumer_records_lag"                       # any consumer (before 3.5)
REPLICATION_LAST_POLL = "mm2_replication_consumer_last_poll_seconds_ago"  # Kafka 3.5+, per flow and task
CONSUMER_LAST_POLL = "mm2_consumer_last_poll_seconds_ago"      # any consumer (before 3.5)
HERDER_UP = "mm2_herder_up"                                    # labels source, target, version
HERDER_START = "mm2_herder_start_time_ms"
CONNECT_WORKER_UP = "mm2_connect_worker_up"                    # connect mode: labels port, version
CONNECT_WORKER_START = "mm2_connect_worker_start_time_ms"
CONNECTOR_STATUS = "mm2_connector_status"
TASK_STATUS = "mm2_task_status"
# written by the exporter itself. Every complete scrape carries jmx_scrape_error: a payload
# without it was cut off (or is not the exporter's). The alerts' name[] filter must keep these
# names: exporter 0.x calls the JMX collector only when a filter name is one it registered
# (the two scrape series), so without them a filtered scrape returns no MM2 series at all.
SCRAPE_ERROR = "jmx_scrape_error"
SCRAPE_DURATION = "jmx_scrape_duration_seconds"
END_OF_SCRAPE = SCRAPE_ERROR

# MM2's windowed statistics (-avg, -max) cover metrics.num.samples x metrics.sample.window.ms,
# by default 2 x 30 s: a NaN there means nothing happened on that partition for up to a minute.
STAT_WINDOW_SECONDS = 60.0

NAN = float("nan")


def is_number(value):
    """False for None, NaN and infinities (an idle windowed statistic is NaN)."""
    return value is not None and value == value and value not in (float("inf"), float("-inf"))


def _parse_value(text):
    """'123', ' 1.5E7', 'NaN', '+Inf', optionally followed by a timestamp -> float (None if not a number)."""
    try:
        return float(text)
    except ValueError:
        parts = text.split()
        try:
            return float(parts[0]) if parts else None
        except ValueError:
            return None


_ESCAPES = {"\\": "\\", "n": "\n", '"': '"'}


def _unescape(value):
    """The text format's label escapes: \\\\, \\" and \\n; any other backslash stays as written
    (what Prometheus and prometheus_client do)."""
    if "\\" not in value:
        return value
    out = []
    i = 0
    n = len(value)
    while i < n:
        c = value[i]
        if c == "\\" and i + 1 < n and value[i + 1] in _ESCAPES:
            out.append(_ESCAPES[value[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def kafka_topic_tag(topic):
    """The topic tag Kafka's client metrics write for a topic: '.' becomes '_' (every version,
    FetchManagerMetrics / Sanitizer), so lag series must be joined on this form."""
    return topic.replace(".", "_") if topic else topic


def incomplete_scrape(text):
    """None for a complete exporter scrape, else why it is not one."""
    if not text:
        return "the endpoint answered with an empty body"
    if not text.endswith("\n"):
        return "the answer was cut off in the middle of a line"
    if ("\n" + END_OF_SCRAPE + " ") not in text and not text.startswith(END_OF_SCRAPE + " "):
        return ("the answer lacks the exporter's own %s series, so the scrape was cut off or this is not the "
                "JMX exporter" % END_OF_SCRAPE)
    return None


def parse_labels(text):
    """'a="1",b="x\\"y"' -> {'a': '1', 'b': 'x"y'}; raises ValueError on malformed text."""
    if not text:
        return {}
    if _plain(text):
        # fast path (what exporters write): without escapes every '"' is a delimiter, so '",'
        # ends a value unless the quote opens one that starts with a comma ('=",')
        body = text.rstrip(",")
        if body.endswith('"'):
            try:
                return dict(part.split('="', 1) for part in body[:-1].split('",'))
            except ValueError:
                raise ValueError("bad label text: %r" % text)
    labels = {}
    i = 0
    n = len(text)
    while i < n:
        while i < n and text[i] in ", ":
            i += 1
        if i >= n:
            break
        eq = text.find("=", i)
        if eq < 0 or eq + 1 >= n or text[eq + 1] != '"':
            raise ValueError("bad label text: %r" % text)
        name = text[i:eq].strip()
        j = eq + 2
        buf = []
        while j < n:
            c = text[j]
            if c == "\\" and j + 1 < n:
                buf.append(text[j:j + 2])
                j += 2
                continue
            if c == '"':
                break
            buf.append(c)
            j += 1
        else:
            raise ValueError("unterminated label value: %r" % text)
        labels[name] = _unescape("".join(buf))
        i = j + 1
    return labels


def label_values(text, keys):
    """Values of `keys` in one label text, as a tuple (None where absent)."""
    labels = parse_labels(text)
    return tuple(labels.get(k) for k in keys)


def fields(samples, keys):
    """[(label values tuple, value)] for [(label text, value)], reading only `keys`.

    An exporter writes the labels of one family in the same order on every line, so the
    position and prefix of each wanted label are learned from the first line and checked on the
    others with startswith; a line that does not fit (other labels, escapes) is parsed fully.
    This is several times cheaper than building a dict per line for tens of thousands of lines.
    """
    out = []
    append = out.append
    layout = None      # (number of parts, ((index, prefix, prefix length), ...))
    nkeys = len(keys)
    for text, value in samples:
        if layout is not None and text.endswith('"') and "\\" not in text and '=",' not in text:
            parts = text[:-1].split('",')
            if len(parts) == layout[0]:
                vals = []
                for index, prefix, cut in layout[1]:
                    if index < 0:
                        vals.append(None)
                        continue
                    part = parts[index]
                    if not part.startswith(prefix):
                        break
                    vals.append(part[cut:])
                if len(vals) == nkeys:
                    append((tuple(vals), value))
                    continue
        append((label_values(text, keys), value))
        layout = _layout(text, keys)
    return out


def _plain(text):
    """Label text the split on '",' reads correctly: no escapes, no value starting with a comma,
    no ', ' separators."""
    return "\\" not in text and '=",' not in text and '", ' not in text


def _layout(text, keys):
    if not text.endswith('"') or not _plain(text):
        return None
    names = [part.split('="', 1)[0] for part in text[:-1].split('",')]
    spec = []
    for key in keys:
        if key in names:
            prefix = key + '="'
            spec.append((names.index(key), prefix, len(prefix)))
        else:
            spec.append((-1, None, 0))
    return len(names), tuple(spec)


def scan(text, families):
    """{family: [(label text, value)]} for the wanted families (absent ones map to [])."""
    wanted = set(families)
    found = dict((f, []) for f in wanted)
    if not text:
        return found
    missing = []
    for family in wanted:
        marker = "# TYPE " + family + " "
        start = text.find(marker)
        if start < 0:
            missing.append(family)
            continue
        start = text.find("\n", start)
        if start < 0:
            continue
        end = text.find("\n#", start)
        block = text[start + 1:] if end < 0 else text[start + 1:end]
        _scan_block(block.split("\n"), family, found[family])
    # families without a TYPE line (allowed by the format): one pass over every line
    if missing and any(("\n" + f) in text or text.startswith(f) for f in missing):
        by_prefix = tuple(missing)
        lines = [line for line in text.split("\n") if line.startswith(by_prefix)]
        for family in missing:
            _scan_block(lines, family, found[family])
    return found


def _scan_block(lines, family, out):
    """Append (label text, value) of the lines that are samples of exactly this family.

    Label texts are normalised to the 1.x layout (0.x writes a trailing comma in every label
    set), so both layouts take the same fast paths; a series written twice counts once (the
    last value wins, as in a Prometheus server)."""
    head = family + "{"
    cut = len(head)
    bare = family + " "
    seen = {}
    for line in lines:
        if line.startswith(head):
            end = line.rfind("}")
            if end < cut:
                continue
            rest = line[end + 1:]
            try:
                value = float(rest)
            except ValueError:
                value = _parse_value(rest)
            if line[end - 1] == ",":
                text = line[cut:end - 1]
            else:
                text = line[cut:end]
        elif line.startswith(bare):
            text = ""
            value = _parse_value(line[len(bare):])
        else:
            continue
        index = seen.get(text)
        if index is None:
            seen[text] = len(out)
            out.append((text, value))
        else:
            out[index] = (text, value)


class LabelCache(object):
    """Parses each distinct label text once (partitions repeat them across families)."""

    def __init__(self):
        self._cache = {}

    def __call__(self, text):
        labels = self._cache.get(text)
        if labels is None:
            labels = parse_labels(text)
            self._cache[text] = labels
        return labels


class Snapshot(object):
    """The wanted families of one scrape, with parsed labels.

    series(family) -> [(labels dict, value)]; values are floats, NaN for idle statistics,
    None when the text was not a number.
    """

    def __init__(self, text, families, fetched_at=None, url=None):
        self.fetched_at = fetched_at
        self.url = url
        self._raw = scan(text, families)
        self._labels = LabelCache()
        self._parsed = {}

    def has(self, family):
        return bool(self._raw.get(family))

    def raw(self, family):
        """[(label text, value)] without parsing the labels (for the hot loops)."""
        return self._raw.get(family, [])

    def labels(self, text):
        return self._labels(text)

    def series(self, family):
        got = self._parsed.get(family)
        if got is None:
            parse = self._labels
            got = [(parse(t), v) for t, v in self._raw.get(family, [])]
            self._parsed[family] = got
        return got

    def value(self, family, default=None):
        """The value of a family's first sample (for families without labels)."""
        raw = self._raw.get(family)
        return raw[0][1] if raw else default


def decode_payload(data, charset="utf-8"):
    """HTTP body -> native str (bytes on Python 2, text on Python 3)."""
    if str is bytes:
        return data
    if isinstance(data, bytes):
        return data.decode(charset or "utf-8", "replace")
    return data
