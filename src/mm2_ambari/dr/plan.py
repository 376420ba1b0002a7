"""The disaster-recovery moment as commands: `cutover check` and `failover`.

A failover is a plan of steps run in order. Each step's outcome is written to a state file (atomically, mode
0600) before the next one starts, and a lock file keeps a second failover of the same flow from running at the
same time. Running the same command again resumes: steps done are skipped, a failed step is tried again, and
the groups already moved are not touched again (their consumers may be running on the target by then).

The steps drive the agent's custom commands through a backend: Ambari's REST API (AmbariBackend), or in the
tests the agent's scripts directly. Decisions about readiness are the agent's (mm2_core.dr.cutover).
"""
import errno
import fcntl
import json
import os
import time

from mm2_core.config import names
from mm2_core.dr import cutover
from mm2_ambari.common.errors import BadInput, OperationFailed

STEPS = ("gate", "flow", "groups", "verify", "record")
FAILBACK_STEPS = ("reverse", "gate", "groups", "verify", "restore", "record")
STATE_DIR_ENV = "MM2_AMBARI_STATE_DIR"
# what a failback's state records when the operator failed over by hand (--without-failover)
WITHOUT_FAILOVER = "no recorded failover: --without-failover (failed over by hand)"


def parse_flow(text):
    value = (text or "").replace(" ", "")
    source, sep, target = value.partition("->")
    if not sep or not source or not target or "->" in target or source == target:
        raise BadInput("--flow '%s': give it as SOURCE->TARGET with two different cluster aliases, quoted "
                       "(--flow 'A->B': unquoted, the shell reads > as a redirect)" % (text or "",))
    return source, target


def parse_thresholds(items):
    given = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep:
            raise BadInput("--threshold %r: give NAME=VALUE (names: %s)" % (
                item, ", ".join(n for n, _, _ in cutover.THRESHOLDS)))
        given[name.strip()] = value.strip()
    try:
        cutover.thresholds(given)
    except cutover.ThresholdError as exc:
        raise BadInput("--threshold: %s" % exc)
    return given


# ---------------------------------------------------------------- state file and lock

def default_state_path(cluster, flow, kind="failover"):
    base = os.environ.get(STATE_DIR_ENV) or os.path.join(os.path.expanduser("~"), ".mm2-ambari")
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in "%s-%s" % (cluster or "local", flow))
    return os.path.join(base, "%s-%s.json" % (kind, safe))


class StateFile(object):
    """The failover's progress on disk. Written to a temporary name and renamed: a crash leaves the previous
    complete state, never half of one."""

    def __init__(self, path, kind="failover"):
        self.path, self.kind = path, kind
        self.lock_fh = None
        self.data = None

    def acquire(self):
        directory = os.path.dirname(os.path.abspath(self.path))
        try:
            os.makedirs(directory, mode=0o700, exist_ok=True)
            fh = open(self.path + ".lock", "a+")
        except OSError as exc:
            raise BadInput("state file %s: cannot create its lock file %s.lock (%s); give --state-file FILE in a "
                           "directory you can write" % (self.path, self.path, exc.strerror or exc))
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            fh.seek(0)
            holder = fh.read().strip() or "?"
            fh.close()
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise OperationFailed("another %s with state file %s is running (pid %s): wait for it, or "
                                      "stop it and run this command again to resume" % (self.kind, self.path, holder))
            raise
        fh.seek(0)
        fh.truncate()
        fh.write("%d\n" % os.getpid())
        fh.flush()
        self.lock_fh = fh

    def release(self):
        if self.lock_fh is not None:
            fcntl.flock(self.lock_fh, fcntl.LOCK_UN)
            self.lock_fh.close()
            self.lock_fh = None

    def load(self):
        try:
            with open(self.path) as fh:
                self.data = json.load(fh)
        except FileNotFoundError:
            self.data = None
        except IsADirectoryError:
            raise BadInput("state file %s is a directory: give the path of the state file (a JSON file)" % self.path)
        except OSError as exc:
            raise BadInput("state file %s: cannot read it (%s); give a file you can read" % (
                self.path, exc.strerror or exc))
        except ValueError as exc:
            raise BadInput("state file %s is not JSON (%s): move it away to start over" % (self.path, exc))
        return self.data

    def save(self):
        tmp = "%s.tmp-%d" % (self.path, os.getpid())
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as fh:
                json.dump(self.data, fh, indent=1, sort_keys=True)
                fh.flush()
                os.fsync(fh.fileno())
            os.rename(tmp, self.path)
        except OSError as exc:
            raise BadInput("state file %s: cannot write it (%s); what already ran is printed above. Free the "
                           "path (or give --state-file FILE) and run the same command again" % (
                               self.path, exc.strerror or exc))
        finally:   # an error or Ctrl-C leaves the previous complete state, no temporary file
            if os.path.exists(tmp):
                os.unlink(tmp)


# ---------------------------------------------------------------- which flows run (simple mode)

def direction_changes(configurations, flows):
    """{config type: properties} that make exactly `flows` ("X->Y" names) the enabled flows of a simple-mode
    service: one-way source->target, active-active, or one-way with the clusters' roles swapped (every
    source.* / target.* property trades places, secrets included: Ambari resolves a SECRET reference by the
    property it names). Only changed types are returned. Advanced mode is the operator's to edit."""
    clusters = dict(configurations.get(names.CLUSTERS) or {})
    replication = dict(configurations.get(names.REPLICATION) or {})
    if (clusters.get("topology.mode") or "simple").strip() != "simple":
        raise BadInput("%s/topology.mode is advanced: enable exactly %s in %s (the enabled flag of each flow) "
                       "and restart, then run the same command again" % (names.CLUSTERS, " and ".join(flows),
                                                                        names.TOPOLOGY))
    source, target = (clusters.get("source.alias") or "").strip(), (clusters.get("target.alias") or "").strip()
    forward, backward = "%s->%s" % (source, target), "%s->%s" % (target, source)
    wanted = set(f.replace(" ", "") for f in flows)
    out = {}
    if wanted == set([forward, backward]):
        direction, swap = "active-active", False
    elif wanted == set([forward]):
        direction, swap = "one-way", False
    elif wanted == set([backward]):
        direction, swap = "one-way", True
    else:
        raise BadInput("flows %s: the clusters of %s are %s and %s" % (", ".join(sorted(wanted)), names.CLUSTERS,
                                                                      source or "?", target or "?"))
    if swap:
        swapped = {}
        for key, value in clusters.items():
            role, dot, rest = key.partition(".")
            other = {"source": "target", "target": "source"}.get(role) if dot else None
            swapped[(other + "." + rest) if other else key] = value
        out[names.CLUSTERS] = swapped
    if (replication.get("direction") or "one-way").strip() != direction:
        replication["direction"] = direction
        out[names.REPLICATION] = replication
    return out


def replication_policy(configurations):
    value = ((configurations.get(names.REPLICATION) or {}).get("replication.policy") or "prefixed").strip()
    return "identity" if value.endswith("identity") or value.endswith("IdentityReplicationPolicy") else value


# ---------------------------------------------------------------- backends

class CommandResult(object):
    def __init__(self, ok, structured, output=""):
        self.ok, self.structured, self.output = ok, structured or {}, output or ""


class AmbariBackend(object):
    """Custom commands and service stop/start through Ambari's REST API (one started driver runs a command)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, command, parameters):
        from mm2_ambari.transport import ambari_requests, ambari_state
        from mm2_ambari.common.errors import RequestFailed
        ctx = self.ctx
        hcs = [hc for hc in ambari_state.read_host_components(ctx) if hc.get("component_name") == names.COMPONENT]
        started = [hc["host_name"] for hc in hcs if hc.get("state") == "STARTED"] or [hc["host_name"] for hc in hcs]
        if not started:
            raise OperationFailed("%s has no host to run %s on" % (names.COMPONENT, command))
        body = {"RequestInfo": {"context": "%s %s" % (names.SERVICE_DISPLAY_NAME, command), "command": command,
                                "parameters": dict(parameters)},
                "Requests/resource_filters": [{"service_name": names.SERVICE, "component_name": names.COMPONENT,
                                               "hosts": started[0]}]}
        try:
            tasks, ok = ambari_requests.run_async(ctx, "POST", "%s/requests" % ctx.c, body, command), True
        except RequestFailed as exc:
            tasks, ok = exc.tasks, False
        structured, output = {}, ""
        for task in tasks or []:
            s = task.get("structured_out")
            if isinstance(s, str):
                try:
                    s = json.loads(s) if s.strip() else {}
                except ValueError:
                    s = {}
            structured.update(s or {})
            output += str(task.get("stderr") or "")[-2000:]
        return CommandResult(ok, structured, output)

    def stop_mm2(self):
        from mm2_ambari.transport import ambari_requests
        ambari_requests.run_async(self.ctx, "PUT", "%s/services/%s" % (self.ctx.c, names.SERVICE),
                      ambari_requests.service_state_body(self.ctx, "INSTALLED", "Stop %s for failover" % names.SERVICE_DISPLAY_NAME),
                      "stop " + names.SERVICE)

    def configurations(self):
        from mm2_ambari.transport import ambari_state
        desired = ambari_state.read_cluster(self.ctx)["desired"]
        current = ambari_state.read_current_configs(self.ctx, desired)
        return dict((t, c.properties) for t, c in current.items()), current

    def policy(self):
        return replication_policy(self.configurations()[0])

    def set_flows(self, flows, why):
        """Make `flows` the enabled flows (a new service config version when they are not) and restart the
        drivers (stop, start: also when nothing changed, so a rerun after a failed start finishes it)."""
        from mm2_ambari.transport import ambari_requests
        from mm2_ambari.rest import config_apply, configplan
        plain, current = self.configurations()
        changes = [configplan.TypeChange(t, current.get(t), props, current[t].attributes if t in current else {},
                                         ()) for t, props in sorted(direction_changes(plain, flows).items())]
        config_apply.apply_configs(self.ctx, changes, "%s: %s" % (names.SERVICE_DISPLAY_NAME, why))
        for state, verb in (("INSTALLED", "Stop"), ("STARTED", "Start")):
            ambari_requests.run_async(self.ctx, "PUT", "%s/services/%s" % (self.ctx.c, names.SERVICE),
                                      ambari_requests.service_state_body(self.ctx, state, "%s %s (%s)" % (
                                          verb, names.SERVICE_DISPLAY_NAME, why)), "%s %s" % (verb, names.SERVICE))


# ---------------------------------------------------------------- cutover check

def cutover_check(backend, flow, groups, thresholds, say):
    """One CUTOVER_CHECK; returns (ready, [flow reports])."""
    params = {"flow": flow}
    if groups:
        params["groups"] = ",".join(groups)
    params.update(thresholds or {})
    result = backend.run(names.CMD_CUTOVER_CHECK, params)
    reports = result.structured.get("cutover_check") or []
    for report in reports:
        say(cutover.format_report(report))
    if not reports:
        say("CUTOVER_CHECK gave no report: %s" % result.output.strip()[-1500:])
    return bool(reports) and all(r["verdict"] == cutover.READY for r in reports), reports


# ---------------------------------------------------------------- plans: failover and failback

class _StepFailed(Exception):
    """A step that cannot go on: recorded as failed in the state file, the plan stops there (a rerun resumes)."""


class Plan(object):
    """A plan of steps over one flow (self.flow: the flow its gate, groups and verify steps act on), run in order
    with its progress in a state file: failover and failback share this machinery and the gate, groups and
    verify steps."""
    KIND = None
    STEPS = ()

    def __init__(self, backend, flow, options, state, say, clock=time.time, sleep=time.sleep):
        self.backend, self.flow, self.opts, self.state, self.say = backend, flow, options, state, say
        self.source, self.target = parse_flow(flow)
        self.clock, self.sleep = clock, sleep

    def plan(self):
        raise NotImplementedError

    def _fresh_state(self):
        return {"kind": self.KIND, "flow": self.flow, "groups": list(self.opts["groups"]),
                "stop_flow": self.opts.get("stop_flow"), "started_at": self.clock(), "steps": {}, "groups_done": {}}

    def _check_state(self, data):
        if data is not None and (data.get("flow") != self.flow or data.get("kind") != self.KIND):
            raise BadInput("state file %s belongs to %s %s: use --state-file for another one" % (
                self.state.path, data.get("kind"), data.get("flow")))
        if data is not None and sorted(data.get("groups", [])) != sorted(self.opts["groups"]):
            extra = sorted(set(self.opts["groups"]) - set(data.get("groups", [])))
            if extra and data.get("steps", {}).get("record", {}).get("status") == "done":
                raise BadInput("the %s of %s in %s is complete: groups %s were not part of it; move it away "
                               "(or give --state-file) to %s them separately" % (
                                   self.KIND, self.flow, self.state.path, ", ".join(extra),
                                   "fail them over" if self.KIND == "failover" else "move them back"))

    def title(self):
        return "%s %s" % (self.KIND.capitalize(), self.flow)

    def run(self, dry_run=False):
        data = self.state.load()
        self._check_state(data)
        steps = (data or {}).get("steps", {})
        self.say("%s (state: %s)" % (self.title(), self.state.path))
        for index, (name, what) in enumerate(self.plan(), 1):
            status = steps.get(name, {}).get("status", "todo")
            self.say("  %d. [%s] %s: %s" % (index, status, name, what))
        if dry_run:
            self.say("dry run: nothing was run")
            return 0
        self.state.acquire()
        try:
            if data is None:
                self.state.data = self._fresh_state()
            else:
                self.state.data["groups"] = sorted(set(self.state.data.get("groups", [])) | set(self.opts["groups"]))
            self.state.save()
            for name in self.STEPS:
                step = self.state.data["steps"].get(name, {})
                if step.get("status") == "done":
                    continue
                try:
                    ok, detail, status = getattr(self, "_step_" + name)()
                except _StepFailed as exc:
                    ok, detail, status = False, str(exc), "failed"
                self.state.data["steps"][name] = {"status": status, "at": self.clock(), "detail": detail}
                self.say("  %s: %s: %s" % (name, status, detail))   # printed first: a failed save loses nothing
                self.state.save()
                if not ok:
                    raise OperationFailed("%s %s stopped at step %s: %s. Fix that and run the same command "
                                          "again: it resumes there (state: %s)" % (self.KIND, self.flow, name, detail,
                                                                                   self.state.path))
            return 0
        finally:
            self.state.release()

    # -- steps shared by failover and failback: each returns (ok, detail, status)
    def _gate(self, accept_source_down):
        deadline = self.clock() + self.opts["gate_timeout"]
        while True:
            ready, reports = cutover_check(self.backend, self.flow, self.opts["groups"], self.opts["thresholds"],
                                           self.say)
            report = reports[0] if reports else {}
            if ready:
                self.state.data["gate"] = _gate_summary(report)
                return True, "READY (%d record(s) not replicated, RPO %s s)" % (
                    report.get("unreplicated_records", 0), report.get("rpo_seconds")), "done"
            if accept_source_down and report and report.get("source_reachable") is False \
                    and report.get("target_reachable", True):
                self.state.data["gate"] = _gate_summary(report)
                hb = report.get("heartbeat_age_seconds")
                return True, ("%s is unreachable: accepted (--source-down); its last heartbeat on %s is %s s old" % (
                    self.source, self.target, "unknown" if hb is None else "%.0f" % hb)), "done"
            if self.clock() >= deadline:
                why = "; ".join(report.get("reasons") or []) or "no report"
                return False, "not READY after %d s: %s" % (self.opts["gate_timeout"], why), "failed"
            self.sleep(self.opts["gate_interval"])

    def _step_groups(self):
        done = self.state.data.setdefault("groups_done", {})
        todo = [g for g in self.state.data["groups"] if g not in done]
        if not todo:
            return True, "all groups were moved before", "done"
        params = {"flow": self.flow, "groups": ",".join(todo)}
        if self.opts.get("not_after"):
            params["not_after"] = ",".join("%s=%d" % kv for kv in sorted(self.opts["not_after"].items()))
        result = self.backend.run(names.CMD_FAILOVER_GROUPS, params)
        out = result.structured.get("failover_groups") or {}
        for group, offsets in (out.get("applied") or {}).items():
            done[group] = {"offsets": offsets, "at": self.clock()}
        self.state.data["groups_applied_at"] = self.clock()
        if out.get("target_ends") and "target_ends" not in self.state.data:
            # where the flow's topics on the target ended when the groups moved: a failback under the identity
            # policy starts the reverse flow there (what came after was written on the target); and the first
            # source offset never replicated: no group moved back to the source starts past it
            self.state.data["target_ends"] = out["target_ends"]
            self.state.data["source_next"] = out.get("source_next") or {}
        refused = out.get("refused") or {}
        if refused or not result.ok:
            return False, "; ".join(refused[g] for g in sorted(refused)) or result.output.strip()[-800:], "failed"
        return True, "moved %s to %s" % (", ".join(sorted(done)), self.target), "done"

    def _verify(self, flows=None):
        """VERIFY_REPLICATION of the named flows (default: this plan's flow); the failover-offset check included."""
        result = self.backend.run(names.CMD_VERIFY, {"flow": ",".join(flows or [self.flow])})
        verify = result.structured.get("verify_replication") or {}
        totals = verify.get("totals") or {}
        skipped = totals.get("offsets_skipped")
        self.state.data["verify"] = {"status": verify.get("status"), "offsets_skipped": skipped,
                                     "offsets_reread": totals.get("offsets_reread"), "report": verify.get("report"),
                                     "flows": verify.get("flows") or {}}
        if result.ok and verify.get("status") == "OK" and skipped == 0:
            return True, "0 records skipped, %s re-read (report %s)" % (totals.get("offsets_reread"),
                                                                        verify.get("report")), "done"
        return False, "mm2-verify: status %s, %s skipped (report %s)" % (
            verify.get("status"), skipped, verify.get("report")), "failed"


class Failover(Plan):
    """The failover plan of one flow. options: groups, stop_flow (bool), source_down, gate_timeout, gate_interval,
    thresholds, verify (bool)."""
    KIND = "failover"
    STEPS = STEPS

    def plan(self):
        o = self.opts
        return [
            ("gate", "run CUTOVER_CHECK on %s until it is READY (at most %d s)%s" % (
                self.flow, o["gate_timeout"],
                "; %s is down: accept a gate that could not read it (RPO from the last heartbeat)" % self.source
                if o["source_down"] else "")),
            ("flow", "stop the MM2 drivers (every flow of the service)" if o["stop_flow"]
             else "keep %s running (--keep-flow): MM2 keeps copying while %s is up" % (self.flow, self.source)),
            ("groups", "FAILOVER_GROUPS: translated offsets for %s on %s (groups with active members there are "
                       "refused by name)" % (", ".join(o["groups"]), self.target)),
            ("verify", "VERIFY_REPLICATION of %s: mm2-verify's failover-offset check must find 0 skipped records%s" % (
                self.flow, "" if o["verify"] else " (skipped: --no-verify)")),
            ("record", "record RPO and RTO in %s" % self.state.path),
        ]

    # -- steps: each returns (ok, detail, status)
    def _step_gate(self):
        return self._gate(self.opts["source_down"])

    def _step_flow(self):
        if not self.opts["stop_flow"]:
            return True, "kept running", "done"
        self.backend.stop_mm2()
        return True, "MM2 drivers stopped", "done"

    def _step_verify(self):
        if not self.opts["verify"]:
            return True, "skipped (--no-verify)", "done"
        gate = self.state.data.get("gate") or {}
        before = self.state.data["steps"].get("verify", {}).get("status")
        if gate.get("source_reachable") is False and before != "deferred":
            # deferred: the step stays open; the next run (the source is back) proves it
            return True, ("%s is down: run this command again when it is back to prove that nothing was skipped"
                          % self.source), "deferred"
        return self._verify()

    def _step_record(self):
        data = self.state.data
        gate = data.get("gate") or {}
        applied = data.get("groups_applied_at") or self.clock()
        data["rto_seconds"] = round(applied - data["started_at"], 1)
        if gate.get("source_reachable") is False:
            data["rpo_seconds"] = gate.get("heartbeat_age_seconds")
            data["rpo_basis"] = "age of the source's last heartbeat on the target (source unreachable)"
        else:
            data["rpo_seconds"] = gate.get("rpo_seconds")
            data["rpo_basis"] = "age of the oldest unreplicated record at the gate"
        return True, "RPO %s s (%s), RTO %s s (start to groups moved)" % (
            data["rpo_seconds"], data["rpo_basis"], data["rto_seconds"]), "done"


class Failback(Plan):
    """Back to the original source after a failover of `original` (A->B): the reverse flow B->A copies what was
    written on B during the outage, passes the gate, the groups move back to A at its translated offsets, mm2-verify
    checks every flow running (both directions under the prefixed policy), and the original direction is restored
    as the operator chooses.

    Loop prevention: under the prefixed policy B->A runs beside A->B (active-active): MM2 never copies a topic back
    to the cluster it came from (A.<topic> on B stays on B, B.<topic> on A stays on A); B's own topics land on A as
    B.<topic>, so the groups read <topic> and B.<topic> on A. Under the identity policy names are kept, so the two
    directions never run together (the validator refuses that loop): A->B stops and is retired (its herder, kept
    for heartbeats, would start A->B's last tasks again for a moment at the next start: a loop with B->A; FLOW_SEED
    retire writes it disabled and without tasks; the same for B->A on restore), and B->A starts at the end offsets
    B had when the failover moved the groups (the failover's state file), so it copies only what was written on B
    since and never A's own records back; restoring A->B starts it at A's end offsets, past what B->A copied. What A
    wrote before its outage and never replicated sits before B->A's copies on A: no group moved back starts past it
    (not_after: A->B's source positions at the failover), and it is not copied to B afterwards (one range per
    partition is all MM2 resumes from; the count is reported).

    options: groups, policy (prefixed | identity), restore (original | reverse), gate_timeout, gate_interval,
    thresholds, verify (bool); identity only: boundary ({"topic-p": offset} on B), not_after ({"topic-p": offset}
    on A), both from the failover's state file (boundary_from).
    """
    KIND = "failback"
    STEPS = FAILBACK_STEPS

    def __init__(self, backend, original, options, state, say, clock=time.time, sleep=time.sleep):
        source, target = parse_flow(original)
        self.original = "%s->%s" % (source, target)
        Plan.__init__(self, backend, "%s->%s" % (target, source), options, state, say, clock, sleep)
        policy = options.get("policy")
        if policy not in ("prefixed", "identity"):
            raise BadInput("replication policy %r: failback knows prefixed and identity (kafka-mm2-replication/"
                           "replication.policy)" % (policy,))
        if options.get("restore") not in ("original", "reverse"):
            raise BadInput("--restore %r: use original (back to %s only) or reverse (keep %s running)" % (
                options.get("restore"), self.original, self.flow))
        if policy == "identity" and not options.get("boundary"):
            raise BadInput("under the identity policy the reverse flow %s must start where %s stopped writing to %s; "
                           "that is recorded by the failover of %s (its groups step, in its state file): give "
                           "--failover-state FILE of that failover" % (self.flow, self.original, self.source,
                                                                        self.original))

    def title(self):
        after = self.opts.get("failover")
        return "Failback %s (reverse flow %s, %s policy)%s" % (self.original, self.flow, self.opts["policy"], (
            "; after the failover recorded in %s" % after if after and after != WITHOUT_FAILOVER else
            "; %s" % after if after else ""))

    def _check_state(self, data):
        if data is not None and data.get("original") not in (None, self.original):
            raise BadInput("state file %s belongs to the failback of %s: use --state-file for another one" % (
                self.state.path, data.get("original")))
        Plan._check_state(self, data)

    def _fresh_state(self):
        data = Plan._fresh_state(self)
        data.update({"original": self.original, "policy": self.opts["policy"], "restore": self.opts["restore"],
                     "failover": self.opts.get("failover")})
        return data

    def _flows_during(self):
        if self.opts["policy"] == "identity":
            return [self.flow]
        return [self.original, self.flow]

    def plan(self):
        o = self.opts
        if o["policy"] == "identity":
            reverse = ("stop %s; seed %s to start on %s at the end offsets of the failover (%d partition(s)), so only "
                       "what was written on %s since is copied and none of %s's own records go back; run only %s" % (
                           self.original, self.flow, self.source, len(o["boundary"]), self.source, self.target,
                           self.flow))
        else:
            reverse = ("run %s beside %s (active-active, prefixed: %s's own topics land on %s as %s.<topic>; MM2 "
                       "never copies a topic back to where it came from)" % (
                           self.flow, self.original, self.source, self.target, self.source))
        if o["restore"] == "original":
            restore = "back to %s only%s" % (self.original, (
                " (seeded at %s's end offsets: what %s copied is not copied back)" % (self.target, self.flow))
                if o["policy"] == "identity" else "")
        else:
            restore = "keep %s (--restore reverse)" % " and ".join(self._flows_during())
        return [
            ("reverse", reverse),
            ("gate", "run CUTOVER_CHECK on %s until it is READY (at most %d s): what was written on %s during the "
                     "outage is on %s" % (self.flow, o["gate_timeout"], self.source, self.target)),
            ("groups", "FAILOVER_GROUPS on %s: translated offsets for %s on %s (groups with active members there "
                       "are refused by name)" % (self.flow, ", ".join(o["groups"]), self.target)),
            ("verify", "VERIFY_REPLICATION of %s: mm2-verify accounts for every record of %s, 0 skipped%s" % (
                " and ".join(self._flows_during()), " and ".join(self._flows_during()),
                "" if o["verify"] else " (skipped: --no-verify)")),
            ("restore", restore),
            ("record", "record RPO and RTO of the failback in %s" % self.state.path),
        ]

    def _step_reverse(self):
        details = []
        if self.opts["policy"] == "identity":
            # stopped, not restarted with the original flow: that would copy into B what A wrote before it went
            # down, after B's own records, and the reverse flow would bring it back to A
            self.backend.stop_mm2()
            details.append("%s stopped" % self.original)
            # and A->B retired: its herder still runs (heartbeats) and would start A->B's last tasks before
            # applying its disabled configuration, a loop with B->A for that window (mm2_core.kafka.connect_configs);
            # in connect mode the worker serving B starts A->B's tasks from its config topic before START deletes
            # A->B's connectors over REST: the same window, closed the same way in that worker's config topic
            details.append(self._seed(self.flow, self.opts["boundary"], retire=self.original))
        self.backend.set_flows(self._flows_during(), "failback of %s" % self.original)
        details.append("running %s" % " and ".join(self._flows_during()))
        return True, "; ".join(details), "done"

    def _seed(self, flow, offsets, retire=None):
        """FLOW_SEED: the flow's source connector starts at these offsets of its source ({"topic-p": next}); the
        flow `retire` (disabled by the next start) starts none of its last tasks."""
        params = {"flow": flow}
        if retire:
            params["retire"] = retire
        if offsets == "end":
            params["at"] = "end"
        else:
            params["offsets"] = ",".join("%s=%d" % kv for kv in sorted(offsets.items()))
        result = self.backend.run(names.CMD_FLOW_SEED, params)
        out = result.structured.get("flow_seed") or {}
        if not result.ok:
            raise _StepFailed("FLOW_SEED %s: %s" % (flow, result.output.strip()[-800:] or "failed"))
        self.state.data.setdefault("seeded", {})[flow] = out.get("positions")
        self.state.data.setdefault("target_ends_at_seed", {})[flow] = out.get("target_ends") or {}
        retired = out.get("retired") or {}
        if retire:
            self.state.data.setdefault("retired", {})[retire] = retired
        return "%s starts at %s%s" % (flow, ", ".join("%s=%s" % kv for kv in sorted((out.get("positions") or {})
                                                                                   .items())) or "its seeded offsets",
                                      "; %s retired (%s)" % (retire, ", ".join(retired.get("connectors") or [])
                                                             or "no task left to start") if retire else "")

    def _step_gate(self):
        return self._gate(False)

    def _step_verify(self):
        if not self.opts["verify"]:
            return True, "skipped (--no-verify)", "done"
        # every flow running now: the reverse one, and under the prefixed policy the original beside it
        return self._verify(self._flows_during())

    def _step_restore(self):
        if self.opts["restore"] != "original":
            return True, "kept %s" % " and ".join(self._flows_during()), "done"
        if self.opts["policy"] == "identity":
            self.backend.stop_mm2()
            seeded = self._seed(self.original, "end", retire=self.flow)
            # what the source wrote before its outage and never replicated (between the failover's source position
            # and the source's end when the reverse flow started) stays there: copying it would copy the reverse
            # flow's records back too (one range per partition is all MM2 resumes from)
            ends = (self.state.data.get("target_ends_at_seed") or {}).get(self.flow) or {}
            stays = sum(max(0, end - (self.opts.get("not_after") or {}).get(tp, end)) for tp, end in ends.items())
            self.state.data["source_only_records"] = stays
            seeded += "; %d record(s) %s wrote before its outage and never replicated stay on %s only" % (
                stays, self.target, self.target)
        else:
            seeded = None
        self.backend.set_flows([self.original], "failback of %s done: original direction" % self.original)
        return True, "running %s only%s" % (self.original, "; " + seeded if seeded else ""), "done"

    def _step_record(self):
        data = self.state.data
        gate = data.get("gate") or {}
        applied = data.get("groups_applied_at") or self.clock()
        data["rto_seconds"] = round(applied - data["started_at"], 1)
        data["rpo_seconds"] = gate.get("rpo_seconds")
        data["rpo_basis"] = "age of the oldest record of %s not yet on %s at the reverse gate" % (self.source,
                                                                                                  self.target)
        data["reread"] = dict((g, v.get("reread")) for g, v in (gate.get("groups") or {}).items())
        return True, "RPO %s s, RTO %s s (start to groups moved back); re-read per group at the gate: %s" % (
            data["rpo_seconds"], data["rto_seconds"],
            ", ".join("%s %s" % kv for kv in sorted(data["reread"].items())) or "none"), "done"


def failover_done(failover_state_path, original):
    """The state of the failover of `original` that moved its groups, read from its state file; BadInput naming
    the file and how to proceed otherwise (failback refuses to run without it, under either policy)."""
    state = StateFile(failover_state_path)
    data = state.load()
    override = "or, if you failed %s over by hand, --without-failover (prefixed policy only)" % original
    if data is None:
        raise BadInput("failover state file %s does not exist: no failover of %s by mm2-ambari is recorded there. "
                       "Give --failover-state FILE of the failover of %s, %s" % (failover_state_path, original,
                                                                              original, override))
    if data.get("kind") != "failover" or data.get("flow") != original:
        raise BadInput("state file %s is of %s %s, not of the failover of %s: give --failover-state FILE of that "
                       "failover" % (failover_state_path, data.get("kind"), data.get("flow"), original))
    if data.get("steps", {}).get("groups", {}).get("status") != "done":
        raise BadInput("the failover of %s in %s has not moved its groups: finish it first (run it again), then "
                       "fail back" % (original, failover_state_path))
    return data


def boundary_from(failover_state_path, original):
    """{"topic-p": offset} the failover of `original` recorded on its target when it moved the groups."""
    data = failover_done(failover_state_path, original)
    if not data.get("target_ends"):
        raise BadInput("the failover of %s in %s recorded no end offsets of its target: finish it first (run it "
                       "again), then fail back" % (original, failover_state_path))
    return dict(data["target_ends"]), dict(data.get("source_next") or {})


def _gate_summary(report):
    keys = ("verdict", "unreplicated_records", "rpo_seconds", "heartbeat_age_seconds", "checkpoint_age_seconds",
            "source_reachable", "target_reachable", "reasons")
    summary = dict((k, report.get(k)) for k in keys)
    summary["groups"] = dict((g["group"], {"skipped": g["skipped"], "reread": g["reread"]})
                             for g in report.get("groups", []))
    return summary


# ---------------------------------------------------------------- drill

def default_history_path(cluster, flow):
    base = os.environ.get(STATE_DIR_ENV) or os.path.join(os.path.expanduser("~"), ".mm2-ambari")
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in "%s-%s" % (cluster or "local", flow))
    return os.path.join(base, "drills-%s.jsonl" % safe)


def read_history(path):
    runs = []
    try:
        with open(path) as fh:
            for line in fh:
                try:
                    runs.append(json.loads(line))
                except ValueError:
                    continue   # a line cut by a crash: the others still count
    except FileNotFoundError:
        pass
    return runs


def append_history(path, entry):
    """One JSON line per drill, appended with O_APPEND in one write (0600 file)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, (json.dumps(entry, sort_keys=True) + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def drill(backend, flow, groups, records, history, say, clock=time.time):
    """Run DRILL, append it to the history, compare with the previous drill of the flow. Returns 0 / 1."""
    parse_flow(flow)
    result = backend.run(names.CMD_DRILL, {"flow": flow, "groups": ",".join(groups), "records": str(records)})
    out = result.structured.get("drill") or {}
    previous = [r for r in read_history(history) if r.get("flow") == flow]
    entry = {"at": clock(), "flow": flow, "records": records, "ok": result.ok, "groups": out.get("groups") or {},
             "problems": out.get("problems") or [], "unreplicated_records": out.get("unreplicated_records"),
             "rpo_seconds": out.get("rpo_seconds")}
    last = previous[-1] if previous else None
    for group, g in sorted(entry["groups"].items()):
        before = ((last or {}).get("groups") or {}).get(group) or {}
        trend = ""
        if before.get("rto_seconds") is not None and g.get("rto_seconds") is not None:
            trend = " (previous drill: %.1f s)" % before["rto_seconds"]
        say("drill %s %s: first record after %s s%s, %s read, re-read %s, skipped %s (shadow %s, %s)" % (
            flow, group, g.get("rto_seconds"), trend, g.get("records_read"), g.get("reread"), g.get("skipped"),
            g.get("shadow"), "NOT deleted" if g.get("shadow_deleted") is False else "deleted"))
    for problem in entry["problems"]:
        say("! " + problem)
    if not out:
        say("DRILL gave no result: %s" % result.output.strip()[-1500:])
    try:   # after the result is printed: a local write that fails never loses what Ambari answered
        append_history(history, entry)
    except OSError as exc:
        raise BadInput("history file %s: cannot write it (%s): the drill ran in Ambari and its result is printed "
                       "above, but it is not recorded; fix the path (or give --history FILE) before the next drill"
                       % (history, exc.strerror or exc))
    say("drill %d of %s recorded in %s" % (len(previous) + 1, flow, history))
    return 0 if result.ok and not entry["problems"] else 1
