"""The long-running process at the edge: bootstrap (settings, database, renderer,
transport), ``judge serve`` with its worker processes, the deadline scheduler, and the
sender.  Everything below it (services, mail, db, engine) is called from here; nothing below
imports it."""
