"""Stand-in for Ambari's scripts/stack_advisor.py, run in a fresh interpreter by the tests.

Usage: python run_stack_advisor.py STACKS_DIR ACTION hosts.json services.json
Like the real entry point it loads STACKS_DIR/stack_advisor.py as module 'stack_advisor', runs the
action with DefaultStackAdvisor and writes the answer next to hosts.json (configurations.json,
configurations-validation.json, component-layout-validation.json). It also writes
runner-info.json: where mm2_core was imported from and whether package/scripts stayed on sys.path.
"""
import json
import os
import sys

from source_loader import load_source  # this script's directory is sys.path[0]

OUTPUT = {
    "recommend-configurations": ("recommendConfigurations", "configurations.json"),
    "validate-configurations": ("validateConfigurations", "configurations-validation.json"),
    "validate-component-layout": ("validateComponentLayout", "component-layout-validation.json"),
}


def main(argv):
    stacks_dir, action, hosts_file, services_file = argv[1:5]
    with open(hosts_file) as fh:
        hosts = json.load(fh)
    with open(services_file) as fh:
        services = json.load(fh)
    configuration = os.path.join(stacks_dir, "ambari_configuration.py")
    if os.path.isfile(configuration):
        load_source("ambari_configuration", configuration)
    module = load_source("stack_advisor", os.path.join(stacks_dir, "stack_advisor.py"))
    method, output = OUTPUT[action]
    result = getattr(module.DefaultStackAdvisor(), method)(services, hosts)
    out_dir = os.path.dirname(os.path.abspath(hosts_file))
    with open(os.path.join(out_dir, output), "w") as fh:
        json.dump(result, fh, indent=1, sort_keys=True)
    core = sys.modules.get("mm2_core")
    with open(os.path.join(out_dir, "runner-info.json"), "w") as fh:
        json.dump({"mm2_core": getattr(core, "__file__", None),
                   "scripts_on_path": [p for p in sys.path if p.replace(os.sep, "/").endswith("package/scripts")]},
                  fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
