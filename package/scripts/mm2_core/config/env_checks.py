"""Values of kafka-mm2-env the catalog types alone do not check: directories, the Kerberos
principal and keytab, the metrics bind address. Each problem is reported on the property itself
(not on a key derived from it later, such as sasl.jaas.config). Pure, Python 2.7 and 3.
"""
import re

from mm2_core.config.config_values import text

# Characters that break what a directory is written into: a line break ends a properties value,
# ':' and '}' end a ${file:<dir>/mm2-secrets.properties:key} reference (Kafka's provider pattern
# is ${provider:[path:]key}), '{' and '$' start one, whitespace splits the unquoted JVM options
# of mm2-env.sh (-Dlog4j.configuration=file:<dir>/...).
_CONTROL = re.compile(u"[\u0000-\u001f\u007f\u0085\u2028\u2029]")
_CONF_DIR_FORBIDDEN = (":", "}", "{", "$")
METRICS_HOST_PLACEHOLDER = "_HOST"
_HOST_NAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$")
_IPV4 = re.compile(r"^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$")


def line_break_problem(value):
    if _CONTROL.search(text(value)):
        return "contains a line break or another control character; enter it on one line"
    return None


def directory_problem(name, value):
    """Why a directory property cannot be used, or None."""
    raw = text(value)
    found = line_break_problem(raw)
    if found:
        return found
    path = raw.strip()
    if not path:
        return "empty: enter an absolute directory, e.g. /etc/kafka-mm2/conf"
    if not path.startswith("/"):
        return "'%s' is relative: enter an absolute directory (starting with /), e.g. /etc/kafka-mm2/conf" % path
    if re.search(r"\s", path):
        return ("'%s' contains a space: mm2-env.sh passes it to Java in unquoted options, where a space splits "
                "it; use a directory without spaces" % path)
    if name == "mm2_conf_dir":
        bad = [c for c in _CONF_DIR_FORBIDDEN if c in path]
        if bad:
            return ("'%s' contains %s: the secrets file is referenced as ${file:<dir>/mm2-secrets.properties:key}, "
                    "which %s would break; use a directory without %s"
                    % (path, " and ".join("'%s'" % c for c in bad), "this character" if len(bad) == 1
                       else "these characters", " or ".join("'%s'" % c for c in _CONF_DIR_FORBIDDEN)))
    return None


def metrics_host_problem(value):
    """Why mm2_metrics_host cannot be the exporter's bind address, or None (empty: every interface)."""
    raw = text(value)
    found = line_break_problem(raw)
    if found:
        return found
    host = raw.strip()
    if not host or host == METRICS_HOST_PLACEHOLDER:
        return None
    if ":" in host:
        return ("'%s': give only the address (an IPv4 address, a host name, or _HOST for each host's own name); "
                "the port is kafka-mm2-env/mm2_metrics_port%s"
                % (host, "" if host.count(":") == 1 else ". IPv6 literals are not supported: use a host name "
                   "that resolves to the address"))
    ipv4 = _IPV4.match(host)
    if ipv4:
        if any(int(part) > 255 for part in ipv4.groups()):
            return "'%s' is not an IPv4 address: each part is 0-255" % host
        return None
    if not _HOST_NAME.match(host):
        return ("'%s' is not an address: give an IPv4 address, a host name, or _HOST (each host's own name, "
                "so the exporter listens only on that interface); empty listens on every interface" % host)
    return None


def metrics_bind_host(value, hostname):
    """The address the exporter binds on this host ('' for every interface)."""
    host = text(value).strip()
    return (hostname or "") if host == METRICS_HOST_PLACEHOLDER else host


def metrics_scrape_host(value, hostname):
    """Where the alerts of ``hostname`` reach its exporter: the bound address, else the host name."""
    host = metrics_bind_host(value, hostname)
    return hostname if host in ("", "0.0.0.0") else host


def hint(name, value):
    """More to a catalog type error where operators are known to reach for something else."""
    if name == "mm2_metrics_port" and ":" in text(value):
        return ("; to listen on one interface only, put its address into kafka-mm2-env/mm2_metrics_host "
                "(or _HOST for each host's own name)")
    return ""


def env_problems(name, value):
    """[(message)] for one kafka-mm2-env property beyond its catalog type."""
    if name in ("mm2_conf_dir", "mm2_log_dir", "mm2_pid_dir"):
        found = directory_problem(name, value)
    elif name in ("mm2_principal_name", "mm2_keytab"):
        found = line_break_problem(value)
    elif name == "mm2_metrics_host":
        found = metrics_host_problem(value)
    else:
        found = None
    return [found] if found else []
