"""What the judge does: the only API that the command line, the mail poller and the
scheduler call.  Services never send mail: they write to the outbox."""
