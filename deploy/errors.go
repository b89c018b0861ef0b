package deploy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// refused notes err, the failure of registration reg before it has a
// step, and tells the Observer, naming the resource once its URN is
// known. What only echoes the operation's cancellation is noted, not
// told: the operation's error says it once.
func (h *Host) refused(ctx context.Context, reg *stepgen.Registration, err error) {
	h.NoteError(err)
	if reg == nil || reg.URN == "" {
		return
	}
	if ctx.Err() != nil && (errors.Is(err, ctx.Err()) || errors.Is(err, context.Cause(ctx))) {
		return
	}
	h.cfg.Observer.Refused(reg.URN, err)
}

// JoinErrors returns the error of the operation h ran, each failure said
// once: errs are the operation's errors in the order they are to read,
// the steps' failures (Wait's) and the errors the host noted (Errors)
// among them; nils are ignored. Call it once Wait has returned. Left out
// are
//
//   - the walker's skips: each repeats a failure listed already;
//   - a repeat of an error value listed already;
//   - the echo of a step's failure listed already: the
//     *monitor.ReportedError a registration was answered with, which the
//     program returned (what a resource's Wait told it). Only the echo is
//     left out of the program's error: what the program joined to it
//     (errors.Join) or wrapped around it is kept, reading as it did
//     without the echo. A program's error that wraps the echo with other
//     causes into one text (fmt.Errorf with several %w) cannot read
//     without it: it is kept whole, and the step's failure it tells is
//     the one left out of the list, carried by that error for errors.Is
//     and errors.As;
//   - a program's failure out of process whose logged causes (a method
//     LoggedCauses() []string) all repeat failures listed (see echoes);
//   - an error the host noted for a registration that another error
//     listed wraps (the program returning what its registration was
//     told).
//
// One error left reads as itself; several read as a list.
func (h *Host) JoinErrors(errs ...error) error {
	noted := h.Errors()
	return joinDistinct(errs, noted)
}

// joinDistinct joins errs into one, as JoinErrors says; registrations are
// the errors the host noted, among errs.
func joinDistinct(errs, registrations []error) error {
	// failures are the step failures listed: a refusal as it is, a
	// failure the walker reports as the *StepError wrapping it.
	failures := map[error]bool{}
	texts := map[string]bool{} // what those failures say, with or without the resource
	for _, err := range errs {
		found := false
		eachCause(err, func(e error) {
			if se, ok := e.(*StepError); ok {
				found = true
				failures[se.Err] = true
				texts[se.Err.Error()] = true
				texts[se.Error()] = true
			}
		})
		if err != nil && !found {
			failures[err] = true
		}
	}
	recorded := map[error]bool{}
	var recordedTexts []string
	for _, err := range registrations {
		var se *StepError
		if err != nil && !errors.As(err, &se) {
			recorded[err] = true
			recordedTexts = append(recordedTexts, err.Error())
		}
	}
	echo := func(err error) bool {
		re, ok := err.(*monitor.ReportedError)
		return ok && re.URN != "" && failures[re.Err]
	}
	var out []error
	seen := map[error]bool{}
	for _, err := range errs {
		if err == nil || seen[err] {
			continue
		}
		var skip *dag.SkippedError
		if errors.As(err, &skip) {
			continue
		}
		err = withoutEchoes(err, echo)
		if err == nil || seen[err] || echoes(err, texts, recordedTexts) {
			continue
		}
		seen[err] = true
		out = append(out, err)
	}
	said := map[error]bool{} // recorded failures another error wraps
	for _, err := range out {
		if recorded[err] && slices.ContainsFunc(out, func(o error) bool { return o != err && errors.Is(o, err) }) {
			said[err] = true
		}
	}
	out = slices.DeleteFunc(out, func(err error) bool { return said[err] })
	out = withoutRetold(out, echo)
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return errorList(out)
}

// withoutRetold leaves out of out the step failures that an error of
// out kept whole tells (an echo among several causes wrapped into one
// text, see withoutEchoes): that error says the failure, naming its
// resource, and goes on carrying it for errors.Is and errors.As.
func withoutRetold(out []error, echo func(error) bool) []error {
	told := map[error]int{} // a failure told, by the index of the error telling it
	for i, err := range out {
		eachCause(err, func(e error) {
			if !echo(e) {
				return
			}
			f := e.(*monitor.ReportedError).Err
			if _, ok := told[f]; !ok {
				told[f] = i
			}
		})
	}
	if len(told) == 0 {
		return out
	}
	carried := make([][]error, len(out))
	// retold reports whether e lists a failure another error tells, and
	// hands it to that error.
	retold := func(e error, at int) bool {
		f := e
		if se, ok := e.(*StepError); ok {
			f = se.Err
		}
		i, ok := told[f]
		if !ok || i == at {
			return false
		}
		carried[i] = append(carried[i], e)
		return true
	}
	kept := make([]error, 0, len(out))
	at := make([]int, 0, len(out)) // the index in out of each kept error
	for i, err := range out {
		if fs, ok := err.(*dag.Failures); ok {
			left := slices.DeleteFunc(slices.Clone(fs.Errors), func(e error) bool { return retold(e, i) })
			switch {
			case len(left) == 0:
				continue
			case len(left) < len(fs.Errors):
				err = &dag.Failures{Errors: left}
			}
		} else if retold(err, i) {
			continue
		}
		kept, at = append(kept, err), append(at, i)
	}
	for k, i := range at {
		if len(carried[i]) > 0 {
			kept[k] = &carrier{error: kept[k], also: carried[i]}
		}
	}
	return kept
}

// carrier is an error that tells step failures listed no more on their
// own: it reads as itself and wraps them too, for errors.As.
type carrier struct {
	error
	also []error
}

// Unwrap returns the error and the failures it tells.
func (c *carrier) Unwrap() []error { return append([]error{c.error}, c.also...) }

// eachCause calls f with err and every error it wraps, depth first.
func eachCause(err error, f func(error)) {
	if err == nil {
		return
	}
	f(err)
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		eachCause(u.Unwrap(), f)
	case interface{ Unwrap() []error }:
		for _, c := range u.Unwrap() {
			eachCause(c, f)
		}
	}
}

// withoutEchoes returns err without the causes echo picks out, reading as
// err did without them, or nil if nothing else is left. It looks through
// joins (errors.Join: what is left is joined again) and wrappers whose
// text holds their cause's (the cause's text is replaced by what is left
// of it). An error that holds an echo among other causes in another way
// (several causes wrapped into one text) is kept whole (withoutRetold
// then leaves out the failure's own listing).
func withoutEchoes(err error, echo func(error) bool) error {
	if echo(err) {
		return nil
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		causes := u.Unwrap()
		kept := make([]error, 0, len(causes))
		texts := make([]string, len(causes))
		changed := false
		for i, c := range causes {
			if c == nil {
				continue
			}
			texts[i] = c.Error()
			k := withoutEchoes(c, echo)
			changed = changed || k != c
			if k != nil {
				kept = append(kept, k)
			}
		}
		switch {
		case !changed:
			return err
		case len(kept) == 0:
			return nil
		case err.Error() != strings.Join(texts, "\n"):
			return err // not a join: its text cannot be told without the echo
		}
		return errors.Join(kept...)
	case interface{ Unwrap() error }:
		c := u.Unwrap()
		if c == nil {
			return err
		}
		k := withoutEchoes(c, echo)
		switch {
		case k == c:
			return err
		case k == nil:
			return nil
		}
		msg, was := err.Error(), c.Error()
		if !strings.Contains(msg, was) {
			return err
		}
		return &trimmedError{msg: strings.Replace(msg, was, k.Error(), 1), err: k}
	}
	return err
}

// trimmedError is an error that wrapped an echo among its causes, without
// it: it reads as that error did with its cause's text replaced by what
// is left of the cause, and wraps what is left.
type trimmedError struct {
	msg string
	err error
}

func (e *trimmedError) Error() string { return e.msg }

// Unwrap returns what is left of the cause.
func (e *trimmedError) Unwrap() error { return e.err }

// echoes reports whether err is a program's failure whose only causes are
// failures listed already: a program out of process (an SDK program) that
// logged the error its registration got and exited says nothing new. Such
// an error has a method LoggedCauses() []string. A cause echoes a step
// failure when it reads as one of texts, and a failure the loop recorded
// for a registration (a default provider that failed to start, say) when
// it ends with one of recorded, whatever the monitor put before it (the
// resource, the provider's package).
func echoes(err error, texts map[string]bool, recorded []string) bool {
	var logged interface{ LoggedCauses() []string }
	if !errors.As(err, &logged) {
		return false
	}
	causes := logged.LoggedCauses()
	for _, c := range causes {
		if !texts[c] && !slices.ContainsFunc(recorded, func(t string) bool { return c == t || strings.HasSuffix(c, ": "+t) }) {
			return false
		}
	}
	return len(causes) > 0
}

// errorList is several errors of one operation, read as a list.
type errorList []error

func (l errorList) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d errors:", len(l))
	for _, err := range l {
		b.WriteString("\n  - ")
		b.WriteString(strings.ReplaceAll(err.Error(), "\n", "\n    "))
	}
	return b.String()
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (l errorList) Unwrap() []error { return l }
