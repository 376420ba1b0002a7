"""mm2-verify: the off-cluster side of the replication verification (CLI, synthetic data, naive baseline).

The Spark job itself is `mm2_verify_job.job` (package/scripts/mm2_verify_job/job.py), shipped in
the mpack so the Ambari agent can spark-submit the same file.
"""
