"""What every command script of the driver shares, below all of them: the refusal, the command's parameters, the
checks before any resource is declared, this host's rendering, and how a process of ours is signalled.

Thin Ambari adapter over the pure core: mm2_setup (CONFIGURE, INSTALL), mm2_service (START, STOP, STATUS),
mm2_connect (connect mode), mm2_commands, mm2_cutover, mm2_export and mm2_flow_seed (the custom commands) import
it; it imports none of them.
"""
import errno
import sys

from resource_management.core import sudo
from resource_management.core.exceptions import Fail
from resource_management.core.resources.system import Execute

from mm2_core.formats.text import native, text, to_text
from mm2_core.host import process


class Refused(Fail):
    """A command refused in the current run mode, Kafka version or state, or for want of its input: nothing
    was done, and the operator reads one line that says why and the way out, with no traceback (mm2_driver's
    reports_fail ends the command through Ambari's Script.fail_with_error)."""
    refused = True


def command_param(name, fallback=""):
    """The command's parameter `name` (commandParams/<name>, `mm2-ambari run ... --param NAME=VALUE`) as text,
    stripped; `fallback` when it is not given."""
    from resource_management.libraries.functions.default import default
    value = default("/commandParams/" + name, fallback)
    return text(to_text(value if value is not None else fallback)).strip()


def require_installation(params):
    if params.installation_error:
        raise Fail(params.installation_error)
    check_names_for_this_agent(params)


def names_used_by_resources(params):
    """(property, value) of every value that ends up in an Ambari resource's name or user."""
    from mm2_core.config import names
    found = [("%s/mm2_user" % names.ENV, params.mm2_user), ("cluster-env/user_group", params.user_group),
             ("%s/mm2_conf_dir" % names.ENV, params.mm2_conf_dir), ("%s/mm2_log_dir" % names.ENV, params.mm2_log_dir),
             ("%s/mm2_pid_dir" % names.ENV, params.mm2_pid_dir)]
    if params.kafka_home:
        found.append(("%s/kafka_home (Kafka installation)" % names.ENV, params.kafka_home))
    if params.security_enabled:
        found += [("%s/mm2_keytab" % names.ENV, params.mm2_keytab),
                  ("%s/mm2_principal_name" % names.ENV, params.mm2_principal)]
    return found


def check_names_for_this_agent(params):
    """Ambari 2.7 agents (Python 2) cannot log, and so cannot run, a resource whose path or
    user is not ASCII: say which property to change instead of failing inside Ambari."""
    if sys.version_info[0] != 2:
        return
    for prop, value in names_used_by_resources(params):
        if any(ord(c) > 127 for c in text(value or u"")):
            raise Fail(u"%s is %s: the Ambari 2.7 agent (Python 2) cannot manage files, directories or users "
                       u"whose names are not ASCII. Use an ASCII name here (Ambari 3 agents accept it)."
                       % (prop, text(value)))


def render_files(params):
    """Rendering of the MM2 files for this host; Fail with every validation problem."""
    from mm2_core.config import problems
    from mm2_core.rendering import render as core_render
    try:
        return core_render.render_mm2(params.plain_configurations(), params.kafka_version, params.hostname,
                                 params.mm2_conf_dir, local_kafka=local_kafka(params))
    except problems.ConfigError as e:
        raise Fail(u"The MirrorMaker 2 configuration is invalid; nothing was written and the previous "
                   u"files are kept:\n%s" % text(e))


def local_kafka(params):
    """This Ambari cluster's own Kafka (the default target in simple mode), if any."""
    from mm2_core.config.local_kafka import local_kafka_from
    return local_kafka_from(params.plain_configurations(), params.kafka_broker_hosts)


def render(params):
    """The rendering of this host's MM2 files for a command that reads them: the installation checked first."""
    require_installation(params)
    return render_files(params)


def kinit(params):
    """A Kerberos ticket for the MM2 user before its tools or its process run (nothing without Kerberos)."""
    if not (params.security_enabled and params.mm2_keytab and params.mm2_principal and params.kinit_path_local):
        return
    Execute((native(params.kinit_path_local), "-kt", native(params.mm2_keytab), native(params.mm2_principal)),
            user=native(params.mm2_user))


def kill(pid, sig):
    """sudo.kill; as a non-root agent it runs `kill` through sudo and loses errno."""
    try:
        sudo.kill(pid, int(sig))
    except OSError as e:
        if e.errno is None and not process.is_alive(pid):
            raise OSError(errno.ESRCH, "No such process")
        raise
