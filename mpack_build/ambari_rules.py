"""What Ambari accepts in an mpack, read from the Ambari sources (2.7.8 and trunk)."""

# setupMpacks.py artifact types; anything else is logged as "Unknown artifact" and ignored.
ARTIFACT_TYPES = ("service-definitions", "stack-addon-service-definitions",
                  "stack-definitions", "extension-definitions")
MPACK_KEYS = ("type", "name", "version", "description", "prerequisites", "artifacts", "hooks")
PREREQUISITE_KEYS = ("min_ambari_version", "max_ambari_version", "min_stack_versions")
HOOK_NAMES = ("before-install", "after-install", "before-upgrade", "after-upgrade")

# JAXB element names of ServiceInfo / ComponentInfo: unknown elements are silently ignored by
# the server, so a typo would disable a feature without any error.
SERVICE_ELEMENTS = frozenset("""
name displayName version comment serviceType selection maintainer service_advisor_type components
deleted supportDeleteViaUI configuration-dependencies excluded-config-types monitoringService
restartRequiredAfterChange restartRequiredAfterRackChange extends widgetsFileName metricsFileName
credential-store kerberosEnabledTest sso ldap properties osSpecifics configuration-dir themes-dir
themes quickLinksConfigurations-dir quickLinksConfigurations commandScript customCommands
requiredServices rollingRestartSupported""".split())
COMPONENT_ELEMENTS = frozenset("""
name displayName category deleted cardinality versionAdvertised decommissionAllowed
unlimitedKeyJCERequired rollingRestartSupported commandScript logs clientsToUpdateConfigs
configFiles customCommands bulkCommands dependencies configuration-dependencies auto-deploy
recovery_enabled reassignAllowed timelineAppid customFolder componentType""".split())
CUSTOM_COMMAND_ELEMENTS = frozenset(["name", "opsDisplayName", "commandScript", "background", "hidden"])
COMMAND_SCRIPT_ELEMENTS = frozenset(["script", "scriptType", "timeout"])

# PropertyInfo / ValueAttributesInfo
PROPERTY_ELEMENTS = frozenset("""
name value description display-name filename deleted on-ambari-upgrade on-stack-upgrade
property-type value-attributes depends-on used-by supported-refresh-commands final""".split())
VALUE_ATTRIBUTE_ELEMENTS = frozenset("""
type maximum minimum unit delete visible overridable copy empty-value-valid ui-only-property
read-only editable-only-at-install show-property-name increment-step entries hidden
entries_editable selection-cardinality property-file-name property-file-type user-groups
keystore""".split())
PROPERTY_TYPES = frozenset("""PASSWORD USER UID GROUP GID TEXT ADDITIONAL_USER_PROPERTY
NOT_MANAGED_HDFS_PATH VALUE_FROM_PROPERTY_FILE KERBEROS_PRINCIPAL""".split())
VALUE_TYPES = frozenset("""string int long float boolean password value-list directory directories
content user multiLine""".split())
CONFIGURATION_ATTRIBUTES = frozenset(["supports_final", "supports_adding_forbidden", "supports_do_not_extend"])
TIME_UNITS = ("milliseconds", "seconds", "minutes", "hours", "days")

# ambari-web enhanced_configs.js widgetTypeMap (2.7.8 and trunk) and the value types each suits. A toggle
# (bootstrap-switch, its own jQuery plugin) takes a boolean or any two-entry value-list: it reads the two states
# from value-attributes <entries> (toggle_config_widget_view.js); a text-field takes a longer value-list.
WIDGET_VALUE_TYPES = {
    "toggle": ("boolean", "value-list"), "checkbox": ("boolean",),
    "combo": ("value-list",), "radio-buttons": ("value-list",), "list": ("value-list",),
    "password": ("password",),
    "slider": ("int", "long", "float"),
    "time-interval-spinner": ("int", "long"),
    "directory": ("directory", "string"), "directories": ("directories", "directory"),
    "text-field": ("string", "int", "long", "float", "user", "directory", "value-list"),
    "text-area": ("content", "string", "multiLine"),
    "label": None, "test-db-connection": None,
}
# Widgets an operator cannot use on one of the web UI lines, read from ambari-web's sources
# (../shared/ambari-src/trunk/ambari-web; the 2.7 line's widget views are the same code on Bootstrap 3):
DEAD_WIDGETS = {
    "time-interval-spinner": "each of its number fields is 30 px wide (widgets.less .spinner-input input) inside "
                             "a form-control's padding, so a value of two digits shows as one",
    "combo": "its caret is a Bootstrap 3 data-toggle=\"dropdown\" button, and Ambari 3.0's web UI runs Bootstrap "
             "5 (data-bs-toggle): the menu never opens (combo_config_widget.hbs)",
    "list": "its button reads data-bs-toggle==\"dropdown\" in Ambari 3.0, a typo that opens no menu "
            "(list_config_widget.hbs)",
    "radio-buttons": "radio_button_config_widget_view.js takes each entry as a plain string and its labels from "
                     "entry_labels, but Ambari's API sends entries as {value, label, description}: no labels, and a "
                     "click stores \"[object Object]\"",
}
ROLE_COMMANDS = frozenset("""INSTALL UNINSTALL START RESTART STOP SERVICE_CHECK EXECUTE ABORT UPGRADE
CUSTOM_COMMAND ACTIONEXECUTE""".split())
RCO_SECTIONS = ("general_deps", "optional_glusterfs", "optional_no_glusterfs", "namenode_optional_ha",
                "resourcemanager_optional_ha", "host_ordered_upgrade")
ALERT_SOURCE_TYPES = frozenset("METRIC SCRIPT PORT AGGREGATE PERCENT WEB RECOVERY SERVER AMS".split())
KERBEROS_VARIABLES = frozenset(["realm", "keytab_dir", "cluster_name", "principal_suffix", "hostname",
                                "principal_primary", "principal_name", "principal_type"])
