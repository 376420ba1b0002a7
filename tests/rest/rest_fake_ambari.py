"""A fake Ambari server on a real socket (127.0.0.1, ephemeral port) for the REST subcommand tests.

It reproduces the parts of Ambari's REST contract mm2-ambari relies on, as read from Ambari's sources
(ambari-server/src/main/java/org/apache/ambari/server/...):

- authentication first (Spring filter): bad credentials -> 403 "Unable to sign in. Invalid
  username/password combination." (AmbariEntryPoint answers 403 unless Kerberos is on, then 401
  "Authentication requested"); a user without the right -> 403 "You do not have permissions to
  access this resource." (AmbariAuthorizationFilter);
- then the CSRF filter: a mutating call without X-Requested-By -> 400 "CSRF protection is turned on.
  X-Requested-By HTTP header is required." (AmbariCsrfProtectionFilter);
- errors as {"status": N, "message": "..."} (JsonSerializer.serializeError / AmbariErrorHandler);
- 201 for creates, 409 for duplicates with the provider messages, 404 "The requested resource
  doesn't exist: ..." for missing resources, 500 "An internal system exception occurred: ..." for
  AmbariExceptions;
- asynchronous calls answer 202 {"href": .../requests/N, "Requests": {"id": N, "status": "Accepted"}};
  a state change with nothing to do answers 200 without a request;
- request_status moves PENDING -> IN_PROGRESS -> COMPLETED (or FAILED) one step per poll of the request;
  tasks carry HostRoleStatus values, stdout, stderr and structured_out;
- configs: desired_configs tags and versions, immutable config versions, service config versions with
  notes, SECRET:<type>:<version>:<name> in GET answers for PASSWORD properties and for properties marked
  password in properties_attributes, references resolved back on PUT (SecretReference,
  AmbariManagementControllerImpl.updateCluster), and no new version when nothing differs;
- stale_configs on started host components after a change of a config type in the service's
  <configuration-dependencies> (any key: ConfigHelper.calculateIsStaleConfigs), cleared by a (re)start;
- the stack configurations endpoint serves the defaults of mm2_core.config.schema (what build.py puts in the XML);
- maintenance mode at service, host and host component level, the effective state in GET answers and
  the operation level deciding what a state change or command skips (MaintenanceStateHelper);
- Kerberos: installs need the KDC administrator credential (KerberosHelperImpl), stored through the
  credentials resource (CredentialResourceProvider);
- config groups: one group per host and service (ConfigGroupResourceProvider.verifyHostList), group
  configs stored as given (no secret reference resolution);
- deleteResult of multi host component deletes (AmbariManagementControllerImpl.deleteHostComponents);
- batched request schedules (RequestScheduleResourceProvider, ExecutionScheduleManager, BatchRequestJob);
- alert definitions: created from alerts.json as the server's start does (reconcileAlertDefinitions creates
  missing ones only), updated field by field with a given source replacing the stored one
  (AlertDefinitionResourceProvider.populateEntity), unknown fields refused.
Each behaviour names the server class and method it follows next to it.
"""
import base64
import copy
import json
import os
import re
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

from mm2_core.config import names, schema

S, C = names.SERVICE, names.COMPONENT
CSRF_MESSAGE = "CSRF protection is turned on. X-Requested-By HTTP header is required."
BAD_LOGIN = "Unable to sign in. Invalid username/password combination."
NO_AUTH = "Full authentication is required to access this resource"
NO_PERMISSION = "You do not have permissions to access this resource."
# KerberosMissingAdminCredentialsException.DEFAULT_MESSAGE (the first lines)
MISSING_KDC = ("Missing KDC administrator credentials.\nThe KDC administrator credentials must be set as a persisted "
               "or temporary credential resource.This may be done by issuing a POST to the "
               "/api/v1/clusters/:clusterName/credentials/kdc.admin.credential API entry point with the following "
               "payload:\n{\n  \"Credential\" : {\n    \"principal\" : \"(PRINCIPAL)\", \"key\" : \"(PASSWORD)\", "
               "\"type\" : \"(persisted|temporary)\"}\n  }\n}")
# MaintenanceStateHelper.isOperationAllowed(Resource.Type, ServiceComponentHost)
ALLOWED_AT = {"CLUSTER": ("OFF",), "SERVICE": ("OFF", "IMPLIED_FROM_SERVICE"), "HOST": ("OFF", "IMPLIED_FROM_HOST")}
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# ServiceComponentHostImpl.canBeRemoved: State.isRemovableState
REMOVABLE = ("INIT", "INSTALLED", "INSTALL_FAILED", "UNKNOWN", "DISABLED", "UNINSTALLED")


class HttpError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status, self.message = status, message


def not_found(what):
    return HttpError(404, "The requested resource doesn't exist: " + what)


def system_error(message):
    return HttpError(500, "An internal system exception occurred: " + message)


class Request(object):
    def __init__(self, rid, context, tasks, effects, parameters=None):
        self.id, self.context, self.tasks, self.effects = rid, context, tasks, effects
        self.parameters = dict(parameters or {})
        self.polls = 0
        self.status = "PENDING"
        self.done = False


class FakeAmbari(object):
    def __init__(self, cluster="prod", stack=("BIGTOP", "3.2.0"), hosts=("mm2-1.example.com", "mm2-2.example.com",
                 "kafka-1.example.com"), users=None, stack_kafka_version="2.8.1", kerberos_auth=False,
                 mpack_installed=True, tls=None, kerberos=False, kdc_admin=("admin/admin@EXAMPLE.COM", "kdc-secret")):
        self.cluster, self.stack = cluster, tuple(stack)
        self.hosts = list(hosts)
        self.users = users or {"admin": ("admin-secret", "admin"), "viewer": ("viewer-secret", "read")}
        self.stack_kafka_version = stack_kafka_version
        self.kerberos_auth = kerberos_auth
        self.mpack_installed = mpack_installed
        self.tls = tls  # (certfile, keyfile): serve https
        self.repo_versions = [1]  # ids of the cluster's standard repository versions
        self.kerberos = kerberos  # Clusters/security_type KERBEROS
        self.kdc_admin = kdc_admin  # what the KDC accepts
        self.credentials = {}  # alias -> {"principal", "key", "type"}
        self.host_maintenance = {}  # host -> ON (Host.getMaintenanceState)
        self.schedules = {}  # id -> {"batches": [...], "settings": {...}, "status": .., "failed": n}
        self.next_schedule = 1
        self.lock = threading.RLock()
        self.calls = []  # (method, path with decoded query, parsed body)
        self.headers_seen = []  # (method, X-Requested-By, Authorization scheme) per call
        self.services = {}  # name -> {"state": .., "components": {comp: {host: hostrole}}}
        self.configs = {}  # type -> {tag: {"version": n, "properties": {}, "attributes": {}}}
        self.desired = {}  # type -> tag
        self.service_config_versions = []
        self.config_groups = {}
        self.requests = {}
        self.alerts = []
        self.alert_definitions = {}  # id -> AlertDefinition fields (AlertDefinitionEntity as the REST API shows it)
        self.next_request = 1
        self.next_task = 1
        self.next_group = 1
        self.steps = 3  # polls until a request ends: PENDING, IN_PROGRESS, end
        self.failures = []  # [(command, host, stderr)] consumed by the next matching task
        self.custom_output = {}  # command -> {"stdout": .., "structured_out": {..}}
        self.before_create = []  # hooks(method, path) run before a create (to simulate races)
        self.before_delete = []  # hooks() run before a host component delete (to simulate races)
        self.outage = None  # {"after_polls": n, "down": seconds}
        self.injected = []  # one-shot [(method, path prefix, status, message)] answered before routing
        self.delays = []  # one-shot [(method, path prefix, seconds)]: answer late (read timeouts)
        self._server = None
        self._thread = None
        self.port = None

    # --- lifecycle ------------------------------------------------------------------------------
    def start(self):
        self._serve(0)
        return self

    def _serve(self, port):
        fake = self

        class Handler(_Handler):
            pass
        Handler.fake = fake
        server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        server.daemon_threads = True
        if self.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*self.tls)
            server.socket = context.wrap_socket(server.socket, server_side=True)
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def stop(self):
        with self.lock:
            server, thread, self._server = self._server, self._thread, None
        if server is not None:
            server.shutdown()
            server.server_close()
            thread.join(5)

    def restart_server(self, down_seconds):
        """Close the listening socket (clients get 'connection refused'), reopen on the same port later."""
        port = self.port
        server, thread = self._server, self._thread

        def cycle():
            server.shutdown()
            server.server_close()
            thread.join(5)
            time.sleep(down_seconds)
            with self.lock:
                if self._server is server:  # not stopped meanwhile
                    self._serve(port)
        # The new server object is created by _serve; stop() closes whichever one is current.
        threading.Thread(target=cycle, daemon=True).start()

    @property
    def url(self):
        return "%s://127.0.0.1:%d" % ("https" if self.tls else "http", self.port)

    # --- helpers for tests ------------------------------------------------------------------------
    def mutating_calls(self):
        return [c for c in self.calls if c[0] != "GET"]

    def hostroles(self):
        svc = self.services.get(S)
        if not svc:
            return []
        return [hr for comp in svc["components"].values() for hr in comp.values()]

    def add_kafka(self, hosts, kafka_broker=None):
        """A local KAFKA service with brokers (what the advisor and the validator look at)."""
        self.services["KAFKA"] = {"state": "STARTED", "components": {names.KAFKA_BROKER: dict(
            (h, {"cluster_name": self.cluster, "service_name": "KAFKA", "component_name": names.KAFKA_BROKER,
                 "host_name": h, "state": "STARTED", "desired_state": "STARTED", "stale_configs": False,
                 "maintenance_state": "OFF"}) for h in hosts)}}
        self._create_config("kafka-broker", "version1", kafka_broker or {"listeners": "PLAINTEXT://localhost:6667"}, {})

    def desired_properties(self, config_type):
        tag = self.desired[config_type]
        return self.configs[config_type][tag]["properties"]

    def add_alert(self, state, label, text, host=None, maintenance="OFF", definition="mm2_alert"):
        self.alerts.append({"Alert": {"id": len(self.alerts) + 1, "state": state, "label": label, "text": text,
                                      "host_name": host, "service_name": S, "component_name": C,
                                      "definition_name": definition, "maintenance_state": maintenance,
                                      "cluster_name": self.cluster}})

    def load_alert_definitions(self, alerts_json):
        """The definitions of an alerts.json as ambari-server's start creates the missing ones
        (AmbariMetaInfo.reconcileAlertDefinitions -> AlertDefinitionFactory.coerce): enabled, not host-ignored."""
        for service, components in alerts_json.items():
            for component, definitions in components.items():
                for definition in definitions:
                    if any(d["name"] == definition["name"] for d in self.alert_definitions.values()):
                        continue  # reconcile never updates an existing definition
                    did = max(self.alert_definitions or [0]) + 1
                    self.alert_definitions[did] = {
                        "id": did, "cluster_name": self.cluster, "service_name": service,
                        "component_name": None if component == "service" else component,
                        "name": definition["name"], "label": definition.get("label"),
                        "description": definition.get("description"), "help_url": definition.get("help_url"),
                        "interval": definition.get("interval", 1), "enabled": definition.get("enabled", True),
                        "scope": definition.get("scope", "ANY"), "ignore_host": definition.get("ignore_host", False),
                        "repeat_tolerance": 1, "repeat_tolerance_enabled": False,
                        "source": copy.deepcopy(definition["source"])}

    def _take(self, queue, method, path):
        for index, item in enumerate(queue):
            if item[0] == method and path.startswith("/api/v1" + item[1]):
                del queue[index]
                return item[2:]
        return None

    def fail_next(self, command, host=None, stderr="Traceback...\nFail: boom"):
        self.failures.append((command, host, stderr))

    def install_started_service(self, hosts, properties=None):
        """Put the cluster in the state a finished deploy leaves (for configure/restart/remove tests)."""
        self.services[S] = {"state": "STARTED", "components": {C: {}}}
        for host in hosts:
            self.services[S]["components"][C][host] = self._hostrole(host, "STARTED")
        defaults = stack_defaults()
        for config_type in names.OWN_CONFIG_TYPES:
            props = dict(defaults.get(config_type, {}))
            props.update((properties or {}).get(config_type, {}))
            self._create_config(config_type, "version1", props, {})
        self._add_scv("initial")

    # --- state machine ------------------------------------------------------------------------------
    def _hostrole(self, host, state="INIT"):
        # A new ServiceComponentHost starts with state and desired state INIT (ServiceComponentHostImpl).
        return {"cluster_name": self.cluster, "service_name": S, "component_name": C, "host_name": host,
                "state": state, "desired_state": state, "stale_configs": False, "maintenance_state": "OFF"}

    def effective_maintenance(self, hr):
        """MaintenanceStateHelper.getEffectiveState(ServiceComponentHost, Host)."""
        if hr.get("maintenance_state") == "ON":
            return "ON"
        service_on = (self.services.get(hr["service_name"]) or {}).get("maintenance_state", "OFF") != "OFF"
        host_on = self.host_maintenance.get(hr["host_name"], "OFF") != "OFF"
        if service_on and host_on:
            return "IMPLIED_FROM_SERVICE_AND_HOST"
        if service_on:
            return "IMPLIED_FROM_SERVICE"
        if host_on:
            return "IMPLIED_FROM_HOST"
        return hr.get("maintenance_state") or "OFF"

    def operation_allowed(self, level, hr):
        """MaintenanceStateHelper.isOperationAllowed(Resource.Type, ServiceComponentHost)."""
        return level == "HOST_COMPONENT" or self.effective_maintenance(hr) in ALLOWED_AT.get(level, ())

    def set_maintenance(self, service=None, host=None, component_host=None, state="ON"):
        """Turn maintenance mode on (or off) for the service, a host, or the driver on one host."""
        if service is not None:
            self.services[service]["maintenance_state"] = state
        if host is not None:
            self.host_maintenance[host] = state
        if component_host is not None:
            self.services[S]["components"][C][component_host]["maintenance_state"] = state

    def _create_config(self, config_type, tag, props, attrs):
        versions = self.configs.setdefault(config_type, {})
        if tag in versions:
            raise HttpError(409, "Configuration with tag '%s' exists for '%s'" % (tag, config_type))
        version = max([v["version"] for v in versions.values()] or [0]) + 1
        versions[tag] = {"version": version, "properties": dict(props), "attributes": copy.deepcopy(attrs or {})}
        self.desired[config_type] = tag

    def _add_scv(self, note, group=None):
        self.service_config_versions.append({
            "service_config_version": len([v for v in self.service_config_versions]) + 1,
            "service_name": S, "service_config_version_note": note, "group_name": group or "Default",
            "group_id": -1, "is_current": True,
            "configurations": [{"type": t, "tag": self.desired[t]} for t in sorted(self.desired)
                               if t in names.OWN_CONFIG_TYPES]})
        return self.service_config_versions[-1]

    def _password_names(self, config_type, attrs):
        secret = set(n for t, n in schema.secret_properties() if t == config_type)
        secret |= set(n for n, v in ((attrs or {}).get("password") or {}).items() if str(v) == "true")
        return secret

    def _resolve_secret(self, value):
        _, config_type, version, name = value.split(":")
        for tag, conf in self.configs.get(config_type, {}).items():
            if conf["version"] == int(version):
                if name not in conf["properties"]:
                    break
                return conf["properties"][name]
        raise system_error("Error when parsing secret reference. Cluster: %s ConfigType: %s ConfigVersion: %s "
                           "does not contain property '%s'" % (self.cluster, config_type, version, name))

    def config_item(self, config_type, tag):
        conf = self.configs[config_type][tag]
        props = dict(conf["properties"])
        for name in self._password_names(config_type, conf["attributes"]):
            if props.get(name):
                props[name] = "SECRET:%s:%d:%s" % (config_type, conf["version"], name)
        item = {"href": "%s/api/v1/clusters/%s/configurations?type=%s&tag=%s" % (self.url, self.cluster, config_type, tag),
                "tag": tag, "type": config_type, "version": conf["version"],
                "Config": {"cluster_name": self.cluster, "stack_id": "-".join(self.stack)},
                "properties": props}
        if conf["attributes"]:
            item["properties_attributes"] = conf["attributes"]
        return item

    def _new_request(self, context, tasks, effects, parameters=None):
        rid = self.next_request
        self.next_request += 1
        for task in tasks:
            task.update({"id": self.next_task, "request_id": rid, "status": "PENDING", "stdout": "", "stderr": "",
                         "structured_out": {}, "exit_code": 999, "cluster_name": self.cluster})
            self.next_task += 1
        self.requests[rid] = Request(rid, context, tasks, effects, parameters)
        return rid

    def _advance(self, req):
        """One poll of a request: move it one step on."""
        if req.done:
            return
        req.polls += 1
        if req.polls == 1:
            return
        if req.polls < self.steps:
            req.status = "IN_PROGRESS"
            for task in req.tasks[: max(1, len(req.tasks) // 2)]:
                task["status"] = "IN_PROGRESS"
            return
        failed = False
        for task in req.tasks:
            if failed:
                task["status"] = "ABORTED"
                continue
            failure = self._take_failure(task)
            if failure is not None:
                # the agent reads the script's structured output file whatever its exit code (PythonExecutor)
                output = self.custom_output.get(task.get("custom_command_name") or task["role"], {})
                task.update({"status": "FAILED", "stderr": failure, "exit_code": 1,
                             "stdout": "2024-01-01 00:00:00,000 - Executing %s" % task["command"],
                             "structured_out": output.get("structured_out", {})})
                failed = True
            else:
                output = self.custom_output.get(task.get("custom_command_name") or task["role"], {})
                task.update({"status": "COMPLETED", "exit_code": 0,
                             "stdout": output.get("stdout", "%s %s done" % (task["role"], task["command"])),
                             "structured_out": output.get("structured_out", {})})
                req.effects(task)
        req.status = "FAILED" if failed else "COMPLETED"
        req.done = True

    def _take_failure(self, task):
        for index, (command, host, stderr) in enumerate(self.failures):
            name = task.get("custom_command_name") or task["command"]
            if command == name and host in (None, task["host_name"]):
                del self.failures[index]
                return stderr
        return None

    def request_json(self, req):
        total = len(req.tasks) or 1
        done = len([t for t in req.tasks if t["status"] in ("COMPLETED", "FAILED", "ABORTED", "TIMEDOUT")])
        percent = 100.0 if req.done else (0.0 if req.status == "PENDING" else 100.0 * max(done, 1) / (2 * total))
        return {"href": "%s/api/v1/clusters/%s/requests/%d" % (self.url, self.cluster, req.id),
                "Requests": {"id": req.id, "cluster_name": self.cluster, "request_status": req.status,
                             "progress_percent": percent, "request_context": req.context,
                             "task_count": len(req.tasks),
                             "failed_task_count": len([t for t in req.tasks if t["status"] == "FAILED"])}}

    def accepted(self, rid):
        return 202, {"href": "%s/api/v1/clusters/%s/requests/%d" % (self.url, self.cluster, rid),
                     "Requests": {"id": rid, "status": "Accepted"}}


def accepts_text_plain(accept):
    """Does an Accept header admit text/plain, the only type Ambari's REST services produce
    (@Produces(MediaType.TEXT_PLAIN))? Jersey answers 406 otherwise: seen on the real server
    (tests/realserver/test_upgrade_cli.py) for "Accept: application/json"."""
    if accept is None or not accept.strip():
        return True
    # Jersey 1 matches the media ranges and ignores their q values here (the server answers "text/plain;q=0" too)
    return any(item.split(";")[0].strip().lower() in ("text/plain", "text/*", "*/*") for item in accept.split(","))


def service_config_dependencies():
    """The <configuration-dependencies> of the service's metainfo.xml (what Ambari's staleness rule reads)."""
    import xml.etree.ElementTree as ET
    root = ET.parse(os.path.join(REPO, "common-services", S, names.SERVICE_VERSION, "metainfo.xml")).getroot()
    return set(node.text.strip() for node in root.iter("config-type"))


def stack_defaults():
    """{type: {name: default}} as the stack XML generated from the catalog holds them."""
    out = {}
    for ctype in schema.CONFIG_TYPES:
        for prop in ctype.properties:
            out.setdefault(ctype.name, {})[prop.name] = _default_value(prop)
    return out


def _default_value(prop):
    """The default as the built configuration XML holds it, hence as the real server serves it: a content
    property's template without trailing whitespace (mpack_build.configuration_xml.content_default; found
    by tests/realserver/test_fake_vs_real.py, the fake had served the raw template file)."""
    if prop.content_file:
        import sys
        if REPO not in sys.path:
            sys.path.insert(0, REPO)
        from mpack_build.configuration_xml import content_default
        return content_default(REPO, prop)
    return prop.default


def _predicate(query):
    """Ambari query predicate terms we use: a=b, a.in(x,y); fields and paging are not filters."""
    terms = []
    for part in query.split("&") if query else []:
        if not part or part.startswith(("fields=", "format=", "page_size=", "from=", "to=", "sortBy=",
                                        "minimal_response=")):
            continue
        match = re.match(r"^(.+)\.in\((.*)\)$", part)
        if match:
            terms.append((match.group(1), set(match.group(2).split(","))))
            continue
        key, _, value = part.partition("=")
        terms.append((key, {value}))
    return terms


def _matches(obj, category, terms):
    for key, values in terms:
        cat, _, name = key.partition("/")
        if cat != category:
            continue
        value = obj.get(name)
        value = str(value).lower() if isinstance(value, bool) else str(value)
        if value not in values:
            return False
    return True


class _Handler(BaseHTTPRequestHandler):
    fake = None  # set per server

    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PUT(self):
        self._handle("PUT")

    def do_DELETE(self):
        self._handle("DELETE")

    def _handle(self, method):
        fake = self.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        split = urlsplit(self.path)
        path, query = split.path, unquote(split.query)
        try:
            body = json.loads(raw.decode("utf-8")) if raw else None
        except ValueError:
            body = "<invalid json>"
        status, payload, after, delay = 500, None, None, None
        try:
            with fake.lock:
                fake.calls.append((method, path + ("?" + query if query else ""), body))
                fake.headers_seen.append((method, self.headers.get("X-Requested-By"),
                                          (self.headers.get("Authorization") or "").split(" ")[0] + " "))
                self._authenticate(method)
                if method != "GET" and "X-Requested-By" not in self.headers:
                    raise HttpError(400, CSRF_MESSAGE)
                if not path.startswith("/api/v1/"):
                    raise not_found(path)
                if not accepts_text_plain(self.headers.get("Accept")):
                    raise HttpError(406, None)  # Jersey: no representation the client accepts, no body
                if body == "<invalid json>":
                    raise HttpError(400, "Invalid Request: Malformed Request Body.  An exception occurred parsing "
                                         "the request body: Unexpected character")
                delay = fake._take(fake.delays, method, path)
                injected = fake._take(fake.injected, method, path)
                if injected is not None:
                    raise HttpError(*injected)
                status, payload = Routes(fake).dispatch(method, path[len("/api/v1"):], query, body)
                if fake.outage and method == "GET" and "/requests/" in path and "/tasks" not in path:
                    fake.outage["after_polls"] -= 1
                    if fake.outage["after_polls"] <= 0:
                        after, fake.outage = fake.outage["down"], None
        except HttpError as exc:
            status, payload = exc.status, (None if exc.message is None else {"status": exc.status, "message": exc.message})
        if delay:
            time.sleep(delay[0])
        self._send(status, payload)
        if after is not None:
            fake.restart_server(after)

    def _authenticate(self, method):
        header = self.headers.get("Authorization") or ""
        if not header.startswith("Basic "):
            if self.fake.kerberos_auth:
                raise HttpError(401, "Authentication requested")
            raise HttpError(403, NO_AUTH)
        user, _, password = base64.b64decode(header[6:]).decode("utf-8").partition(":")
        known = self.fake.users.get(user)
        if known is None or known[0] != password:
            raise HttpError(401 if self.fake.kerberos_auth else 403,
                            "Authentication requested" if self.fake.kerberos_auth else BAD_LOGIN)
        if method != "GET" and known[1] != "admin":
            raise HttpError(403, NO_PERMISSION)

    def _send(self, status, payload):
        data = b"" if payload is None else json.dumps(payload, indent=2).encode("utf-8")
        self.send_response(status)
        if data:  # every answer of the API is text/plain (the resource services' @Produces), JSON inside
            self.send_header("Content-Type", "text/plain;charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            try:
                self.wfile.write(data)
            except OSError:
                pass


class Routes(object):
    def __init__(self, fake):
        self.f = fake

    def dispatch(self, method, path, query, body):
        parts = [p for p in path.split("/") if p]
        f = self.f
        if parts[:1] == ["stacks"]:
            return self.stacks(method, parts)
        if parts[:1] != ["clusters"] or len(parts) < 2:
            raise not_found(path)
        if parts[1] != f.cluster:
            raise not_found("Cluster not found, clusterName=%s" % parts[1])
        rest = parts[2:]
        key = (method, tuple(p if i % 2 == 0 else "*" for i, p in enumerate(rest)))
        handlers = {
            ("GET", ()): self.get_cluster, ("PUT", ()): self.put_cluster,
            ("GET", ("hosts",)): self.get_hosts,
            ("GET", ("services", "*")): self.get_service, ("POST", ("services",)): self.post_services,
            ("PUT", ("services", "*")): self.put_service, ("DELETE", ("services", "*")): self.delete_service,
            ("POST", ("services", "*", "components", "*")): self.post_component,
            ("POST", ("hosts", "*", "host_components", "*")): self.post_host_component,
            ("DELETE", ("hosts", "*", "host_components", "*")): self.delete_host_component,
            ("GET", ("host_components",)): self.get_host_components,
            ("PUT", ("host_components",)): self.put_host_components,
            ("DELETE", ("host_components",)): self.delete_host_components,
            ("PUT", ("hosts", "*", "host_components", "*")): self.put_host_component,
            ("GET", ("credentials", "*")): self.get_credential,
            ("POST", ("credentials", "*")): self.post_credential,
            ("GET", ("requests",)): self.get_requests,
            ("GET", ("request_schedules",)): self.get_schedules,
            ("POST", ("request_schedules",)): self.post_schedule,
            ("GET", ("request_schedules", "*")): self.get_schedule,
            ("GET", ("configurations",)): self.get_configurations,
            ("GET", ("configurations", "service_config_versions")): self.get_scv,
            ("GET", ("config_groups",)): self.get_config_groups,
            ("POST", ("config_groups",)): self.post_config_groups,
            ("PUT", ("config_groups", "*")): self.put_config_group,
            ("POST", ("requests",)): self.post_request,
            ("GET", ("requests", "*")): self.get_request,
            ("GET", ("requests", "*", "tasks")): self.get_tasks,
            ("GET", ("alerts",)): self.get_alerts,
            ("GET", ("alert_definitions",)): self.get_alert_definitions,
            ("PUT", ("alert_definitions", "*")): self.put_alert_definition,
        }
        if rest[:2] == ["configurations", "service_config_versions"]:
            key = (method, ("configurations", "service_config_versions"))
        handler = handlers.get(key)
        if handler is None:
            raise not_found(path)
        return handler(rest, query, body)

    # --- stacks -----------------------------------------------------------------------------------
    def stacks(self, method, parts):
        f = self.f
        if method != "GET" or len(parts) < 6 or parts[2] != "versions" or parts[4] != "services":
            raise not_found("/".join(parts))
        if (parts[1], parts[3]) != f.stack:
            raise not_found("Stack data, stackName=%s, stackVersion=%s" % (parts[1], parts[3]))
        service = parts[5]
        if service == names.KAFKA_SERVICE and len(parts) == 6:
            if f.stack_kafka_version is None:
                raise not_found("Stack service, serviceName=KAFKA")
            return 200, {"StackServices": {"service_name": "KAFKA", "service_version": f.stack_kafka_version,
                                           "stack_name": f.stack[0], "stack_version": f.stack[1]}}
        if service == S and parts[6:] == ["configurations"]:
            if not f.mpack_installed:
                raise not_found("Stack service, stackName=%s, stackVersion=%s, serviceName=%s"
                                % (f.stack[0], f.stack[1], S))
            items = []
            for ctype in schema.CONFIG_TYPES:
                for prop in ctype.properties:
                    items.append({"StackConfigurations": {
                        "stack_name": f.stack[0], "stack_version": f.stack[1], "service_name": S,
                        "type": ctype.name + ".xml", "property_name": prop.name,
                        "property_value": _default_value(prop),
                        "property_type": [prop.property_type] if prop.property_type else [],
                        "property_value_attributes": {"type": prop.ambari_value_type}, "final": "false",
                        "property_description": prop.description}})
            return 200, {"items": items}
        raise not_found("/".join(parts))

    # --- cluster and configs ------------------------------------------------------------------------
    def get_cluster(self, rest, query, body):
        f = self.f
        desired = dict((t, {"tag": tag, "version": f.configs[t][tag]["version"], "user": "admin"})
                       for t, tag in f.desired.items())
        return 200, {"href": "%s/api/v1/clusters/%s" % (f.url, f.cluster),
                     "Clusters": {"cluster_name": f.cluster, "version": "-".join(f.stack), "desired_configs": desired,
                                  "security_type": "KERBEROS" if f.kerberos else "NONE"}}

    def get_hosts(self, rest, query, body):
        return 200, {"items": [{"Hosts": {"host_name": h, "cluster_name": self.f.cluster,
                                          "maintenance_state": self.f.host_maintenance.get(h, "OFF")}}
                               for h in self.f.hosts]}

    def get_configurations(self, rest, query, body):
        terms = dict(_predicate(query))
        config_type = next(iter(terms.get("type", {None})))
        tag = next(iter(terms.get("tag", {None})))
        items = []
        if config_type in self.f.configs and tag in self.f.configs[config_type]:
            items.append(self.f.config_item(config_type, tag))
        return 200, {"items": items}

    def get_scv(self, rest, query, body):
        return 200, {"items": self.f.service_config_versions}

    def put_cluster(self, rest, query, body):
        f = self.f
        clusters = (body or {}).get("Clusters") or {}
        desired = clusters.get("desired_config")
        if desired is None:
            return 200, None
        if isinstance(desired, dict):
            desired = [desired]
        requests_ = []
        for item in desired:
            config_type, tag = item.get("type"), item.get("tag")
            if not config_type or not tag:
                raise HttpError(400, "config type and tag must be set")
            props = dict(item.get("properties") or {})
            attrs = item.get("properties_attributes") or {}
            for name in f._password_names(config_type, attrs):
                value = props.get(name)
                if isinstance(value, str) and re.match(r"^SECRET:[^:]+:\d+:[^:]+$", value):
                    props[name] = f._resolve_secret(value)
            requests_.append((config_type, tag, props, attrs, item.get("service_config_version_note")))
        needed = False
        for config_type, tag, props, attrs, _ in requests_:
            cur_tag = f.desired.get(config_type)
            if cur_tag is None:
                needed = True
                break
            cur = f.configs[config_type][cur_tag]
            if cur["properties"] != props or (cur["attributes"] or {}) != (attrs or {}):
                needed = True
                break
        if not needed:
            return 200, None
        note = None
        for config_type, tag, props, attrs, item_note in requests_:
            f._create_config(config_type, tag, props, attrs)
            note = item_note
        # ConfigHelper.checkStaleConfigsStatusOnConfigsUpdate: every host component of the service (in any
        # state: INIT, INSTALLED and STARTED alike, seen on the real server) is flagged restartRequired when a
        # config type it depends on (the service's <configuration-dependencies>, its own types) changed, whatever
        # the keys; only a START clears it (HeartbeatProcessor).
        dependencies = service_config_dependencies()
        if any(t in dependencies for t, *_ in requests_):
            for hr in f.hostroles():
                hr["stale_configs"] = True
        if not any(t in names.OWN_CONFIG_TYPES for t, *_ in requests_):
            return 200, None
        scv = f._add_scv(note)
        return 200, {"resources": [{"href": None, "service_name": S,
                                    "service_config_version": scv["service_config_version"],
                                    "service_config_version_note": note, "group_id": -1, "group_name": "Default",
                                    "configurations": scv["configurations"]}]}

    # --- services and components --------------------------------------------------------------------
    def _service(self, name):
        svc = self.f.services.get(name)
        if svc is None:
            raise not_found("Service not found, clusterName=%s, serviceName=%s" % (self.f.cluster, name))
        return svc

    def get_service(self, rest, query, body):
        svc = self._service(rest[1])
        return 200, {"href": "%s/api/v1/clusters/%s/services/%s" % (self.f.url, self.f.cluster, rest[1]),
                     "ServiceInfo": {"cluster_name": self.f.cluster, "service_name": rest[1], "state": svc["state"],
                                     "maintenance_state": svc.get("maintenance_state", "OFF")},
                     "components": [{"ServiceComponentInfo": {"cluster_name": self.f.cluster, "component_name": c,
                                                              "service_name": rest[1]}} for c in svc["components"]]}

    def _hooks(self, what):
        for hook in list(self.f.before_create):
            hook(what)

    def post_services(self, rest, query, body):
        f = self.f
        items = body if isinstance(body, list) else [body or {}]
        created = []
        for item in items:
            name = (item.get("ServiceInfo") or {}).get("service_name")
            repo = (item.get("ServiceInfo") or {}).get("desired_repository_version_id")
            self._hooks(("service", name))
            if repo is None and len(f.repo_versions) > 1:
                # ServiceResourceProvider.validateCreateRequests (2.7.x and trunk)
                raise HttpError(400, "ServiceInfo/desired_repository_version_id was not specified, and the "
                                     "cluster contains more than one standard-type repository")
            if repo is not None and int(repo) not in f.repo_versions:
                raise HttpError(400, "Could not find any repositories defined by %s" % repo)
            if name != S or not f.mpack_installed:
                raise HttpError(400, "Unsupported or invalid service in stack, clusterName=%s, serviceName=%s, "
                                     "stackInfo=%s" % (f.cluster, name, "-".join(f.stack)))
            if name in f.services:
                raise HttpError(409, "Attempted to create a service which already exists: , clusterName=%s "
                                     "serviceName=%s" % (f.cluster, name))
            created.append(name)
        for name in created:
            f.services[name] = {"state": "INIT", "components": {}}
        return 201, None

    def post_component(self, rest, query, body):
        svc = self._service(rest[1])
        self._hooks(("component", rest[3]))
        if rest[3] != C:
            raise HttpError(400, "Unsupported or invalid component in stack stackInfo=%s request=%s"
                            % ("-".join(self.f.stack), rest[3]))
        if rest[3] in svc["components"]:
            raise HttpError(409, "Attempted to create one or more components which already exist:[clusterName=%s, "
                                 "serviceName=%s, componentName=%s]" % (self.f.cluster, rest[1], rest[3]))
        svc["components"][rest[3]] = {}
        return 201, None

    def post_host_component(self, rest, query, body):
        f = self.f
        host, comp = rest[1], rest[3]
        if host not in f.hosts:
            raise HttpError(404, "Attempted to add a host_component to a host that doesn't exist: clusterName=%s, "
                                 "hostName=%s" % (f.cluster, host))
        svc = f.services.get(S)
        if svc is None or comp not in svc["components"]:
            raise HttpError(404, "The requested resource doesn't exist: ServiceComponent not found, clusterName=%s, "
                                 "serviceName=%s, serviceComponentName=%s" % (f.cluster, S, comp))
        self._hooks(("host_component", host))
        if host in svc["components"][comp]:
            raise HttpError(409, "Attempted to create a host_component which already exists: [clusterName=%s, "
                                 "hostName=%s, componentName=%s]" % (f.cluster, host, comp))
        svc["components"][comp][host] = f._hostrole(host)
        return 201, None

    def get_host_components(self, rest, query, body):
        terms = _predicate(query)
        # AmbariManagementControllerImpl.getHostComponents answers the effective maintenance state.
        items = [{"href": "%s/api/v1/clusters/%s/hosts/%s/host_components/%s" % (
            self.f.url, self.f.cluster, hr["host_name"], hr["component_name"]),
            "HostRoles": dict(hr, maintenance_state=self.f.effective_maintenance(hr))}
            for svc in self.f.services.values() for comp in svc["components"].values() for hr in comp.values()
            if _matches(dict(hr, maintenance_state=self.f.effective_maintenance(hr)), "HostRoles", terms)]
        return 200, {"items": items}

    @staticmethod
    def _level(body):
        """The request's operation level; without one the providers assume CLUSTER
        (ServiceResourceProvider.updateServices, HostComponentResourceProvider.determineOperationLevel)."""
        level = (((body or {}).get("RequestInfo") or {}).get("operation_level") or {})
        name = level.get("level", "CLUSTER")
        # RequestOperationLevel(Map): a known level, and cluster_name is mandatory with any level
        if name not in ("CLUSTER", "SERVICE", "HOST", "HOST_COMPONENT"):
            raise HttpError(400, "Wrong operation level value: %s" % name)
        if level and "cluster_name" not in level:
            raise HttpError(400, "Mandatory key operation_level/cluster_name for operation level is not specified")
        return name

    def _state_request(self, hostroles, state, context, level):
        """Tasks that move host components to state (INSTALLED: install or stop; STARTED: start).
        ServiceResourceProvider.updateServiceComponents / HostComponentResourceProvider.updateHostComponents:
        a host component already in the state is ignored, one the operation level does not allow for its
        effective maintenance state is ignored (no error), a master from INIT to STARTED is an invalid
        transition (IllegalArgumentException -> 400)."""
        f = self.f
        tasks = []
        for hr in sorted(hostroles, key=lambda h: h["host_name"]):
            if hr["state"] == state or not f.operation_allowed(level, hr):
                continue
            if state == "INSTALLED" and hr["state"] in ("INIT", "INSTALL_FAILED"):
                command = "INSTALL"
            elif state == "INSTALLED" and hr["state"] == "STARTED":
                command = "STOP"
            elif state == "STARTED" and hr["state"] == "INSTALLED":
                command = "START"
            elif state == "STARTED" and hr["state"] in ("INIT", "INSTALL_FAILED"):
                raise HttpError(400, "Invalid transition for servicecomponenthost, clusterName=%s, clusterId=2, "
                                     "serviceName=%s, componentName=%s, hostname=%s, currentState=%s, newDesiredState=%s"
                                % (f.cluster, S, hr["component_name"], hr["host_name"], hr["state"], state))
            else:
                continue
            tasks.append((hr, {"host_name": hr["host_name"], "role": hr["component_name"], "command": command}))
        if any(task["command"] == "INSTALL" for _hr, task in tasks) and f.kerberos:
            self._check_kdc_credential()
        for hr, _task in tasks:
            hr["desired_state"] = state
        tasks = [task for _hr, task in tasks]
        if not tasks:
            # RequestStageContainer.getRequestStatusResponse: no stages, no request -> 200 without a body
            return 200, None
        by_host = dict((hr["host_name"], hr) for hr in hostroles)

        def effect(task):
            hr = by_host[task["host_name"]]
            hr["state"] = "INSTALLED" if task["command"] in ("INSTALL", "STOP") else "STARTED"
            if task["command"] == "START":
                hr["stale_configs"] = False

        rid = f._new_request(context, tasks, effect)
        return f.accepted(rid)

    def _check_kdc_credential(self):
        """AmbariManagementControllerImpl.doStageCreation -> KerberosHelperImpl.ensureIdentities ->
        validateKDCCredentials: no credential -> KerberosMissingAdminCredentialsException, a wrong one ->
        KerberosAdminAuthenticationException, both wrapped in IllegalArgumentException (400)."""
        cred = self.f.credentials.get("kdc.admin.credential")
        if cred is None:
            raise HttpError(400, MISSING_KDC)
        if (cred["principal"], cred["key"]) != tuple(self.f.kdc_admin):
            raise HttpError(400, "Invalid KDC administrator credentials.\nThe KDC administrator credentials must be "
                                 "set as a persisted or temporary credential resource.")

    def put_service(self, rest, query, body):
        svc = self._service(rest[1])
        info = (body or {}).get("RequestInfo") or {}
        level = self._level(body)
        state = (((body or {}).get("Body") or body or {}).get("ServiceInfo") or {}).get("state")
        if state not in ("INSTALLED", "STARTED"):
            raise HttpError(400, "Invalid desired state %s" % state)
        # ServiceResourceProvider.updateServices: MaintenanceStateHelper.isOperationAllowed(level, service)
        # is false at CLUSTER level for a service in maintenance: the service is skipped, 200, no request.
        if level == "CLUSTER" and svc.get("maintenance_state", "OFF") != "OFF":
            return 200, None
        hostroles = [hr for comp in svc["components"].values() for hr in comp.values()]
        status, payload = self._state_request(hostroles, state, info.get("context", "Update service"), level)
        svc["state"] = state
        return status, payload

    def put_host_components(self, rest, query, body):
        terms = _predicate(query)
        info = (body or {}).get("RequestInfo") or {}
        state = (((body or {}).get("Body") or body or {}).get("HostRoles") or {}).get("state")
        hostroles = [hr for hr in self.f.hostroles()
                     if _matches(dict(hr, maintenance_state=self.f.effective_maintenance(hr)), "HostRoles", terms)]
        return self._state_request(hostroles, state, info.get("context", "Update host components"), self._level(body))

    def put_host_component(self, rest, query, body):
        f = self.f
        hr = ((f.services.get(S) or {}).get("components", {}).get(rest[3]) or {}).get(rest[1])
        if hr is None:
            raise not_found("ServiceComponentHost not found, clusterName=%s, serviceName=%s, serviceComponentName=%s, "
                            "hostName=%s" % (f.cluster, S, rest[3], rest[1]))
        info = (body or {}).get("RequestInfo") or {}
        state = (((body or {}).get("Body") or body or {}).get("HostRoles") or {}).get("state")
        return self._state_request([hr], state, info.get("context", "Update host component"), self._level(body))

    def delete_host_components(self, rest, query, body):
        """DELETE /host_components?<predicate>: AmbariManagementControllerImpl.deleteHostComponents. Each
        host component that is not removable (ServiceComponentHostImpl.canBeRemoved) becomes an error entry;
        with one host component in the request the error is the HTTP answer, with several the answer is
        200 and a deleteResult (JsonSerializer.processResultMetadata)."""
        f = self.f
        terms = _predicate(query)
        if not set(k for k, _ in terms) & set(("HostRoles/component_name", "HostRoles/host_name")):
            # a request without a component expands to the components of its host, which it must name (the
            # real server's answer to a delete by HostRoles/service_name alone, seen in tests/realserver)
            raise HttpError(400, "Invalid Request: Cluster name and hostname must be specified.")
        for hook in list(f.before_delete):
            hook()
        matched = [hr for hr in f.hostroles() if _matches(hr, "HostRoles", terms)]
        deleted, errors = [], []
        for hr in matched:
            key = "%s/%s" % (hr["host_name"], hr["component_name"])
            if hr["state"] not in REMOVABLE:
                errors.append((key, 500, "Current host component state prohibiting component removal., clusterName=%s, "
                                         "serviceName=%s, componentName=%s, hostname=%s, request={}, state=%s"
                               % (f.cluster, S, hr["component_name"], hr["host_name"], hr["state"])))
            else:
                deleted.append(key)
        for hr in matched:
            if "%s/%s" % (hr["host_name"], hr["component_name"]) in deleted:
                del f.services[S]["components"][hr["component_name"]][hr["host_name"]]
        if len(deleted) + len(errors) == 1:  # "Do not break behavior for existing clients ..."
            if errors:
                raise system_error(errors[0][2])
            return 200, None
        if not matched:
            return 200, None  # DeleteHandler: nothing matched a collection -> 200
        return 200, {"deleteResult": [{"deleted": {"key": k}} for k in deleted]
                     + [{"error": {"key": k, "code": code, "message": m}} for k, code, m in errors]}

    def delete_host_component(self, rest, query, body):
        f = self.f
        for hook in list(f.before_delete):
            hook()
        host, comp = rest[1], rest[3]
        svc = f.services.get(S)
        hr = (svc or {}).get("components", {}).get(comp, {}).get(host)
        if hr is None:
            raise not_found("ServiceComponentHost not found, clusterName=%s, serviceName=%s, "
                            "serviceComponentName=%s, hostName=%s" % (f.cluster, S, comp, host))
        if hr["state"] not in REMOVABLE:
            raise system_error("Current host component state prohibiting component removal., clusterName=%s, "
                               "serviceName=%s, componentName=%s, hostname=%s, request={}, state=%s"
                               % (f.cluster, S, comp, host, hr["state"]))
        del svc["components"][comp][host]
        return 200, None

    def delete_service(self, rest, query, body):
        f = self.f
        svc = self._service(rest[1])
        # ServiceResourceProvider.deleteServices: every host component must be removable
        if any(hr["state"] not in REMOVABLE for comp in svc["components"].values() for hr in comp.values()):
            raise system_error("Cannot remove %s/%s. One or more host components are in a non-removable state."
                               % (f.cluster, rest[1]))
        del f.services[rest[1]]
        # ServiceImpl.delete: deleteAllServiceConfigs() and deleteAllServiceConfigGroups()
        for config_type in names.OWN_CONFIG_TYPES:
            f.desired.pop(config_type, None)
        f.config_groups = dict((k, g) for k, g in f.config_groups.items() if g["tag"] != rest[1])
        return 200, None

    # --- config groups ------------------------------------------------------------------------------
    def get_config_groups(self, rest, query, body):
        terms = _predicate(query)
        items = []
        for gid, g in sorted(self.f.config_groups.items()):
            if not _matches(g, "ConfigGroup", terms):
                continue
            items.append({"href": "%s/api/v1/clusters/%s/config_groups/%d" % (self.f.url, self.f.cluster, gid),
                          "ConfigGroup": {"id": gid, "cluster_name": self.f.cluster, "group_name": g["group_name"],
                                          "tag": g["tag"], "service_name": g["tag"], "description": g["description"],
                                          "hosts": [{"host_name": h} for h in g["hosts"]],
                                          "desired_configs": [{"type": t, "tag": tag} for t, tag in sorted(g["configs"].items())]}})
        return 200, {"items": items}

    def _group_configs(self, desired):
        """ConfigGroupResourceProvider.getConfigGroupRequest + ConfigGroupImpl: an existing (type, tag) is
        reused as it is; a new one is stored with the properties as sent: no SECRET reference is resolved."""
        configs = {}
        for item in desired or []:
            config_type, tag = item["type"], item["tag"]
            if tag not in self.f.configs.get(config_type, {}):
                versions = self.f.configs.setdefault(config_type, {})
                version = max([v["version"] for v in versions.values()] or [0]) + 1
                versions[tag] = {"version": version, "properties": dict(item.get("properties") or {}),
                                 "attributes": {}}
            configs[config_type] = tag
        return configs

    def _mark_group_stale(self, hosts):
        for hr in self.f.hostroles():  # any state, as for the default group (see put_cluster)
            if hr["host_name"] in hosts:
                hr["stale_configs"] = True

    def _verify_hosts(self, tag, hosts, gid=None):
        """ConfigGroupResourceProvider.verifyHostList: a host may be in one group per tag (service)."""
        for other_id, other in sorted(self.f.config_groups.items()):
            if other["tag"] == tag and other_id != gid:
                for host in hosts:
                    if host in other["hosts"]:
                        raise HttpError(409, "Host is already associated with a config group, clusterName = %s, "
                                             "configGroupName = %s, tag = %s, hostname = %s"
                                        % (self.f.cluster, other["group_name"], tag, host))

    def post_config_groups(self, rest, query, body):
        f = self.f
        resources = []
        for item in body:
            g = item["ConfigGroup"]
            if not g.get("group_name") or not g.get("tag"):
                raise HttpError(400, "Cluster name, group name and tag need to be provided.")
            if any(x["group_name"] == g["group_name"] and x["tag"] == g["tag"] for x in f.config_groups.values()):
                raise HttpError(409, "Config group already exists with the same name and tag, clusterName = %s, "
                                     "groupName = %s, tag = %s" % (f.cluster, g["group_name"], g["tag"]))
            self._verify_hosts(g["tag"], [h["host_name"] for h in g.get("hosts") or []])
            gid = f.next_group
            f.next_group += 1
            f.config_groups[gid] = {"group_name": g["group_name"], "tag": g["tag"], "description": g.get("description", ""),
                                    "hosts": sorted(h["host_name"] for h in g.get("hosts") or []),
                                    "configs": self._group_configs(g.get("desired_configs"))}
            self._mark_group_stale(f.config_groups[gid]["hosts"])
            resources.append({"href": "%s/api/v1/clusters/%s/config_groups/%d" % (f.url, f.cluster, gid),
                              "ConfigGroup": {"id": gid}})
        return 201, {"resources": resources}

    def put_config_group(self, rest, query, body):
        f = self.f
        gid = int(rest[1])
        if gid not in f.config_groups:
            raise system_error("Config group not found, clusterName = %s, groupId = %d" % (f.cluster, gid))
        g = body[0]["ConfigGroup"] if isinstance(body, list) else body["ConfigGroup"]
        group = f.config_groups[gid]
        self._verify_hosts(group["tag"], [h["host_name"] for h in g.get("hosts") or []], gid)
        old_hosts = set(group["hosts"])
        group.update({"group_name": g["group_name"], "description": g.get("description", ""),
                      "hosts": sorted(h["host_name"] for h in g.get("hosts") or []),
                      "configs": self._group_configs(g.get("desired_configs"))})
        self._mark_group_stale(old_hosts | set(group["hosts"]))
        return 200, None

    # --- requests ---------------------------------------------------------------------------------
    def post_request(self, rest, query, body):
        f = self.f
        info = (body or {}).get("RequestInfo") or {}
        filters = (body or {}).get("Requests/resource_filters") or []
        command, context = info.get("command"), info.get("context", "")
        level = info.get("operation_level")
        if level is not None:
            if level.get("level") not in ("CLUSTER", "SERVICE", "HOST", "HOST_COMPONENT"):
                raise HttpError(400, "Wrong operation level value: %s" % level.get("level"))
            if "cluster_name" not in level:
                raise HttpError(400, "Mandatory key operation_level/cluster_name for operation level is not specified")
        if not command or not filters:
            raise HttpError(400, "Command or action must be specified with resource filters")
        filt = filters[0]
        svc = self._service(filt.get("service_name"))
        tasks, hosts = [], [h for h in (filt.get("hosts") or "").split(",") if h]
        comp_hosts = svc["components"].get(C, {})

        def effect(task):
            if task["command"] == "RESTART":
                hr = comp_hosts[task["host_name"]]
                hr.update({"state": "STARTED", "desired_state": "STARTED", "stale_configs": False})

        # AmbariCustomCommandExecutionHelper.addCustomCommandAction: hosts the operation level does not
        # allow for their maintenance state are left out (the level guessed from the filter when absent:
        # MaintenanceStateHelper.guessOperationLevel -> HOST_COMPONENT with component and hosts).
        op_level = (level or {}).get("level") or ("HOST_COMPONENT" if hosts and filt.get("component_name") else "SERVICE")
        if command == "RESTART":
            for host in hosts:
                if host not in comp_hosts:
                    raise system_error("Invalid host %s for component %s" % (host, C))
                if f.operation_allowed(op_level, comp_hosts[host]):
                    tasks.append({"host_name": host, "role": C, "command": "RESTART"})
            if not tasks:
                return 200, None
        elif command == names.SERVICE_CHECK_ROLE:
            host = sorted(comp_hosts)[0] if comp_hosts else f.hosts[0]
            tasks.append({"host_name": host, "role": command, "command": "SERVICE_CHECK"})
        elif command in names.CUSTOM_COMMANDS and filt.get("component_name") == C:
            for host in hosts:
                tasks.append({"host_name": host, "role": C, "command": "CUSTOM_COMMAND",
                              "custom_command_name": command})
        else:
            raise system_error("Unsupported action %s for Service: %s and Component: %s"
                               % (command, filt.get("service_name"), filt.get("component_name")))
        # RequestResourceProvider.getActionRequest: RequestInfo/parameters/* become the command parameters
        rid = f._new_request(context, tasks, effect, info.get("parameters"))
        return f.accepted(rid)

    def get_requests(self, rest, query, body):
        """The request collection in id order; page_size=N with to=end is the last page
        (BaseRequest paging: PageRequest.StartingPoint.End)."""
        reqs = sorted(self.f.requests.values(), key=lambda r: r.id)
        size = re.search(r"page_size=(\d+)", query or "")
        if size:
            count = int(size.group(1))
            reqs = reqs[-count:] if "to=end" in (query or "") else reqs[:count]
        return 200, {"items": [{"Requests": {"id": r.id, "request_context": r.context,
                                             "request_status": r.status}} for r in reqs]}

    # --- request schedules (rolling restart) ---------------------------------------------------------
    def post_schedule(self, rest, query, body):
        """RequestScheduleResourceProvider.createResources: 201 with the new id; the batch requests run one
        after the other (ExecutionScheduleManager / BatchRequestJob)."""
        f = self.f
        item = (body if isinstance(body, list) else [body])[0]["RequestSchedule"]
        requests_, settings = [], {}
        for part in item.get("batch") or []:
            requests_.extend(part.get("requests") or [])
            settings.update(part.get("batch_settings") or {})
        orders = [r.get("order_id") for r in requests_]
        if any(o is None for o in orders):
            raise system_error("No order id provided for batch request. ")
        if len(set(orders)) != len(orders):
            raise system_error("Duplicate order id provided for batch request. ")
        sid = f.next_schedule
        f.next_schedule += 1
        f.schedules[sid] = {"batches": [dict(r, request_id=None, request_status=None)
                                        for r in sorted(requests_, key=lambda r: r["order_id"])],
                            "settings": settings, "status": "SCHEDULED", "failed": 0}
        return 201, {"resources": [{"href": "%s/api/v1/clusters/%s/request_schedules/%d" % (f.url, f.cluster, sid),
                                    "RequestSchedule": {"id": sid}}]}

    def get_schedules(self, rest, query, body):
        return 200, {"items": [{"RequestSchedule": {"id": sid, "status": sc["status"]}}
                               for sid, sc in sorted(self.f.schedules.items())]}

    def get_schedule(self, rest, query, body):
        """One poll moves the schedule on: the next batch's request is sent when the previous one ended
        (the pause between batches is not waited here); when more tasks failed than
        task_failure_tolerance, BatchRequestJob.doWork throws 'Task failure tolerance limit exceeded':
        no further batch runs and the schedule keeps its SCHEDULED status. COMPLETED after the last batch
        (ExecutionScheduleManager.finalizeBatch)."""
        f = self.f
        sid = int(rest[1])
        sc = f.schedules.get(sid)
        if sc is None:
            raise system_error("Request Schedule not found, clusterName = %s, id = %d" % (f.cluster, sid))
        tolerance = int(sc["settings"].get("task_failure_tolerance", 0) or 0)
        for batch in sc["batches"]:
            if batch["request_id"] is not None:
                req = f.requests[batch["request_id"]]
                batch["request_status"] = req.status
                if not req.done:
                    break
                if not batch.get("counted"):
                    batch["counted"] = True
                    sc["failed"] += len([t for t in req.tasks if t["status"] in ("FAILED", "TIMEDOUT", "ABORTED")])
                continue
            if sc["failed"] > tolerance:
                break
            status, payload = self.post_request(None, "", batch["RequestBodyInfo"])
            if payload is None:
                batch["request_status"] = "COMPLETED"
                continue
            batch["request_id"] = payload["Requests"]["id"]
            batch["request_status"] = "PENDING"
            break
        if all(b["request_status"] in ("COMPLETED", "FAILED", "ABORTED", "TIMEDOUT") for b in sc["batches"]):
            sc["status"] = "COMPLETED"
        return 200, {"RequestSchedule": {
            "id": sid, "cluster_name": f.cluster, "status": sc["status"],
            "batch": {"batch_requests": [{"order_id": b["order_id"], "request_id": b["request_id"],
                                          "request_status": b["request_status"], "request_type": b["type"],
                                          "request_uri": b["uri"]} for b in sc["batches"]],
                      "batch_settings": {"batch_separation_in_seconds": sc["settings"].get("batch_separation_in_seconds"),
                                         "task_failure_tolerance_limit": tolerance}}}}

    # --- credentials (CredentialResourceProvider) ------------------------------------------------------
    def get_credential(self, rest, query, body):
        cred = self.f.credentials.get(rest[1])
        if cred is None:
            raise not_found("Credential not found, Credential/alias=%s" % rest[1])
        # The key is never returned.
        return 200, {"Credential": {"alias": rest[1], "cluster_name": self.f.cluster, "type": cred["type"]}}

    def post_credential(self, rest, query, body):
        cred = (body or {}).get("Credential") or {}
        if not cred.get("principal"):
            raise HttpError(400, "Property Credential/principal must be provided")
        if cred.get("type") not in ("persisted", "temporary"):
            raise HttpError(400, "Property Credential/type must be either 'persisted' or 'temporary'")
        if rest[1] in self.f.credentials:
            raise HttpError(409, "A credential with the alias of %s already exists" % rest[1])
        self.f.credentials[rest[1]] = {"principal": cred["principal"], "key": cred.get("key"), "type": cred["type"]}
        return 201, None

    def _request(self, rest):
        req = self.f.requests.get(int(rest[1]))
        if req is None:
            raise not_found("Request resource doesn't exist: %s" % rest[1])
        return req

    def get_request(self, rest, query, body):
        req = self._request(rest)
        self.f._advance(req)
        return 200, self.f.request_json(req)

    def get_tasks(self, rest, query, body):
        req = self._request(rest)
        return 200, {"items": [{"Tasks": dict(t)} for t in req.tasks]}

    def get_alerts(self, rest, query, body):
        terms = _predicate(query)
        return 200, {"items": [a for a in self.f.alerts if _matches(a["Alert"], "Alert", terms)]}


# AlertDefinitionResourceProvider.PROPERTY_IDS (without the category).
ALERT_DEFINITION_FIELDS = ("cluster_name", "service_name", "component_name", "id", "name", "label", "description",
                           "help_url", "interval", "enabled", "scope", "ignore_host", "repeat_tolerance",
                           "repeat_tolerance_enabled", "source")


def _get_alert_definitions(routes, rest, query, body):
    terms = _predicate(query)
    return 200, {"items": [{"AlertDefinition": copy.deepcopy(d)} for _, d in sorted(routes.f.alert_definitions.items())
                           if _matches(d, "AlertDefinition", terms)]}


def _put_alert_definition(routes, rest, query, body):
    """AlertDefinitionResourceProvider.updateResources -> populateEntity: only the fields given change; a
    given source REPLACES the stored one as a whole (the flattened AlertDefinition/source/* properties are
    rebuilt into a new JSON object), and AlertDefinition/source/type sets the source type."""
    f = routes.f
    try:
        did = int(rest[1])
    except ValueError:
        raise HttpError(400, "For input string: \"%s\"" % rest[1])
    definition = f.alert_definitions.get(did)
    if definition is None:
        raise not_found("AlertDefinition id=%s" % did)
    fields = (body or {}).get("AlertDefinition") if isinstance(body, dict) else None
    if not isinstance(fields, dict):
        raise HttpError(400, "Invalid Request: Malformed Request Body.")
    unknown = sorted("AlertDefinition/" + k for k in fields if k not in ALERT_DEFINITION_FIELDS)
    unknown += sorted(k for k in body if k != "AlertDefinition")
    if unknown:
        raise HttpError(400, "The properties [%s] specified in the request or predicate are not supported for the "
                             "resource type AlertDefinition." % ", ".join(unknown))
    for key, value in fields.items():
        if key in ("id", "cluster_name"):
            continue
        if key == "source":
            if not isinstance(value, dict) or not value:
                raise HttpError(400, "Source must be specified")
            definition["source"] = _source_as_stored(value)
            continue
        if key == "interval":
            value = int(value)
        definition[key] = value
    return 200, None


def _request_text(value):
    """A JSON scalar as Ambari's request body parser hands it on: a string (Map<String, String>)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return value


def _source_as_stored(value, in_list=False):
    """AlertDefinitionResourceProvider.populateEntity rebuilds the source from the request's flattened
    properties, all strings: a value under a list (the SCRIPT parameters) stays the string ("value": "25000",
    seen on the real server after a PUT of 25000); a value of an object that is a number (NumberUtils.isNumber)
    becomes a number again, any other stays a string ("true")."""
    if isinstance(value, dict):
        return dict((k, _source_as_stored(v, in_list)) for k, v in value.items())
    if isinstance(value, list):
        return [_source_as_stored(v, True) for v in value]
    if value is None:
        return None
    text = _request_text(value)
    if in_list or not isinstance(text, str):
        return text
    if re.match(r"^-?\d+$", text):
        return int(text)
    if re.match(r"^-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$", text):
        return float(text)
    return text


Routes.get_alert_definitions = _get_alert_definitions
Routes.put_alert_definition = _put_alert_definition


def free_port_refused(port):
    """True when nothing listens on port (a connection is refused)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return False
    except OSError:
        return True
