"""What a real MirrorMaker 2 log says about the configuration it was given.

Kafka's clients (producer, consumer, admin) call AbstractConfig.logUnused() once built: every key they were handed
and never read is logged, up to 3.3 one WARN line per key ("The configuration 'k' was supplied but isn't a known
config."), from 3.4 one line for all of them ("These configurations '[k1, k2]' were supplied but are not used yet.",
WARN in 3.4, INFO from 3.5). Every other config object logs what it knows, with the value it took, when it is built
("DistributedConfig values:", "MirrorConnectorConfig values:", "ProducerConfig values:", ... one tab-indented
"key = value" line per defined key).

MirrorMaker 2 hands each herder's whole worker configuration to the internal clients of Connect (the offset, status
and config topics), so keys the worker or the connectors read are also "supplied but not known" to those clients;
MirrorMaker itself adds keys there (group.id, the *.storage.topic names, the converters, admin./consumer./producer.
copies of the connection keys). That is the noise of a version, logged for any configuration. A key that nothing of
the process reads is a key the version ignores.
"""
import re

from mm2_core.formats import javaprops

_UNKNOWN = re.compile(r"The configuration '([^']+)' was supplied but isn't a known config")
_UNUSED = re.compile(r"These configurations '\[([^\]]*)\]' were supplied but are not used yet")
_DUMP = re.compile(r"\b([A-Za-z]+Config) values: ?$")
CLIENT_PREFIXES = ("producer.", "consumer.", "admin.")
# the prefixes a connector or worker strips before it hands keys to a client (MirrorConnectorConfig's source.admin. and
# target.admin. for the flows' admin clients, the worker's producer./consumer./admin.)
CLIENT_KEY_PREFIXES = ("source.admin.", "target.admin.") + CLIENT_PREFIXES


def reported_unknown(text):
    """Every key a client of the process logged as supplied but unknown / not used (both message forms)."""
    found = set(_UNKNOWN.findall(text))
    for listed in _UNUSED.findall(text):
        found.update(k.strip() for k in listed.split(",") if k.strip())
    return found


def message_forms(text):
    """How many lines of each logUnused form the text holds (proves the version's form was parsed)."""
    return len(_UNKNOWN.findall(text)), len(_UNUSED.findall(text))


def config_dumps(text):
    """[(config class, {key: value})] of every "X values:" block of the log, in order."""
    dumps, current = [], None
    for line in text.splitlines():
        if current is not None:
            if line.startswith("\t") and " = " in line:
                key, _, value = line[1:].partition(" = ")
                current[1][key.strip()] = value.strip()
                continue
            dumps.append(current)
            current = None
        match = _DUMP.search(line)
        if match:
            current = (match.group(1), {})
    if current is not None:
        dumps.append(current)
    return dumps


def normalized(value):
    """A value as a config dump prints it and as a properties file writes it, made comparable:
    lists "[a, b]" / "a,b", classes "class x.Y" / "x.Y"."""
    value = (value or "").strip()
    if value.startswith("class "):
        value = value[len("class "):]
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    return ",".join(part.strip() for part in value.split(",") if part.strip())


def _without_prefixes(key, aliases):
    """The names a rendered key has once MirrorMaker took its cluster alias or flow prefix off."""
    names = {key}
    for alias in aliases:
        if key.startswith(alias + "."):
            names.add(key[len(alias) + 1:])
    if "->" in key.split(".", 1)[0]:
        names.add(key.split(".", 1)[1])
    return names


def rendered_names(properties_text, aliases):
    """{name a client may be handed: [(rendered key, value)]} for a rendered connect-mirror-maker.properties.

    A rendered key reaches clients under its own name, without its cluster alias ("B.x" -> "x", per-cluster keys go
    into the worker configuration of the herders targeting B) or flow prefix ("A->B.x" -> "x"), and MirrorMaker copies
    connection keys to admin./consumer./producer. (clusterProps)."""
    names = {}
    for key, value in javaprops.loads(properties_text):
        stripped = _without_prefixes(key, aliases)
        for name in set(stripped):
            stripped.update(prefix + name for prefix in CLIENT_PREFIXES)
        for name in stripped:
            names.setdefault(name, []).append((key, value))
    return names


def read_by(dumps, name, value):
    """The config classes whose logged values show `name` (or `name` without a client prefix: the worker passes
    producer.x to its tasks' producers as x, a connector source.admin.x to its source admin client) holding `value`."""
    candidates = [name] + [name[len(p):] for p in CLIENT_KEY_PREFIXES if name.startswith(p)]
    want = normalized(value)
    return sorted(set(cls for cls, values in dumps for n in candidates
                      if n in values and (normalized(values[n]) == want or values[n] == "[hidden]")))


def ignored_keys(rendered_log, baseline_log, properties_text, aliases):
    """What the rendered run's log says beyond the baseline's noise, per reported key:

    {"noise": keys the hand-written minimal configuration's run also reported,
     "read": {key: (rendered key, classes that logged it with our value)} reported but read elsewhere,
     "ignored": {key: [rendered keys]} ours, reported, and read by nothing of the process: the version ignores them,
     "not_ours": keys beyond the baseline no rendered key leads to}"""
    baseline = reported_unknown(baseline_log)
    dumps = config_dumps(rendered_log)
    names = rendered_names(properties_text, aliases)
    result = {"noise": set(), "read": {}, "ignored": {}, "not_ours": set()}
    for key in sorted(reported_unknown(rendered_log)):
        if key in baseline:
            result["noise"].add(key)
        elif key not in names:
            result["not_ours"].add(key)
        else:
            readers = [(source, read_by(dumps, key, value)) for source, value in names[key]]
            readers = [(source, classes) for source, classes in readers if classes]
            if readers:
                result["read"][key] = readers[0]
            else:
                result["ignored"][key] = sorted(source for source, _ in names[key])
    return result


def unread_keys(rendered_log, properties_text, aliases):
    """{rendered key: value} of every key no config object of the process logged with the value we rendered (under
    its name without the cluster alias, flow or admin./consumer./producer. prefix). MirrorMaker drops top-level keys
    its connector config does not define without a word (connectorBaseConfig keeps only the names it knows), so a
    key the version ignores may never be "supplied but not known": this finds those too."""
    dumps = config_dumps(rendered_log)
    return dict((key, value) for key, value in javaprops.loads(properties_text)
                if not any(read_by(dumps, name, value) for name in _without_prefixes(key, aliases)))
