"""mm2-ambari remove-host: take MirrorMaker 2 off one host without leaving a running MM2 behind.

Ambari deletes a host component in any "removable" state (ServiceComponentHostImpl.canBeRemoved:
INIT, INSTALLED, INSTALL_FAILED, UNKNOWN, DISABLED, UNINSTALLED). UNKNOWN is what a host whose agent
stopped answering shows, so Ambari lets you delete the driver of an unreachable host: when that host
comes back, its MM2 JVM is still running, still joins the drivers' Connect group, and no Ambari command
can stop it any more. So here the driver is stopped first, and a driver that cannot be stopped (its
agent does not answer, or it is in the middle of another command) is not deleted: the error names it.
"""
from mm2_core.config import names
from mm2_ambari.transport import ambari_requests, ambari_state
from mm2_ambari.common import masking
from mm2_ambari.common.errors import BadInput, OperationFailed

S, C = names.SERVICE, names.COMPONENT
# States from which a stop brings the driver to INSTALLED (STARTED) or in which it already is stopped.
STOPPED = ("INIT", "INSTALLED", "INSTALL_FAILED", "UNINSTALLED", "DISABLED")
# Ambari is running another command on it: stopping now would race that command.
BUSY = ("INSTALLING", "STARTING", "STOPPING", "UPGRADING", "UNINSTALLING", "WIPING_OUT")


def register(subparsers, common):
    p = subparsers.add_parser(
        "remove-host", parents=[common],
        help="stop %s on a host, then delete it there (refused when it cannot be stopped)" % C,
        description="Stop %s on the host (at host-component level, so maintenance mode does not skip it), "
                    "check it stopped, then delete the host component. A driver whose agent does not answer "
                    "(state UNKNOWN) is not deleted: deleting it would leave its MirrorMaker 2 running, out of "
                    "Ambari's reach, when the host comes back." % C)
    p.add_argument("host", metavar="HOST", help="the driver host to take %s off" % C)
    p.add_argument("--yes", action="store_true", help="confirm (not needed with --dry-run)")
    return p


def unstoppable(hc):
    """Why this driver cannot be stopped through Ambari now (None when it can, or is stopped)."""
    state = hc.get("state")
    if state == "UNKNOWN":
        return ("its agent does not answer (state UNKNOWN): Ambari cannot stop the MirrorMaker 2 that may be "
                "running there")
    if state in BUSY:
        return "Ambari is running another command on it (state %s): wait for it to end" % state
    if state not in STOPPED and state != "STARTED":
        return "its state is %s" % state
    return None


def refusal(hc):
    return ("%s on %s cannot be stopped: %s. It was not deleted: deleting it would leave its MirrorMaker 2 "
            "running (and in the drivers' Connect group) out of Ambari's reach when the host comes back. Start "
            "the agent there (ambari-agent start) and run this again; if the host is gone for good, see "
            "'A deleted driver host comes back' in docs/operate.md" % (C, hc["host_name"], unstoppable(hc)))


def remove_host(ctx, opts):
    if not opts.yes and not ctx.dry_run:
        raise BadInput("remove-host stops %s on %s and deletes it there: pass --yes to confirm (or --dry-run to "
                       "see the calls)" % (C, opts.host))
    if ambari_state.read_service(ctx) is None:
        raise OperationFailed("%s is not installed in cluster %s" % (S, ctx.cluster))
    hcs = [hc for hc in ambari_state.read_host_components(ctx) if hc.get("component_name") == C]
    hc = next((h for h in hcs if h.get("host_name") == opts.host), None)
    if hc is None:
        ctx.say("%s is not on %s (it runs on %s): nothing to remove" % (
            C, opts.host, ", ".join(h["host_name"] for h in hcs) or "no host"))
        return 0
    if unstoppable(hc):
        raise OperationFailed(refusal(hc))
    if len(hcs) == 1:
        ctx.log("warning: %s is the last driver host: nothing replicates after this (`mm2-ambari remove` deletes "
                "the whole service)" % opts.host)
    path = "%s/hosts/%s/host_components/%s" % (ctx.c, opts.host, C)
    if hc.get("state") == "STARTED":
        ambari_requests.run_async(ctx, "PUT", path, ambari_requests.host_component_state_body(
            ctx, "INSTALLED", "Stop %s on %s" % (names.COMPONENT_DISPLAY_NAME, opts.host), host=opts.host),
            "stop %s on %s" % (C, opts.host))
        if not ctx.dry_run:
            after = next((h for h in ambari_state.read_host_components(ctx) if h.get("component_name") == C
                          and h.get("host_name") == opts.host), None)
            if after is not None and after.get("state") not in STOPPED:
                raise OperationFailed("%s on %s is %s after the stop: not deleted (a running MirrorMaker 2 must "
                                      "not be left behind); see the stop request's output in Ambari"
                                      % (C, opts.host, after.get("state")))
    try:
        ctx.client.delete(path, describe="delete %s on %s" % (C, opts.host))
    except OperationFailed as exc:
        raise OperationFailed("Ambari did not delete %s on %s: %s" % (C, opts.host, masking.mask_text(str(exc))))
    if not ctx.dry_run:
        ctx.say("%s stopped and removed from %s" % (C, opts.host))
    return 0


def refuse_unstoppable(hcs):
    """For a removal of the whole service: the drivers that cannot be stopped, as an error (or None)."""
    stuck = [hc for hc in hcs if hc.get("component_name") == C and unstoppable(hc)]
    if not stuck:
        return None
    return OperationFailed("%s cannot be removed while a driver cannot be stopped; nothing was changed"
                           % S, [refusal(hc) for hc in stuck])
