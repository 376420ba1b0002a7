"""The one Ambari client: HTTP with retries (`ambari_api`), who logs in (`credentials`), requests sent once
(`ambari_requests`), what is read back (`ambari_state`) and waiting for requests (`waiter`)."""
