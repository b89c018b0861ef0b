package procgroup

// StoppedError is Run's error when ctx ended before the leader started
// (Err is ctx's cause), or while it still ran: the group was sent SIGTERM,
// and the leader's exit (Err, what cmd.Wait returned) is the signal's
// doing or the outcome of its handling it. A leader that had exited before
// ctx ended reports its own exit, as an *exec.ExitError, even if Run then
// ended what it left holding its output open. Where the leader's exit
// cannot be seen without reaping it (unix systems other than Linux),
// every error after ctx ended is a StoppedError.
type StoppedError struct {
	Err error
}

func (e *StoppedError) Error() string { return "stopped: " + e.Err.Error() }

// Unwrap returns Err.
func (e *StoppedError) Unwrap() error { return e.Err }
