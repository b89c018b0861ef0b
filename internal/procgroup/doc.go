// Package procgroup runs a child process as the leader of a process group
// of its own, so that the child and everything it starts end together.
//
// Plugins and programs start children of their own: a shell script that
// runs node, a node process that forks workers, "go run" that runs the
// program it built. Signalling the child alone leaves those running, and
// they outlive the engine. A Process signals its whole group instead:
//
//   - Stop sends SIGTERM to the group, and SIGKILL once the grace period
//     has passed (or its context ended) with anything of the group left.
//   - When the leader exits on its own, what it left running in its group
//     gets the same: SIGTERM, then SIGKILL after the grace period.
//
// Run is for a command that is run to its end rather than kept running
// (the built-in command provider's): it waits for the leader as
// exec.Cmd.Run does, ends the group when its context ends, and leaves
// alone what the leader left running when it exited on its own (a daemon
// started on purpose). While the leader runs, its group ends with the
// host just as a Process's does.
//
// Done is closed only when the leader has been reaped and no other member
// of its group runs. On Linux the leader is left unreaped (a zombie) until
// then, so that the group's ID, which is the leader's process ID, cannot
// be taken by an unrelated process while the group is being signalled; on
// other systems the leader is reaped first, with that small risk.
//
// # When the host dies
//
// A host killed with SIGKILL (or by the OOM killer) ends nothing itself.
// On Linux the group ends all the same:
//
//   - The leader gets SIGKILL as its parent-death signal
//     (PR_SET_PDEATHSIG). Linux sends it when the thread that started the
//     leader exits, not the process: Start therefore starts the leader
//     from a goroutine locked to its OS thread, which keeps the thread
//     until the leader has been reaped.
//   - The leader's children and grandchildren (node's workers, the binary
//     "go run" built) get no such signal. A watchdog does it for them: a
//     /bin/sh process in the group whose standard input is a pipe that
//     only the host holds open. When the host dies, the pipe reaches its
//     end and the watchdog sends SIGKILL to the whole group, itself
//     included. It ignores SIGTERM, SIGINT and SIGHUP, so that stopping
//     the group gracefully does not take it first; the Process ends it
//     once the rest of the group has ended, and does not count it as a
//     member that runs. Without /bin/sh there is no watchdog, and only
//     the leader ends with the host.
//
// On other systems nothing ends a group whose host was killed: what the
// host started runs on, unless it notices on its own (a plugin whose
// connection to the engine breaks, for instance).
//
// A child that moves itself out of the group (a daemon calling setsid)
// escapes; only a container or cgroup can follow it.
//
// # Without process groups
//
// On systems that are not unix (Windows) there are no process groups and
// no signals to end one gracefully: Stop and Kill end the leader at once,
// and when ctx ends Run does the same, whatever the grace period; what the
// leader started runs on.
package procgroup

import "time"

// DefaultGrace is the grace period of a Process started with none.
const DefaultGrace = 5 * time.Second
