"""What the engine refuses from its callers (the Slurm verbs and submissions), as opposed to what
it refuses from a policy (:class:`~emulator.api.policy.PolicyError`): a caller's mistake is the
user's, to be told in Slurm's words, not a bug in a plug-in."""


class SubmitError(ValueError):
    """A submission the engine cannot accept (a job id already in use)."""


class JobStateError(ValueError):
    """A job-control request the job's state does not allow; the message is Slurm's."""
