"""The errors of the service layer."""


class ServiceError(ValueError):
    """A request the judge cannot carry out; the message says why and what to do.

    The message is shown to whoever asked (a player or game master by mail, an operator on
    the command line), so it names what was asked and says what would be right.
    """
