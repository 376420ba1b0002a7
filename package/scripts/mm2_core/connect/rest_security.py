"""How the Connect worker's REST listener (connect mode's control plane) is protected, and how every caller
reaches it: the agent's commands, the healer, the tasks alert.

Two ways, never an open API:
- loopback (default): http://127.0.0.1:<port>; only processes on the driver host reach it.
- TLS with authentication (kafka-mm2-env/mm2_connect_rest_tls_enabled): https://<host FQDN>:<port> with the
  host's keystore (Connect's listeners.https.ssl.*, KIP-208) and HTTP Basic auth by Connect's own
  BasicAuthSecurityRestExtension (KIP-285: rest.extension.classes, a JAAS "KafkaConnect" entry with its
  PropertyFileLoginModule reading a user=password file). Callers verify the certificate against a PEM CA file
  and the host name, and send the credentials. The password lives only in 0600 files (the worker file, the
  credentials file); the healer reads it from the credentials file, never from its command line.
Version rule: versions.CONNECT_REST_TLS_AUTH (2.0, below connect mode's 2.4: every connect-mode version has it).
Pure (stdlib only, Python 2.7 and 3).
"""
from mm2_core.config import names
from mm2_core.config.problems import Problem
from mm2_core.kafka import versions

CREDENTIALS_FILE = "mm2-connect-rest.credentials"   # user=password, 0600: Connect's PropertyFileLoginModule
JAAS_FILE = "mm2-connect-rest-jaas.conf"            # the KafkaConnect login context naming the credentials file
EXTENSION_CLASS = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
LOGIN_MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
JAAS_OPTION = "-Djava.security.auth.login.config="
EXTENSION_JAR_GLOB = "connect-basic-auth-extension-*.jar"   # libs/ of every Kafka release tarball since 2.0

ENABLED = "mm2_connect_rest_tls_enabled"
KEYSTORE = "mm2_connect_rest_keystore_location"
KEYSTORE_TYPE = "mm2_connect_rest_keystore_type"
KEYSTORE_PASSWORD = "mm2_connect_rest_keystore_password"
CA_FILE = "mm2_connect_rest_ca_file"
USERNAME = "mm2_connect_rest_username"
PASSWORD = "mm2_connect_rest_password"
PROPERTIES = (ENABLED, KEYSTORE, KEYSTORE_TYPE, KEYSTORE_PASSWORD, CA_FILE, USERNAME, PASSWORD)


class RestSecurity(object):
    """The listener's protection, from kafka-mm2-env: .tls (bool), .keystore, .keystore_type,
    .keystore_password, .ca_file, .username, .password."""

    def __init__(self, tls=False, keystore="", keystore_type="JKS", keystore_password="", ca_file="",
                 username="", password=""):
        self.tls = bool(tls)
        self.keystore = (keystore or "").strip()
        self.keystore_type = (keystore_type or "JKS").strip()
        self.keystore_password = keystore_password or ""
        self.ca_file = (ca_file or "").strip()
        self.username = (username or "").strip()
        self.password = password or ""

    @classmethod
    def from_env(cls, env):
        """From a {property: value} map of kafka-mm2-env (missing properties: loopback)."""
        env = env or {}

        def get(name, default=""):
            value = env.get(name)
            return default if value is None else value
        return cls(str(get(ENABLED, "false")).strip().lower() == "true", get(KEYSTORE), get(KEYSTORE_TYPE, "JKS"),
                   get(KEYSTORE_PASSWORD), get(CA_FILE), get(USERNAME), get(PASSWORD))

    def url(self, hostname, port):
        return ("https://%s:%s" % (hostname, port)) if self.tls else ("http://127.0.0.1:%s" % port)

    def auth(self):
        return (self.username, self.password) if self.tls else None

    def problems(self, version):
        """[Problem] naming the kafka-mm2-env property to fix (none when the listener stays on loopback)."""
        if not self.tls:
            return []
        found = []
        unsupported = versions.unsupported(version, versions.CONNECT_REST_TLS_AUTH, "HTTPS with Basic auth on the "
                                           "Connect REST listener")
        if unsupported:
            found.append(Problem(names.ENV, ENABLED, unsupported))
        for name, value, what in ((KEYSTORE, self.keystore, "the keystore with this host's certificate"),
                                  (KEYSTORE_PASSWORD, self.keystore_password, "the keystore's password"),
                                  (CA_FILE, self.ca_file, "the PEM file of the CA that signed the host certificates "
                                                          "(the callers verify the listener with it)"),
                                  (USERNAME, self.username, "the Basic auth user of the REST API"),
                                  (PASSWORD, self.password, "the Basic auth password of the REST API")):
            if not value:
                found.append(Problem(names.ENV, name, "empty while %s is true: set %s" % (ENABLED, what)))
        if self.username and (":" in self.username or "=" in self.username or self.username != self.username.strip()):
            found.append(Problem(names.ENV, USERNAME, "'%s' cannot be a Basic auth user: no ':', '=' or spaces "
                                                      "around it" % self.username))
        if self.keystore_type not in ("JKS", "PKCS12"):
            found.append(Problem(names.ENV, KEYSTORE_TYPE, "'%s' is not a keystore type: use JKS or PKCS12"
                                 % self.keystore_type))
        return found

    def installation_problem(self, kafka_home):
        """A Problem when HTTPS + Basic auth is on and the Kafka installation lacks Connect's Basic auth extension."""
        import glob
        import os
        if not self.tls or glob.glob(os.path.join(kafka_home or "", "libs", EXTENSION_JAR_GLOB)):
            return None
        return Problem(names.ENV, ENABLED, "the Kafka installation %s has no libs/%s (Connect's Basic auth extension, "
                                           "part of every Kafka release since 2.0): install a complete Kafka "
                                           "distribution, or turn %s off" % (kafka_home, EXTENSION_JAR_GLOB, ENABLED))

    def worker_entries(self, hostname, port):
        """The worker keys of the listener ([(key, value)]); secrets included, so the worker file is 0600."""
        if not self.tls:
            return [("listeners", "http://127.0.0.1:%s" % port), ("rest.advertised.host.name", "127.0.0.1"),
                    ("rest.advertised.port", str(port)), ("rest.advertised.listener", "http")]
        return [("listeners", "https://%s:%s" % (hostname, port)), ("rest.advertised.host.name", hostname),
                ("rest.advertised.port", str(port)), ("rest.advertised.listener", "https"),
                ("listeners.https.ssl.keystore.location", self.keystore),
                ("listeners.https.ssl.keystore.type", self.keystore_type),
                ("listeners.https.ssl.keystore.password", self.keystore_password),
                ("listeners.https.ssl.key.password", self.keystore_password),
                ("listeners.https.ssl.client.auth", "none"),
                ("rest.extension.classes", EXTENSION_CLASS)]

    def credentials_items(self):
        """[(user, password)] of the credentials file (javaprops-dumped, 0600)."""
        return [(self.username, self.password)] if self.tls else []

    def jaas_text(self, credentials_path):
        return ("KafkaConnect {\n  %s required\n  file=\"%s\";\n};\n"
                % (LOGIN_MODULE, credentials_path.replace("\\", "\\\\").replace('"', '\\"')))

    def kafka_opt(self, jaas_path):
        """The worker JVM's -D option naming the JAAS file (empty on loopback)."""
        return (JAAS_OPTION + jaas_path) if self.tls else ""


def read_credentials(path):
    """(user, password) from a credentials file written by the driver (the healer's way: not argv)."""
    from mm2_core.formats import javaprops
    with open(path, "rb") as fh:
        items = javaprops.loads(fh.read())   # bytes: ISO-8859-1 with \u escapes, as Properties.load reads it
    if not items:
        raise ValueError("%s holds no user" % path)
    return items[0][0], items[0][1]
