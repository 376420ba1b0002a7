from resource_management.core.resources.system import Execute
from resource_management.libraries.functions.format import format

__all__ = ["show_logs"]

LAST_LINES_DEFAULT_OUTPUT_COUNT = 40


def show_logs(log_dir, user, lines_count=LAST_LINES_DEFAULT_OUTPUT_COUNT, mask="*"):
    """Tail the matching files of log_dir into the command output (never fails)."""
    Execute(format("find {log_dir} -maxdepth 1 -type f -name '{mask}' -exec echo '==> {{}} <==' \\; "
                   "-exec tail -n {lines_count} {{}} \\;"),
            logoutput=True,
            ignore_failures=True,
            user=user)
