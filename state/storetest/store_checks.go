package storetest

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// loadMissingStack: a stack that was never saved loads as an empty
// snapshot, and neither loading it nor locking and unlocking it leaves a
// trace.
func (s *suite) loadMissingStack(t *testing.T) {
	st := s.open(t)
	snap, err := st.Load(bg(), id("missing"))
	if err != nil {
		t.Fatalf("Load of a missing stack: %v", err)
	}
	if len(snap.Resources) != 0 || len(snap.PendingOperations) != 0 || snap.Manifest.Version != state.FormatVersion {
		t.Errorf("Load of a missing stack = %+v; want an empty snapshot of format %d", snap, state.FormatVersion)
	}
	l, err := st.Lock(bg(), id("never-saved"), "preview")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(bg()); err != nil {
		t.Fatal(err)
	}
	for _, stack := range []state.StackID{id("missing"), id("never-saved")} {
		if s.h.Snapshot(t, stack) != nil || s.h.Journal(t, stack) != nil {
			t.Errorf("stack %q: the store wrote something for a stack that was never saved", stack)
		}
	}
	list, err := st.List(bg())
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(list, id("missing")) || slices.Contains(list, id("never-saved")) {
		t.Errorf("List = %v; it names a stack that was never saved", list)
	}
}

// saveLoadRoundTrip: what one client saves, another loads, secrets
// included; a second Save replaces the first.
func (s *suite) saveLoadRoundTrip(t *testing.T) {
	stack := id("round-trip")
	st := s.open(t)
	in := chain(3)
	in.Resources[1].Outputs["password"] = resource.NewSecret(resource.NewString("s3cr3t-value"))
	in.Resources[2].Inputs["nested"] = resource.NewObject(resource.PropertyMap{
		"list": resource.NewArray(resource.NewBool(true), resource.NewNull(), resource.NewNumber(1.5)),
	})
	before := time.Now().Add(-time.Minute)
	mustSave(t, st, stack, in)
	out := mustLoad(t, s.open(t), stack)
	if diff := cmp.Diff(in, out, snapshotOpts); diff != "" {
		t.Errorf("Load by another client (-saved +loaded):\n%s", diff)
	}
	if out.Secrets == nil || out.Secrets.Type != secrets.PassphraseType {
		t.Errorf("Secrets = %+v; want the state of a passphrase manager", out.Secrets)
	}
	if m := out.Manifest; m.Version != state.FormatVersion || m.Time.Before(before) || m.Time.After(time.Now().Add(time.Minute)) {
		t.Errorf("Manifest = %+v; want format %d, written just now", m, state.FormatVersion)
	}
	smaller := chain(1)
	mustSave(t, st, stack, smaller)
	if got := mustLoad(t, s.open(t), stack); !cmp.Equal(smaller, got, snapshotOpts) {
		t.Errorf("Load after a second Save = %v; want %v", names(got), names(smaller))
	}
}

// saveRefusesBrokenSnapshot: a snapshot that breaks an integrity rule is
// never written.
func (s *suite) saveRefusesBrokenSnapshot(t *testing.T) {
	stack := id("broken-save")
	st := s.open(t)
	mustSave(t, st, stack, chain(2))
	before := s.h.Snapshot(t, stack)
	bad := chain(2)
	bad.Resources[0], bad.Resources[1] = bad.Resources[1], bad.Resources[0]
	var ie *state.IntegrityError
	if err := st.Save(bg(), stack, bad); !errors.As(err, &ie) || ie.Rule != state.RuleProviderUnresolved {
		t.Fatalf("Save of a thing before its provider = %v; want an *IntegrityError (%s)", err, state.RuleProviderUnresolved)
	}
	if after := s.h.Snapshot(t, stack); !bytes.Equal(before, after) {
		t.Error("a refused Save changed the stored snapshot")
	}
	if got := mustLoad(t, st, stack); len(got.Resources) != 3 {
		t.Errorf("Load after a refused Save = %v", names(got))
	}
}

// loadRefusesDamagedSnapshot: a snapshot in a newer format, one edited
// after it was written (its MAC no longer matches), one whose MAC was
// removed, or one cut short fails to load, and loading it writes nothing.
func (s *suite) loadRefusesDamagedSnapshot(t *testing.T) {
	stack := id("damaged-load")
	st := s.open(t)
	mustSave(t, st, stack, chain(2))
	good := s.h.Snapshot(t, stack)
	check := func(what string, data []byte, wantErr func(error) bool) {
		t.Helper()
		s.h.SetSnapshot(t, stack, data)
		if _, err := s.open(t).Load(bg(), stack); !wantErr(err) {
			t.Errorf("Load of %s = %v", what, err)
		}
		if after := s.h.Snapshot(t, stack); !bytes.Equal(after, data) {
			t.Errorf("Load of %s changed the stored snapshot", what)
		}
	}
	newer := bytes.Replace(good, []byte(`"version":`+strconv.Itoa(state.FormatVersion)), []byte(`"version":99`), 1)
	check("a newer format", newer, func(err error) bool {
		var fv *state.FormatVersionError
		return errors.As(err, &fv) && fv.Found == 99
	})
	refused := func(missing bool) func(error) bool {
		return func(err error) bool {
			var ae *state.AuthenticationError
			return errors.As(err, &ae) && ae.Stack == stack && ae.File == "snapshot" && ae.Missing == missing
		}
	}
	check("a snapshot with two resources swapped", swapFirstResources(t, good), refused(false))
	check("a snapshot with a plain value edited", replaceOnce(t, good, `"arn:t0"`, `"arn:t9"`), refused(false))
	check("a snapshot whose MAC was removed", removeMAC(t, good), refused(true))
	check("a snapshot cut short", good[:len(good)/2], func(err error) bool { return err != nil })
	s.h.SetSnapshot(t, stack, good)
	if got := mustLoad(t, st, stack); len(got.Resources) != 3 {
		t.Errorf("Load of the restored snapshot = %v", names(got))
	}
}

// replaceOnce replaces the first old in data by new.
func replaceOnce(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("storetest: no %s in the stored snapshot:\n%s", old, data)
	}
	return bytes.Replace(data, []byte(old), []byte(new), 1)
}

// removeMAC removes the "mac" member that ends a stored snapshot
// (state/FORMAT.md), leaving valid JSON.
func removeMAC(t *testing.T, data []byte) []byte {
	t.Helper()
	i := bytes.LastIndex(data, []byte(`,"mac":"`))
	if i < 0 {
		t.Fatalf("storetest: the stored snapshot has no \"mac\" member:\n%s", data)
	}
	return append(bytes.Clone(data[:i]), "}\n"...)
}

// swapFirstResources swaps the first two resources of a stored snapshot:
// the format (state/FORMAT.md) writes each resource on a line of its own,
// so the provider then comes after the first thing it manages.
func swapFirstResources(t *testing.T, data []byte) []byte {
	t.Helper()
	lines := bytes.Split(data, []byte("\n"))
	var at []int
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte(`{"urn":`)) && bytes.HasSuffix(l, []byte(",")) {
			at = append(at, i)
		}
	}
	if len(at) < 2 || at[1] != at[0]+1 {
		t.Fatalf("storetest: cannot find two resources on consecutive lines of the stored snapshot:\n%s", data)
	}
	lines[at[0]], lines[at[1]] = lines[at[1]], lines[at[0]]
	return bytes.Join(lines, []byte("\n"))
}

// wrongPassphrase: a client with another passphrase can neither read nor
// write the stack, and changes nothing trying.
func (s *suite) wrongPassphrase(t *testing.T) {
	stack := id("wrong-passphrase")
	st := s.open(t)
	snap := chain(1)
	snap.Resources[1].Inputs["token"] = resource.NewSecret(resource.NewString("tok-123"))
	mustSave(t, st, stack, snap)
	snapBefore, journalBefore := s.h.Snapshot(t, stack), s.h.Journal(t, stack)
	wrong := s.open(t, state.WithSecrets(state.PassphraseSecrets("not the passphrase", secrets.WithIterations(1000))))
	if _, err := wrong.Load(bg(), stack); !errors.Is(err, secrets.ErrWrongPassphrase) {
		t.Errorf("Load with a wrong passphrase = %v; want ErrWrongPassphrase", err)
	}
	if err := wrong.Save(bg(), stack, chain(1)); !errors.Is(err, secrets.ErrWrongPassphrase) {
		t.Errorf("Save with a wrong passphrase = %v; want ErrWrongPassphrase", err)
	}
	l := mustLock(t, wrong, stack)
	if j, err := wrong.OpenJournal(bg(), stack, chain(1)); !errors.Is(err, secrets.ErrWrongPassphrase) {
		t.Errorf("OpenJournal with a wrong passphrase = %v; want ErrWrongPassphrase", err)
		if j != nil {
			j.Close(bg())
		}
	}
	if err := l.Unlock(bg()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(snapBefore, s.h.Snapshot(t, stack)) || !bytes.Equal(journalBefore, s.h.Journal(t, stack)) {
		t.Error("a client with a wrong passphrase changed what the store keeps")
	}
	if got := mustLoad(t, st, stack); !cmp.Equal(snap, got, snapshotOpts) {
		t.Errorf("Load with the right passphrase = %v", names(got))
	}
}

// noSecretPlaintext: secret values are kept encrypted, in the journal as
// in the snapshot, and come back decrypted.
func (s *suite) noSecretPlaintext(t *testing.T) {
	const plain = "pl41ntext-must-not-leak"
	stack := id("secrets")
	st := s.open(t)
	mustLock(t, st, stack)
	base := chain(1)
	j := mustOpenJournal(t, st, stack, base)
	r := newThing("secretive", base.Resources[0])
	r.Inputs["password"] = resource.NewSecret(resource.NewString(plain))
	r.Outputs["nested"] = resource.NewObject(resource.PropertyMap{"x": resource.NewOutput(resource.Output{
		Known: true, Secret: true, Element: resource.NewArray(resource.NewString(plain)),
	})})
	create(t, j, r)
	check := func(when string) {
		t.Helper()
		for what, data := range map[string][]byte{"snapshot": s.h.Snapshot(t, stack), "journal": s.h.Journal(t, stack)} {
			if bytes.Contains(data, []byte(plain)) {
				t.Errorf("%s: the %s holds a secret's plaintext", when, what)
			}
		}
	}
	check("after the journal entries")
	if _, err := j.Commit(bg()); err != nil {
		t.Fatal(err)
	}
	check("after Commit")
	create(t, j, newThing("after", base.Resources[0]))
	got := mustLoad(t, s.open(t), stack)
	if v := got.Resources[2].Inputs["password"]; !v.IsSecret() || v.SecretElement().StringValue() != plain {
		t.Errorf("the secret did not come back: %v", v)
	}
	if err := j.Close(bg()); err != nil {
		t.Fatal(err)
	}
	check("after Close")
}

// listAndRemove: List names the saved stacks in order; Remove deletes a
// stack with its journal, refuses while it is locked, and reports a stack
// that is gone.
func (s *suite) listAndRemove(t *testing.T) {
	st := s.open(t)
	for _, stack := range []state.StackID{id("list-b"), id("list-a")} {
		mustSave(t, st, stack, chain(1))
	}
	// list-c has a journal left by an operation that never committed.
	other := s.open(t)
	l := mustLock(t, other, id("list-c"))
	base := chain(1)
	j := mustOpenJournal(t, other, id("list-c"), base)
	create(t, j, newThing("orphan", base.Resources[0]))
	if err := l.Unlock(bg()); err != nil {
		t.Fatal(err)
	}
	list, err := s.open(t).List(bg())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(list, state.CompareStackIDs) {
		t.Errorf("List = %v; want it sorted", list)
	}
	for _, stack := range []state.StackID{id("list-a"), id("list-b"), id("list-c")} {
		if !slices.Contains(list, stack) {
			t.Errorf("List = %v; want it to name %q", list, stack)
		}
	}
	for _, stack := range []state.StackID{id("list-b"), id("list-c")} {
		if err := st.Remove(bg(), stack); err != nil {
			t.Fatalf("Remove(%q): %v", stack, err)
		}
		if s.h.Snapshot(t, stack) != nil || s.h.Journal(t, stack) != nil {
			t.Errorf("Remove(%q) left its snapshot or journal behind", stack)
		}
		if got := mustLoad(t, s.open(t), stack); len(got.Resources) != 0 {
			t.Errorf("Load after Remove(%q) = %v; want an empty stack", stack, names(got))
		}
	}
	list, _ = st.List(bg())
	if slices.Contains(list, id("list-b")) || slices.Contains(list, id("list-c")) || !slices.Contains(list, id("list-a")) {
		t.Errorf("List after Remove = %v", list)
	}
	if err := st.Remove(bg(), id("list-b")); !errors.Is(err, state.ErrStackNotFound) {
		t.Errorf("second Remove = %v; want ErrStackNotFound", err)
	}
	mustLock(t, st, id("list-a"))
	var le *state.LockedError
	if err := s.open(t).Remove(bg(), id("list-a")); !errors.As(err, &le) {
		t.Errorf("Remove of a locked stack = %v; want *LockedError", err)
	}
	if s.h.Snapshot(t, id("list-a")) == nil {
		t.Error("a refused Remove deleted the stack")
	}
}

// badStackNames: stack and project names that are not one plain word
// are refused by every method.
func (s *suite) badStackNames(t *testing.T) {
	st := s.open(t)
	for _, name := range []string{"", "..", ".", "../x", "a/b", `a\b`, ".hidden", "-x", "x\x00", "a b", strings.Repeat("x", 101)} {
		for _, c := range []struct {
			id    state.StackID
			check func(error) bool
			want  string
		}{
			{id(name), func(err error) bool { var ne *state.StackNameError; return errors.As(err, &ne) }, "*StackNameError"},
			{state.StackID{Project: name, Stack: "dev"}, func(err error) bool { var ne *state.ProjectNameError; return errors.As(err, &ne) }, "*ProjectNameError"},
		} {
			if _, err := st.Load(bg(), c.id); !c.check(err) {
				t.Errorf("Load(%q) = %v; want %s", c.id, err, c.want)
			}
			if err := st.Save(bg(), c.id, &state.Snapshot{}); !c.check(err) {
				t.Errorf("Save(%q) = %v; want %s", c.id, err, c.want)
			}
			if l, err := st.Lock(bg(), c.id, "x"); !c.check(err) {
				t.Errorf("Lock(%q) = %v; want %s", c.id, err, c.want)
				if l != nil {
					l.Unlock(bg())
				}
			}
			if err := st.Remove(bg(), c.id); !c.check(err) {
				t.Errorf("Remove(%q) = %v; want %s", c.id, err, c.want)
			}
		}
	}
}
