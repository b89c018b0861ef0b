// Package dag walks a graph of work that grows while it is walked:
// the deployment's steps, each a vertex that needs the vertices before it.
//
// The package is generic. A Walker knows nothing of steps, providers or
// state: a Vertex is an ID, the IDs of the vertices it needs, and a value.
// The walker keeps the value in the vertex's own storage and hands the
// host's Visit a pointer to it; the host learns how each vertex ended
// through Options.Ended, given the same pointer, so that a visit can leave
// there what it found.
//
// # Model
//
// The host adds vertices with Add as it learns of them; Add returns at
// once. A vertex is visited once every vertex it needs has ended: it waits
// for a need still being visited, and is visited at once when its needs
// ended long before (the common case for a resource that needs its
// provider and its parent). Different vertices are visited concurrently,
// at most Options.Parallelism at a time (zero: no bound). Its edges are
// the only ordering the walker knows: a vertex's Needs must have succeeded
// (a failed or skipped need skips it), and the vertices it comes After must
// have ended, however. So whatever must happen in order is an edge: a
// resource after what it depends on, a delete after the deletes of its
// dependents (Needs), two steps on one resource (After).
//
// After the last Add, Wait closes the walker, waits for every vertex to
// end and returns the failures.
//
// # Failures
//
// A vertex whose Visit returns an error has failed. Every vertex that
// needs it, directly or through others, is skipped rather than visited,
// and told so through Ended with a *SkippedError naming the need and the
// root cause; a skip is a consequence, not a new error, and Wait does not
// report it, so the user sees the one error that mattered.
//
// By default the first failure also stops the walk, in the manner of
// errgroup but without cancelling anything in flight: visits already
// running finish with their context intact, and every vertex not started
// yet — including those added later — is skipped. With
// Options.ContinueOnError only what needs the failed vertex is skipped;
// everything else is visited, and Wait returns all the failures together.
//
// # Cancellation and panics
//
// Each vertex is visited under the context given to Add. Once it is
// cancelled, the vertices not started yet are skipped with context.Cause
// as the reason, and Wait's error ends with a *CanceledError wrapping that
// cause. A panic in Visit or Ended is recovered and becomes the vertex's
// failure, as a *PanicError.
//
// # Waiting without a goroutine
//
// A visit that waits for something that calls back — a durable journal
// write — returns Park instead of blocking. The walker sets the vertex
// aside: it holds no worker and does not count toward Parallelism. Once
// the callback resumes it, a worker visits it again with the same value,
// which holds how far the visit got; resumed vertices go before vertices
// never visited, so that what has started ends first, and a resumed
// vertex is never skipped, since its visit has begun. Finish runs such a
// visit outside any walker, on the calling goroutine.
//
// # Goroutines
//
// The Walker owns every goroutine it starts; all of them have finished
// when Wait returns. Add never visits a vertex nor calls Ended on its
// caller's goroutine, so a host may call it while holding a lock its
// Visit or Ended takes, and may call it from Ended. A worker goroutine
// that finishes a vertex goes on with a vertex that was waiting for it,
// so that a chain of needs is walked on one goroutine.
//
// # Cost
//
// A vertex costs one allocation, its node, which holds the vertex's Value
// in place, so that a host whose data for a vertex is its Value (the
// engine's step and the outcome it builds) allocates nothing more for it.
// What few vertices have — vertices that come After them, a failure — is
// kept apart, allocated where it occurs. Once a vertex has ended well the walker
// keeps only its ID's entry in an index (no entry for ID zero), for the
// vertices added later that need it.
//
// # Workers
//
// Workers are started as vertices become ready and as visits begin, and
// a worker stops when nothing waits for it. How many there are depends
// on what the walker can know of its visits.
//
// By default any visit may block, so a worker about to visit starts
// another when ready vertices wait and no other worker is idle to take
// them. Visits that block therefore each get a worker, started promptly by
// a worker rather than by the goroutine that calls Add. But a visit held
// up by the scheduler or the garbage collector looks the same as one that
// blocks: when many vertices are ready at once, quick visits can be
// walked by hundreds of workers.
//
// With Options.DeclaredBlocking the visits say when they block, by
// calling Blocking (the engine's steps do, around their provider calls
// and hooks). The walker then starts a worker only while fewer than
// GOMAXPROCS are active, and a worker blocked in what its visit declared
// does not count as active: a declaration that leaves vertices waiting
// with no active worker to take them starts a worker for them. So quick
// visits are walked by at most GOMAXPROCS workers however many vertices
// are ready, or resumed, at once, and each visit blocked in a provider
// call holds a worker of its own, within Options.Parallelism. A visit
// that blocks without declaring it holds one of the active places until
// it returns.
package dag
