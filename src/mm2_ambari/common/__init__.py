"""What every room of mm2-ambari shares: errors and exit codes (`errors`), secrets kept out of output (`masking`),
operator input checked before anything runs (`inputs`), the shared command-line options (`cli_args`) and the
--help text (`help_text`)."""
