"""`mm2-ambari cutover check`, `failover`, `failback` and `drill` (see mm2_ambari.dr.plan).

Exit codes: 0 ready / done, 1 not ready or a step failed (rerun resumes), 2 bad input.
"""
import argparse
import json

from mm2_core.dr import cutover
from mm2_core.model import groups as group_rules
from mm2_ambari.common import cli_args, inputs
from mm2_ambari.common.errors import BadInput, OperationFailed
from mm2_ambari.dr import plan as dr
from mm2_ambari.rest import flows
from mm2_ambari.rest.session import command


def _groups(text):
    """--groups g1,g2: mm2_core.model.groups' rules of the list and of each id (exit 2 naming each item)."""
    groups, problems = group_rules.parse(text)
    if problems:
        raise argparse.ArgumentTypeError("; ".join(problems))
    if not groups:
        raise argparse.ArgumentTypeError("give consumer group ids separated by commas, e.g. --groups orders,billing")
    return groups


def _threshold_help():
    return "; ".join("%s (default %s): %s" % (n, d, m) for n, d, m in cutover.THRESHOLDS)


def _plan_arguments(p, kind):
    """The options failover and failback share: the gate's wait, the verify step, the state file."""
    p.add_argument("--gate-timeout", type=cli_args.positive, default=600.0, metavar="S",
                   help="wait this long for READY (600)")
    p.add_argument("--gate-interval", type=cli_args.positive, default=15.0, metavar="S",
                   help="between two checks (15)")
    p.add_argument("--no-verify", action="store_true", help="skip the mm2-verify step (no Spark on the drivers)")
    p.add_argument("--state-file", help="progress file (default ~/.mm2-ambari/%s-<cluster>-<flow>.json, "
                                        "or $%s)" % (kind, dr.STATE_DIR_ENV))


def register(subparsers):
    common = cli_args.connection_parser()
    conn_file = cli_args.conn_file_parser()
    gate = argparse.ArgumentParser(add_help=False)
    gate.add_argument("--flow", required=True, help="the flow, quoted: 'A->B'")
    gate.add_argument("--groups", type=_groups, default=[], help="consumer groups that must be translated (g1,g2)")
    gate.add_argument("--threshold", action="append", default=[], metavar="NAME=VALUE",
                      help="a gate threshold (repeatable): " + _threshold_help())

    p = subparsers.add_parser("cutover", help="cut-over readiness of a flow (CUTOVER_CHECK)")
    sub = p.add_subparsers(dest="cutover_command", metavar="SUBCOMMAND")
    sub.required = True
    c = sub.add_parser("check", parents=[common, conn_file, gate], help="one verdict per flow; exit 0 only when READY",
                       description="Per partition: records not yet replicated, RPO, heartbeat and checkpoint age; "
                                   "per group: what a failover now would skip or re-read; topic drift; retention gap.")
    c.add_argument("--json", action="store_true", help="the reports as JSON")
    c.set_defaults(func=command(_check))

    p = subparsers.add_parser("failover", parents=[common, conn_file, gate],
                              help="fail consumer groups over to a flow's target, step by step (resumable)",
                              description="Steps: readiness gate, stop or keep the flow, translated offsets for the "
                                          "groups (refused for groups with active members), mm2-verify's "
                                          "failover-offset check, RPO and RTO. --dry-run prints the plan. Run it "
                                          "again after a failure: it resumes at the failed step.")
    keep = p.add_mutually_exclusive_group(required=True)
    keep.add_argument("--stop-flow", action="store_true", help="stop the MM2 drivers after the gate")
    keep.add_argument("--keep-flow", action="store_true", help="keep MM2 running")
    p.add_argument("--source-down", action="store_true",
                   help="the source cluster is gone: accept a gate that cannot read it (RPO from the last heartbeat); "
                        "verification waits until it is back")
    _plan_arguments(p, "failover")
    p.set_defaults(func=command(_failover))

    p = subparsers.add_parser("failback", parents=[common, conn_file, gate],
                              help="after a failover of --flow 'A->B': reverse it, move the groups back to A, verify, "
                                   "restore (resumable)",
                              description="--flow is the flow that was failed over (A->B). Steps: run the reverse "
                                          "flow B->A (prefixed policy: beside A->B, MM2 never copies a topic back "
                                          "to where it came from; identity policy: A->B stops and B->A starts at "
                                          "the end offsets the failover recorded, so none of A's own records go "
                                          "back), its readiness gate (what was written on B is on A), translated "
                                          "offsets for the groups on A (refused for groups with active members), "
                                          "mm2-verify of B->A, the direction --restore chooses, RPO and RTO. "
                                          "--dry-run prints the plan. Run it again after a failure: it resumes at "
                                          "the failed step.")
    p.add_argument("--restore", choices=("original", "reverse"), required=True,
                   help="after the groups moved back: original = run only A->B again; reverse = keep the reverse "
                        "flow running (prefixed: both directions; identity: B->A only)")
    p.add_argument("--failover-state", metavar="FILE",
                   help="state file of the failover of --flow: failback refuses to run without a failover that "
                        "moved its groups (identity policy: also where B->A starts; default "
                        "~/.mm2-ambari/failover-<cluster>-<flow>.json)")
    p.add_argument("--without-failover", action="store_true",
                   help="you failed over by hand, without `mm2-ambari failover`: fail back with no failover state "
                        "(prefixed policy only; recorded in the failback's state file)")
    _plan_arguments(p, "failback")
    p.set_defaults(func=command(_failback))

    p = subparsers.add_parser("drill", parents=[common, conn_file],
                              help="rehearse a failover on shadow groups (production groups untouched)",
                              description="Copies each group to a shadow group at its translated offsets on the "
                                          "target, reads N records, reports the time to the first record (RTO) and "
                                          "what a failover now re-reads or skips, deletes the shadow groups and "
                                          "appends the run to a history file (JSON lines).")
    p.add_argument("--flow", required=True, help="the flow, quoted: 'A->B'")
    p.add_argument("--groups", type=_groups, required=True, help="consumer groups to rehearse (g1,g2)")
    p.add_argument("--records", type=cli_args.positive_int, default=100, metavar="N",
                   help="records to read per group (100)")
    p.add_argument("--history", help="history file (default ~/.mm2-ambari/drills-<cluster>-<flow>.jsonl)")
    p.set_defaults(func=command(_drill))


def options(args):
    dr.parse_flow(args.flow)
    return {"groups": list(args.groups), "stop_flow": bool(getattr(args, "stop_flow", False)),
            "source_down": bool(getattr(args, "source_down", False)),
            "gate_timeout": getattr(args, "gate_timeout", 0), "gate_interval": getattr(args, "gate_interval", 15),
            "thresholds": dr.parse_thresholds(args.threshold), "verify": not getattr(args, "no_verify", False)}


def _check(ctx, args):
    opts = options(args)
    service = flows.check(ctx, args.flow.replace(" ", ""))
    flows.check_groups(service, args.flow.replace(" ", ""), opts["groups"], "checked by the gate")
    ready, reports = dr.cutover_check(dr.AmbariBackend(ctx), args.flow.replace(" ", ""), opts["groups"],
                                      opts["thresholds"], ctx.say if not args.json else (lambda m: None))
    if args.json:
        ctx.say(json.dumps(reports, indent=1, sort_keys=True))
    return 0 if ready else 1


def _failover(ctx, args):
    opts = options(args)
    if not opts["groups"]:
        raise BadInput("failover needs --groups g1,g2: the consumer groups to move to the target")
    flow = args.flow.replace(" ", "")
    path = _state_path(args.state_file, "--state-file", dr.default_state_path(ctx.cluster, flow))
    service = flows.check(ctx, flow)
    flows.check_groups(service, flow, opts["groups"], "failed over")
    state = dr.StateFile(path)
    return dr.Failover(dr.AmbariBackend(ctx), flow, opts, state, ctx.say).run(dry_run=args.dry_run)


def failback_options(args, policy, cluster):
    """The failback plan's options; policy from the service's configurations."""
    opts = options(args)
    if not opts["groups"]:
        raise BadInput("failback needs --groups g1,g2: the consumer groups to move back to %s" % dr.parse_flow(
            args.flow)[0])
    opts.update({"policy": policy, "restore": args.restore, "boundary": None, "not_after": None})
    flow = args.flow.replace(" ", "")
    if getattr(args, "without_failover", False):
        if args.failover_state:
            raise BadInput("--without-failover and --failover-state contradict each other: give the failover's "
                           "state file, or --without-failover if there was no failover by mm2-ambari")
        if policy == "identity":
            raise BadInput("--without-failover: under the identity policy the reverse flow %s must start where %s "
                           "stopped writing to %s, which only a failover by mm2-ambari records (its state file): "
                           "give --failover-state FILE; after a failover by hand, seed the reverse flow yourself "
                           "(`mm2-ambari flow seed`) and move the groups with `failover --flow '%s'`"
                           % (_reverse(flow), flow, dr.parse_flow(flow)[0], _reverse(flow)))
        opts["failover"] = dr.WITHOUT_FAILOVER
        return opts
    path = args.failover_state or dr.default_state_path(cluster, flow)
    if policy == "identity":
        opts["boundary"], opts["not_after"] = dr.boundary_from(path, flow)
    else:
        dr.failover_done(path, flow)
    opts["failover"] = path
    return opts


def _state_path(given, flag, default):
    """The file a command will write (given by `flag`, else its default under the state directory), checked
    before any request: a given file's directory must exist, the default directory is created."""
    if given:
        inputs.check_file_to_write(given, flag)
        return given
    try:
        inputs.check_file_to_write(default, "%s (default)" % flag, create_dir=True)
    except BadInput as exc:
        raise BadInput("%s; the default directory is $%s, else ~/.mm2-ambari" % (exc, dr.STATE_DIR_ENV))
    return default


def _reverse(flow):
    source, target = dr.parse_flow(flow)
    return "%s->%s" % (target, source)


def _failback(ctx, args):
    flow = args.flow.replace(" ", "")
    dr.parse_flow(flow)
    path = _state_path(args.state_file, "--state-file", dr.default_state_path(ctx.cluster, flow, "failback"))
    service = flows.check(ctx, flow, also=[_reverse(flow)])   # a resumed failback may have made B->A the only flow
    backend = dr.AmbariBackend(ctx)
    opts = failback_options(args, backend.policy(), ctx.cluster)
    # the groups move back through the reverse flow's translation
    flows.check_groups(service, _reverse(flow), opts["groups"], "moved back")
    state = dr.StateFile(path, "failback")
    return dr.Failback(backend, flow, opts, state, ctx.say).run(dry_run=args.dry_run)


def _drill(ctx, args):
    flow = args.flow.replace(" ", "")
    dr.parse_flow(flow)
    history = _state_path(args.history, "--history", dr.default_history_path(ctx.cluster, flow))
    service = flows.check(ctx, flow)
    flows.check_groups(service, flow, args.groups, "rehearsed")
    if args.dry_run:
        ctx.say("dry run: would run %s for %s on %s, %d record(s) each" % (
            "DRILL", ", ".join(args.groups), flow, args.records))
        return 0
    return dr.drill(dr.AmbariBackend(ctx), flow, args.groups, args.records, history, ctx.say)
