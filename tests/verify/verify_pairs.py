"""Generated mirrored dump pairs and how the tests run the job on them."""
import io

from mm2_verify import synth
from mm2_verify_job import job

LAYOUT = synth.Layout(records=3000, topics=2, partitions=2, keys=10)
FLOW = ["--flow", "primary->backup"]
COUNTS = ("source_records", "target_records", "matched", "missing", "pending", "duplicates", "extra",
          "order_violations")


class Pair(object):
    """A generated source/target dump pair and how to verify it."""

    def __init__(self, spark, tmp_path, faults, layout=LAYOUT, fmt="parquet"):
        self.spark, self.tmp_path, self.faults, self.layout, self.fmt = spark, tmp_path, faults, layout, fmt
        self.source, self.target = str(tmp_path / "source"), str(tmp_path / "target")
        self.expected = synth.write_pair(spark, layout, faults, self.source, self.target, fmt)

    def verify(self, *extra, **kw):
        """(exit code, report, summary table) of the job run on this pair."""
        window = kw.get("pending_window", "%dms" % (self.faults.tail * self.layout.step_ms))
        argv = FLOW + ["--source-dump", self.source, "--target-dump", self.target,
                       "--pending-window", window, "--report", str(self.tmp_path / "report.json")]
        if self.fmt == "json":
            argv += ["--source-dump-format", "json", "--target-dump-format", "json"]
        if self.layout.policy == "identity":
            argv += ["--policy", "identity"]
        out = io.StringIO()
        code, report = job.run(argv + list(extra), spark=self.spark, out=out)
        return code, report, out.getvalue()


def totals(report):
    return dict((k, report["totals"][k]) for k in COUNTS)
