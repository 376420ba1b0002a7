"""Which MM2 driver host runs which herders, and what goes wrong with a placement.

Pure stdlib, Python 2.7 and 3. The service advisor calls check_placement() with every host's
kafka-mm2-driver/target.clusters (from config groups); the driver's start calls
local_findings() with what one host can know.

How MM2 places work (MirrorMakerConfig.clusterPairs, MirrorMaker constructor):
- a herder X->Y exists for every ordered pair of clusters whose flow is enabled or whose
  heartbeats are enabled (the default); before KAFKA-10710 for every pair;
- a process started with --clusters C1 C2 runs only the herders whose target is listed;
  with no --clusters it runs all of them; with none left it exits ("No source->target
  replication flows.");
- the heartbeats that prove the flow A->B are emitted into A by the herder B->A and then
  mirrored to B as A.heartbeats, so some host must serve target A too;
- before Kafka 3.5 (KIP-710) several processes serving one target lose task
  reconfigurations (KAFKA-9981): new topics and config changes are not propagated.

An empty target.clusters starts MM2 without --clusters: that host runs every herder, including
the reverse ones that emit heartbeats into the sources (MM2's own default). Hosts given explicit
targets run near those targets; then some host must still serve each source (heartbeats).
"""
import re

from mm2_core.config import names
from mm2_core.kafka import versions

ERROR = "ERROR"
WARN = "WARN"

_P_TARGETS = names.DRIVER + "/target.clusters"
_MULTI_NODE_FIRST = str(versions.feature_first(versions.MULTI_NODE))


class Finding(object):
    def __init__(self, level, message, host=None, config_type=names.DRIVER, prop="target.clusters"):
        self.level = level
        self.message = message
        self.host = host
        self.config_type = config_type
        self.property = prop

    def __repr__(self):
        return "Finding(%s, %r, host=%r)" % (self.level, self.message, self.host)

    def __str__(self):
        return self.message


def parse_targets(value):
    """kafka-mm2-driver/target.clusters -> list of aliases; [] means the default (see below)."""
    items = []
    # One splitting rule for validation and launch: commas, semicolons or any whitespace.
    for part in re.split(r"[\s,;]+", value or ""):
        if part and part not in items:
            items.append(part)
    return items


def _every_pair_emits(source, target):
    return True   # MM2's default: emit.heartbeats.enabled=true


def herder_pairs(clusters, flows, version_tuple, emits_heartbeats=None):
    """Herder (source, target) pairs MM2 creates for these clusters and enabled flows.

    emits_heartbeats(source, target): whether that pair emits heartbeats (the resolved model's answer,
    mm2_core.model.resolved); None: MM2's default, every pair does."""
    emits_heartbeats = emits_heartbeats or _every_pair_emits
    flows = set(tuple(f) for f in flows)
    # before KAFKA-10710 every ordered pair got a herder, enabled or not
    only_enabled = versions.supports(_fmt(version_tuple), versions.HERDERS_FOR_ENABLED_PAIRS)
    pairs = []
    for source in clusters:
        for target in clusters:
            if source == target:
                continue
            if not only_enabled or (source, target) in flows or emits_heartbeats(source, target):
                pairs.append((source, target))
    return pairs


def host_herders(pairs, targets):
    """Herders a process started with --clusters <targets> runs ([] targets: all)."""
    if not targets:
        return list(pairs)
    wanted = set(targets)
    return [p for p in pairs if p[1] in wanted]


def _fmt(vt):
    return ".".join(str(x) for x in vt)


def check_placement(clusters, flows, host_targets, version_tuple, emits_heartbeats=None,
                    internal_rest=None):
    """Findings for a whole deployment.

    clusters: aliases; flows: enabled (source, target) pairs; host_targets: {host: [aliases]}
    as configured (kafka-mm2-driver/target.clusters), [] meaning no --clusters: every cluster;
    internal_rest: whether dedicated-mode internal REST is rendered (None: on from 3.5).
    """
    findings = []
    clusters = list(clusters)
    known = set(clusters)
    flows = [tuple(f) for f in flows]
    emits_heartbeats = emits_heartbeats or _every_pair_emits
    pairs = herder_pairs(clusters, flows, version_tuple, emits_heartbeats)
    serving = dict((alias, []) for alias in clusters)   # target alias -> hosts serving it

    for host in sorted(host_targets):
        targets = host_targets[host] or []
        unknown = [t for t in targets if t not in known]
        if unknown:
            findings.append(Finding(ERROR, "Host %s: %s names %s, which %s not a cluster alias (known: %s)"
                                    % (host, _P_TARGETS, ", ".join(unknown),
                                       "is" if len(unknown) == 1 else "are", ", ".join(clusters)), host))
        for alias in (targets or clusters):
            if alias in serving:
                serving[alias].append(host)
        if targets and not host_herders(pairs, targets) and not unknown:
            findings.append(Finding(ERROR, "Host %s: MM2 would exit at start with 'No source->target "
                                    "replication flows.': no flow targets %s. Set %s to the alias of a "
                                    "flow's target cluster, or leave it empty for all"
                                    % (host, ", ".join(targets), _P_TARGETS), host))

    for source, target in flows:
        if not serving.get(target):
            findings.append(Finding(ERROR, "Flow %s->%s is not run by any driver host: no host serves "
                                    "target %s. Add %s to %s of a host near %s (or leave it empty)"
                                    % (source, target, target, target, _P_TARGETS, target)))
        if not emits_heartbeats(target, source):   # the target->source herder writes them into source
            continue
        if not serving.get(source):
            findings.append(Finding(WARN, "Flow %s->%s has no heartbeats: they are emitted into %s by the "
                                    "%s->%s herder, which runs only on a host serving target %s, and no "
                                    "host does. %s.heartbeats on %s stays empty and the heartbeat alert "
                                    "cannot prove the flow. Add %s to %s on some host"
                                    % (source, target, source, target, source, source, source,
                                       target, source, _P_TARGETS)))

    if host_targets and len(host_targets) > 1:
        for alias in clusters:
            hosts = serving.get(alias) or []
            if len(hosts) < 2:
                continue
            if not versions.supports(version_tuple, versions.MULTI_NODE):
                findings.append(Finding(ERROR, "Target %s is served by %d driver hosts (%s), but Kafka %s "
                                        "before %s loses task reconfigurations with several drivers per "
                                        "target (KAFKA-9981: new topics and config changes are not "
                                        "replicated). Give each host distinct %s through config groups, "
                                        "keep one driver host, or use Kafka %s+"
                                        % (alias, len(hosts), ", ".join(hosts), _fmt(version_tuple),
                                           _MULTI_NODE_FIRST, _P_TARGETS, _MULTI_NODE_FIRST)))
            elif internal_rest is False:
                findings.append(Finding(ERROR, "Target %s is served by %d driver hosts (%s) but dedicated-mode "
                                        "internal REST is off: the drivers cannot forward task "
                                        "configurations to each other" % (alias, len(hosts), ", ".join(hosts))))
    return findings


def local_findings(host, all_hosts, targets, clusters, flows, version_tuple, emits_heartbeats=None):
    """What one driver host can decide alone at start (it sees only its own config group).

    targets: this host's configured target.clusters ([] = every cluster). Before 3.5, a host
    serving every cluster next to other driver hosts certainly shares a target with them;
    distinct explicit targets are checked by the advisor, which sees every config group.
    """
    findings = []
    others = [h for h in (all_hosts or []) if h != host]
    for f in check_placement(clusters, flows, {host: targets}, version_tuple, emits_heartbeats):
        # about this host (unknown alias, nothing to run), or about the deployment when this
        # host is the only driver (unserved targets, missing heartbeats)
        if f.host == host or not others:
            findings.append(f)
    if others and not targets and not versions.supports(version_tuple, versions.MULTI_NODE):
        findings.append(Finding(ERROR, "%s is empty on this host, so it serves every cluster (%s), and "
                                "%d other driver host(s) exist (%s): Kafka %s before %s loses task "
                                "reconfigurations with several drivers per target (KAFKA-9981). Give each "
                                "host its own %s through config groups, keep one driver host, or use "
                                "Kafka %s+" % (_P_TARGETS, ", ".join(clusters),
                                               len(others), ", ".join(sorted(others)), _fmt(version_tuple),
                                               _MULTI_NODE_FIRST, _P_TARGETS,
                                               _MULTI_NODE_FIRST), host))
    return findings
