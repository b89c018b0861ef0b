package langhost

import (
	"context"
	"sync"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// contextHooks registers the resource hooks a program defines with the
// deployment, which runs them by calling the program back.
type contextHooks struct{ c *engine.Context }

func (h contextHooks) RegisterHook(name string, onPreview bool, run func(context.Context, resource.HookArgs) error) error {
	return h.c.RegisterHook(&engine.Hook{Name: name, OnPreview: onPreview, Run: run})
}

// shutdown is the hand-over between a program that has finished
// registering (the SDKs then call SignalAndWaitForShutdown and wait,
// serving their callbacks) and the operation: signalled is closed when the
// program says so, and the program's call returns once release is called.
type shutdown struct {
	signalled chan struct{}
	released  chan struct{}
	signal    sync.Once
	rel       sync.Once
}

func newShutdown() *shutdown {
	return &shutdown{signalled: make(chan struct{}), released: make(chan struct{})}
}

// wait is the program's SignalAndWaitForShutdown.
func (s *shutdown) wait(ctx context.Context) error {
	s.signal.Do(func() { close(s.signalled) })
	select {
	case <-s.released:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (s *shutdown) release() { s.rel.Do(func() { close(s.released) }) }
