// Package storetest is the conformance suite of state.Store: one set of
// checks that every store — the memory and file stores (packages memstore
// and filestore), a backendstore.New over a Backend, the PostgreSQL store
// — runs against itself, so that they all keep the same promises.
//
// A store's test hands Run a Harness that opens clients of the store (each
// one as a separate process would see the same storage) and reaches under
// it to read and damage what it keeps:
//
//	func TestConformance(t *testing.T) {
//		root := t.TempDir()
//		storetest.Run(t, storetest.Harness{
//			Open: func(t *testing.T, opts ...state.Option) state.Store {
//				s, err := filestore.New(root, opts...)
//				if err != nil {
//					t.Fatal(err)
//				}
//				return s
//			},
//			Snapshot: ..., SetSnapshot: ..., Journal: ..., SetJournal: ...,
//		})
//	}
//
// The checks cover loading a stack that does not exist; saving and
// loading, secrets included (encrypted where they are kept, refused with
// a wrong passphrase); integrity checks on save; snapshots and journal
// records edited after they were written, or stripped of their MAC
// (refused on load); replaying the journal after a simulated crash, with
// steps that never ended coming back as pending operations; a torn final
// journal entry (ignored) and damage before it (an error); compaction in
// the middle of an operation;
// concurrent appends; lock contention; lease expiry and fencing (for
// stores whose locks expire); listing and removing stacks; and two
// projects' stacks of one name, which must share nothing.
package storetest
