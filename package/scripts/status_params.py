"""What STATUS needs, and nothing more: status runs every minute on every driver host, so it
reads two paths from the command and never starts a JVM, runs kinit or touches the network."""
import os

from resource_management.libraries.functions.default import default

from mm2_core.config import names, schema
from mm2_core.formats.text import to_text
from mm2_core.host import process


def _env(name):
    return to_text(default("/configurations/%s/%s" % (names.ENV, name), schema.ENV[name].default))


mm2_pid_dir = _env("mm2_pid_dir")
mm2_conf_dir = _env("mm2_conf_dir")
mm2_pid_file = os.path.join(mm2_pid_dir, process.PID_FILE)
mm2_properties_file = os.path.join(mm2_conf_dir, process.PROPERTIES_FILE)
