"""What the service advisor recommends, as pure functions of plain values."""
