"""Security for the real-Kafka test clusters (Python 3 only): a test CA with broker certificates
(keytool), SCRAM users (kafka-configs) and a real MIT KDC on 127.0.0.1 (krb5kdc as our child).

Everything lives in a temporary directory the caller owns; the KDC is stopped by its pid. Nothing
here touches /etc: Java gets the krb5.conf through -Djava.security.krb5.conf, the MIT tools
through KRB5_CONFIG / KRB5_KDC_PROFILE.
"""
import contextlib
import os
import secrets
import shutil
import socket
import subprocess

from realkafka import cluster as rk

KDC_BINARIES = ("krb5kdc", "kdb5_util", "kadmin.local", "kinit")
SBIN_DIRS = ("/usr/sbin", "/usr/bin", "/sbin")


def random_password():
    return secrets.token_urlsafe(18)


# ------------------------------------------------------------------ TLS


class TestCA(object):
    """A CA and certificates for 127.0.0.1/localhost made with keytool (as an operator would).

    `truststore(path)` is a JKS with the CA; `keystore(name)` a PKCS12 key + CA-signed certificate.
    Passwords are random; `password` opens every store and key.
    """

    def __init__(self, workdir, name="mm2-test-ca"):
        self.dir = os.path.join(str(workdir), "tls")
        os.makedirs(self.dir, exist_ok=True)
        self.password = random_password()
        self.name = name
        self.ca_store = os.path.join(self.dir, "ca.p12")
        self.ca_pem = os.path.join(self.dir, "ca.pem")
        self.keytool = os.path.join(rk.java_home() or "/usr", "bin", "keytool")
        self._keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-validity", "3",
                      "-dname", "CN=%s" % name, "-ext", "bc:c", "-keystore", self.ca_store, "-storetype", "PKCS12")
        self._keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", self.ca_store, "-file", self.ca_pem)
        self.truststore_path = self.truststore(os.path.join(self.dir, "truststore.jks"))

    def _keytool(self, *args):
        argv = [self.keytool] + list(args) + ["-storepass", self.password, "-noprompt"]
        if "-genkeypair" in args:
            argv += ["-keypass", self.password]
        result = rk.run_bounded(argv, 60)
        if result.returncode != 0:
            raise RuntimeError("keytool %s failed: %s" % (args[0], (result.stderr or result.stdout)[-800:]))
        return result

    def truststore(self, path, storetype="JKS"):
        if os.path.exists(path):
            os.remove(path)
        self._keytool("-importcert", "-alias", "ca", "-file", self.ca_pem, "-keystore", path, "-storetype", storetype)
        return path

    def keystore(self, name, cn="localhost", san="ip:127.0.0.1,dns:localhost"):
        """PKCS12 keystore <dir>/<name>.p12 holding a key and its CA-signed certificate chain."""
        store = os.path.join(self.dir, "%s.p12" % name)
        csr = os.path.join(self.dir, "%s.csr" % name)
        cert = os.path.join(self.dir, "%s.pem" % name)
        self._keytool("-genkeypair", "-alias", name, "-keyalg", "RSA", "-keysize", "2048", "-validity", "3",
                      "-dname", "CN=%s" % cn, "-keystore", store, "-storetype", "PKCS12")
        self._keytool("-certreq", "-alias", name, "-keystore", store, "-file", csr)
        self._keytool("-gencert", "-alias", "ca", "-keystore", self.ca_store, "-infile", csr, "-outfile", cert,
                      "-rfc", "-validity", "3", "-ext", "SAN=%s" % san, "-ext", "KU=digitalSignature,keyEncipherment",
                      "-ext", "EKU=serverAuth,clientAuth")
        self._keytool("-importcert", "-alias", "ca", "-file", self.ca_pem, "-keystore", store)
        self._keytool("-importcert", "-alias", name, "-file", cert, "-keystore", store)
        return store


# ------------------------------------------------------------------ SCRAM


SCRAM_MECHANISM = "SCRAM-SHA-512"
SCRAM_LOGIN = "org.apache.kafka.common.security.scram.ScramLoginModule"


def sasl_ssl_scram_broker_props(ca, listener="SASL_SSL", mechanism=SCRAM_MECHANISM):
    """Broker properties for a SASL_SSL listener named `listener` authenticating with SCRAM
    (inter-broker traffic stays on the cluster's PLAINTEXT listener, which the tools use)."""
    prefix = "listener.name.%s." % listener.lower()
    return {
        "sasl.enabled.mechanisms": mechanism,
        prefix + "%s.sasl.jaas.config" % mechanism.lower(): "%s required;" % SCRAM_LOGIN,
        prefix + "ssl.keystore.location": ca.keystore("broker"),
        prefix + "ssl.keystore.type": "PKCS12",
        prefix + "ssl.keystore.password": ca.password,
        prefix + "ssl.key.password": ca.password,
        prefix + "ssl.truststore.location": ca.truststore_path,
        prefix + "ssl.truststore.password": ca.password,
        prefix + "ssl.client.auth": "none",
    }


def add_scram_user(cluster, user, password, mechanism=SCRAM_MECHANISM, timeout=60):
    """Create (or change) a SCRAM user with kafka-configs over the PLAINTEXT listener (KRaft takes
    SCRAM credentials through the AlterUserScramCredentials API since 3.5) and wait until the broker
    reports it. (kafka-configs takes SCRAM passwords only on its command line: a test-only password.)"""
    cluster.tool("kafka-configs", "--bootstrap-server", cluster.bootstrap, "--alter", "--entity-type", "users",
                 "--entity-name", user, "--add-config", "%s=[iterations=4096,password=%s]" % (mechanism, password))

    def known():
        out = cluster.tool("kafka-configs", "--bootstrap-server", cluster.bootstrap, "--describe",
                           "--entity-type", "users", "--entity-name", user, check=False).stdout
        return mechanism in out
    rk.wait_until(known, timeout, interval=1, what="SCRAM user %s on %s" % (user, cluster.name))


# ------------------------------------------------------------------ Kerberos


def kdc_binary(name):
    for directory in SBIN_DIRS:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return path
    return shutil.which(name)


def kdc_skip_reason():
    missing = [b for b in KDC_BINARIES if kdc_binary(b) is None]
    if missing:
        return ("no MIT Kerberos KDC here (%s missing): apt-get install krb5-kdc krb5-admin-server krb5-user "
                "(.ci/run does)" % ", ".join(missing))
    return None


def free_tcp_udp_port():
    """A port free on 127.0.0.1 for TCP and UDP alike (the KDC listens on both)."""
    for _ in range(50):
        port = rk.free_port()
        with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_DGRAM)) as udp:
            try:
                udp.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError("no port free for both TCP and UDP on 127.0.0.1")


class Kdc(object):
    """An MIT KDC for realm on 127.0.0.1:<free port>, database and config in workdir/kdc.

    `krb5_conf` is the client config (Java: -Djava.security.krb5.conf=..., MIT tools: KRB5_CONFIG);
    `add_principal(name, keytab)` creates a principal with a random key and exports it to keytab.
    """

    def __init__(self, workdir, realm="MM2.TEST"):
        self.realm = realm
        self.dir = os.path.join(str(workdir), "kdc")
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_tcp_udp_port()
        self.krb5_conf = os.path.join(self.dir, "krb5.conf")
        self.kdc_conf = os.path.join(self.dir, "kdc.conf")
        self.log = os.path.join(self.dir, "krb5kdc.log")
        self.process = None
        self._stdout = None

    @property
    def env(self):
        env = dict(os.environ)
        env["KRB5_CONFIG"] = self.krb5_conf
        env["KRB5_KDC_PROFILE"] = self.kdc_conf
        return env

    def _write_configs(self):
        database = os.path.join(self.dir, "principal")
        with open(self.kdc_conf, "w") as fh:
            fh.write("[kdcdefaults]\n kdc_ports = %d\n kdc_tcp_ports = %d\n\n"
                     "[realms]\n %s = {\n  database_name = %s\n  key_stash_file = %s\n  acl_file = %s\n"
                     "  max_life = 12h 0m 0s\n  max_renewable_life = 1d 0h 0m 0s\n"
                     "  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal\n }\n\n"
                     "[logging]\n kdc = FILE:%s\n"
                     % (self.port, self.port, self.realm, database, os.path.join(self.dir, "stash"),
                        os.path.join(self.dir, "kadm5.acl"), self.log))
        with open(os.path.join(self.dir, "kadm5.acl"), "w") as fh:
            fh.write("*/admin@%s *\n" % self.realm)
        # TCP only (udp_preference_limit = 1): Java and MIT clients then behave the same.
        with open(self.krb5_conf, "w") as fh:
            fh.write("[libdefaults]\n default_realm = %s\n dns_lookup_kdc = false\n dns_lookup_realm = false\n"
                     " rdns = false\n dns_canonicalize_hostname = false\n udp_preference_limit = 1\n"
                     " ticket_lifetime = 12h\n forwardable = true\n\n"
                     "[realms]\n %s = {\n  kdc = 127.0.0.1:%d\n  admin_server = 127.0.0.1:%d\n }\n\n"
                     "[domain_realm]\n localhost = %s\n 127.0.0.1 = %s\n"
                     % (self.realm, self.realm, self.port, self.port, self.realm, self.realm))

    def _run(self, argv, timeout=60):
        result = rk.run_bounded(argv, timeout, env=self.env)
        if result.returncode != 0:
            raise RuntimeError("%s failed (%s): %s" % (os.path.basename(argv[0]), result.returncode,
                                                       (result.stderr or result.stdout)[-800:]))
        return result

    def start(self, timeout=30):
        self._write_configs()
        self._run([kdc_binary("kdb5_util"), "create", "-s", "-r", self.realm, "-P", random_password()])
        self._stdout = open(os.path.join(self.dir, "krb5kdc.out"), "w")
        # -n: stay in the foreground, so the pid we hold is the KDC's
        self.process = subprocess.Popen([kdc_binary("krb5kdc"), "-n", "-r", self.realm], env=self.env,
                                        stdout=self._stdout, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        start_new_session=True)

        def listening():
            if self.process.poll() is not None:
                raise RuntimeError("krb5kdc exited with %s: %s" % (self.process.returncode, self.log_tail()))
            with contextlib.closing(socket.socket()) as sock:
                sock.settimeout(1)
                return sock.connect_ex(("127.0.0.1", self.port)) == 0
        rk.wait_until(listening, timeout, interval=0.2, what="krb5kdc on 127.0.0.1:%d" % self.port)
        return self

    def log_tail(self, chars=1500):
        return rk.file_tail((self.log, os.path.join(self.dir, "krb5kdc.out")), chars)

    def principal(self, name):
        return name if "@" in name else "%s@%s" % (name, self.realm)

    def add_principal(self, name, keytab):
        """Create `name` (with a random key) and write its keys to `keytab` (0600); returns the full name."""
        principal = self.principal(name)
        kadmin = kdc_binary("kadmin.local")
        self._run([kadmin, "-r", self.realm, "-q", "addprinc -randkey %s" % principal])
        os.makedirs(os.path.dirname(keytab), exist_ok=True)
        self._run([kadmin, "-r", self.realm, "-q", "ktadd -k %s %s" % (keytab, principal)])
        os.chmod(keytab, 0o600)
        return principal

    def kinit(self, principal, keytab, ccache):
        """A real kinit against this KDC (proves principal + keytab work)."""
        env = self.env
        env["KRB5CCNAME"] = "FILE:%s" % ccache
        result = rk.run_bounded([kdc_binary("kinit"), "-kt", keytab, self.principal(principal)], 30, env=env)
        return result

    def java_opts(self):
        return "-Djava.security.krb5.conf=%s" % self.krb5_conf

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            rk.stop_pid(self.process.pid, grace=10)
        if self._stdout:
            self._stdout.close()
            self._stdout = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def kerberos_broker_props(kdc, keytab, listener="SASL_PLAINTEXT", host="localhost", service="kafka"):
    """Broker properties for a GSSAPI listener; the broker JVM also needs kdc.java_opts() in KAFKA_OPTS.

    Kafka clients ask for <service>/<broker host name>: 127.0.0.1 reverse-resolves to localhost."""
    principal = kdc.add_principal("%s/%s" % (service, host), keytab)
    return {
        "sasl.enabled.mechanisms": "GSSAPI",
        "sasl.kerberos.service.name": service,
        "listener.name.%s.gssapi.sasl.jaas.config" % listener.lower():
            'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
            'keyTab="%s" principal="%s";' % (keytab, principal),
    }
