"""Names Ambari knows this service by. Stable across mpack upgrades: never rename."""

SERVICE = "KAFKA_MIRRORMAKER2"
SERVICE_DISPLAY_NAME = "MirrorMaker 2"
SERVICE_VERSION = "1.0.0"
COMPONENT = "MIRRORMAKER2_DRIVER"
COMPONENT_DISPLAY_NAME = "MirrorMaker 2 Driver"
SERVICE_CHECK_ROLE = SERVICE + "_SERVICE_CHECK"
ADVISOR_CLASS = SERVICE + SERVICE_VERSION.replace(".", "") + "ServiceAdvisor"

# Config types owned by the service (all prefixed so they cannot clash with a stack service).
ENV = "kafka-mm2-env"
CLUSTERS = "kafka-mm2-clusters"
REPLICATION = "kafka-mm2-replication"
TOPOLOGY = "kafka-mm2-topology"
DRIVER = "kafka-mm2-driver"
LOG4J = "kafka-mm2-log4j"
CUSTOM = "kafka-mm2-custom"
LIVE = "kafka-mm2-live"   # connect mode's live flow settings: never "Restart Required" (see NO_RESTART_CONFIG_TYPES)
OWN_CONFIG_TYPES = (ENV, CLUSTERS, REPLICATION, TOPOLOGY, DRIVER, LOG4J, CUSTOM, LIVE)

# Foreign config types the scripts or the advisor read.
FOREIGN_CONFIG_TYPES = (
    "cluster-env",
    "kafka-broker",
    "kafka-env",
    "ranger-kafka-plugin-properties",
    "kerberos-env",
)
# Read but NOT in metainfo.xml's <configuration-dependencies>: Ambari flags a service "Restart
# Required" on any save of a listed type (ConfigHelper.calculateIsStaleConfigs looks at the type, not
# the keys), and cluster-env is saved for unrelated reasons (Service Auto Start, alert tolerance). Every
# command still carries cluster-env: agents get all of the cluster's desired configs
# (ConfigHelper.getHostActualConfigs), whatever a service declares.
# kafka-mm2-live is our own type left out on purpose: a running connect-mode driver applies it without a restart
# (APPLY_LIVE_CHANGES), and the per-type rule is the only lever both server lines have (docs/operate.md).
NO_RESTART_CONFIG_TYPES = ("cluster-env", LIVE)
# The config types whose change makes Ambari ask for a driver restart (<configuration-dependencies>).
RESTART_CONFIG_TYPES = tuple(t for t in OWN_CONFIG_TYPES + FOREIGN_CONFIG_TYPES if t not in NO_RESTART_CONFIG_TYPES)

# Custom commands (MASTER component: they show up in Service Actions).
CMD_REPLICATION_STATUS = "REPLICATION_STATUS"
CMD_EXPORT_OFFSETS = "EXPORT_TRANSLATED_OFFSETS"
CMD_VERIFY = "VERIFY_REPLICATION"
CMD_CUTOVER_CHECK = "CUTOVER_CHECK"       # the cut-over readiness gate (mm2_cutover)
CMD_FAILOVER_GROUPS = "FAILOVER_GROUPS"   # apply translated offsets to idle groups on a flow's target
CMD_DRILL = "DRILL"                       # failover rehearsal on shadow groups
CMD_FLOW_SEED = "FLOW_SEED"               # where a flow's source connector starts (failback, identity policy)
CMD_FLOW_PAUSE = "FLOW_PAUSE"       # connect mode: one flow's connectors (commandParams/flow = "A->B")
CMD_FLOW_RESUME = "FLOW_RESUME"
CMD_FLOW_STOP = "FLOW_STOP"
CMD_APPLY_LIVE = "APPLY_LIVE_CHANGES"  # connect mode: kafka-mm2-live (and any Refresh-able change) applied live
FLOW_COMMANDS = {"pause": CMD_FLOW_PAUSE, "resume": CMD_FLOW_RESUME, "stop": CMD_FLOW_STOP, "seed": CMD_FLOW_SEED}
CUSTOM_COMMANDS = (CMD_REPLICATION_STATUS, CMD_EXPORT_OFFSETS, CMD_VERIFY, CMD_CUTOVER_CHECK, CMD_FAILOVER_GROUPS,
                   CMD_DRILL, CMD_FLOW_SEED, CMD_FLOW_PAUSE, CMD_FLOW_RESUME, CMD_FLOW_STOP, CMD_APPLY_LIVE)
# Custom commands that need input the web UI cannot give (a flow, consumer groups, offsets): <hidden>true</hidden>
# in metainfo.xml keeps them out of the Actions menus (Ambari's API lists only the others in custom_commands);
# they stay runnable through REST and mm2-ambari (flow, failover, failback, drill). The others take safe defaults.
MENU_HIDDEN_COMMANDS = (CMD_FAILOVER_GROUPS, CMD_DRILL, CMD_FLOW_SEED, CMD_FLOW_PAUSE, CMD_FLOW_RESUME, CMD_FLOW_STOP)

# Stack service and component this one sits next to.
KAFKA_SERVICE = "KAFKA"
KAFKA_BROKER = "KAFKA_BROKER"

# Java class whose presence in a process command line proves the process is MM2.
MM2_MAIN_CLASS = "org.apache.kafka.connect.mirror.MirrorMaker"

# Topic the service check writes a marker into on every source cluster (created at start when
# missing, so MM2 discovers it with its first topic scan) and expects mirrored on the target.
SERVICE_CHECK_TOPIC = "ambari-mm2-service-check"
