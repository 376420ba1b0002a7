"""Where the Ambari user and password come from, in this order:

1. the environment: AMBARI_USER and AMBARI_PASSWORD (a --user option overrides AMBARI_USER);
2. ~/.netrc (or the file named by NETRC): the `machine <ambari host>` entry;
3. an interactive prompt (getpass), only when stdin is a terminal.

A password is never taken from the command line (it would show in `ps` and shell history).
The KDC administrator credential (kerberized clusters) comes from MM2_KDC_ADMIN_PRINCIPAL and
MM2_KDC_ADMIN_PASSWORD or a prompt, the same way (kdc_admin).
"""
import getpass
import netrc
import os
import sys
from urllib.parse import urlsplit

from mm2_ambari.common.errors import BadInput


def resolve(url, user=None, environ=None, stdin=None, prompt=None, netrc_file=None):
    """Return (user, password) or raise BadInput saying how to provide them."""
    from mm2_ambari.common.masking import url_password_problem
    problem = url_password_problem(url)
    if problem:  # it would show in `ps`, shell history and every error that names the URL
        raise BadInput(problem)
    environ = os.environ if environ is None else environ
    stdin = sys.stdin if stdin is None else stdin
    user = user or environ.get("AMBARI_USER") or None
    password = environ.get("AMBARI_PASSWORD")
    if user and password:
        return user, password
    host = urlsplit(url).hostname or ""
    entry = _netrc_entry(host, netrc_file or environ.get("NETRC"))
    if entry is not None:
        net_user, net_password = entry
        if not user or user == net_user:
            return net_user, net_password
    if _is_tty(stdin):
        prompt = prompt or _prompt
        return prompt(host, user)
    raise BadInput(
        "no Ambari credentials for %s: set AMBARI_USER and AMBARI_PASSWORD, or add "
        "'machine %s login <user> password <password>' to ~/.netrc (mode 0600), or run "
        "interactively to be prompted" % (host or url, host or "<ambari host>"))


def _netrc_entry(host, path):
    # always a path: Python's own check of the default ~/.netrc refuses a readable file with a message that
    # names neither the mode nor the fix; this one warns and says both (_warn_if_readable)
    path = path or os.path.join(os.path.expanduser("~"), ".netrc")
    try:
        data = netrc.netrc(path)
    except FileNotFoundError:
        return None
    except netrc.NetrcParseError as exc:
        # Never exc.msg: it quotes the token netrc choked on, which is often a piece of a password.
        raise BadInput("the netrc file %s cannot be read: near line %s, an entry is not 'machine HOST login USER password "
                       "PASSWORD' (a password with spaces or quotes must be written in double quotes, which "
                       "Python 3.10 or newer reads; or give it through AMBARI_PASSWORD)"
                       % (exc.filename or path or "~/.netrc", exc.lineno or "?"))
    except OSError as exc:
        raise BadInput("the netrc file %s cannot be read: %s" % (path or "~/.netrc", exc.strerror or exc))
    auth = data.authenticators(host)
    if not auth:
        return None
    login, _account, password = auth
    if login and password is not None:
        _warn_if_readable(path)
        return login, password
    return None


def _warn_if_readable(path):
    """A netrc file holding the Ambari password that other users can read: say so, with the fix."""
    try:
        mode = os.stat(path).st_mode & 0o777
    except OSError:
        return
    if mode & 0o077:
        sys.stderr.write("warning: the netrc file %s holds the Ambari password and other users can read it "
                         "(mode %03o): chmod 600 %s\n" % (path, mode, path))


def _is_tty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _prompt(host, user):
    if not user:
        user = input("Ambari user for %s: " % host).strip()
    password = getpass.getpass("Ambari password for %s@%s: " % (user, host))
    if not user or not password:
        raise BadInput("an Ambari user and password are required")
    return user, password


# --- the KDC administrator credential (kerberized clusters) -------------------------------------------
KDC_PRINCIPAL_ENV, KDC_PASSWORD_ENV = "MM2_KDC_ADMIN_PRINCIPAL", "MM2_KDC_ADMIN_PASSWORD"
KDC_HELP = (
    "cluster %(cluster)s is kerberized and Ambari has no KDC administrator credential: installing the "
    "driver makes Ambari create its principal and keytab in the KDC. Set " + KDC_PRINCIPAL_ENV + " and "
    + KDC_PASSWORD_ENV + " (mm2-ambari stores them in Ambari as a temporary credential, "
    "kdc.admin.credential, kept in Ambari's memory only), or run interactively to be prompted, or store "
    "it in Ambari yourself (POST /api/v1/clusters/%(cluster)s/credentials/kdc.admin.credential)")


def kdc_admin(environ=None, stdin=None, prompt=None):
    """(principal, password) of the KDC administrator from the environment, else a prompt on a
    terminal, else None. Never from the command line."""
    environ = os.environ if environ is None else environ
    stdin = sys.stdin if stdin is None else stdin
    principal = (environ.get(KDC_PRINCIPAL_ENV) or "").strip()
    password = environ.get(KDC_PASSWORD_ENV)
    if principal and password:
        return principal, password
    if not _is_tty(stdin):
        return None
    return (prompt or _kdc_prompt)(principal)


def _kdc_prompt(principal):
    if not principal:
        principal = input("KDC administrator principal (e.g. admin/admin@EXAMPLE.COM): ").strip()
    password = getpass.getpass("KDC administrator password for %s: " % principal)
    if not principal or not password:
        raise BadInput("a KDC administrator principal and password are required")
    return principal, password
