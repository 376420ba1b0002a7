"""Service check of KAFKA_MIRRORMAKER2: a unique marker record produced to a check topic on
each flow's source cluster must arrive in the mirrored topic on its target, within the time
the check has. Uses the installation's Kafka command-line tools as the MM2 user."""
from resource_management.libraries.functions.default import default
from resource_management.libraries.script.script import Script

# Ambari kills the check after commandParams/command_timeout; keep time to report why.
MARGIN_SECONDS = 30


class MirrorMaker2ServiceCheck(Script):
    def service_check(self, env):
        import params
        import mm2_commands
        env.set_params(params)
        timeout = int(default("/commandParams/command_timeout", 300) or 300)
        mm2_commands.service_check(params, max(10, timeout - MARGIN_SECONDS))


if __name__ == "__main__":
    MirrorMaker2ServiceCheck().execute()
